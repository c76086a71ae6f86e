// SPDX-License-Identifier: GPL-2.0
/*
 * Cookies: dcookies left the kernel in 5.12, so the driver keeps its own
 * table of pinned struct paths, each with a small id (never 0 or ~0). The
 * sync defines a cookie in-band before its first use in a stream;
 * /dev/oprofile/cookies lists "id path".
 *
 * A cookie unused for OP_COOKIE_IDLE is freed at the end of a sync (its pin
 * dropped): nothing outside the sync holds a cookie (the rings hold files
 * and address ranges, resolved to cookies only by the sync), so the table
 * holds what was sampled lately, not everything a week-long session ever
 * sampled (every forked JIT's anonymous regions). Ids are never reused
 * within a stream: the same path or region sampled again later gets a
 * fresh id and a new definition. A freed cookie that was defined in the
 * stream is forgotten there too (ESC COOKIE_FORGET), so the daemon's
 * definitions stay as few as the table's. The rest goes when the buffer
 * is closed.
 */
#include <linux/dcache.h>
#include <linux/hashtable.h>
#include <linux/jiffies.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cookies.h"
#include "oprof.h"

static LIST_HEAD(cookies);             /* least recently used first */
static DEFINE_HASHTABLE(cookie_hash, 10); /* by dentry: one lookup per user sample */
static unsigned long next_cookie_id = 1;
static char *path_page;                /* d_path's room */

int op_cookies_alloc(void)
{
	path_page = (char *)__get_free_page(GFP_KERNEL);
	return path_page ? 0 : -ENOMEM;
}

/*
 * A new cookie named name, with the next id, in the list and hashed under
 * key; the caller fills in what it stands for. NULL: no memory.
 */
static struct op_cookie *cookie_new(char const *name, unsigned long key)
{
	struct op_cookie *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return NULL;
	c->name = kstrdup(name, GFP_KERNEL);
	if (!c->name) {
		kfree(c);
		return NULL;
	}
	c->len = strlen(c->name);
	c->id = next_cookie_id++;
	c->last_used = jiffies;
	list_add_tail(&c->list, &cookies);
	hash_add(cookie_hash, &c->hash, key);
	op_stats.cookies++;
	op_stats.cookies_live++;
	op_stats.cookie_bytes += sizeof(*c) + c->len + 1;
	return c;
}

/* c was looked up: the most recently used. */
static struct op_cookie *cookie_used(struct op_cookie *c)
{
	c->last_used = jiffies;
	list_move_tail(&c->list, &cookies);
	return c;
}

static void cookie_free(struct op_cookie *c)
{
	list_del(&c->list);
	hash_del(&c->hash);
	if (!c->anon)
		path_put(&c->path);
	op_stats.cookies_live--;
	op_stats.cookie_bytes -= sizeof(*c) + c->len + 1;
	kfree(c->name);
	kfree(c);
}

/* Free the cookies unused for OP_COOKIE_IDLE. op_mutex held, at the end of
 * a sync, when no sample being synced holds one. */
void op_cookies_expire(bool (*forget)(struct op_cookie const *c))
{
	struct op_cookie *c, *n;

	list_for_each_entry_safe(c, n, &cookies, list) {
		if (!time_after(jiffies, c->last_used + OP_COOKIE_IDLE))
			break;          /* the rest were used later */
		if (c->defined && !forget(c))
			break;          /* the event buffer is full */
		cookie_free(c);
		op_stats.cookies_freed++;
	}
}

/* The cookie of path, created (pinning the path) on first use. NULL: no
 * memory, or no name. */
struct op_cookie *op_cookie_get(const struct path *p)
{
	unsigned long key = (unsigned long)p->dentry;
	struct op_cookie *c;
	char *s;

	hash_for_each_possible(cookie_hash, c, hash, key)
		if (!c->anon && c->path.dentry == p->dentry && c->path.mnt == p->mnt)
			return cookie_used(c);
	/* a longer name than the stream carries is ENAMETOOLONG */
	s = d_path(p, path_page, min_t(int, PAGE_SIZE, OP_MAX_NAME + 1));
	if (IS_ERR(s))
		return NULL;
	c = cookie_new(s, key);
	if (c) {
		c->path = *p;
		path_get(&c->path);
	}
	return c;
}

/*
 * The cookie of an anonymous region (no file: heap, stack, JIT code, the
 * vDSO) of process tgid, created on first use; samples in it are offsets
 * from start, as the perf source's regions. NULL: no memory.
 */
struct op_cookie *op_anon_cookie_get(pid_t tgid, unsigned long start,
				     unsigned long end, char const *name)
{
	unsigned long key = start ^ ((unsigned long)tgid << 12);
	struct op_cookie *c;

	hash_for_each_possible(cookie_hash, c, hash, key)
		if (c->anon && c->tgid == tgid && c->start == start && c->end == end)
			return cookie_used(c);
	c = cookie_new(name, key);
	if (c) {
		c->anon = true;
		c->tgid = tgid;
		c->start = start;
		c->end = end;
	}
	return c;
}

void op_cookies_free(void)
{
	struct op_cookie *c, *n;

	list_for_each_entry_safe(c, n, &cookies, list)
		cookie_free(c);
	next_cookie_id = 1;
	free_page((unsigned long)path_page);
	path_page = NULL;
}

static int cookies_show(struct seq_file *m, void *v)
{
	struct op_cookie *c;

	mutex_lock(&op_mutex);
	list_for_each_entry(c, &cookies, list)
		seq_printf(m, "%lu %s\n", c->id, c->name);
	mutex_unlock(&op_mutex);
	return 0;
}

static int cookies_open(struct inode *inode, struct file *file)
{
	return single_open(file, cookies_show, NULL);
}

const struct file_operations op_cookies_fops = {
	.open = cookies_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};
