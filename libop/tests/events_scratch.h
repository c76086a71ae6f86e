/*
 * The hand-written events files of the cpu type and events unit tests,
 * written in their scratch directory (tests/check.h's check_tmpdir).
 */
#ifndef EVENTS_SCRATCH_H
#define EVENTS_SCRATCH_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes text to DIR/NAME, creating DIR (one level) if needed. */
static inline void test_write(char const *dir, char const *name,
			      char const *text)
{
	char path[8192];
	FILE *f;

	mkdir(dir, 0700);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(99);
	}
}

#endif /* EVENTS_SCRATCH_H */
