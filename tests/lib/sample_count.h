/*
 * Counting a tally's samples for the end-to-end tests: by process, image
 * or app, and inside a pc range; and where the test workloads are. The
 * assertions themselves are tests/check.h's.
 */
#ifndef SAMPLE_COUNT_H
#define SAMPLE_COUNT_H

#include <stdbool.h>
#include <sys/types.h>

#include "tally.h"

/* Which samples a count looks at. tgid 0: any process; path NULL: any. */
struct sample_filter {
	unsigned long tgid;
	char const *path;	/* cookie of user samples, or app if by_app */
	bool by_app;		/* match path against the app cookie */
	bool kernel;		/* only kernel samples (path ignored) */
};

/* Samples matching f; *in_range those with pc in [start, end). */
size_t count_samples(struct tally const *t, struct sample_filter const *f,
		     unsigned long start, unsigned long end, size_t *in_range);

/* The directory of workloads/ next to this test's directory. */
char const *workload_path(char const *name);

#endif /* SAMPLE_COUNT_H */
