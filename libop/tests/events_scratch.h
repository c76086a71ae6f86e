/*
 * Tiny helpers shared by the cpu type and events unit tests: a check that
 * records a failure and carries on, the closing "N passed, N failed" line,
 * and scratch directories for hand-written events files.
 */
#ifndef EVENTS_TEST_H
#define EVENTS_TEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int test_passed, test_failed;

static inline int test_check(int ok, char const *what, char const *file,
			     int line)
{
	if (ok) {
		test_passed++;
	} else {
		test_failed++;
		fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
	}
	return ok;
}

#define CHECK(cond) test_check(!!(cond), #cond, __FILE__, __LINE__)

/* Checks that a string contains a piece, showing both when it does not. */
static inline int test_contains(char const *s, char const *piece,
				char const *file, int line)
{
	int ok = s && strstr(s, piece);

	if (!ok)
		fprintf(stderr, "%s:%d: expected '%s' in '%s'\n", file, line,
			piece, s ? s : "(null)");
	return test_check(ok, "string contains piece", file, line);
}

#define CHECK_CONTAINS(s, piece) test_contains((s), (piece), __FILE__, __LINE__)

static inline int test_done(char const *name)
{
	printf("%s: %d passed, %d failed\n", name, test_passed, test_failed);
	return test_failed ? 1 : 0;
}

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

#endif /* EVENTS_TEST_H */
