/*
 * A tiny harness for libpp's unit tests: check() prints "ok N - what" or
 * "FAIL N - what", and test_done() ends with a summary and the exit
 * status automake expects. Header-only, static functions.
 */
#ifndef PP_TEST_H
#define PP_TEST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_nr, test_failed;

__attribute__((format(printf, 2, 3)))
static bool check(bool cond, char const *fmt, ...)
{
	va_list ap;

	test_nr++;
	if (!cond)
		test_failed++;
	printf("%s %d - ", cond ? "ok" : "FAIL", test_nr);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return cond;
}

/* check that got equals want (strings; NULL allowed). */
__attribute__((unused))
static bool check_str(char const *got, char const *want, char const *what)
{
	bool same = got && want ? !strcmp(got, want) : got == want;

	if (!same)
		printf("#   got:  '%s'\n#   want: '%s'\n", got ? got : "(null)",
		       want ? want : "(null)");
	return check(same, "%s", what);
}

static int test_done(void)
{
	printf("%d checks, %d failed\n", test_nr, test_failed);
	return test_failed ? 1 : 0;
}

#endif /* PP_TEST_H */
