/*
 * mksample: write one sample file for the opreport tests.
 *
 *   mksample PATH [--cpu N] [--event CODE] [--um N] [--count N] [--kernel]
 *            [--speed MHZ] [--mtime T | --mtime-of FILE] [--anon-start X]
 *            [--cg-kernel] [--cg-anon-start X] KEY=COUNT...
 *
 * Keys and numbers are decimal or 0x-hex. For a callgraph ({cg}) file a
 * key is (FROM << 32) | TO, e.g. 0x1139000011a0, or written FROM:TO
 * (0x1139:0x11a0). The bytes come from libpp/tests/sfwriter.h (raw
 * write(), no libdb).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sfwriter.h"

static uint64_t number(char const *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	if (end == s || *end) {
		fprintf(stderr, "mksample: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static uint64_t mtime_of(char const *path)
{
	struct stat st;

	if (stat(path, &st)) {
		perror(path);
		exit(2);
	}
	return (uint64_t)st.st_mtime;
}

int main(int argc, char **argv)
{
	struct sf_header h = { .cpu_type = 4, .count = 100000,
			       .cpu_speed = 2000.0 };
	struct sf_sample *s = calloc(argc, sizeof(*s));
	size_t n = 0;

	if (argc < 2 || !s) {
		fprintf(stderr, "usage: mksample PATH [options] KEY=COUNT...\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		char const *a = argv[i], *eq;

		if (!strcmp(a, "--kernel")) {
			h.is_kernel = 1;
		} else if (!strcmp(a, "--cg-kernel")) {
			h.cg_to_is_kernel = 1;
		} else if (!strncmp(a, "--", 2) && i + 1 < argc) {
			char const *v = argv[++i];

			if (!strcmp(a, "--cpu")) h.cpu_type = number(v);
			else if (!strcmp(a, "--event")) h.event = number(v);
			else if (!strcmp(a, "--um")) h.unit_mask = number(v);
			else if (!strcmp(a, "--count")) h.count = number(v);
			else if (!strcmp(a, "--speed")) h.cpu_speed = atof(v);
			else if (!strcmp(a, "--mtime")) h.mtime = number(v);
			else if (!strcmp(a, "--mtime-of")) h.mtime = mtime_of(v);
			else if (!strcmp(a, "--anon-start")) h.anon_start = number(v);
			else if (!strcmp(a, "--cg-anon-start")) h.cg_to_anon_start = number(v);
			else {
				fprintf(stderr, "mksample: unknown option %s\n", a);
				return 2;
			}
		} else if ((eq = strchr(a, '='))) {
			char key[64], *colon;

			snprintf(key, sizeof(key), "%.*s", (int)(eq - a), a);
			colon = strchr(key, ':');
			if (colon) {
				*colon = '\0';
				s[n].key = number(key) << 32 |
					   (number(colon + 1) & 0xffffffffu);
			} else {
				s[n].key = number(key);
			}
			s[n].count = (uint32_t)number(eq + 1);
			n++;
		} else {
			fprintf(stderr, "mksample: bad argument '%s'\n", a);
			return 2;
		}
	}
	if (sf_write(argv[1], &h, s, n)) {
		perror(argv[1]);
		return 1;
	}
	free(s);
	return 0;
}
