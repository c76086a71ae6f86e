/* The shipper's spool (fleet_spool.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fleet_spool.h"
#include "op_alloc.h"
#include "op_escape.h"
#include "op_util.h"

#define SPOOL_MAGIC "oprofile-fleet-spool 1\n"
#define SEQ_DIGITS 20

static int fail(char *err, size_t errlen, char const *path, char const *why)
{
	char *e = op_escape(path);

	snprintf(err, errlen, "spool '%s': %s", e, why);
	free(e);
	return -1;
}

static char *entry_path(struct fleet_spool const *sp, uint64_t seq)
{
	return op_xasprintf("%s/%0*" PRIu64, sp->dir, SEQ_DIGITS, seq);
}

static int cmp_entry(void const *a, void const *b)
{
	uint64_t x = ((struct fleet_spool_entry const *)a)->seq;
	uint64_t y = ((struct fleet_spool_entry const *)b)->seq;

	return x < y ? -1 : x > y;
}

/* A name of SEQ_DIGITS digits: its number. */
static int parse_seq(char const *name, uint64_t *seq)
{
	size_t i;

	*seq = 0;
	for (i = 0; name[i]; i++) {
		if (name[i] < '0' || name[i] > '9' || i == SEQ_DIGITS)
			return -1;
		*seq = *seq * 10 + (uint64_t)(name[i] - '0');
	}
	return i == SEQ_DIGITS ? 0 : -1;
}

int fleet_spool_open(struct fleet_spool *sp, char const *dir,
		     uint64_t max_bytes, char *err, size_t errlen)
{
	struct dirent *de;
	struct stat st;
	size_t alloc = 0;
	DIR *d;
	int fd;

	memset(sp, 0, sizeof(*sp));
	if (mkdir(dir, 0700) && errno != EEXIST)
		return fail(err, errlen, dir, strerror(errno));
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode))
		return fail(err, errlen, dir, "not a directory (a symbolic link?)");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return fail(err, errlen, dir, strerror(errno));
	}
	sp->dir = op_xstrdup(dir);
	sp->max_bytes = max_bytes;
	while ((de = readdir(d))) {
		struct fleet_spool_entry e;

		if (!strncmp(de->d_name, ".tmp.", 5)) {
			/* an entry cut short by a crash */
			unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		if (parse_seq(de->d_name, &e.seq) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode))
			continue;
		e.bytes = (uint64_t)st.st_size;
		OP_ALLOC_GROW(sp->v, sp->n + 1, alloc);
		sp->v[sp->n++] = e;
		sp->bytes += e.bytes;
	}
	closedir(d);
	if (sp->n)
		qsort(sp->v, sp->n, sizeof(*sp->v), cmp_entry);
	return 0;
}

void fleet_spool_close(struct fleet_spool *sp)
{
	free(sp->dir);
	free(sp->v);
	memset(sp, 0, sizeof(*sp));
}

void fleet_spool_remove(struct fleet_spool *sp, size_t i)
{
	char *p;

	if (i >= sp->n)
		return;
	p = entry_path(sp, sp->v[i].seq);
	unlink(p);
	free(p);
	sp->bytes -= sp->v[i].bytes;
	memmove(sp->v + i, sp->v + i + 1, (sp->n - i - 1) * sizeof(*sp->v));
	sp->n--;
}

/* The oldest entry's session id, told to drop before it goes. */
static void tell_drop(struct fleet_spool const *sp, fleet_spool_drop_fn *drop,
		      void *arg)
{
	struct fleet_spool_data d;
	char err[512], *e;

	if (fleet_spool_read(sp, 0, &d, err, sizeof(err))) {
		drop(arg, "(a damaged entry)", sp->v[0].bytes, 0);
		return;
	}
	e = op_escape(d.session_id.p);
	drop(arg, e, sp->v[0].bytes, 0);
	free(e);
	fleet_spool_data_free(&d);
}

int fleet_spool_add(struct fleet_spool *sp, char const *session_id,
		    struct fleet_buf const *samples,
		    struct fleet_buf const *stacks,
		    struct fleet_buf const *manifest, uint64_t *dropped,
		    fleet_spool_drop_fn *drop, void *drop_arg,
		    char *err, size_t errlen)
{
	struct fleet_buf head = { 0 };
	struct fleet_buf const *blocks[3] = { samples, stacks, manifest };
	uint64_t seq = sp->n ? sp->v[sp->n - 1].seq + 1 : 1, size;
	char *tmp, *path;
	size_t alloc;
	int fd, i, ret = 0;

	fleet_buf_puts(&head, SPOOL_MAGIC);
	fleet_tsv_str(&head, session_id);
	fleet_buf_printf(&head, "\n%zu %zu %zu\n", samples->len, stacks->len,
			 manifest->len);
	size = head.len + samples->len + stacks->len + manifest->len;
	if (size > sp->max_bytes) {
		/* alone larger than the bound: dropped, the others kept */
		fleet_buf_free(&head);
		(*dropped)++;
		if (drop) {
			char *e = op_escape(session_id);

			drop(drop_arg, e, size, 1);
			free(e);
		}
		return 0;
	}
	while (sp->n && sp->bytes + size > sp->max_bytes) {
		if (drop)
			tell_drop(sp, drop, drop_arg);
		fleet_spool_remove(sp, 0);
		(*dropped)++;
	}
	tmp = op_xasprintf("%s/.tmp.%0*" PRIu64, sp->dir, SEQ_DIGITS, seq);
	path = entry_path(sp, seq);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST && !unlink(tmp))
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = fail(err, errlen, tmp, strerror(errno));
		goto out;
	}
	if (op_write_full(fd, head.p, head.len) < 0)
		ret = -1;
	for (i = 0; i < 3 && !ret; i++)
		if (blocks[i]->len &&
		    op_write_full(fd, blocks[i]->p, blocks[i]->len) < 0)
			ret = -1;
	if (!ret && fsync(fd))
		ret = -1;
	if (ret)
		fail(err, errlen, tmp, strerror(errno));
	close(fd);
	if (!ret && rename(tmp, path))
		ret = fail(err, errlen, path, strerror(errno));
	if (ret) {
		unlink(tmp);
		goto out;
	}
	alloc = sp->n;
	OP_ALLOC_GROW(sp->v, sp->n + 1, alloc);
	sp->v[sp->n].seq = seq;
	sp->v[sp->n].bytes = size;
	sp->n++;
	sp->bytes += size;
out:
	free(tmp);
	free(path);
	fleet_buf_free(&head);
	return ret;
}

void fleet_spool_data_free(struct fleet_spool_data *d)
{
	free(d->text);
	fleet_buf_free(&d->session_id);
	memset(d, 0, sizeof(*d));
}

int fleet_spool_read(struct fleet_spool const *sp, size_t i,
		     struct fleet_spool_data *d, char *err, size_t errlen)
{
	char *path = entry_path(sp, sp->v[i].seq), why[256];
	char const *p, *end;
	unsigned long long len[3];
	size_t total = 0;
	int k, n;

	memset(d, 0, sizeof(*d));
	d->text = op_read_file(path, sp->max_bytes + 1, &d->len, why, sizeof(why));
	if (!d->text) {
		fail(err, errlen, path, why);
		goto bad;
	}
	end = d->text + d->len;
	if (d->len < strlen(SPOOL_MAGIC) ||
	    memcmp(d->text, SPOOL_MAGIC, strlen(SPOOL_MAGIC))) {
		fail(err, errlen, path, "not a spool entry");
		goto bad;
	}
	p = d->text + strlen(SPOOL_MAGIC);
	if (fleet_tsv_field(&p, end, &d->session_id) || !d->session_id.len ||
	    sscanf(p, "%llu %llu %llu\n%n", &len[0], &len[1], &len[2], &n) != 3) {
		fail(err, errlen, path, "a damaged header");
		goto bad;
	}
	p += n;
	for (k = 0; k < 3; k++)
		total += len[k];
	if (total != (size_t)(end - p) || len[2] == 0) {
		fail(err, errlen, path, "its blocks do not add up to its size");
		goto bad;
	}
	for (k = 0; k < 3; k++) {
		d->block[k] = p;
		d->block_len[k] = len[k];
		p += len[k];
	}
	free(path);
	return 0;
bad:
	free(path);
	fleet_spool_data_free(d);
	return -1;
}
