/*
 * The session directory, its lock, reset and save on disk, and the driver
 * directory (see op_session.h). oprofiled uses them while it runs,
 * opcontrol when it does not, so the lock protocol and the on-disk
 * "reset" and "save" exist once.
 */
#define _GNU_SOURCE	/* nftw, O_CLOEXEC, ... also without config.h (fuzz builds) */

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_file.h"
#include "op_message.h"
#include "op_session.h"
#include "op_util.h"
#include "op_walk.h"

char *op_session_path(char const *dir, char const *rel)
{
	size_t n = strlen(dir) + strlen(rel) + 2;
	char *p = op_xmalloc(n);

	snprintf(p, n, "%s/%s", dir, rel);
	return p;
}

char *op_session_samples(char const *session_dir, char const *name)
{
	size_t n = strlen(session_dir) + strlen(OP_SAMPLES_DIR) + strlen(name) + 3;
	char *p = op_xmalloc(n);

	snprintf(p, n, "%s/%s/%s", session_dir, OP_SAMPLES_DIR, name);
	return p;
}

ssize_t op_session_read_small(char const *path, char *buf, size_t size)
{
	/* a FIFO at the lock or an answer file must not stall opcontrol */
	int fd = op_open_regular(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = op_read_full(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* Create tmp (O_EXCL) holding data; 0 or -1 with errno set. */
static int create_with(char const *tmp, void const *data, size_t len)
{
	int fd, err;

	unlink(tmp);
	fd = op_open_safe(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (op_write_full(fd, data, len) < 0 || close(fd) < 0) {
		err = errno;
		close(fd);
		unlink(tmp);
		errno = err;
		return -1;
	}
	return 0;
}

static char *tmp_name(char const *path)
{
	size_t n = strlen(path) + 32;
	char *p = op_xmalloc(n);

	snprintf(p, n, "%s.tmp.%ld", path, (long)getpid());
	return p;
}

/*
 * On a full disk no temporary file can be made, but a small file that
 * exists can still be overwritten in place: its block is already there.
 */
int op_session_write_text(char const *path, char const *text)
{
	size_t len = strlen(text);
	char err[1024];

	if (op_write_file_atomic(path, text, len, err, sizeof(err)) == 0)
		return 0;
	if ((errno != ENOSPC && errno != EDQUOT) ||
	    op_rewrite_in_place(path, text, len, err, sizeof(err)))
		return op_error("%s", err);
	return 0;
}

/*
 * mkdir -p for one level: dir must end up an existing directory. Inside
 * the session (inner), a symbolic link is refused: it could send the
 * whole session elsewhere.
 */
static int make_dir(char const *dir, bool inner)
{
	struct stat st;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return op_error_errno("cannot create session directory '%s'",
				      dir);
	if ((inner ? lstat(dir, &st) : stat(dir, &st)) < 0)
		return op_error_errno("cannot access session directory '%s'",
				      dir);
	if (S_ISLNK(st.st_mode))
		return op_error("session directory '%s' is a symbolic link: refusing to follow it",
				dir);
	if (!S_ISDIR(st.st_mode))
		return op_error("session directory '%s' is not a directory", dir);
	return 0;
}

/* Really try to write in dir: access(2) says yes to root even on a
 * read-only file system. */
static int check_writable(char const *dir)
{
	char *probe = op_session_path(dir, ".oprofiled-write-test");
	char *tmp = tmp_name(probe);
	int ret = 0;

	if (create_with(tmp, "", 0) < 0)
		ret = op_error_errno("session directory '%s' is not writable",
				     dir);
	unlink(tmp);
	free(tmp);
	free(probe);
	return ret;
}

/* Create every missing parent of dir too, as mkdir -p does. */
static int make_parents(char const *dir)
{
	int rc = op_mkdir_parents(dir);

	if (!rc)
		return 0;
	errno = -rc;
	return op_error_errno("cannot create session directory '%s'", dir);
}

int op_session_create(char const *session_dir)
{
	char *samples = op_session_path(session_dir, OP_SAMPLES_DIR);
	char *current = op_session_samples(session_dir, OP_CURRENT_SESSION);
	int ret = -1;

	if (make_parents(session_dir) == 0 && make_dir(session_dir, false) == 0 &&
	    check_writable(session_dir) == 0 && make_dir(samples, true) == 0 &&
	    make_dir(current, true) == 0 && check_writable(current) == 0)
		ret = 0;
	free(samples);
	free(current);
	return ret;
}

/* Is this process a zombie (kill(2) still finds those)? */
static int pid_is_zombie(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (op_session_read_small(path, buf, sizeof(buf)) < 0)
		return 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'Z';
}

bool op_pid_is_daemon(pid_t pid)
{
	char path[64], comm[64];

	if (pid <= 0)
		return false;
	if (kill(pid, 0) < 0 && errno != EPERM)
		return false;
	if (pid_is_zombie(pid))
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pid);
	if (op_session_read_small(path, comm, sizeof(comm)) < 0)
		return true;  /* no /proc: trust the pid */
	comm[strcspn(comm, "\n")] = '\0';
	return strstr(comm, "oprofiled") != NULL;  /* also lt-oprofiled */
}

/* The pid in the lock file: >0, 0 if unparsable (or not a regular file
 * to read: a FIFO there is a stale lock), -1 if absent. */
static pid_t lock_read(char const *lock)
{
	char buf[64], *end;
	long v;

	if (op_session_read_small(lock, buf, sizeof(buf)) < 0)
		return errno == OP_ENOTREG ? 0 : -1;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || v <= 0 || (*end && *end != '\n'))
		return 0;
	return (pid_t)v;
}

pid_t op_session_daemon_pid(char const *session_dir)
{
	char *lock = op_session_path(session_dir, OP_LOCK_FILE);
	pid_t pid = lock_read(lock);

	free(lock);
	return pid > 0 && op_pid_is_daemon(pid) ? pid : 0;
}

int op_lock_acquire(char const *session_dir, pid_t pid, pid_t *owner)
{
	char *lock = op_session_path(session_dir, OP_LOCK_FILE);
	char *tmp = tmp_name(lock);
	char text[32];
	int tries, ret = -1;

	*owner = 0;
	snprintf(text, sizeof(text), "%ld\n", (long)pid);
	for (tries = 0; tries < 5; tries++) {
		pid_t old;

		if (create_with(tmp, text, strlen(text)) < 0) {
			op_error_errno("cannot create lock file '%s'", tmp);
			break;
		}
		if (link(tmp, lock) == 0) {
			ret = 0;
			break;
		}
		if (errno != EEXIST) {
			op_error_errno("cannot create lock file '%s'", lock);
			break;
		}
		old = lock_read(lock);
		if (old > 0 && old != pid && op_pid_is_daemon(old)) {
			*owner = old;
			op_error("daemon already running (pid %ld)", (long)old);
			break;
		}
		if (old > 0)
			op_warn("removing stale lock '%s': pid %ld is not a running oprofiled",
				lock, (long)old);
		else if (old == 0)
			op_warn("removing stale lock '%s': it holds no pid", lock);
		if (old >= 0 && unlink(lock) < 0 && errno != ENOENT) {
			op_error_errno("cannot remove stale lock '%s'", lock);
			break;
		}
	}
	if (tries == 5)
		op_error("cannot take lock '%s': it keeps changing", lock);
	unlink(tmp);
	free(tmp);
	free(lock);
	return ret;
}

int op_lock_update(char const *session_dir, pid_t pid)
{
	char *lock = op_session_path(session_dir, OP_LOCK_FILE);
	char text[32];
	int ret;

	snprintf(text, sizeof(text), "%ld\n", (long)pid);
	ret = op_session_write_text(lock, text);
	free(lock);
	return ret;
}

void op_lock_release(char const *session_dir, pid_t pid)
{
	char *lock = op_session_path(session_dir, OP_LOCK_FILE);

	if (lock_read(lock) == pid && unlink(lock) < 0)
		op_warn_errno("cannot remove lock '%s'", lock);
	free(lock);
}

static int rm_entry(char const *path, struct stat const *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	if (remove(path) < 0 && errno != ENOENT)
		return op_error_errno("cannot remove '%s'", path);
	return 0;
}

int op_session_remove_tree(char const *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 :
			op_error_errno("cannot access '%s'", path);
	if (!S_ISDIR(st.st_mode))
		return rm_entry(path, &st, 0, NULL);
	return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) ? -1 : 0;
}

bool op_session_is_sample_tree(char const *name)
{
	return name[0] == '{';
}

bool op_session_is_profile_data(char const *name)
{
	return op_session_is_sample_tree(name) ||
	       !strncmp(name, OP_STATS_DIR, strlen(OP_STATS_DIR)) ||
	       !strcmp(name, OP_STACKS_DIR);
}

/* The build-ids of the binaries sampled in current: none now. */
static int forget_build_ids(char const *current)
{
	char const *names[] = { OP_META_BUILD_IDS, OP_META_SEGMENTS };
	char *meta = op_session_path(current, OP_META_DIR);
	/* a link planted at session/ would have us unlink elsewhere */
	int dfd = op_open_safe(meta, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	struct stat st;
	int ret = 0;

	if (dfd < 0) {
		/* O_DIRECTORY on a link: ENOTDIR before ELOOP */
		if (errno == ENOTDIR && !lstat(meta, &st) && S_ISLNK(st.st_mode))
			errno = ELOOP;
		if (errno != ENOENT)
			ret = op_error("cannot open '%s': %s", meta,
				       op_file_strerror(errno));
		free(meta);
		return ret;
	}
	for (size_t i = 0; i < OP_ARRAY_SIZE(names); i++)
		if (unlinkat(dfd, names[i], 0) < 0 && errno != ENOENT)
			ret = op_error_errno("cannot remove '%s/%s'", meta,
					     names[i]);
	close(dfd);
	free(meta);
	return ret;
}

/* op_session_reset's removal of one entry of current/: its profile data. */
static int reset_entry(void *arg, struct op_walk_entry const *e)
{
	int *ret = arg;

	if (op_session_is_profile_data(e->name) &&
	    op_session_remove_tree(e->path) < 0)
		*ret = -1;
	return 0;
}

int op_session_reset(char const *session_dir)
{
	char *current = op_session_samples(session_dir, OP_CURRENT_SESSION);
	int ret = 0;

	if (op_walk(current, 0, reset_entry, NULL, &ret) < 0) {
		if (errno != ENOENT)
			ret = op_error_errno("cannot open '%s'", current);
		free(current);
		return ret;
	}
	if (forget_build_ids(current) < 0)
		ret = -1;
	free(current);
	return ret;
}

bool op_session_name_ok(char const *name, char *err, size_t errlen)
{
	char const *why = NULL;

	if (!*name)
		why = "it is empty";
	else if (strchr(name, '/'))
		why = "it contains '/'";
	else if (name[0] == '.')
		why = "it starts with '.'";
	else if (!strcmp(name, OP_CURRENT_SESSION))
		why = "'current' is the live session";
	else if (strlen(name) > 200)
		why = "it is longer than 200 characters";
	else if (strpbrk(name, " \t\n"))
		why = "it contains white space";
	if (!why)
		return true;
	snprintf(err, errlen, "invalid session name '%s': %s", name, why);
	return false;
}

static int copy_file(char const *from, char const *to)
{
	char err[1024];

	if (op_copy_file(from, to, err, sizeof(err)) < 0)
		return op_error("%s", err);
	return 0;
}

/*
 * Copy from/ into to/ (which exists): regular files and directories,
 * recursively. At the top (top != 0) the sample trees and stats/ are
 * left out: what remains is session.conf and the kernel symbol data.
 * Files under session/binaries/ are named by build-id and never change:
 * hard links (link != 0) where possible, so that sessions by time do not
 * copy every kept binary at every rotation.
 */
struct settings_copy {
	char const *to;
	int top;	/* leave out the top's sample trees and stats/ */
	int link_ok;	/* hard links where possible, everywhere */
};

/* Whether a directory above rel (not rel itself) is OP_META_BINARIES. */
static int below_binaries(char const *rel)
{
	size_t n = strlen(OP_META_BINARIES);
	char const *slash;

	for (; (slash = strchr(rel, '/')); rel = slash + 1)
		if ((size_t)(slash - rel) == n && !strncmp(rel, OP_META_BINARIES, n))
			return 1;
	return 0;
}

static int copy_entry(void *arg, struct op_walk_entry const *e)
{
	struct settings_copy *c = arg;
	char *dst;
	int ret = 0;

	if (c->top && !e->depth && op_session_is_profile_data(e->name))
		return OP_WALK_PRUNE;
	if (!e->st)
		return 0;
	dst = op_session_path(c->to, e->rel);
	if (S_ISREG(e->st->st_mode)) {
		if (!(c->link_ok || below_binaries(e->rel)) ||
		    link(e->path, dst) < 0)
			ret = copy_file(e->path, dst);
	} else if (S_ISDIR(e->st->st_mode)) {
		if (mkdir(dst, 0755) < 0 && errno != EEXIST)
			ret = op_error_errno("cannot create '%s'", dst);
	}
	free(dst);
	return ret;
}

static int copy_dir_err(void *arg, char const *path, int errnum)
{
	(void)arg;
	errno = errnum;
	return op_error_errno("cannot open '%s'", path);
}

static int copy_settings(char const *from, char const *to, int top, int link_ok)
{
	struct settings_copy c = { to, top, link_ok };

	return op_walk(from, OP_WALK_RECURSE, copy_entry, copy_dir_err, &c);
}

static int save_error(char *err, size_t errlen, char const *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int save_error(char *err, size_t errlen, char const *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (err)
		snprintf(err, errlen, "%s", msg);
	return op_error("%s", msg);
}

int op_session_save(char const *session_dir, char const *name,
		    char *err, size_t errlen)
{
	char *current = op_session_samples(session_dir, OP_CURRENT_SESSION);
	char *saved = NULL;
	char why[300];
	struct stat st;
	int ret = -1;

	if (!op_session_name_ok(name, why, sizeof(why))) {
		save_error(err, errlen, "cannot save session: %s", why);
		goto out;
	}
	saved = op_session_samples(session_dir, name);
	if (lstat(saved, &st) == 0) {
		save_error(err, errlen, "cannot save session as '%s': it already exists",
			   saved);
		goto out;
	}
	if (rename(current, saved) < 0) {
		save_error(err, errlen, "cannot rename '%s' to '%s': %s",
			   current, saved, strerror(errno));
		goto out;
	}
	if (mkdir(current, 0755) < 0) {
		save_error(err, errlen, "cannot create '%s': %s", current,
			   strerror(errno));
		goto out;
	}
	if (copy_settings(saved, current, 1, 0) < 0) {
		save_error(err, errlen, "cannot copy the session settings of '%s' into '%s'",
			   saved, current);
		goto out;
	}
	/* the build-ids are the saved samples', not the new session's */
	if (forget_build_ids(current) < 0) {
		save_error(err, errlen, "cannot empty the build-ids of '%s'",
			   current);
		goto out;
	}
	ret = 0;
out:
	free(saved);
	free(current);
	return ret;
}

char const *op_driver_dir(void)
{
	char const *d = getenv(OP_DRIVER_DIR_ENV);

	return d && *d ? d : OP_DRIVER_DIR_DEFAULT;
}

char const *op_driver_path(char *buf, size_t size, char const *name)
{
	snprintf(buf, size, "%s%s%s", op_driver_dir(), *name ? "/" : "", name);
	return buf;
}
