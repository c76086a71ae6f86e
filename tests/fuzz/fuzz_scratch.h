/*
 * The private directory a fuzz target writes its files in is removed at
 * exit (atexit of a function calling fuzz_remove_tree); a crash leaves it
 * for a look. The removal is the tests' one (tests/scratch.h).
 * Header-only: each target includes it once.
 */
#ifndef FUZZ_SCRATCH_H
#define FUZZ_SCRATCH_H

#include "../scratch.h"

/* dir and everything below it, links not followed */
static void fuzz_remove_tree(char const *dir)
{
	check_rmtree(dir);
}

#endif /* FUZZ_SCRATCH_H */
