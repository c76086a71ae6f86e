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
	/*
	 * OProfile's layout, the version the third blank-separated word;
	 * ours after it, where no parser of OProfile's line looks
	 */
	fprintf(out, "%s: oprofile %s compiled on %s %s (%s %s)\n", tool,
		OP_COMPAT_VERSION, __DATE__, __TIME__, PACKAGE_NAME,
		PACKAGE_VERSION);
}
