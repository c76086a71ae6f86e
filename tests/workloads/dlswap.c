/* Workload: a library is unmapped and another mapped in its place while
 * samples of the first may still wait in the profiler's buffers: ROUNDS
 * times, dlopen libhot.so, spin MS ms of CPU in hot_lib_loop, dlclose;
 * dlopen libother.so, spin MS ms in other_loop, dlclose. The two usually
 * land at the same address. A profiler that resolves pcs late attributes
 * libhot.so samples to libother.so (or loses them).
 * Usage: dlswap [ROUNDS [MS]]  (default 40 rounds of 20 ms) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "spin.h"

typedef unsigned long (*loop_fn)(unsigned long);

/* Spin in lib's sym; *base is where lib was mapped. */
static int run(char const *lib, char const *sym, double seconds, void **base)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	Dl_info info;
	loop_fn fn;

	if (!h) {
		fprintf(stderr, "dlswap: %s\n", dlerror());
		return -1;
	}
	fn = (loop_fn)dlsym(h, sym);
	if (!fn) {
		fprintf(stderr, "dlswap: %s\n", dlerror());
		dlclose(h);
		return -1;
	}
	*base = dladdr((void *)fn, &info) ? info.dli_fbase : NULL;
	spin_for(seconds, fn, 1UL << 16);
	return dlclose(h);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 40;
	double seconds = (argc > 2 ? atof(argv[2]) : 20) / 1000;
	void *a = NULL, *b = NULL;
	int same = 0;

	for (int i = 0; i < rounds; i++) {
		if (run("libhot.so", "hot_lib_loop", seconds, &a) ||
		    run("libother.so", "other_loop", seconds, &b))
			return 1;
		same += a == b;
	}
	printf("dlswap: %d rounds, libother.so mapped where libhot.so was in %d\n",
	       rounds, same);
	return 0;
}
