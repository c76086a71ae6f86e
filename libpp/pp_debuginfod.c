/*
 * The last step of finding a debug file (pp_debuginfo.h): libdebuginfod's
 * client, held to limits. A server's answer is input like any file: one
 * that accepts and never answers, trickles, or sends gigabytes must not
 * hold a report up or fill the disk, and what it sends is checked before
 * it is used.
 *
 * libdebuginfod (0.188, Debian 12) bounds little of this by itself: its
 * DEBUGINFOD_TIMEOUT (default 90 s) aborts a transfer slower than
 * 100 KiB/s for that long and then retries it twice, DEBUGINFOD_MAXTIME
 * restarts with each retry, DEBUGINFOD_MAXSIZE is checked against a
 * Content-Length only, and none has a limit unless the user sets it. Its
 * progress callback, called about once a second, enforces ours from the
 * start of the lookup, with the same variables and meanings as elfutils'
 * client (debuginfod-client-config(7)) and defaults of our own:
 *
 *   DEBUGINFOD_TIMEOUT  s: at least 100 KiB within it         (default 30)
 *   DEBUGINFOD_MAXTIME  s: the whole download within it       (default 120)
 *   DEBUGINFOD_MAXSIZE  bytes: at most this much              (256 MiB)
 *
 * (0 or less: no limit.) After a time limit, debuginfod is not asked again
 * in this process: the next lookup would wait as long. A file it returns
 * that is not an ELF debug file with the wanted build-id is removed from
 * its cache, so it is not used again. Its cache is read before the lookup
 * (libdebuginfod opens an entry with a plain open(2)): an entry that is a
 * FIFO, a device or a symbolic link stops the lookup instead of hanging it
 * or sending its writes elsewhere.
 */
#include "config.h"

#include <elfutils/debuginfod.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_escape.h"
#include "op_message.h"
#include "op_util.h"
#include "pp_debugfile.h"
#include "pp_debuginfo.h"
#include "pp_debuginfod.h"

#define DEFAULT_TIMEOUT 30                 /* s */
#define DEFAULT_MAXTIME 120                /* s */
#define DEFAULT_MAXSIZE (256L << 20)       /* bytes */
#define COMMENCE_BYTES (100L * 1024)       /* within DEBUGINFOD_TIMEOUT */

struct limits {
	long timeout;   /* s: COMMENCE_BYTES by then; 0: none */
	long maxtime;   /* s: the whole download by then; 0: none */
	long maxsize;   /* bytes; 0: none */
};

enum over { OVER_NONE, OVER_TIMEOUT, OVER_MAXTIME, OVER_MAXSIZE };

/* One lookup, for the progress callback. */
struct fetch {
	struct limits const *lim;
	uint64_t start;   /* op_monotonic_ns() when the lookup began */
	enum over over;   /* the limit that stopped it */
};

/* a time limit was hit: the servers are not asked again by this process */
static bool given_up;

/* The limit in variable name: def when unset, empty or not a number. */
static long env_limit(char const *name, long def)
{
	char const *s = getenv(name);
	char *end;
	long v;

	if (!s || !s[0])
		return def;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s) {
		char *e = op_escape(s);

		op_warn("%s '%s' is not a number: %ld used", name, e, def);
		free(e);
		return def;
	}
	return v > 0 ? v : 0;
}

static struct limits const *limits(void)
{
	static struct limits l;
	static bool read;

	if (!read) {
		l.timeout = env_limit("DEBUGINFOD_TIMEOUT", DEFAULT_TIMEOUT);
		l.maxtime = env_limit("DEBUGINFOD_MAXTIME", DEFAULT_MAXTIME);
		l.maxsize = env_limit("DEBUGINFOD_MAXSIZE", DEFAULT_MAXSIZE);
		read = true;
	}
	return &l;
}

static bool past(uint64_t ns, long s)
{
	return s && ns / 1000000000u >= (uint64_t)s;
}

/* a: bytes so far once a server has begun to send (it has a URL then),
 * before that a count of calls; b: the announced size, or 0 or -1 */
static int progress(debuginfod_client *c, long a, long b)
{
	struct fetch *f = debuginfod_get_user_data(c);
	struct limits const *l = f->lim;
	long got = debuginfod_get_url(c) ? a : 0;
	uint64_t ns = op_monotonic_ns() - f->start;

	if (l->maxsize && (got > l->maxsize || b > l->maxsize))
		f->over = OVER_MAXSIZE;
	else if (past(ns, l->maxtime))
		f->over = OVER_MAXTIME;
	else if (past(ns, l->timeout) && got < COMMENCE_BYTES)
		f->over = OVER_TIMEOUT;
	return f->over != OVER_NONE;
}

/* libdebuginfod's cache directory, found as it finds it */
static char *cache_dir(void)
{
	char const *env = getenv("DEBUGINFOD_CACHE_PATH");
	char const *home = getenv("HOME");
	char const *xdg = getenv("XDG_CACHE_HOME");
	struct stat st;
	char *old;

	if (env && env[0])
		return op_xstrdup(env);
	old = op_xasprintf("%s/.debuginfod_client_cache", home ? home : "/");
	if (!stat(old, &st))
		return old;
	free(old);
	if (xdg && xdg[0])
		return op_xasprintf("%s/debuginfod_client", xdg);
	return op_xasprintf("%s/.cache/debuginfod_client", home ? home : "/");
}

static char const *kind_name(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "a regular file";
	case S_IFDIR: return "a directory";
	case S_IFLNK: return "a symbolic link";
	case S_IFIFO: return "a FIFO";
	case S_IFSOCK: return "a socket";
	default: return "a device";
	}
}

/*
 * path, when it exists, is of type want (S_IFREG, S_IFDIR); else warned.
 * hex: the build-id it is for; NULL: every lookup uses it.
 */
static bool entry_ok(char const *path, mode_t want, char const *hex)
{
	struct stat st;

	if (lstat(path, &st) || (st.st_mode & S_IFMT) == want)
		return true;
	if (hex)
		op_warn("debuginfod cache entry '%s' is %s, not %s: debuginfod "
			"not asked for build-id %s", path, kind_name(st.st_mode),
			kind_name(want), hex);
	else
		op_warn("debuginfod cache entry '%s' is %s, not %s: debuginfod "
			"not asked in this run", path, kind_name(st.st_mode),
			kind_name(want));
	op_hint("remove it, or set DEBUGINFOD_CACHE_PATH to another directory");
	return false;
}

/* What libdebuginfod 0.188 opens in its cache for build-id hex. */
static bool cache_ok(char const *hex)
{
	static char const *const control[] = {
		"cache_clean_interval_s", "max_unused_age_s", "cache_miss_s",
	};
	char *dir = cache_dir(), *p;
	bool ok = true;

	for (size_t i = 0; i < OP_ARRAY_SIZE(control) && ok; i++) {
		p = op_xasprintf("%s/%s", dir, control[i]);
		ok = entry_ok(p, S_IFREG, NULL);
		given_up = !ok;
		free(p);
	}
	if (ok) {
		p = op_xasprintf("%s/%s", dir, hex);
		ok = entry_ok(p, S_IFDIR, hex);
		free(p);
	}
	if (ok) {
		p = op_xasprintf("%s/%s/debuginfo", dir, hex);
		ok = entry_ok(p, S_IFREG, hex);
		free(p);
	}
	free(dir);
	return ok;
}

/*
 * libdebuginfod remembers a lookup we stopped as a miss (an empty file,
 * for cache_miss_s): forget it, or raising the limit that stopped it
 * would find nothing until then.
 */
static void forget_miss(char const *hex)
{
	char *dir = cache_dir();
	char *p = op_xasprintf("%s/%s/debuginfo", dir, hex);
	struct stat st;

	if (!lstat(p, &st) && S_ISREG(st.st_mode) && !st.st_size &&
	    !unlink(p)) {
		*strrchr(p, '/') = '\0';
		rmdir(p);
	}
	free(p);
	free(dir);
}

/* Why the lookup of hex failed, when it was a limit (rc: its -errno). */
static void tell_failure(char const *hex, struct fetch const *f, int rc)
{
	struct limits const *l = f->lim;
	char const *more = "; debuginfod is not asked again in this run";

	if (f->over == OVER_MAXSIZE) {
		op_warn("cannot fetch the debug file of build-id %s from "
			"debuginfod: larger than %ld bytes (DEBUGINFOD_MAXSIZE)",
			hex, l->maxsize);
		return;
	}
	/* libdebuginfod's own check of a Content-Length, or a server's 406 */
	if (rc == -EFBIG) {
		op_warn("cannot fetch the debug file of build-id %s from "
			"debuginfod: too large (DEBUGINFOD_MAXSIZE)", hex);
		return;
	}
	if (f->over == OVER_MAXTIME)
		op_warn("cannot fetch the debug file of build-id %s from "
			"debuginfod: not complete in %ld s (DEBUGINFOD_MAXTIME)%s",
			hex, l->maxtime, more);
	else if (f->over == OVER_TIMEOUT)
		op_warn("cannot fetch the debug file of build-id %s from "
			"debuginfod: less than 100 KiB in %ld s "
			"(DEBUGINFOD_TIMEOUT)%s", hex, l->timeout, more);
	else if (rc == -ETIME)
		op_warn("cannot fetch the debug file of build-id %s from "
			"debuginfod: timed out (DEBUGINFOD_TIMEOUT, "
			"DEBUGINFOD_MAXTIME)%s", hex, more);
	else
		return;
	given_up = true;
}

/* Take path out of the cache, and its build-id directory when empty. */
static void uncache(char *path)
{
	char *slash;

	if (unlink(path)) {
		op_warn_errno("cannot remove '%s' from debuginfod's cache", path);
		return;
	}
	op_warn("removed '%s' from debuginfod's cache", path);
	slash = strrchr(path, '/');
	if (slash) {
		*slash = '\0';
		rmdir(path);
		*slash = '/';
	}
}

/* The file libdebuginfod returned (fd open on path), checked; NULL if bad. */
static char *checked(struct pp_build_id const *id, struct fetch const *f,
		     int fd, char *path)
{
	struct stat st, lst;
	bool regular = !fstat(fd, &st) && S_ISREG(st.st_mode) &&
		       !lstat(path, &lst) && S_ISREG(lst.st_mode) &&
		       st.st_dev == lst.st_dev && st.st_ino == lst.st_ino;
	char hex[2 * PP_BUILD_ID_MAX + 1];

	close(fd);
	if (!regular) {
		op_warn("debug file '%s' from debuginfod not used: not a "
			"regular file", path);
		free(path);
		return NULL;
	}
	/* the last read can finish a download past the limit it crossed */
	if (f->over == OVER_MAXSIZE) {
		pp_build_id_hex(id, hex);
		tell_failure(hex, f, 0);
	} else if (pp_debug_file_usable(path, id, NULL, true)) {
		return path;
	}
	uncache(path);
	free(path);
	return NULL;
}

char *pp_debuginfod_fetch(struct pp_build_id const *id)
{
	char const *urls = getenv("DEBUGINFOD_URLS");
	char hex[2 * PP_BUILD_ID_MAX + 1];
	struct fetch f = { .lim = limits(), .over = OVER_NONE };
	debuginfod_client *c;
	char *path = NULL;
	int fd;

	if (!urls || !urls[0] || !id->len || given_up)
		return NULL;
	pp_build_id_hex(id, hex);
	if (!cache_ok(hex))
		return NULL;
	c = debuginfod_begin();
	if (!c)
		return NULL;
	debuginfod_set_user_data(c, &f);
	debuginfod_set_progressfn(c, progress);
	f.start = op_monotonic_ns();
	fd = debuginfod_find_debuginfo(c, id->v, (int)id->len, &path);
	debuginfod_end(c);
	if (fd < 0) {
		if (f.over != OVER_NONE)
			forget_miss(hex);
		tell_failure(hex, &f, fd);
		free(path);
		return NULL;
	}
	return checked(id, &f, fd, path);
}
