/* op_util and op_message: growth, formatting, full I/O, whole files,
 * atomic replacement and copies (with their errors), the message sink. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "op_file.h"
#include "op_util.h"

static char const *dir;

static char *path_in(char const *name)
{
	return op_xasprintf("%s/%s", dir, name);
}

static void test_util__alloc_grow(void)
{
	int *v = NULL;
	size_t nr = 0, alloc = 0, reallocs = 0, i;
	int ok = 1;

	for (i = 0; i < 100000; i++) {
		size_t before = alloc;

		OP_ALLOC_GROW(v, nr + 1, alloc);
		if (alloc != before)
			reallocs++;
		v[nr++] = (int)i;
	}
	for (i = 0; i < nr; i++)
		ok &= v[i] == (int)i;
	check(ok && alloc >= nr, "OP_ALLOC_GROW keeps 100000 appends");
	check(reallocs < 40, "growth is geometric (%zu reallocs)", reallocs);
	OP_ALLOC_GROW(v, 500000, alloc);
	check(alloc >= 500000, "a big jump gets at least what it asks");
	free(v);
}

static void test_util__asprintf(void)
{
	char *s = op_xasprintf("%s-%d", "cpu", 7);

	check_str(s, "cpu-7", "op_xasprintf formats");
	free(s);
}

static void test_util__full_io(void)
{
	char buf[200000], back[200000 + 1];
	int fds[2];
	ssize_t n;
	pid_t pid;
	size_t i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 31);
	if (pipe(fds))
		check_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		_exit(op_write_full(fds[1], buf, sizeof(buf)) == sizeof(buf) ? 0 : 1);
	}
	close(fds[1]);
	/* a pipe gives at most 64 KiB per read: op_read_full loops */
	n = op_read_full(fds[0], back, sizeof(back));
	close(fds[0]);
	waitpid(pid, NULL, 0);
	check_int(n, sizeof(buf), "op_read_full reads through short reads to EOF");
	check(!memcmp(buf, back, sizeof(buf)), "the bytes are the ones written");
	check_int(op_write_full(-1, buf, 1), -1, "op_write_full reports a bad fd");
}

static void test_util__read_file(void)
{
	char *p = path_in("f"), *missing = path_in("none"), *s, err[512];
	size_t len = 0;

	check_int(op_write_file_atomic(p, "hello\n", 6, err, sizeof(err)), 0,
		  "op_write_file_atomic writes a file");
	s = op_read_file(p, 0, &len, err, sizeof(err));
	check_str(s, "hello\n", "op_read_file reads it back");
	check_int((long long)len, 6, "with its length");
	free(s);
	errno = 0;
	s = op_read_file(p, 3, &len, err, sizeof(err));
	check(!s && errno == EFBIG, "a file over the cap fails with EFBIG");
	check(strstr(err, p) != NULL, "the error names the file: %s", err);
	s = op_read_file(missing, 0, NULL, err, sizeof(err));
	check(!s && errno == ENOENT, "a missing file fails with ENOENT");
	check(strstr(err, "cannot open") && strstr(err, missing),
	      "the error says what failed: %s", err);
	s = op_read_file("/proc/self/status", 1 << 20, &len, NULL, 0);
	check(s && len > 0 && strlen(s) == len, "a /proc file (size 0 in stat) is read whole");
	free(s);
	free(p);
	free(missing);
}

static void test_util__atomic_and_copy(void)
{
	char *a = path_in("a"), *b = path_in("b"), *bad = path_in("no/dir/x");
	char big[300000], err[512], *s;
	struct stat st;
	size_t len = 0, i;

	for (i = 0; i < sizeof(big); i++)
		big[i] = (char)('a' + i % 26);
	check_int(op_write_file_atomic(a, big, sizeof(big), err, sizeof(err)), 0,
		  "a large atomic write");
	check_int(op_write_file_atomic(a, "new", 3, err, sizeof(err)), 0,
		  "an atomic write replaces the file");
	s = op_read_file(a, 0, &len, NULL, 0);
	check_str(s, "new", "readers see the new contents whole");
	free(s);
	check(!stat(a, &st) && (st.st_mode & 0777) == 0644, "mode 0644");
	check_int(op_write_file_atomic(a, big, sizeof(big), err, sizeof(err)), 0,
		  "write the large contents back");
	check_int(op_copy_file(a, b, err, sizeof(err)), 0, "op_copy_file copies");
	s = op_read_file(b, 0, &len, NULL, 0);
	check(s && len == sizeof(big) && !memcmp(s, big, len), "the copy is identical");
	free(s);
	check_int(op_copy_file(bad, b, err, sizeof(err)), -1, "copying a missing file fails");
	check(strstr(err, bad) != NULL, "naming it: %s", err);
	check_int(op_copy_file(a, bad, err, sizeof(err)), -1,
		  "copying into a missing directory fails");
	check(strstr(err, bad) != NULL, "naming the target: %s", err);
	check_int(op_write_file_atomic(bad, "x", 1, err, sizeof(err)), -1,
		  "an atomic write into a missing directory fails");
	if (!access("/dev/full", W_OK)) {
		/* every write to /dev/full fails with ENOSPC */
		int fd = open("/dev/full", O_WRONLY);

		check(op_write_full(fd, big, sizeof(big)) == -1 && errno == ENOSPC,
		      "a failing write reports ENOSPC");
		close(fd);
	}
	unlink(a);
	unlink(b);
	free(a);
	free(b);
	free(bad);
}

struct captured {
	enum op_message_kind kind;
	char text[256];
	int n;
};

static void capture(void *ctx, enum op_message_kind kind, char const *text)
{
	struct captured *c = ctx;

	c->kind = kind;
	snprintf(c->text, sizeof(c->text), "%s", text);
	c->n++;
}

static void test_util__messages(void)
{
	struct captured c = { 0 };
	char line[256];
	FILE *f;

	op_set_message_sink(capture, &c);
	check_int(op_error("cannot open '%s'", "/x"), -1, "op_error returns -1");
	check(c.kind == OP_MSG_ERROR, "as an error");
	check_str(c.text, "cannot open '/x'", "the sink gets the text alone");
	errno = ENOENT;
	check_int(op_error_errno("cannot open '%s'", "/y"), -1, "op_error_errno returns -1");
	check_str(c.text, "cannot open '/y': No such file or directory",
		  "op_error_errno appends strerror(errno)");
	op_warn("w");
	check(c.kind == OP_MSG_WARN, "op_warn is a warning");
	op_info("started");
	check(c.kind == OP_MSG_INFO, "op_info is info");
	op_hint("run as %s", "root");
	check(c.kind == OP_MSG_HINT && !strcmp(c.text, "run as root"), "op_hint is a hint");
	check_int(c.n, 5, "every message went through the sink");
	op_warn("cannot read '%s'", "/a\nprog: fatal: \033[2J\xc2\x9b\xff");
	check_str(c.text, "cannot read '/a\\x0aprog: fatal: \\x1b[2J"
		  "\\xc2\\x9b\\xff'", "a path in a message is escaped, its "
		  "newline too: it cannot forge a line");
	op_set_message_sink(NULL, NULL);

	f = tmpfile();
	if (!f)
		check_bail("tmpfile: %s", strerror(errno));
	op_set_progname("/usr/bin/tool");
	op_message_write(f, NULL, OP_MSG_WARN, "w");
	op_message_write(f, "2026-01-02 03:04:05", OP_MSG_ERROR, "e");
	op_message_write(f, "2026-01-02 03:04:05", OP_MSG_INFO, "i");
	op_message_write(f, NULL, OP_MSG_HINT, "h");
	rewind(f);
	check_str(fgets(line, sizeof(line), f), "tool: warning: w\n", "default line");
	check_str(fgets(line, sizeof(line), f), "tool: 2026-01-02 03:04:05 error: e\n",
		  "a stamped error");
	check_str(fgets(line, sizeof(line), f), "tool: 2026-01-02 03:04:05 i\n",
		  "a stamped info line");
	check_str(fgets(line, sizeof(line), f), "hint: h\n", "a hint line");
	fclose(f);
}

static void test_util__usage_error(void)
{
	int fds[2], status = 0;
	char out[256] = "";
	ssize_t n;
	pid_t pid;

	if (pipe(fds))
		check_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 2);
		op_set_progname("tool");
		op_usage_error("tool --help lists the options", "bad --x '%s'", "y");
	}
	close(fds[1]);
	n = op_read_full(fds[0], out, sizeof(out) - 1);
	out[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 2, "op_usage_error exits 2");
	check_str(out, "tool: error: bad --x 'y'\nhint: tool --help lists the options\n",
		  "an error line then a hint line");
}

/* BUG(): an internal invariant is a core dump with the place, not an
 * exit status a user could take for bad input. */
static void test_util__bug(void)
{
	int fds[2], status = 0;
	char out[256] = "";
	ssize_t n;
	pid_t pid;

	if (pipe(fds))
		check_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		struct rlimit no_core = { 0, 0 };

		setrlimit(RLIMIT_CORE, &no_core);
		dup2(fds[1], 2);
		op_set_progname("tool");
		BUG("%d nodes left", 3);
	}
	close(fds[1]);
	n = op_read_full(fds[0], out, sizeof(out) - 1);
	out[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	check(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
	      "BUG() aborts");
	check(!strncmp(out, "tool: fatal: BUG: ", 18) && strstr(out, "util_test.c:") &&
	      strstr(out, ": 3 nodes left\n"),
	      "BUG() names the file and line: %s", out);
}

static int int_at_most(void const *elem, void const *key)
{
	return *(int const *)elem <= *(int const *)key;
}

static void test_util__partition_point(void)
{
	static int const v[] = { 1, 3, 3, 3, 7, 9 };
	static int const keys[] = { 0, 1, 2, 3, 8, 9, 10 };
	static size_t const want[] = { 0, 1, 1, 4, 5, 6, 6 };
	size_t i, got;
	int k = 5;

	for (i = 0; i < OP_ARRAY_SIZE(keys); i++) {
		got = op_partition_point(v, OP_ARRAY_SIZE(v), sizeof(v[0]),
					 int_at_most, &keys[i]);
		check(got == want[i], "partition point of <= %d is %zu (got %zu)",
		      keys[i], want[i], got);
	}
	check(op_partition_point(v, 0, sizeof(v[0]), int_at_most, &k) == 0,
	      "an empty array's partition point is 0");
}

static int spare = -1, releases;

/* The daemon's sample files, in short: one fd it can spare. */
static void release_spare(void *arg)
{
	(void)arg;
	releases++;
	if (spare >= 0)
		close(spare);
	spare = -1;
}

static void release_nothing(void *arg)
{
	(void)arg;
	releases++;
}

/*
 * Out of fds, a file written through op_open_safe (an atomic
 * write's temporary file) first lets the owner close what it can spare,
 * once, and is then opened; with nothing to spare it fails with EMFILE,
 * after one call.
 */
static void test_util__fd_release(void)
{
	char *a = path_in("fds"), err[512], *s;
	struct rlimit was, low;
	size_t len = 0;
	int rc;

	spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (spare < 0 || getrlimit(RLIMIT_NOFILE, &was))
		check_bail("open /dev/null, getrlimit: %s", strerror(errno));
	low = was;
	low.rlim_cur = (rlim_t)spare + 1;	/* spare is the last fd left */
	if (setrlimit(RLIMIT_NOFILE, &low))
		check_bail("setrlimit: %s", strerror(errno));
	op_file_set_fd_release(release_spare, NULL);
	rc = op_write_file_atomic(a, "x\n", 2, err, sizeof(err));
	check(rc == 0 && releases == 1 && spare < 0,
	      "no fd left: the owner closes its spare one (%d call), and the "
	      "write succeeds (%d: %s)", releases, rc, rc ? err : "ok");
	spare = open("/dev/null", O_RDONLY | O_CLOEXEC);	/* taken again */
	op_file_set_fd_release(release_spare, NULL);
	releases = 0;
	rc = op_write_file_atomic(a, "y\n", 2, err, sizeof(err));
	check(rc == 0 && releases == 1, "the same again (%d)", rc);
	spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	op_file_set_fd_release(release_nothing, NULL);
	releases = 0;
	rc = op_write_file_atomic(a, "z\n", 2, err, sizeof(err));
	check(rc < 0 && releases == 1 && strstr(err, "Too many open files"),
	      "nothing to spare: one call, then the write fails with EMFILE "
	      "(%d, %d calls: %s)", rc, releases, rc ? err : "ok");
	close(spare);
	spare = -1;
	setrlimit(RLIMIT_NOFILE, &was);
	op_file_set_fd_release(NULL, NULL);
	s = op_read_file(a, 0, &len, NULL, 0);
	check_str(s, "y\n", "the file holds the last write that succeeded");
	free(s);
	unlink(a);
	free(a);
}

int main(void)
{
	dir = check_tmpdir();
	test_util__alloc_grow();
	test_util__asprintf();
	test_util__full_io();
	test_util__read_file();
	test_util__atomic_and_copy();
	test_util__messages();
	test_util__usage_error();
	test_util__bug();
	test_util__partition_point();
	test_util__fd_release();
	rmdir(dir);
	return check_done();
}
