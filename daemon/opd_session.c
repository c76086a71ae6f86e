/*
 * The session directory, its lock and the key=value settings files (see
 * opd_session.h). Shared by oprofiled and opcontrol so that the lock
 * protocol and the on-disk "reset" and "save" exist once.
 */
#include "config.h"

#include <dirent.h>
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

#include "op_config.h"
#include "op_file.h"
#include "op_message.h"
#include "opd_session.h"

char *opd_path(char const *dir, char const *rel)
{
	size_t n = strlen(dir) + strlen(rel) + 2;
	char *p = op_xmalloc(n);

	snprintf(p, n, "%s/%s", dir, rel);
	return p;
}

char *opd_samples_path(char const *session_dir, char const *name)
{
	size_t n = strlen(session_dir) + strlen(OP_SAMPLES_DIR) + strlen(name) + 3;
	char *p = op_xmalloc(n);

	snprintf(p, n, "%s/%s/%s", session_dir, OP_SAMPLES_DIR, name);
	return p;
}

ssize_t opd_read_file(char const *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

static int write_all(int fd, char const *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Create tmp (O_EXCL) holding text; 0 or -1 with errno set. */
static int create_with(char const *tmp, char const *text)
{
	int fd, err;

	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (write_all(fd, text, strlen(text)) < 0 || close(fd) < 0) {
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

int opd_write_file_atomic(char const *path, char const *text)
{
	char *tmp = tmp_name(path);
	int ret = 0;

	if (create_with(tmp, text) < 0) {
		ret = op_error("cannot write '%s': %s", tmp, strerror(errno));
	} else if (rename(tmp, path) < 0) {
		ret = op_error("cannot rename '%s' to '%s': %s", tmp, path,
			       strerror(errno));
		unlink(tmp);
	}
	free(tmp);
	return ret;
}

/* mkdir -p for one level: dir must end up an existing directory. */
static int make_dir(char const *dir)
{
	struct stat st;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return op_error("cannot create session directory '%s': %s",
				dir, strerror(errno));
	if (stat(dir, &st) < 0)
		return op_error("cannot access session directory '%s': %s",
				dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return op_error("session directory '%s' is not a directory", dir);
	return 0;
}

/* Really try to write in dir: access(2) says yes to root even on a
 * read-only file system. */
static int check_writable(char const *dir)
{
	char *probe = opd_path(dir, ".oprofiled-write-test");
	char *tmp = tmp_name(probe);
	int ret = 0;

	if (create_with(tmp, "") < 0)
		ret = op_error("session directory '%s' is not writable: %s",
			       dir, strerror(errno));
	unlink(tmp);
	free(tmp);
	free(probe);
	return ret;
}

/* Create every missing parent of dir too, as mkdir -p does. */
static int make_parents(char const *dir)
{
	int rc = op_mkdir_parents(dir);

	return rc ? op_error("cannot create session directory '%s': %s",
			     dir, strerror(-rc)) : 0;
}

int opd_session_create(char const *session_dir)
{
	char *samples = opd_path(session_dir, OP_SAMPLES_DIR);
	char *current = opd_samples_path(session_dir, OP_CURRENT_SESSION);
	int ret = -1;

	if (make_parents(session_dir) == 0 && make_dir(session_dir) == 0 &&
	    check_writable(session_dir) == 0 && make_dir(samples) == 0 &&
	    make_dir(current) == 0 && check_writable(current) == 0)
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
	if (opd_read_file(path, buf, sizeof(buf)) < 0)
		return 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'Z';
}

int opd_pid_is_daemon(pid_t pid)
{
	char path[64], comm[64];

	if (pid <= 0)
		return 0;
	if (kill(pid, 0) < 0 && errno != EPERM)
		return 0;
	if (pid_is_zombie(pid))
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pid);
	if (opd_read_file(path, comm, sizeof(comm)) < 0)
		return 1;  /* no /proc: trust the pid */
	comm[strcspn(comm, "\n")] = '\0';
	return strstr(comm, "oprofiled") != NULL;  /* also lt-oprofiled */
}

/* The pid in the lock file: >0, 0 if unparsable, -1 if absent. */
static pid_t lock_read(char const *lock)
{
	char buf[64], *end;
	long v;

	if (opd_read_file(lock, buf, sizeof(buf)) < 0)
		return -1;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || v <= 0 || (*end && *end != '\n'))
		return 0;
	return (pid_t)v;
}

pid_t opd_daemon_pid(char const *session_dir)
{
	char *lock = opd_path(session_dir, OPD_LOCK_FILE);
	pid_t pid = lock_read(lock);

	free(lock);
	return pid > 0 && opd_pid_is_daemon(pid) ? pid : 0;
}

int opd_lock_acquire(char const *session_dir, pid_t pid, pid_t *owner)
{
	char *lock = opd_path(session_dir, OPD_LOCK_FILE);
	char *tmp = tmp_name(lock);
	char text[32];
	int tries, ret = -1;

	*owner = 0;
	snprintf(text, sizeof(text), "%ld\n", (long)pid);
	for (tries = 0; tries < 5; tries++) {
		pid_t old;

		if (create_with(tmp, text) < 0) {
			op_error("cannot create lock file '%s': %s", tmp,
				 strerror(errno));
			break;
		}
		if (link(tmp, lock) == 0) {
			ret = 0;
			break;
		}
		if (errno != EEXIST) {
			op_error("cannot create lock file '%s': %s", lock,
				 strerror(errno));
			break;
		}
		old = lock_read(lock);
		if (old > 0 && old != pid && opd_pid_is_daemon(old)) {
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
			op_error("cannot remove stale lock '%s': %s", lock,
				 strerror(errno));
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

int opd_lock_update(char const *session_dir, pid_t pid)
{
	char *lock = opd_path(session_dir, OPD_LOCK_FILE);
	char text[32];
	int ret;

	snprintf(text, sizeof(text), "%ld\n", (long)pid);
	ret = opd_write_file_atomic(lock, text);
	free(lock);
	return ret;
}

void opd_lock_release(char const *session_dir, pid_t pid)
{
	char *lock = opd_path(session_dir, OPD_LOCK_FILE);

	if (lock_read(lock) == pid && unlink(lock) < 0)
		op_warn("cannot remove lock '%s': %s", lock, strerror(errno));
	free(lock);
}

static int rm_entry(char const *path, struct stat const *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	if (remove(path) < 0 && errno != ENOENT)
		return op_error("cannot remove '%s': %s", path, strerror(errno));
	return 0;
}

int opd_remove_tree(char const *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 :
			op_error("cannot access '%s': %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return rm_entry(path, &st, 0, NULL);
	return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) ? -1 : 0;
}

/* A top-level entry of a session that is profile data, not settings. */
static int is_sample_data(char const *name)
{
	return name[0] == '{' || !strncmp(name, OP_STATS_DIR, strlen(OP_STATS_DIR));
}

int opd_session_reset_files(char const *session_dir)
{
	char *current = opd_samples_path(session_dir, OP_CURRENT_SESSION);
	DIR *d = opendir(current);
	struct dirent *de;
	int ret = 0;

	if (!d) {
		if (errno != ENOENT)
			ret = op_error("cannot open '%s': %s", current,
				       strerror(errno));
		free(current);
		return ret;
	}
	while ((de = readdir(d))) {
		char *p;

		if (!is_sample_data(de->d_name))
			continue;
		p = opd_path(current, de->d_name);
		if (opd_remove_tree(p) < 0)
			ret = -1;
		free(p);
	}
	closedir(d);
	free(current);
	return ret;
}

int opd_session_name_ok(char const *name, char *err, size_t errlen)
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
		return 1;
	snprintf(err, errlen, "invalid session name '%s': %s", name, why);
	return 0;
}

static int copy_file(char const *from, char const *to)
{
	char buf[65536];
	int in, out, ret = 0;
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return op_error("cannot open '%s': %s", from, strerror(errno));
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		close(in);
		return op_error("cannot create '%s': %s", to, strerror(errno));
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write_all(out, buf, (size_t)n) < 0) {
			ret = op_error("cannot write '%s': %s", to, strerror(errno));
			break;
		}
	}
	if (n < 0)
		ret = op_error("cannot read '%s': %s", from, strerror(errno));
	if (close(out) < 0 && !ret)
		ret = op_error("cannot write '%s': %s", to, strerror(errno));
	close(in);
	return ret;
}

/*
 * Copy from/ into to/ (which exists): regular files and directories,
 * recursively. At the top (top != 0) the sample trees and stats/ are
 * left out: what remains is session.conf and the kernel symbol data.
 */
static int copy_settings(char const *from, char const *to, int top)
{
	DIR *d = opendir(from);
	struct dirent *de;
	int ret = 0;

	if (!d)
		return op_error("cannot open '%s': %s", from, strerror(errno));
	while ((de = readdir(d)) && !ret) {
		char *src, *dst;
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    (top && is_sample_data(de->d_name)))
			continue;
		src = opd_path(from, de->d_name);
		dst = opd_path(to, de->d_name);
		if (lstat(src, &st) == 0 && S_ISREG(st.st_mode)) {
			ret = copy_file(src, dst);
		} else if (lstat(src, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (mkdir(dst, 0755) < 0 && errno != EEXIST)
				ret = op_error("cannot create '%s': %s", dst,
					       strerror(errno));
			else
				ret = copy_settings(src, dst, 0);
		}
		free(src);
		free(dst);
	}
	closedir(d);
	return ret;
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

int opd_session_save(char const *session_dir, char const *name,
		     char *err, size_t errlen)
{
	char *current = opd_samples_path(session_dir, OP_CURRENT_SESSION);
	char *saved = NULL;
	char why[300];
	struct stat st;
	int ret = -1;

	if (!opd_session_name_ok(name, why, sizeof(why))) {
		save_error(err, errlen, "cannot save session: %s", why);
		goto out;
	}
	saved = opd_samples_path(session_dir, name);
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
	if (copy_settings(saved, current, 1) < 0) {
		save_error(err, errlen, "cannot copy the session settings of '%s' into '%s'",
			   saved, current);
		goto out;
	}
	ret = 0;
out:
	free(saved);
	free(current);
	return ret;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
			 e[-1] == '\r'))
		*--e = '\0';
	return s;
}

int opd_kv_read(struct opd_kv *kv, char const *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	int ret = 0;

	memset(kv, 0, sizeof(*kv));
	if (!f)
		return errno == ENOENT ? 0 :
			op_error("cannot open '%s': %s", path, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		char *s = trim(line), *eq;

		lineno++;
		if (!*s || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			ret = op_error("%s:%u: expected key=value, found '%s'",
				       path, lineno, s);
			break;
		}
		*eq = '\0';
		opd_kv_set(kv, trim(s), trim(eq + 1));
	}
	free(line);
	fclose(f);
	return ret;
}

char const *opd_kv_get(struct opd_kv const *kv, char const *key)
{
	size_t i;

	for (i = 0; i < kv->nr; i++)
		if (!strcmp(kv->keys[i], key))
			return kv->values[i];
	return NULL;
}

void opd_kv_set(struct opd_kv *kv, char const *key, char const *value)
{
	size_t i;

	for (i = 0; i < kv->nr; i++) {
		if (!strcmp(kv->keys[i], key)) {
			free(kv->values[i]);
			kv->values[i] = op_xstrdup(value);
			return;
		}
	}
	kv->keys = op_xrealloc(kv->keys, (kv->nr + 1) * sizeof(*kv->keys));
	kv->values = op_xrealloc(kv->values, (kv->nr + 1) * sizeof(*kv->values));
	kv->keys[kv->nr] = op_xstrdup(key);
	kv->values[kv->nr] = op_xstrdup(value);
	kv->nr++;
}

int opd_kv_write(struct opd_kv const *kv, char const *path)
{
	size_t i, len = 1;
	char *text, *p;
	int ret;

	for (i = 0; i < kv->nr; i++)
		len += strlen(kv->keys[i]) + strlen(kv->values[i]) + 2;
	p = text = op_xmalloc(len);
	for (i = 0; i < kv->nr; i++)
		p += sprintf(p, "%s=%s\n", kv->keys[i], kv->values[i]);
	*p = '\0';
	ret = opd_write_file_atomic(path, text);
	free(text);
	return ret;
}

void opd_kv_free(struct opd_kv *kv)
{
	size_t i;

	for (i = 0; i < kv->nr; i++) {
		free(kv->keys[i]);
		free(kv->values[i]);
	}
	free(kv->keys);
	free(kv->values);
	memset(kv, 0, sizeof(*kv));
}
