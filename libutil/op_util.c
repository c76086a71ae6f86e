/* Small utilities; see op_util.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_file.h"
#include "op_util.h"

ssize_t op_read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

ssize_t op_write_full(int fd, void const *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, (char const *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)len;
}

/* Set err to "WHAT 'path': strerror(errno)", keeping errno. */
static void set_err(char *err, size_t errlen, char const *what,
		    char const *path)
{
	int saved = errno;

	if (err && errlen)
		snprintf(err, errlen, "cannot %s '%s': %s", what, path,
			 op_file_strerror(saved));
	errno = saved;
}

/* Read fd to its end into a growing buffer (sizes of /proc files lie). */
static char *read_all(int fd, size_t max, size_t *len)
{
	size_t alloc = 0, n = 0, want;
	char *buf = NULL;
	ssize_t got;

	do {
		OP_ALLOC_GROW(buf, n + 4096 + 1, alloc);
		want = alloc - n - 1;
		got = op_read_full(fd, buf + n, want);
		if (got < 0)
			goto fail;
		n += (size_t)got;
		if (max && n > max) {
			errno = EFBIG;
			goto fail;
		}
	} while ((size_t)got == want);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	free(buf);
	return NULL;
}

char *op_read_file(char const *path, size_t max, size_t *len, char *err,
		   size_t errlen)
{
	int fd = op_open_regular(path, O_RDONLY);
	struct stat st;
	size_t n = 0;
	char *buf;

	if (fd < 0) {
		set_err(err, errlen, "open", path);
		return NULL;
	}
	/* a huge (sparse) file is refused before a byte is read; /proc's
	 * files say 0 here, and read_all bounds them as it goes */
	if (max && !fstat(fd, &st) && (uint64_t)st.st_size > max) {
		close(fd);
		errno = EFBIG;
		set_err(err, errlen, "read", path);
		return NULL;
	}
	buf = read_all(fd, max, &n);
	if (!buf)
		set_err(err, errlen, "read", path);
	close(fd);
	if (buf && len)
		*len = n;
	return buf;
}

/*
 * A new temporary file next to path: its fd, its name in *tmp. Created
 * with O_EXCL through op_open_safe, so no symbolic link is followed.
 */
static int open_temp(char const *path, char **tmp, char *err, size_t errlen)
{
	int fd = -1, tries;

	for (tries = 0; fd < 0 && tries < 100; tries++) {
		unsigned long long r = 0;

		if (getrandom(&r, sizeof(r), 0) < 0)
			r = (unsigned long long)getpid() << 20 ^ (unsigned)tries;
		*tmp = op_xasprintf("%s.tmp%06llx", path, r & 0xffffff);
		fd = op_open_safe(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno == EEXIST) {
			free(*tmp);
			continue;
		}
		break;
	}
	if (fd < 0) {
		set_err(err, errlen, "create a temporary file for", path);
		free(*tmp);
		*tmp = NULL;
	}
	return fd;
}

/* Make the finished temporary file tmp (open as fd) become path. */
static int commit_temp(int fd, char *tmp, char const *path, mode_t mode,
		       char *err, size_t errlen)
{
	int rc = -1;

	if (fchmod(fd, mode))
		set_err(err, errlen, "set the mode of", tmp);
	else if (fsync(fd))
		set_err(err, errlen, "sync", tmp);
	else
		rc = 0;
	if (close(fd) && !rc) {
		set_err(err, errlen, "close", tmp);
		rc = -1;
	}
	if (!rc && rename(tmp, path)) {
		set_err(err, errlen, "rename a temporary file to", path);
		rc = -1;
	}
	if (rc) {
		int saved = errno;

		unlink(tmp);
		errno = saved;
	}
	free(tmp);
	return rc;
}

int op_write_file_atomic_mode(char const *path, void const *buf, size_t len,
			      mode_t mode, char *err, size_t errlen)
{
	char *tmp;
	int fd = open_temp(path, &tmp, err, errlen);

	if (fd < 0)
		return -1;
	if (op_write_full(fd, buf, len) < 0) {
		int saved = errno;

		set_err(err, errlen, "write", tmp);
		close(fd);
		unlink(tmp);
		free(tmp);
		errno = saved;
		return -1;
	}
	return commit_temp(fd, tmp, path, mode, err, errlen);
}

int op_write_file_atomic(char const *path, void const *buf, size_t len,
			 char *err, size_t errlen)
{
	return op_write_file_atomic_mode(path, buf, len, 0644, err, errlen);
}

int op_rewrite_in_place(char const *path, void const *buf, size_t len,
			char *err, size_t errlen)
{
	int fd = op_open_safe(path, O_WRONLY | O_CLOEXEC, 0), rc = 0;

	if (fd < 0) {
		set_err(err, errlen, "open", path);
		return -1;
	}
	if (pwrite(fd, buf, len, 0) != (ssize_t)len ||
	    ftruncate(fd, (off_t)len)) {
		set_err(err, errlen, "rewrite", path);
		rc = -1;
	}
	close(fd);
	return rc;
}

/* Copy in to out; -1 with err naming the file that failed. */
static int copy_fd(int in, char const *from, int out, char const *to,
		   char *err, size_t errlen)
{
	char buf[65536];
	ssize_t n;

	while ((n = op_read_full(in, buf, sizeof(buf))) > 0) {
		if (op_write_full(out, buf, (size_t)n) < 0) {
			set_err(err, errlen, "write", to);
			return -1;
		}
	}
	if (n < 0) {
		set_err(err, errlen, "read", from);
		return -1;
	}
	return 0;
}

int op_copy_file(char const *from, char const *to, char *err, size_t errlen)
{
	int in = op_open_regular(from, O_RDONLY), out, saved;
	struct stat st;
	mode_t mode;
	char *tmp;

	if (in < 0) {
		set_err(err, errlen, "open", from);
		return -1;
	}
	out = open_temp(to, &tmp, err, errlen);
	if (out < 0) {
		saved = errno;
		close(in);
		errno = saved;
		return -1;
	}
	if (copy_fd(in, from, out, tmp, err, errlen)) {
		saved = errno;
		close(in);
		close(out);
		unlink(tmp);
		free(tmp);
		errno = saved;
		return -1;
	}
	/* the copy is no more readable than its source (kernel data: 0600) */
	mode = fstat(in, &st) == 0 ? (st.st_mode & 0644) : 0600;
	close(in);
	return commit_temp(out, tmp, to, mode, err, errlen);
}

/* Copy the regular file in (or, when in < 0, write buf: mode 0644, the
 * time now) into a new temporary file in the directory dfd and rename it
 * base there; -1 with err naming the path shown. */
static int copy_into(int in, char const *from, void const *buf, size_t len,
		     int dfd, char const *base, char const *shown, char *err,
		     size_t errlen)
{
	struct stat st;
	struct timespec times[2];
	char *tmp = NULL, *tmp_shown;
	int out = -1, tries, rc = -1;

	for (tries = 0; out < 0 && tries < 100; tries++) {
		unsigned long long r = 0;

		if (getrandom(&r, sizeof(r), 0) < 0)
			r = (unsigned long long)getpid() << 20 ^ (unsigned)tries;
		free(tmp);
		tmp = op_xasprintf("%s.tmp%06llx", base, r & 0xffffff);
		out = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			     O_CLOEXEC, 0600);
		if (out < 0 && errno != EEXIST)
			break;
	}
	tmp_shown = op_xasprintf("%s.tmp", shown);
	if (out < 0) {
		set_err(err, errlen, "create a temporary file for", shown);
		goto done;
	}
	if (in < 0) {
		if (op_write_full(out, buf, len) < 0) {
			set_err(err, errlen, "write", tmp_shown);
			goto fail;
		}
		if (fchmod(out, 0644)) {
			set_err(err, errlen, "set the mode of", tmp_shown);
			goto fail;
		}
	} else if (copy_fd(in, from, out, tmp_shown, err, errlen)) {
		goto fail;
	} else if (fstat(in, &st)) {
		set_err(err, errlen, "stat", from);
		goto fail;
	} else {
		/* no more readable than its source (kernel data: 0600); its times */
		times[0] = st.st_atim;
		times[1] = st.st_mtim;
		if (fchmod(out, st.st_mode & 0644) || futimens(out, times)) {
			set_err(err, errlen, "set the mode and times of", tmp_shown);
			goto fail;
		}
	}
	if (fsync(out)) {
		set_err(err, errlen, "sync", tmp_shown);
		goto fail;
	}
	if (close(out)) {
		out = -1;
		set_err(err, errlen, "close", tmp_shown);
		goto fail;
	}
	out = -1;
	/* renameat replaces whatever is at base, a link included: never
	 * writes through it */
	if (renameat(dfd, tmp, dfd, base)) {
		set_err(err, errlen, "rename a temporary file to", shown);
		goto fail;
	}
	rc = 0;
	goto done;
fail:
	{
		int saved = errno;

		if (out >= 0)
			close(out);
		unlinkat(dfd, tmp, 0);
		errno = saved;
	}
done:
	free(tmp_shown);
	free(tmp);
	return rc;
}

/* op_copy_file_beneath of the file from, or (from NULL) of buf. */
static int put_beneath(char const *from, void const *buf, size_t len,
		       char const *dir, char const *rel, char *err,
		       size_t errlen)
{
	char const *r = rel + strspn(rel, "/");
	char const *slash = strrchr(r, '/');
	char const *base = slash ? slash + 1 : r;
	char *parent = op_xasprintf("%.*s", slash ? (int)(slash - r) : 0, r);
	char *shown = op_xasprintf("%s/%s", dir, r);
	int in = -1, dfd = -1, rc = -1, saved;

	if (op_path_escapes(r)) {
		errno = EXDEV;
		set_err(err, errlen, "write", shown);
		goto out;
	}
	if (!*base || !strcmp(base, ".")) {
		errno = EISDIR;
		set_err(err, errlen, "write", shown);
		goto out;
	}
	in = from ? op_open_regular(from, O_RDONLY) : -1;
	if (from && in < 0) {
		set_err(err, errlen, "open", from);
		goto out;
	}
	dfd = op_opendir_beneath(dir, parent, true);
	if (dfd < 0) {
		set_err(err, errlen, "write", shown);
		goto out;
	}
	rc = copy_into(in, from, buf, len, dfd, base, shown, err, errlen);
out:
	saved = errno;
	if (in >= 0)
		close(in);
	if (dfd >= 0)
		close(dfd);
	free(parent);
	free(shown);
	errno = saved;
	return rc;
}

int op_copy_file_beneath(char const *from, char const *dir, char const *rel,
			 char *err, size_t errlen)
{
	return put_beneath(from, NULL, 0, dir, rel, err, errlen);
}

int op_write_file_beneath(char const *dir, char const *rel, void const *buf,
			  size_t len, char *err, size_t errlen)
{
	return put_beneath(NULL, buf, len, dir, rel, err, errlen);
}

size_t op_partition_point(void const *base, size_t n, size_t size,
			  int (*before)(void const *elem, void const *key),
			  void const *key)
{
	char const *b = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (before(b + mid * size, key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
