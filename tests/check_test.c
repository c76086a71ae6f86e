/*
 * The harness's own scratch directory (check.h): check_tmpdir() gives one
 * private directory, the same at every call; check_rmtree() removes a
 * tree holding nested directories, a FIFO, an unreadable directory and
 * symbolic links to things outside it without touching those things; a
 * forked child's exit leaves its parent's directory in place.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static void put(char const *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || write(fd, "x\n", 2) != 2 || close(fd))
		check_bail("cannot write %s: %s", path, strerror(errno));
}

static void test_check__tmpdir_private(void)
{
	char const *dir = check_tmpdir();
	struct stat st;

	check(dir && lstat(dir, &st) == 0 && S_ISDIR(st.st_mode),
	      "check_tmpdir makes a directory");
	check_int(st.st_mode & 0777, 0700, "only its owner may enter it");
	check(check_tmpdir() == dir, "a second call gives the same one");
}

static void test_check__rmtree_keeps_outside(void)
{
	char outside[PATH_MAX], tree[PATH_MAX], kept[PATH_MAX + 16];
	char p[PATH_MAX + 32];
	struct stat st;

	snprintf(outside, sizeof(outside), "%s/outside", check_tmpdir());
	snprintf(kept, sizeof(kept), "%s/kept", outside);
	snprintf(tree, sizeof(tree), "%s/tree", check_tmpdir());
	if (mkdir(outside, 0700) || mkdir(tree, 0700))
		check_bail("mkdir: %s", strerror(errno));
	put(kept);
	snprintf(p, sizeof(p), "%s/a", tree);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/a/b", tree);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/a/b/file", tree);
	put(p);
	snprintf(p, sizeof(p), "%s/a/fifo", tree);
	check(mkfifo(p, 0600) == 0, "a FIFO in the tree");
	snprintf(p, sizeof(p), "%s/a/to-dir", tree);
	check(symlink(outside, p) == 0, "a link to a directory outside");
	snprintf(p, sizeof(p), "%s/to-file", tree);
	check(symlink(kept, p) == 0, "a link to a file outside");
	snprintf(p, sizeof(p), "%s/dangling", tree);
	check(symlink("/nonexistent/x", p) == 0, "a dangling link");
	snprintf(p, sizeof(p), "%s/closed", tree);
	check(mkdir(p, 0) == 0, "a directory with mode 000");

	check_int(check_rmtree(tree), 0, "the tree is removed");
	check(lstat(tree, &st) != 0 && errno == ENOENT, "nothing of it is left");
	check(lstat(kept, &st) == 0 && S_ISREG(st.st_mode),
	      "the file outside, linked from it, is still there");
	check_int(check_rmtree(tree), 0, "a tree already gone is fine");
	snprintf(p, sizeof(p), "%s/link-to-outside", check_tmpdir());
	check(symlink(outside, p) == 0 && check_rmtree(p) == 0 &&
		      lstat(p, &st) != 0 && lstat(kept, &st) == 0,
	      "a link given itself is removed, not followed");
}

static void test_check__child_exit_keeps_it(void)
{
	struct stat st;
	pid_t pid = fork();
	int status;

	if (pid == 0)
		exit(0);
	check(pid > 0 && waitpid(pid, &status, 0) == pid,
	      "a child exits");
	check(lstat(check_tmpdir(), &st) == 0,
	      "the parent's directory outlives the child's exit");
}

int main(void)
{
	test_check__tmpdir_private();
	test_check__rmtree_keeps_outside();
	test_check__child_exit_keeps_it();
	return check_done();
}
