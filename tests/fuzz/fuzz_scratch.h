/*
 * The private directory a fuzz target writes its files in is removed at
 * exit (atexit of a function calling fuzz_remove_tree); a crash leaves it
 * for a look. Header-only: each target includes it once.
 */
#ifndef FUZZ_SCRATCH_H
#define FUZZ_SCRATCH_H

#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>

static int fuzz_remove_one(char const *path, struct stat const *sb, int flag,
			   struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* dir and everything below it, links not followed */
static void fuzz_remove_tree(char const *dir)
{
	nftw(dir, fuzz_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif /* FUZZ_SCRATCH_H */
