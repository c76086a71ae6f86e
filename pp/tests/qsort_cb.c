/*
 * A frame-less program calling through Debian's libc: main sorts and
 * searches arrays with qsort and bsearch, whose comparison callback does
 * some work, so most samples fall in the callback or in libc (no frame
 * pointers there) and only CFI unwinding finds main above them.
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned sink;

static int cmp_keys(void const *a, void const *b)
{
	unsigned x = *(unsigned const *)a, y = *(unsigned const *)b;

	for (unsigned i = 0; i < 20; i++)
		sink += (x ^ i) * (y | 1);
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 10;
	unsigned n = 20000, *v = malloc(n * sizeof(*v)), found = 0;

	if (!v)
		return 1;
	for (unsigned r = 0; r < rounds; r++) {
		for (unsigned i = 0; i < n; i++)
			v[i] = (i * 2654435761u) ^ r;
		qsort(v, n, sizeof(*v), cmp_keys);
		for (unsigned i = 0; i < n; i += 7)
			found += bsearch(&v[i], v, n, sizeof(*v), cmp_keys) != NULL;
	}
	printf("%u %u\n", found, sink);
	free(v);
	return 0;
}
