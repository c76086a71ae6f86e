/* File system helpers; see op_file.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "op_file.h"

static char *guard;
static void (*fd_release)(void *);
static void *fd_release_arg;

void op_file_set_fd_release(void (*release)(void *arg), void *arg)
{
	fd_release = release;
	fd_release_arg = arg;
}

void op_file_set_guard(char const *dir)
{
	free(guard);
	guard = dir ? strdup(dir) : NULL;
}

/* The part of path below the guard, or NULL when it is not below it. */
static char const *below_guard(char const *path)
{
	size_t n = guard ? strlen(guard) : 0;

	if (!guard || strncmp(path, guard, n))
		return NULL;
	if (n == 1)	/* the guard is "/" */
		return path[1] ? path + 1 : NULL;
	return path[n] == '/' && path[n + 1] ? path + n + 1 : NULL;
}

/* fd if it is a regular file, switched back to blocking reads; else
 * closed, and -1 with errno OP_ENOTREG (or fstat's). */
static int keep_regular(int fd, int flags)
{
	struct stat st;
	int err;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st))
		err = errno;
	else if (!S_ISREG(st.st_mode))
		err = OP_ENOTREG;
	else
		err = 0;
	if (err) {
		close(fd);
		errno = err;
		return -1;
	}
	if (!(flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

static int open_safe(char const *path, int flags, mode_t mode)
{
	char const *rel = below_guard(path);
	struct open_how how;
	int dfd, fd, err;

	if (!rel)
		return open(path, flags | O_NOFOLLOW, mode);
	dfd = open(guard, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	memset(&how, 0, sizeof(how));
	how.flags = (unsigned)(flags | O_NOFOLLOW);
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		how.mode = mode;
	how.resolve = RESOLVE_NO_SYMLINKS;
	fd = (int)syscall(SYS_openat2, dfd, rel, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)	/* before Linux 5.6 */
		fd = open(path, flags | O_NOFOLLOW, mode);
	err = errno;
	close(dfd);
	errno = err;
	return fd;
}

/*
 * A file (not a directory) is opened O_NONBLOCK and kept only when it is
 * regular: a FIFO planted where the daemon appends or rewrites would
 * otherwise stall the open until some reader came (ENXIO with
 * O_NONBLOCK), and a device would take what was meant for a file.
 */
static int open_safe_file(char const *path, int flags, mode_t mode)
{
	int fd;

	if (flags & (O_DIRECTORY | O_PATH))
		return open_safe(path, flags, mode);
	fd = open_safe(path, flags | O_NONBLOCK, mode);
	if (fd < 0 && errno == ENXIO)
		errno = OP_ENOTREG;
	return keep_regular(fd, flags);
}

int op_open_safe(char const *path, int flags, mode_t mode)
{
	static int releasing;
	int fd = open_safe_file(path, flags, mode);

	if (fd >= 0 || (errno != EMFILE && errno != ENFILE) || !fd_release ||
	    releasing)
		return fd;
	releasing = 1;
	fd_release(fd_release_arg);
	releasing = 0;
	return open_safe_file(path, flags, mode);
}

char const *op_file_strerror(int err)
{
	if (err == ELOOP)
		return "refusing to follow a symbolic link";
	if (err == EXDEV)
		return "refusing a path that leaves its directory";
	if (err == OP_ENOTREG)
		return "not a regular file";
	if (err == EFBIG)
		return "larger than such a file may be";
	return strerror(err);
}

int op_open_regular(char const *path, int flags)
{
	int all = flags | O_NONBLOCK | O_CLOEXEC, fd;

	if (below_guard(path))
		return op_open_safe(path, flags | O_CLOEXEC, 0);
	fd = open(path, all);
	if (fd < 0 && errno == ENXIO)
		errno = OP_ENOTREG;
	return keep_regular(fd, flags);
}

int op_open_regular_max(char const *path, int flags, off_t max)
{
	int fd = op_open_regular(path, flags), err;
	struct stat st;

	if (fd < 0 || !max)
		return fd;
	if (fstat(fd, &st))
		err = errno;
	else if (st.st_size > max)
		err = EFBIG;
	else
		return fd;
	close(fd);
	errno = err;
	return -1;
}

FILE *op_fopen_regular(char const *path)
{
	return op_fopen_regular_max(path, 0);
}

/* fd as a stdio stream of mode; fd closed, errno kept, when it cannot be. */
static FILE *stream_of(int fd, char const *mode)
{
	FILE *f;
	int err;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, mode);
	if (!f) {
		err = errno;
		close(fd);
		errno = err;
	}
	return f;
}

FILE *op_fopen_regular_max(char const *path, off_t max)
{
	return stream_of(op_open_regular_max(path, O_RDONLY, max), "re");
}

/*
 * A link at an output name is followed only when its owner is the caller
 * or root (/dev/stdout, /proc/self/fd/N): one another user planted (in
 * /tmp, say) is refused, as the kernel's protected_symlinks does in sticky
 * directories, wherever it is.
 */
static bool trusted_link(char const *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISLNK(st.st_mode) &&
	       (st.st_uid == geteuid() || st.st_uid == 0);
}

int op_open_output(char const *path, mode_t mode)
{
	int flags = O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, fd, err = 0;
	struct stat st;

	fd = open(path, flags | O_NOFOLLOW, mode);
	if (fd < 0 && errno == ELOOP && trusted_link(path))
		fd = open(path, flags, mode);
	if (fd < 0) {
		if (errno == ENXIO)	/* a FIFO with no reader */
			errno = OP_ENOTREG;
		return -1;
	}
	/* a pipe that has a reader (--flame=/dev/stdout | gzip) is written;
	 * a regular file is truncated; a directory or socket refused */
	if (fstat(fd, &st))
		err = errno;
	else if (S_ISREG(st.st_mode) ? ftruncate(fd, 0) != 0 :
		 !S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode))
		err = S_ISREG(st.st_mode) ? errno : OP_ENOTREG;
	if (err) {
		close(fd);
		errno = err;
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

FILE *op_fopen_output(char const *path)
{
	return stream_of(op_open_output(path, 0644), "we");
}

bool op_path_escapes(char const *rel)
{
	char const *p = rel;

	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return true;
		p += n;
		p += strspn(p, "/");
	}
	return false;
}

/*
 * Walk rel from the directory fd dfd one component at a time, opening
 * each with O_NOFOLLOW: a link anywhere fails with ELOOP, ".." with
 * EXDEV. With make_dirs, missing directories are created on the way.
 * The last component is opened with flags (a regular file only), or with
 * last_dir as a directory (its O_PATH fd returned). Consumes dfd.
 */
static int walk_beneath(int dfd, char const *rel, int flags, mode_t mode,
			bool make_dirs, bool last_dir)
{
	char name[NAME_MAX + 1];
	char const *p = rel + strspn(rel, "/");
	int fd, err;

	for (;;) {
		size_t n = strcspn(p, "/");
		char const *next = p + n + strspn(p + n, "/");
		bool last = !*next;

		if (n > NAME_MAX) {
			err = ENAMETOOLONG;
			goto fail;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		if (!strcmp(name, "..")) {
			err = EXDEV;
			goto fail;
		}
		if (n == 0 || !strcmp(name, ".")) {
			if (!last) {
				p = next;
				continue;
			}
			if (!last_dir) {
				err = EISDIR;
				goto fail;
			}
			return dfd;
		}
		if (last && !last_dir) {
			/* O_NONBLOCK: a FIFO must not stall the open (ENXIO
			 * when written with no reader) */
			fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC |
				    O_NONBLOCK, mode);
			err = errno == ENXIO ? OP_ENOTREG : errno;
			close(dfd);
			if (fd < 0) {
				errno = err;
				return -1;
			}
			return keep_regular(fd, flags);
		}
		if (make_dirs && mkdirat(dfd, name, 0755) && errno != EEXIST) {
			err = errno;
			goto fail;
		}
		fd = openat(dfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			err = errno == ENOTDIR ? ELOOP : errno;
			/* O_PATH|O_NOFOLLOW opens a link itself: ENOTDIR above */
			if (errno == ENOTDIR) {
				struct stat st;

				if (!fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) &&
				    !S_ISLNK(st.st_mode))
					err = ENOTDIR;
			}
			goto fail;
		}
		close(dfd);
		dfd = fd;
		if (last)
			return dfd;
		p = next;
	}
fail:
	close(dfd);
	errno = err;
	return -1;
}

/* dir's descriptor to walk rel from; -1 (EXDEV) when rel has a "..". */
static int walk_start(char const *dir, char const *rel)
{
	int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (dfd >= 0 && op_path_escapes(rel)) {
		close(dfd);
		errno = EXDEV;
		return -1;
	}
	return dfd;
}

int op_open_beneath(char const *dir, char const *rel, int flags, mode_t mode)
{
	int dfd = walk_start(dir, rel);

	if (dfd < 0)
		return -1;
	return walk_beneath(dfd, rel, flags, mode, flags & O_CREAT, false);
}

int op_opendir_beneath(char const *dir, char const *rel, bool create)
{
	int dfd = walk_start(dir, rel);

	if (dfd < 0)
		return -1;
	return walk_beneath(dfd, rel, 0, 0, create, true);
}

int op_mkdir_beneath(char const *dir, char const *rel)
{
	int dfd = op_opendir_beneath(dir, rel, true);

	if (dfd < 0)
		return -errno;
	close(dfd);
	return 0;
}

/* A component of a path below the guard must not be a symbolic link. */
static int check_component(char const *dir)
{
	struct stat st;

	if (!below_guard(dir))
		return 0;
	if (lstat(dir, &st))
		return -errno;
	return S_ISLNK(st.st_mode) ? -ELOOP : 0;
}

int op_mkdir_p(char const *dir)
{
	char *buf = strdup(dir), *p;
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	for (p = strchr(buf + 1, '/'); !rc; p = strchr(p + 1, '/')) {
		if (p)
			*p = '\0';
		if (*buf && mkdir(buf, 0755) && errno != EEXIST)
			rc = -errno;
		if (!rc && *buf)
			rc = check_component(buf);
		if (!p)
			break;
		*p = '/';
	}
	free(buf);
	return rc;
}

int op_mkdir_parents(char const *path)
{
	char *dir = strdup(path), *slash;
	int rc = 0;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		rc = op_mkdir_p(dir);
	}
	free(dir);
	return rc;
}

/* mountinfo: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS... - FSTYPE SOURCE ..." */
static int mount_of(dev_t dev, char *buf, size_t size)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], point[1024], source[1024];
	unsigned maj, min;
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		char const *dash = strstr(line, " - ");

		if (sscanf(line, "%*u %*u %u:%u %*s %1023s", &maj, &min, point) != 3 ||
		    makedev(maj, min) != dev || !dash ||
		    sscanf(dash + 3, "%*s %1023s", source) != 1)
			continue;
		snprintf(buf, size, "%s (mounted on %s)", source, point);
		found = 1;
	}
	fclose(f);
	return found;
}

void op_device_name(char const *path, char *buf, size_t size)
{
	struct stat st;

	if (stat(path, &st) || !mount_of(st.st_dev, buf, size))
		snprintf(buf, size, "the device of '%s'", path);
}
