/*
 * Runs a libFuzzer target without libFuzzer: feeds every file of its
 * committed corpus (tests/fuzz/corpus/<target>/: seeds and past finds) to
 * LLVMFuzzerTestOneInput, one TAP check per file. Built by make check with
 * the project's compiler and warnings, once per target (FUZZ_TARGET names
 * the corpus), so each corpus stays a regression test, under ASan too.
 * A target aborts on a bug: the test then fails on that file.
 * Files named on the command line are replayed instead of the corpus.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#ifndef FUZZ_TARGET
#error "FUZZ_TARGET must name the target's corpus directory"
#endif

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size);

/* The whole file in an exact-size buffer, so ASan sees reads past it. */
static uint8_t *slurp(char const *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long len;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (len = ftell(f)) >= 0 &&
	    !fseek(f, 0, SEEK_SET)) {
		buf = malloc(len ? (size_t)len : 1);
		if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
			free(buf);
			buf = NULL;
		}
		*size = (size_t)len;
	}
	fclose(f);
	return buf;
}

static void replay(char const *path)
{
	size_t size = 0;
	uint8_t *data = slurp(path, &size);

	if (!data) {
		check(false, "%s: cannot read: %s", path, strerror(errno));
		return;
	}
	LLVMFuzzerTestOneInput(data, size);	/* aborts on a bug */
	free(data);
	check(true, "%s: %zu bytes replayed", path, size);
}

static int by_name(void const *a, void const *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file of dir, in name order so runs are alike. */
static void replay_dir(char const *dir)
{
	char **names = NULL, path[8192];
	size_t n = 0, cap = 0;
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		check_bail("cannot open corpus %s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				check_bail("out of memory");
		}
		names[n] = strdup(e->d_name);
		if (!names[n++])
			check_bail("out of memory");
	}
	closedir(d);
	if (!n)
		check_bail("corpus %s is empty", dir);
	qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		replay(path);
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	char const *srcdir = getenv("srcdir");
	char dir[4096];

	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			replay(argv[i]);
		return check_done();
	}
	/* make check runs us from tests/ with srcdir set to tests/'s source */
	snprintf(dir, sizeof(dir), "%s/fuzz/corpus/%s",
		 srcdir ? srcdir : ".", FUZZ_TARGET);
	replay_dir(dir);
	return check_done();
}
