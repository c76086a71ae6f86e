/* The version line of every tool (op_version.h). */
#include "config.h"

#include "op_version.h"

void op_print_version(FILE *out, char const *tool)
{
	/* OProfile's layout: the version is the third blank-separated word */
	fprintf(out, "%s: %s %s compiled on %s %s\n", tool, PACKAGE_NAME,
		PACKAGE_VERSION, __DATE__, __TIME__);
}
