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
 *		check(f(1) == 2, "f(1) is 2");
 *		check_str(name, "vmlinux", "kernel image name");
 *		check_int(n, 3, "three entries");
 *		return check_done();
 *	}
 */
#ifndef OP_TESTS_CHECK_H
#define OP_TESTS_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		printf("#   got:  '%s'\n#   want: '%s'\n", got ? got : "(null)",
		       want ? want : "(null)");
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
		printf("#   got:  %lld\n#   want: %lld\n", got, want);
	return got == want;
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

#endif /* OP_TESTS_CHECK_H */
