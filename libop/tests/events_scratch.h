/*
 * Scratch directories for the hand-written events files of the cpu type
 * and events unit tests (the checks are tests/check.h's).
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

/* A fresh directory under $TMPDIR, removed by test_rmtree(). */
static inline char *test_mkdtemp(char *buf, size_t len)
{
	char const *tmp = getenv("TMPDIR");

	snprintf(buf, len, "%s/op-events-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(buf)) {
		perror("mkdtemp");
		exit(99);
	}
	return buf;
}

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

static inline int test_rm_one(char const *path, struct stat const *st,
			      int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static inline void test_rmtree(char const *dir)
{
	nftw(dir, test_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif /* EVENTS_SCRATCH_H */
