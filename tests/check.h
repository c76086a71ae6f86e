/*
 * The one assertion harness of every C test in the tree (unit tests in
 * <component>/tests/, end-to-end helpers in tests/). Header-only: each test
 * program includes it once.
 *
 * Output is TAP: "ok N - what" or "not ok N - what" per check, "# ..."
 * for diagnostics, and check_done() prints the plan "1..N" and a summary.
 * Exit status, as automake expects: 0 all passed, 1 a check failed,
 * 77 skipped (check_skip), 99 a hard error the test could not get past
 * (check_bail).
 *
 *	int main(void)
 *	{
 *		int i, bad = 0;
 *
 *		check(f(1) == 2, "f(1) is 2");
 *		check_str(name, "vmlinux", "kernel image name");
 *		check_int(n, 3, "three entries");
 *		for (i = 0; i < 100000; i++)
 *			check_batch(&bad, g(i) >= 0, "g(%d) >= 0", i);
 *		check(!bad, "g is never negative (%d failed)", bad);
 *		return check_done();
 *	}
 *
 * A value check (check_str, check_int, check_contains) that fails shows
 * the expected and the actual value on "#   " lines under its "not ok".
 * check_tmpdir() is the one scratch directory of a test program.
 */
#ifndef OP_TESTS_CHECK_H
#define OP_TESTS_CHECK_H

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "scratch.h"

#define CHECK_EXIT_SKIP 77
#define CHECK_EXIT_HARD 99

static int check_nr, check_failed;

__attribute__((format(printf, 2, 0), unused))
static bool check_v(bool ok, char const *fmt, va_list ap)
{
	check_nr++;
	if (!ok)
		check_failed++;
	printf("%s %d - ", ok ? "ok" : "not ok", check_nr);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	return ok;
}

/* One check: true when ok, so a test can stop early on a failure. */
__attribute__((format(printf, 2, 3), unused))
static bool check(bool ok, char const *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	check_v(ok, fmt, ap);
	va_end(ap);
	return ok;
}

/* A diagnostic line ("# ...") that does not count as a check. */
__attribute__((format(printf, 1, 2), unused))
static void check_note(char const *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* got equals want (strings; either may be NULL). */
__attribute__((format(printf, 3, 4), unused))
static bool check_str(char const *got, char const *want, char const *fmt, ...)
{
	bool same = got && want ? !strcmp(got, want) : got == want;
	va_list ap;

	va_start(ap, fmt);
	check_v(same, fmt, ap);
	va_end(ap);
	if (!same)
		printf("#   expected: '%s'\n#   actual:   '%s'\n",
		       want ? want : "(null)", got ? got : "(null)");
	return same;
}

/* got equals want (integers). */
__attribute__((format(printf, 3, 4), unused))
static bool check_int(long long got, long long want, char const *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	check_v(got == want, fmt, ap);
	va_end(ap);
	if (got != want)
		printf("#   expected: %lld\n#   actual:   %lld\n", want, got);
	return got == want;
}

/* A check described by its own condition and line. */
#define check_that(cond) check((cond), "line %d: %s", __LINE__, #cond)

/* s (may be NULL) contains piece; both shown when it does not. */
__attribute__((format(printf, 3, 4), unused))
static bool check_contains(char const *s, char const *piece,
			   char const *fmt, ...)
{
	bool ok = s && strstr(s, piece);
	va_list ap;

	va_start(ap, fmt);
	check_v(ok, fmt, ap);
	va_end(ap);
	if (!ok)
		printf("#   expected: '%s' in it\n#   actual:   '%s'\n",
		       piece, s ? s : "(null)");
	return ok;
}

/*
 * One case of a batch too long to print a line each (thousands of random
 * rounds): silent when ok; when not, a "# " diagnostic and one more in
 * *failed. A check(!failed, ...) after the loop reports the batch.
 */
__attribute__((format(printf, 3, 4), unused))
static bool check_batch(int *failed, bool ok, char const *fmt, ...)
{
	va_list ap;

	if (ok)
		return true;
	(*failed)++;
	fputs("# failed: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return false;
}

/*
 * Invariants checked silently, many times over (every key of a file, in
 * helpers): check_assert() prints nothing while cond holds; when it does
 * not, "not ok" with file and line, and the test ends there (status 1).
 * check_pass() then reports a stage whose invariants all held.
 */
#define check_assert(cond, ...) \
	do { \
		if (!(cond)) \
			check_assert_failed(__FILE__, __LINE__, __VA_ARGS__); \
	} while (0)

__attribute__((format(printf, 3, 4), noreturn, unused))
static void check_assert_failed(char const *file, int line, char const *fmt,
				...)
{
	va_list ap;

	printf("not ok %d - %s:%d: ", ++check_nr, file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	exit(1);
}

/* A stage passed: its check_assert()s all held. */
__attribute__((format(printf, 1, 2), unused))
static void check_pass(char const *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	check_v(true, fmt, ap);
	va_end(ap);
}

/* The whole test cannot run here (no root, no perf_event_open, ...). */
__attribute__((format(printf, 1, 2), noreturn, unused))
static void check_skip(char const *fmt, ...)
{
	va_list ap;

	printf("1..0 # SKIP ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(CHECK_EXIT_SKIP);
}

/* A hard error: the test cannot go on (setup failed). */
__attribute__((format(printf, 1, 2), noreturn, unused))
static void check_bail(char const *fmt, ...)
{
	va_list ap;

	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(CHECK_EXIT_HARD);
}

/* The plan and summary; the exit status for main to return. */
__attribute__((unused))
static int check_done(void)
{
	printf("1..%d\n# %d checks, %d failed\n", check_nr, check_nr,
	       check_failed);
	return check_failed ? 1 : 0;
}

/* short enough that the tests' paths below it fit their buffers */
#define CHECK_TMPDIR_MAX 128
static char check_tmpdir_path[CHECK_TMPDIR_MAX];
static pid_t check_tmpdir_owner;

__attribute__((unused))
static void check_tmpdir_exit(void)
{
	/* a forked child's exit leaves its parent's directory alone */
	if (!check_tmpdir_path[0] || getpid() != check_tmpdir_owner)
		return;
	if (getenv("CHECK_KEEP_TMPDIR"))
		printf("# kept %s (CHECK_KEEP_TMPDIR)\n", check_tmpdir_path);
	else if (check_rmtree(check_tmpdir_path))
		printf("# cannot remove %s: %s\n", check_tmpdir_path,
		       strerror(errno));
}

/*
 * The test program's private scratch directory, $TMPDIR/NAME.XXXXXX
 * (/tmp by default), made at the first call (the same one after it) and
 * removed with all it holds when the process that made it exits (kept,
 * to look at what a test wrote, when CHECK_KEEP_TMPDIR is set). A test
 * that cannot make it (or whose $TMPDIR is so long that the name would
 * pass CHECK_TMPDIR_MAX bytes) bails out (99).
 */
__attribute__((unused))
static char const *check_tmpdir(void)
{
	extern char *__progname; /* the C library's name of the program */
	char const *base = getenv("TMPDIR");

	if (check_tmpdir_path[0])
		return check_tmpdir_path;
	if (!base || !*base)
		base = "/tmp";
	if ((size_t)snprintf(check_tmpdir_path, sizeof(check_tmpdir_path),
			     "%s/%s.XXXXXX", base, __progname) >=
	    sizeof(check_tmpdir_path)) {
		check_tmpdir_path[0] = '\0';
		check_bail("TMPDIR '%s' is too long for a scratch directory "
			   "(at most %d bytes in all)", base, CHECK_TMPDIR_MAX);
	}
	if (!mkdtemp(check_tmpdir_path)) {
		check_tmpdir_path[0] = '\0';
		check_bail("cannot make a scratch directory in '%s': %s", base,
			   strerror(errno));
	}
	check_tmpdir_owner = getpid();
	atexit(check_tmpdir_exit);
	return check_tmpdir_path;
}

#endif /* OP_TESTS_CHECK_H */
