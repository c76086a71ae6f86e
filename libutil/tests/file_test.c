/*
 * op_open_regular, op_fopen_regular (and their _max forms), op_open_safe,
 * op_path_escapes, op_open_beneath and op_mkdir_beneath, op_opendir_beneath
 * and op_copy_file_beneath against the plants an attacker makes: FIFOs, devices,
 * directories, symbolic links in every component, ".." in every position.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "op_file.h"
#include "op_util.h"

static char const *dir;

static char *at(char const *name)
{
	return op_xasprintf("%s/%s", dir, name);
}

static void put(char const *name, char const *text)
{
	char *p = at(name);
	FILE *f = fopen(p, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		check_bail("cannot write '%s'", p);
	free(p);
}

static bool exists(char const *name)
{
	char *p = at(name);
	struct stat st;
	bool yes = !lstat(p, &st);

	free(p);
	return yes;
}

static void test_file__open_regular(void)
{
	char *fifo = at("fifo"), *file = at("plain"), *sub = at("sub");
	char *err = NULL;
	size_t len;
	FILE *f;
	int fd;

	put("plain", "text\n");
	if (mkfifo(fifo, 0600) || mkdir(sub, 0755))
		check_bail("mkfifo/mkdir: %s", strerror(errno));

	fd = op_open_regular(file, O_RDONLY);
	check(fd >= 0, "a regular file opens");
	check(fd >= 0 && !(fcntl(fd, F_GETFL) & O_NONBLOCK),
	      "and is handed back in blocking mode");
	if (fd >= 0)
		close(fd);

	/* no writer: a plain open would block here for ever */
	errno = 0;
	check(op_open_regular(fifo, O_RDONLY) < 0 && errno == OP_ENOTREG,
	      "a FIFO is refused without blocking (errno %d)", errno);
	check(op_open_regular("/dev/zero", O_RDONLY) < 0 && errno == OP_ENOTREG,
	      "a device is refused");
	check(op_open_regular(sub, O_RDONLY) < 0 && errno == OP_ENOTREG,
	      "a directory is refused");
	check_str(op_file_strerror(OP_ENOTREG), "not a regular file",
		  "the refusal says what it is");
	f = op_fopen_regular(fifo);
	check(!f && errno == OP_ENOTREG, "op_fopen_regular refuses a FIFO");
	f = op_fopen_regular(file);
	check(f && fgetc(f) == 't', "op_fopen_regular reads a file");
	if (f)
		fclose(f);

	/* op_read_file goes through the same rule, and bounds the size */
	char msg[256];
	err = op_read_file(fifo, 0, &len, msg, sizeof(msg));
	check(!err && errno == OP_ENOTREG && strstr(msg, "not a regular file"),
	      "op_read_file refuses a FIFO: %s", msg);
	err = op_read_file("/dev/zero", 1 << 20, &len, msg, sizeof(msg));
	check(!err, "op_read_file refuses /dev/zero instead of reading it");
	err = op_read_file(file, 2, &len, msg, sizeof(msg));
	check(!err && errno == EFBIG, "a file over the limit is refused");
	err = op_read_file(file, 0, &len, msg, sizeof(msg));
	check(err && len == 5, "a file within it is read");
	free(err);
	{
		char *huge = at("huge");
		int hfd = open(huge, O_WRONLY | O_CREAT, 0600);

		if (hfd < 0 || ftruncate(hfd, 64ll << 30))
			check_bail("cannot make a 64 GiB sparse file: %s", strerror(errno));
		close(hfd);
		err = op_read_file(huge, 1 << 20, &len, msg, sizeof(msg));
		check(!err && errno == EFBIG,
		      "a 64 GiB sparse file is refused by its size, unread");
		unlink(huge);
		free(huge);
	}
	err = NULL;
	free(err);
	free(fifo);
	free(file);
	free(sub);
}

/* The size bound checked before reading, and op_open_safe's writes. */
static void test_file__bounds_and_writes(void)
{
	char *huge = at("bound-huge"), *fifo = at("bound-fifo");
	char *file = at("bound-plain");
	char msg[256], *text;
	FILE *f;
	int fd;

	put("bound-plain", "0123456789");
	if (mkfifo(fifo, 0600) || truncate(file, 10))
		check_bail("mkfifo/truncate: %s", strerror(errno));
	fd = open(huge, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)100 << 30))	/* sparse: no block */
		check_bail("cannot make a 100 GB sparse file: %s", strerror(errno));
	close(fd);

	errno = 0;
	check(op_open_regular_max(huge, O_RDONLY, 1 << 20) < 0 && errno == EFBIG,
	      "a 100 GB file at a 1 MB bound is refused (errno %d)", errno);
	check_str(op_file_strerror(EFBIG), "larger than such a file may be",
		  "and the refusal says why");
	fd = op_open_regular_max(file, O_RDONLY, 10);
	check(fd >= 0, "a file of exactly the bound opens");
	if (fd >= 0)
		close(fd);
	check(op_open_regular_max(file, O_RDONLY, 9) < 0 && errno == EFBIG,
	      "one byte over it does not");
	fd = op_open_regular_max(huge, O_RDONLY, 0);
	check(fd >= 0, "bound 0: none");
	if (fd >= 0)
		close(fd);
	check(op_open_regular_max(fifo, O_RDONLY, 1 << 20) < 0 &&
	      errno == OP_ENOTREG, "a FIFO is refused under a bound too");
	f = op_fopen_regular_max(huge, 4 << 20);
	check(!f && errno == EFBIG, "op_fopen_regular_max refuses the huge file");
	f = op_fopen_regular_max(file, 4 << 20);
	check(f && fgetc(f) == '0', "and reads a small one");
	if (f)
		fclose(f);
	text = op_read_file(huge, 64 << 20, NULL, msg, sizeof(msg));
	check(!text && errno == EFBIG && strstr(msg, "huge"),
	      "op_read_file refuses it before reading: %s", msg);

	/* a FIFO with no reader where a file is appended or rewritten */
	fd = op_open_safe(fifo, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	check(fd < 0 && errno == OP_ENOTREG,
	      "op_open_safe does not wait for a FIFO's reader (errno %d)", errno);
	fd = op_open_safe(fifo, O_RDWR | O_CLOEXEC, 0);
	check(fd < 0 && errno == OP_ENOTREG, "nor opens it read-write");
	fd = op_open_safe("/dev/null", O_WRONLY | O_CLOEXEC, 0);
	check(fd < 0 && errno == OP_ENOTREG, "nor writes a device");
	fd = op_open_safe(file, O_WRONLY | O_APPEND | O_CLOEXEC, 0);
	check(fd >= 0 && !(fcntl(fd, F_GETFL) & O_NONBLOCK),
	      "a regular file opens, in blocking mode");
	if (fd >= 0)
		close(fd);
	fd = op_open_safe(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	check(fd >= 0, "a directory asked for with O_DIRECTORY opens");
	if (fd >= 0)
		close(fd);
	unlink(huge);
	unlink(fifo);
	unlink(file);
	free(huge);
	free(fifo);
	free(file);
}

static void test_file__path_escapes(void)
{
	static struct { char const *rel; bool escapes; } const cases[] = {
		{ "a/b.c", false }, { "/usr/src/a.c", false },
		{ "..", true }, { "../x", true }, { "a/../b", true },
		{ "a/..", true }, { "/tmp/x/../../../../etc/passwd", true },
		{ "a//..//b", true }, { "..a/b", false }, { "a/b..", false },
		{ "...", false }, { "./a", false }, { "", false },
	};
	size_t i;

	for (i = 0; i < OP_ARRAY_SIZE(cases); i++)
		check(op_path_escapes(cases[i].rel) == cases[i].escapes,
		      "op_path_escapes(\"%s\") is %d", cases[i].rel,
		      cases[i].escapes);
}

static void test_file__open_beneath(void)
{
	char *out = at("out"), *victim = at("victim"), *p;
	int fd;

	if (mkdir(out, 0755) || mkdir(victim, 0755))
		check_bail("mkdir: %s", strerror(errno));
	fd = op_open_beneath(out, "/usr/src/x/a.c", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	check(fd >= 0 && exists("out/usr/src/x/a.c"),
	      "an absolute name is created inside the directory, parents made");
	if (fd >= 0)
		close(fd);

	errno = 0;
	fd = op_open_beneath(out, "/tmp/x/../../../../victim/owned", O_WRONLY | O_CREAT, 0644);
	check(fd < 0 && errno == EXDEV && !exists("victim/owned"),
	      "'..' is refused (EXDEV), nothing created outside");
	check(!exists("out/tmp"), "and nothing created inside for it either");

	/* links planted in an existing output directory: each component */
	p = at("out/link");
	if (symlink(victim, p))
		check_bail("symlink: %s", strerror(errno));
	free(p);
	fd = op_open_beneath(out, "link/owned", O_WRONLY | O_CREAT, 0644);
	check(fd < 0 && errno == ELOOP && !exists("victim/owned"),
	      "a planted directory link is not followed (ELOOP)");
	p = at("out/usr/src/x/b.c");
	put("victim/target", "precious");
	{
		char *t = at("victim/target");

		if (symlink(t, p))
			check_bail("symlink: %s", strerror(errno));
		free(t);
	}
	free(p);
	fd = op_open_beneath(out, "usr/src/x/b.c", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	check(fd < 0 && errno == ELOOP, "a planted file link is not followed");
	{
		char *t = at("victim/target"), *text;

		text = op_read_file(t, 0, NULL, NULL, 0);
		check(text && !strcmp(text, "precious"), "its target is intact");
		free(text);
		free(t);
	}
	p = at("out/fifo");
	if (mkfifo(p, 0600))
		check_bail("mkfifo: %s", strerror(errno));
	free(p);
	fd = op_open_beneath(out, "fifo", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	check(fd < 0 && errno == OP_ENOTREG, "a planted FIFO is not written (no hang)");
	fd = op_open_beneath(out, "fifo", O_RDONLY, 0);
	check(fd < 0 && errno == OP_ENOTREG, "nor read");
	fd = op_open_beneath(out, "usr/src/x/a.c", O_RDONLY, 0);
	check(fd >= 0, "a regular file inside reads back");
	if (fd >= 0)
		close(fd);

	check(op_mkdir_beneath(out, "d/e/f") == 0 && exists("out/d/e/f"),
	      "op_mkdir_beneath makes the tree");
	check(op_mkdir_beneath(out, "link/sub") == -ELOOP && !exists("victim/sub"),
	      "op_mkdir_beneath refuses a planted link");
	check(op_mkdir_beneath(out, "d/../../victim/sub") == -EXDEV,
	      "op_mkdir_beneath refuses '..'");
	free(out);
	free(victim);
}

static void test_file__open_output(void)
{
	char *out = at("report.txt"), *link = at("planted"), *fifo = at("outfifo");
	char *victim = at("victim/target"), *text;
	FILE *f;
	int fd;

	put("report.txt", "old contents\n");
	f = op_fopen_output(out);
	check(f && fputs("new\n", f) >= 0 && !fclose(f), "a regular output file is written");
	text = op_read_file(out, 0, NULL, NULL, 0);
	check(text && !strcmp(text, "new\n"), "and truncated first");
	free(text);

	if (symlink(victim, link) || mkfifo(fifo, 0600))
		check_bail("symlink/mkfifo: %s", strerror(errno));
	/* another user's link (nobody's): only root can make one here */
	if (geteuid() == 0 && !lchown(link, 65534, 65534)) {
		errno = 0;
		check(op_open_output(link, 0644) < 0 && errno == ELOOP,
		      "another user's link at the output name is not followed");
		text = op_read_file(victim, 0, NULL, NULL, 0);
		check(text && !strcmp(text, "precious"), "its target is intact");
		free(text);
	} else {
		check_note("not root: another user's link is not tried");
	}
	fd = op_open_output("/dev/stdout", 0644);
	check(fd >= 0, "/dev/stdout, root's link to our own descriptor, is written");
	if (fd >= 0)
		close(fd);
	check(op_open_output(fifo, 0644) < 0 && errno == OP_ENOTREG,
	      "a FIFO at the output name is refused without blocking");
	fd = op_open_output("/dev/null", 0644);
	check(fd >= 0, "/dev/null, named by the user, is written");
	if (fd >= 0)
		close(fd);
	free(out);
	free(link);
	free(fifo);
	free(victim);
}

static char *slurp(char const *name)
{
	char *p = at(name), *text = op_read_file(p, 0, NULL, NULL, 0);

	free(p);
	return text;
}

static void test_file__copy_beneath(void)
{
	char *arch = at("arch"), *src = at("src"), *fifo = at("fifo2");
	char *link = at("arch/usr/bin/tool"), *copy = at("arch/usr/bin/prog");
	char *elsewhere = at("elsewhere"), *lib = at("arch/lib"), *text;
	struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	char err[512];
	struct stat st;
	int fd;

	put("src", "the binary\n");
	put("precious", "precious\n");
	if (chmod(src, 0755) || utimensat(AT_FDCWD, src, old, 0) ||
	    mkdir(arch, 0755) || mkfifo(fifo, 0600))
		check_bail("setup: %s", strerror(errno));

	check(!op_copy_file_beneath(src, arch, "/usr/bin/prog", err, sizeof(err)),
	      "a copy at an absolute path inside the directory, parents made");
	text = slurp("arch/usr/bin/prog");
	check(text && !strcmp(text, "the binary\n"), "the copy has the content");
	free(text);
	check(!lstat(copy, &st) && (st.st_mode & 07777) == 0644 &&
	      st.st_mtime == 1000000000,
	      "the copy: mode at most 0644, the source's mtime");

	/* a link at the copy's own path is replaced, its target untouched */
	if (symlink("../../../precious", link))
		check_bail("symlink: %s", strerror(errno));
	check(!op_copy_file_beneath(src, arch, "usr/bin/tool", err, sizeof(err)),
	      "a copy over a link planted at its path");
	text = slurp("precious");
	check(text && !strcmp(text, "precious\n"), "the link's target is untouched");
	free(text);
	check(!lstat(link, &st) && S_ISREG(st.st_mode), "the link is replaced by the copy");

	/* a link in a directory component: ELOOP, nothing written there */
	if (mkdir(elsewhere, 0755) || symlink("../elsewhere", lib))
		check_bail("setup: %s", strerror(errno));
	errno = 0;
	check(op_copy_file_beneath(src, arch, "/lib/x/libc.so", err, sizeof(err)) &&
	      errno == ELOOP && !exists("elsewhere/x"),
	      "a link in a directory component is refused (ELOOP)");
	check(strstr(err, "arch/lib/x/libc.so") && strstr(err, "symbolic link"),
	      "the error names the copy and says why");

	errno = 0;
	check(op_copy_file_beneath(src, arch, "/usr/../../precious", err, sizeof(err)) &&
	      errno == EXDEV, "'..' is refused (EXDEV)");
	text = slurp("precious");
	check(text && !strcmp(text, "precious\n"), "nothing written through '..'");
	free(text);
	errno = 0;
	check(op_copy_file_beneath(src, arch, "usr/bin/", err, sizeof(err)) &&
	      errno == EISDIR, "a name ending in '/' is refused");
	errno = 0;
	check(op_copy_file_beneath(fifo, arch, "fifo", err, sizeof(err)) &&
	      errno == OP_ENOTREG && !exists("arch/fifo"),
	      "a FIFO is not copied (and the copy does not block)");

	fd = op_opendir_beneath(arch, "", false);
	check(fd >= 0, "op_opendir_beneath of \"\": the directory itself");
	if (fd >= 0)
		close(fd);
	errno = 0;
	fd = op_opendir_beneath(arch, "lib", false);
	check(fd < 0 && errno == ELOOP, "op_opendir_beneath refuses a link");
	if (fd >= 0)
		close(fd);
	free(arch);
	free(src);
	free(fifo);
	free(link);
	free(copy);
	free(elsewhere);
	free(lib);
}

static void test_file__write_beneath(void)
{
	char *arch = at("warch"), *link = at("warch/m"), *lnk2 = at("warch/d");
	char err[512], *text;
	struct stat st;

	put("wvictim", "victim\n");
	if (mkdir(arch, 0755) || symlink("../wvictim", link) || symlink("..", lnk2))
		check_bail("setup: %s", strerror(errno));
	check(!op_write_file_beneath(arch, "/m", "one\n", 4, err, sizeof(err)),
	      "op_write_file_beneath over a link at its path");
	text = slurp("warch/m");
	check(text && !strcmp(text, "one\n") && !lstat(link, &st) &&
	      S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0644,
	      "the link replaced by the file, mode 0644");
	free(text);
	text = slurp("wvictim");
	check(text && !strcmp(text, "victim\n"), "the link's target untouched");
	free(text);
	errno = 0;
	check(op_write_file_beneath(arch, "d/m", "x", 1, err, sizeof(err)) &&
	      errno == ELOOP && strstr(err, "symbolic link"),
	      "a link in a directory component refused: %s", err);
	errno = 0;
	check(op_write_file_beneath(arch, "../m", "x", 1, err, sizeof(err)) &&
	      errno == EXDEV && !exists("m"), "'..' refused");
	check(!op_write_file_beneath(arch, "new/sub/m", "", 0, err, sizeof(err)) &&
	      exists("warch/new/sub/m"), "parents made, an empty file written");
	free(arch);
	free(link);
	free(lnk2);
}

static int rm_one(char const *path, struct stat const *st, int flag, struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(path);
}

int main(void)
{
	dir = check_tmpdir();
	test_file__open_regular();
	test_file__bounds_and_writes();
	test_file__path_escapes();
	test_file__open_beneath();
	test_file__open_output();
	test_file__copy_beneath();
	test_file__write_beneath();
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return check_done();
}
