/* Finding the programs opcontrol runs; see opcontrol.h. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op_message.h"
#include "op_session.h"
#include "opcontrol.h"

/* Path of PROG next to this executable, or PROG itself (found in PATH). */
char *opc_find_program(char const *prog, char const *build_dir)
{
	char self[PATH_MAX], *slash, *path;
	char const *where[] = { "", build_dir };
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	size_t i;

	if (n <= 0)
		return op_xstrdup(prog);
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return op_xstrdup(prog);
	slash[1] = '\0';
	for (i = 0; i < 2 && where[i]; i++) {
		char rel[PATH_MAX];

		snprintf(rel, sizeof(rel), "%s%s", where[i], prog);
		path = op_session_path(self, rel);
		if (access(path, X_OK) == 0)
			return path;
		free(path);
	}
	return op_xstrdup(prog);
}
