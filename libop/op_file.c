/* File system helpers; see op_file.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "op_file.h"

int op_mkdir_p(char const *dir)
{
	char *buf = strdup(dir), *p;
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	for (p = strchr(buf + 1, '/'); !rc; p = strchr(p + 1, '/')) {
		if (p)
			*p = '\0';
		if (*buf && mkdir(buf, 0755) && errno != EEXIST)
			rc = -errno;
		if (!p)
			break;
		*p = '/';
	}
	free(buf);
	return rc;
}

int op_mkdir_parents(char const *path)
{
	char *dir = strdup(path), *slash;
	int rc = 0;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		rc = op_mkdir_p(dir);
	}
	free(dir);
	return rc;
}
