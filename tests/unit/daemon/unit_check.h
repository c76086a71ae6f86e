/* Shared by the daemon unit tests: count failed checks, say which. */
#ifndef UNIT_CHECK_H
#define UNIT_CHECK_H

#include <stdio.h>

static int failures;

static void check(int ok, char const *what)
{
	if (!ok) {
		fprintf(stderr, "FAIL: %s\n", what);
		failures++;
	}
}

#endif
