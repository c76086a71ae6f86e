/* Small assertions over a tally for the end-to-end tests. */
#ifndef CHECK_H
#define CHECK_H

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

/* Print "ok"/"FAIL" with the message; returns !ok (1 on failure). */
int expect(bool ok, char const *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* CHECK_H */
