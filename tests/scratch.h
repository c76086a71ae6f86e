/*
 * Removing a test's scratch tree, shared by the C harness (check.h, whose
 * check_tmpdir() is the one scratch directory) and the fuzz targets
 * (fuzz/fuzz_scratch.h), which do not link the harness. Header-only.
 */
#ifndef OP_TESTS_SCRATCH_H
#define OP_TESTS_SCRATCH_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/*
 * check_rmtree() removes path and everything under it, through directory
 * descriptors: a symbolic link is removed, never followed, and no other
 * file system's directory is entered. 0 when path is gone (or was never
 * there), -1 (errno set) when something could not be removed.
 */
__attribute__((unused))
static int check_rmtree_at(int at, char const *name, dev_t dev)
{
	struct stat st;
	struct dirent *e;
	DIR *d;
	int fd, bad = 0;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(at, name, 0) && errno != ENOENT ? -1 : 0;
	if (st.st_dev == dev) {
		fd = openat(at, name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		/* a test's directory of mode 000: its owner may open it up */
		if (fd < 0 && errno == EACCES && !fchmodat(at, name, 0700, 0))
			fd = openat(at, name, O_RDONLY | O_DIRECTORY |
					      O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return -1;
		d = fdopendir(fd);
		if (!d) {
			close(fd);
			return -1;
		}
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
			    check_rmtree_at(dirfd(d), e->d_name, dev))
				bad = 1;
		closedir(d);
		if (bad)
			return -1;
	}
	return unlinkat(at, name, AT_REMOVEDIR) && errno != ENOENT ? -1 : 0;
}

__attribute__((unused))
static int check_rmtree(char const *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -1;
	return check_rmtree_at(AT_FDCWD, path, st.st_dev);
}

#endif /* OP_TESTS_SCRATCH_H */
