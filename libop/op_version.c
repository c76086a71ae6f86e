/* The version line of every tool (op_version.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
/* Built outside configure: tests/fuzz/run.sh compiles libop alone. */
#ifndef PACKAGE_NAME
#define PACKAGE_NAME "oprofile-ng"
#define PACKAGE_VERSION "unknown"
#endif

#include "op_version.h"

void op_print_version(FILE *out, char const *tool)
{
	/* OProfile's layout: the version is the third blank-separated word */
	fprintf(out, "%s: %s %s compiled on %s %s\n", tool, PACKAGE_NAME,
		PACKAGE_VERSION, __DATE__, __TIME__);
}
