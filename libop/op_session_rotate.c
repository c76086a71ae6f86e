/*
 * Sessions by time: names, listing, disk usage and retention (see
 * op_session_rotate.h).
 */
#define _GNU_SOURCE	/* timegm */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_file.h"
#include "op_message.h"
#include "op_session.h"
#include "op_session_kv.h"
#include "op_session_rotate.h"
#include "op_session_settings.h"
#include "op_util.h"
#include "op_walk.h"

void op_rotate_name(time_t t, uint64_t interval, char *buf, size_t size)
{
	struct tm tm;
	char const *fmt = interval % 3600 == 0 ? "%Y-%m-%dT%H" :
			  interval % 60 == 0 ? "%Y-%m-%dT%H:%M" :
			  "%Y-%m-%dT%H:%M:%S";

	gmtime_r(&t, &tm);
	if (!strftime(buf, size, fmt, &tm) && size)
		buf[0] = '\0';
}

/* n decimal digits at *p into *v; advances *p. */
static bool digits(char const **p, int n, int *v)
{
	*v = 0;
	for (int i = 0; i < n; i++, (*p)++) {
		if (**p < '0' || **p > '9')
			return false;
		*v = *v * 10 + (**p - '0');
	}
	return true;
}

/* ".N" (N >= 2) to the end. */
static bool copy_suffix(char const *p)
{
	char *end;

	if (*p != '.' || p[1] < '1' || p[1] > '9')
		return false;
	strtoul(p + 1, &end, 10);
	return !*end;
}

/* Parse YYYY-MM-DD[THH[:MM[:SS]]]; *has_t when the 'T' part is there;
 * *rest points after what was read. */
static bool parse_stamp(char const *text, time_t *t, bool *has_t,
			char const **rest)
{
	struct tm tm = { 0 };
	char const *p = text;
	int y, mo, d, h = 0, mi = 0, s = 0;

	*has_t = false;
	if (!digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) ||
	    *p++ != '-' || !digits(&p, 2, &d))
		return false;
	if (*p == 'T') {
		p++;
		*has_t = true;
		if (!digits(&p, 2, &h))
			return false;
		if (*p == ':') {
			p++;
			if (!digits(&p, 2, &mi))
				return false;
			if (*p == ':') {
				p++;
				if (!digits(&p, 2, &s))
					return false;
			}
		}
	}
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
		return false;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = s;
	*t = timegm(&tm);
	*rest = p;
	return true;
}

bool op_rotate_parse_time(char const *text, bool suffix, time_t *t)
{
	char const *rest;
	bool has_t;

	if (!parse_stamp(text, t, &has_t, &rest))
		return false;
	return !*rest || (suffix && copy_suffix(rest));
}

bool op_rotate_is_name(char const *name, time_t *t)
{
	char const *rest;
	bool has_t;

	return parse_stamp(name, t, &has_t, &rest) && has_t &&
	       (!*rest || copy_suffix(rest));
}

int op_rotate_mark(char const *session_dir, char const *name, time_t end)
{
	char *dir = op_session_samples(session_dir, name);
	char *path = op_session_path(dir, OP_SESSION_CONF);
	struct op_kv kv;
	char buf[32];
	int ret = op_kv_read(&kv, path);

	if (ret == 0) {
		op_kv_set(&kv, OP_ROTATED_KEY, name);
		if (end) {
			snprintf(buf, sizeof(buf), "%lld", (long long)end);
			op_kv_set(&kv, "end_time", buf);
		}
		ret = op_kv_write(&kv, path);
		op_kv_free(&kv);
	}
	free(path);
	free(dir);
	return ret;
}

/* Whether samples/NAME carries the mark of its own rotation. Any doubt
 * (no session.conf, a link, a FIFO, a huge file) is "no": retention then
 * keeps the session, which errs on the safe side. */
static bool is_marked(char const *samples, char const *name)
{
	char *conf = op_xasprintf("%s/%s/%s", samples, name, OP_SESSION_CONF);
	struct op_kv kv;
	char const *v;
	bool yes = false;

	if (op_kv_read(&kv, conf) == 0) {
		v = op_kv_get(&kv, OP_ROTATED_KEY);
		yes = v && !strcmp(v, name);
		op_kv_free(&kv);
	}
	free(conf);
	return yes;
}

static int rotated_cmp(void const *a, void const *b)
{
	struct op_rotated const *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return strcmp(x->name, y->name);
}

struct rotated_list {
	char const *samples;
	struct op_rotated **v;
	size_t *n;
	size_t alloc;
};

static int add_rotated(void *arg, struct op_walk_entry const *e)
{
	struct rotated_list *l = arg;
	time_t t;

	if (!op_rotate_is_name(e->name, &t) || !is_marked(l->samples, e->name))
		return 0;
	OP_ALLOC_GROW(*l->v, *l->n + 1, l->alloc);
	(*l->v)[*l->n].name = op_xstrdup(e->name);
	(*l->v)[(*l->n)++].t = t;
	return 0;
}

int op_rotated_list(char const *session_dir, struct op_rotated **v, size_t *n)
{
	char *samples = op_session_path(session_dir, OP_SAMPLES_DIR);
	struct rotated_list l = { samples, v, n, 0 };

	*v = NULL;
	*n = 0;
	if (op_walk(samples, 0, add_rotated, NULL, &l) < 0) {
		int ret = errno == ENOENT ? 0 :
			op_error_errno("cannot open '%s'", samples);

		free(samples);
		return ret;
	}
	free(samples);
	if (*n)
		qsort(*v, *n, sizeof(**v), rotated_cmp);
	return 0;
}

void op_rotated_free(struct op_rotated *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

static uint64_t usage_sum;

static int usage_entry(char const *path, struct stat const *st, int flag,
		       struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (flag == FTW_F && st->st_nlink)
		usage_sum += (uint64_t)st->st_blocks * 512 / st->st_nlink;
	else if (flag == FTW_D)
		usage_sum += (uint64_t)st->st_blocks * 512;
	return 0;
}

uint64_t op_session_disk_usage(char const *dir)
{
	usage_sum = 0;
	nftw(dir, usage_entry, 16, FTW_PHYS);
	return usage_sum;
}

/* A session being removed is first renamed to this prefix + its name:
 * it leaves the listing at once, and a removal cut short (a crash, a
 * kill) is finished by the next retention, at the latest at the next
 * start. */
#define REMOVING_PREFIX ".removing-"

/* Remove name below dirfd and all it holds, never following a symbolic
 * link: every step is relative to an open directory. 0 or -errno. */
static int remove_at(int dirfd, char const *name)
{
	struct dirent *de;
	DIR *d;
	int fd, rc = 0;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOTDIR || errno == ELOOP)
			return unlinkat(dirfd, name, 0) < 0 && errno != ENOENT ?
				-errno : 0;
		return errno == ENOENT ? 0 : -errno;
	}
	d = fdopendir(fd);
	if (!d) {
		rc = -errno;
		close(fd);
		return rc;
	}
	while ((de = readdir(d))) {
		int r;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN)
			r = remove_at(fd, de->d_name);
		else
			r = unlinkat(fd, de->d_name, 0) < 0 && errno != ENOENT ?
				-errno : 0;
		if (r && !rc)
			rc = r;
	}
	closedir(d);
	if (!rc && unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		rc = -errno;
	return rc;
}

/* samples/ of session_dir opened (guarded: op_file.h), or -1. */
static int open_samples(char const *session_dir)
{
	char *samples = op_session_samples(session_dir, "");
	int fd = op_open_safe(samples, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);

	if (fd < 0)
		op_error("cannot open '%s': %s", samples, op_file_strerror(errno));
	free(samples);
	return fd;
}

/* Remove samples/NAME (renamed first, see REMOVING_PREFIX), saying why.
 * 0 or -1. */
static int remove_rotated(int samples_fd, char const *session_dir,
			  char const *name, char const *why)
{
	char gone[NAME_MAX + 1];
	int rc;

	if ((size_t)snprintf(gone, sizeof(gone), REMOVING_PREFIX "%s", name) >=
	    sizeof(gone))
		return op_error("session name '%s' too long to remove", name), -1;
	if (renameat(samples_fd, name, samples_fd, gone) < 0)
		return op_error_errno("cannot remove session '%s' of '%s'", name,
				      session_dir), -1;
	rc = remove_at(samples_fd, gone);
	if (rc)
		return op_error("cannot remove session '%s' of '%s': %s", name,
				session_dir, op_file_strerror(-rc)), -1;
	op_info("retention: removed session '%s' (%s)", name, why);
	return 0;
}

/* Finish the removals a crash cut short. */
static void finish_removals(int samples_fd, char const *session_dir)
{
	size_t n = strlen(REMOVING_PREFIX);
	struct dirent *de;
	int fd = dup(samples_fd);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		int rc;

		if (strncmp(de->d_name, REMOVING_PREFIX, n))
			continue;
		rc = remove_at(samples_fd, de->d_name);
		if (rc)
			op_error("cannot remove '%s' of '%s': %s", de->d_name,
				 session_dir, op_file_strerror(-rc));
		else
			op_info("retention: finished removing session '%s' "
				"(cut short before)", de->d_name + n);
	}
	closedir(d);
}

int op_rotate_retain(char const *session_dir, time_t now, uint64_t keep,
		     uint64_t keep_bytes)
{
	struct op_rotated *v;
	uint64_t *size, total = 0;
	size_t n, i = 0;
	char why[160], text[32];
	int removed = 0, ret = 0, samples_fd;

	if (!keep && !keep_bytes)
		return 0;
	samples_fd = open_samples(session_dir);
	if (samples_fd < 0)
		return -1;
	finish_removals(samples_fd, session_dir);
	if (op_rotated_list(session_dir, &v, &n) < 0) {
		close(samples_fd);
		return 0;
	}
	op_settings_duration_text(keep ? keep : 1, text, sizeof(text));
	/* by age: a session ended when the next began (so never the newest) */
	for (; keep && i + 1 < n && (uint64_t)(now - v[i + 1].t) > keep; i++) {
		snprintf(why, sizeof(why), "ended more than --keep=%s ago", text);
		if (remove_rotated(samples_fd, session_dir, v[i].name, why) < 0)
			ret = -1;
		else
			removed++;
	}
	size = op_xcalloc(n + 1, sizeof(*size));
	for (size_t j = i; keep_bytes && j < n; j++) {
		char *dir = op_session_samples(session_dir, v[j].name);

		size[j] = op_session_disk_usage(dir);
		total += size[j];
		free(dir);
	}
	/* the newest stays whatever its size: it may be the one just saved */
	for (; keep_bytes && i + 1 < n && total > keep_bytes; i++) {
		snprintf(why, sizeof(why), "rotated sessions took %llu bytes, over --keep-size=%llu",
			 (unsigned long long)total, (unsigned long long)keep_bytes);
		if (remove_rotated(samples_fd, session_dir, v[i].name, why) < 0) {
			ret = -1;
			continue;
		}
		total -= size[i];
		removed++;
	}
	free(size);
	op_rotated_free(v, n);
	close(samples_fd);
	return ret < 0 ? -1 : removed;
}
