/*
 * Run the libFuzzer target tests/fuzz/fuzz_mangled_name.c without
 * libFuzzer: feed it every file of its corpus (seeds and past finds), so
 * that 'make check' keeps the target compiling with the project's warnings
 * and every input that once broke the parser stays a regression test.
 * Files named on the command line are replayed instead of the corpus.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size);

static int replay(char const *path)
{
	static uint8_t buf[1 << 16];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		fprintf(stderr, "cannot open '%s'\n", path);
		return -1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);	/* aborts on a failure */
	return 0;
}

int main(int argc, char **argv)
{
	char const *srcdir = getenv("srcdir");
	char dir[4096], path[8192];
	struct dirent *e;
	int i, n = 0, failed = 0;
	DIR *d;

	for (i = 1; i < argc; i++)
		failed += replay(argv[i]) ? 1 : 0;
	if (argc > 1)
		return failed ? 1 : 0;
	snprintf(dir, sizeof(dir), "%s/../tests/fuzz/corpus/mangled_name",
		 srcdir ? srcdir : ".");
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, "cannot open corpus '%s'\n", dir);
		return 1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (replay(path))
			failed++;
		else
			n++;
	}
	closedir(d);
	printf("mangle_fuzz_replay: %d passed, %d failed\n", n, failed);
	return failed || !n ? 1 : 0;
}
