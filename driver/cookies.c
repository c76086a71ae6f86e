// SPDX-License-Identifier: GPL-2.0
/*
 * Cookies: dcookies left the kernel in 5.12, so the driver keeps its own
 * table of pinned struct paths, each with a small id (never 0 or ~0). The
 * sync defines a cookie in-band before its first use in a stream;
 * /dev/oprofile/cookies lists "id path". The pins are dropped when the
 * buffer is closed (they keep a filesystem from being unmounted).
 */
#include <linux/dcache.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "oprof.h"

static LIST_HEAD(cookies);
static unsigned long next_cookie_id = 1;
char *path_page;
unsigned long st_cookies;

/* The cookie of path, created (pinning the path) on first use. 0: no memory. */
struct op_cookie *cookie_get(const struct path *p)
{
	struct op_cookie *c;
	char *s;

	list_for_each_entry(c, &cookies, list)
		if (c->path.dentry == p->dentry && c->path.mnt == p->mnt)
			return c;
	s = d_path(p, path_page, PAGE_SIZE);
	if (IS_ERR(s))
		return NULL;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return NULL;
	c->name = kstrdup(s, GFP_KERNEL);
	if (!c->name) {
		kfree(c);
		return NULL;
	}
	c->len = strlen(c->name);
	c->path = *p;
	path_get(&c->path);
	c->id = next_cookie_id++;
	list_add(&c->list, &cookies);
	st_cookies++;
	return c;
}

void cookies_free(void)
{
	struct op_cookie *c, *n;

	list_for_each_entry_safe(c, n, &cookies, list) {
		list_del(&c->list);
		path_put(&c->path);
		kfree(c->name);
		kfree(c);
	}
	next_cookie_id = 1;
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

const struct file_operations cookies_fops = {
	.open = cookies_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};
