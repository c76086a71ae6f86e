/*
 * This boot's vDSO, read from the daemon's own mapping (see opd_vdso.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_build_id.h"
#include "op_file.h"
#include "op_util.h"
#include "opd_vdso.h"

/* The size of the [vdso] mapping at base, from /proc/self/maps. */
static size_t mapping_size(unsigned long base)
{
	FILE *f = fopen("/proc/self/maps", "re");
	unsigned long start, end;
	char line[512];
	size_t size = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &start, &end) == 2 && start == base &&
		    strstr(line, OPD_VDSO_REGION)) {
			size = end - start;
			break;
		}
	fclose(f);
	return size;
}

void const *opd_vdso_self(size_t *size)
{
	static unsigned long base;
	static size_t len;

	if (!base) {
		base = getauxval(AT_SYSINFO_EHDR);
		len = base ? mapping_size(base) : 0;
	}
	*size = len;
	return len ? (void const *)base : NULL;
}

bool opd_vdso_is(char const *name, unsigned long start, unsigned long end)
{
	size_t size;

	return !strcmp(name, OPD_VDSO_REGION) && opd_vdso_self(&size) &&
	       end - start == size;
}

int opd_vdso_save(char const *dir, char hex[], char **path, char *err,
		  size_t errlen)
{
	size_t size;
	void const *bytes = opd_vdso_self(&size);
	char *tmp;
	struct stat st;
	int rc;

	if (!bytes) {
		snprintf(err, errlen, "this process has no vDSO to save");
		return -1;
	}
	rc = op_mkdir_p(dir);
	if (rc) {
		snprintf(err, errlen, "cannot create '%s': %s", dir, strerror(-rc));
		return -1;
	}
	/* its build-id is read from a file: write it under a fixed name
	 * first, then give it its name */
	tmp = op_xasprintf("%s/.vdso", dir);
	if (op_write_file_atomic(tmp, bytes, size, err, errlen)) {
		free(tmp);
		return -1;
	}
	if (op_build_id_of(tmp, hex)) {
		snprintf(err, errlen, "the vDSO saved as '%s' has no build-id", tmp);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	*path = op_xasprintf("%s/%s", dir, hex);
	if (stat(*path, &st) == 0) {
		unlink(tmp);
	} else if (rename(tmp, *path)) {
		snprintf(err, errlen, "cannot rename '%s' to '%s': %s", tmp, *path,
			 strerror(errno));
		unlink(tmp);
		free(tmp);
		free(*path);
		*path = NULL;
		return -1;
	}
	free(tmp);
	return 0;
}
