/*
 * Tracepoints under tracefs; see perf_tracefs.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "op_util.h"
#include "perf_tracefs.h"

#define TRACEFS_MAGIC_NR 0x74726163	/* linux/magic.h: TRACEFS_MAGIC */
#define FORMAT_MAX (64 * 1024)		/* a format file is a few KB */

static bool is_tracefs(char const *dir)
{
	struct statfs s;

	return !statfs(dir, &s) && (unsigned long)s.f_type == TRACEFS_MAGIC_NR;
}

int perf_tracefs_dir(char *buf, size_t len, bool may_mount)
{
	static char const *const dirs[] = {
		PERF_TRACEFS_DIR, "/sys/kernel/debug/tracing",
	};

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (is_tracefs(dirs[i])) {
			snprintf(buf, len, "%s", dirs[i]);
			return 0;
		}
	}
	if (!may_mount)
		return -ENOENT;
	if (mount("nodev", PERF_TRACEFS_DIR, "tracefs", 0, NULL) && errno != EBUSY)
		return errno == EPERM || errno == EACCES ? -EPERM : -ENOENT;
	if (!is_tracefs(PERF_TRACEFS_DIR))
		return -ENOENT;
	snprintf(buf, len, "%s", PERF_TRACEFS_DIR);
	return 0;
}

/* "field:TYPE NAME;" with NAME exactly field (NAME may carry "[N]"). */
static bool names_field(char const *line, size_t n, char const *field)
{
	char const *semi = memchr(line, ';', n), *name;
	size_t flen = strlen(field);

	if (!semi)
		return false;
	/* NAME is the last word before ';' (an array's "[16]" after it) */
	name = semi;
	while (name > line && name[-1] != ' ' && name[-1] != '\t')
		name--;
	return (size_t)(semi - name) >= flen && !strncmp(name, field, flen) &&
	       (name + flen == semi || name[flen] == '[');
}

static int number_after(char const *line, size_t n, char const *key,
			unsigned *out)
{
	char tmp[256];
	char const *p;
	char *end;
	unsigned long v;

	if (n >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, line, n);
	tmp[n] = '\0';
	p = strstr(tmp, key);
	if (!p)
		return -EINVAL;
	p += strlen(key);
	errno = 0;
	v = strtoul(p, &end, 10);
	if (end == p || *end != ';' || errno || v > 65536)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

int perf_tp_format_field(char const *format, char const *field,
			 struct perf_tp_field *f)
{
	char const *p = format;

	while (*p) {
		char const *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char const *l = p;
		unsigned sgn = 0;

		p = nl ? nl + 1 : p + n;
		while (n && (*l == ' ' || *l == '\t'))
			l++, n--;
		if (n < 6 || strncmp(l, "field:", 6) || !names_field(l, n, field))
			continue;
		if (number_after(l, n, "offset:", &f->offset) ||
		    number_after(l, n, "size:", &f->size) ||
		    number_after(l, n, "signed:", &sgn) || !f->size || sgn > 1)
			return -EINVAL;
		f->is_signed = sgn;
		return 0;
	}
	return -ENOENT;
}

int perf_tracepoint(char const *dir, char const *sys, char const *name,
		    char const *field, uint64_t *id, struct perf_tp_field *f,
		    char *err, size_t errlen)
{
	char path[4096], *text, *end;
	int rc;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", dir, sys, name);
	text = op_read_file(path, 64, NULL, err, errlen);
	if (!text)
		return errno == ENOENT ? -ENOENT : -EINVAL;
	errno = 0;
	*id = strtoull(text, &end, 10);
	if (end == text || (*end && *end != '\n') || errno) {
		snprintf(err, errlen, "'%s' is not a tracepoint id", path);
		free(text);
		return -EINVAL;
	}
	free(text);
	if (!field)
		return 0;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, sys, name);
	text = op_read_file(path, FORMAT_MAX, NULL, err, errlen);
	if (!text)
		return -EINVAL;
	rc = perf_tp_format_field(text, field, f);
	free(text);
	if (rc == -ENOENT)
		snprintf(err, errlen, "'%s' has no field '%s'", path, field);
	else if (rc)
		snprintf(err, errlen, "'%s': field '%s' does not read as offset, size and signed",
			 path, field);
	return rc;
}
