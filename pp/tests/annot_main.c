/*
 * The opannotate test workload, built with -g: a hot loop in this binary
 * (annot_main_hot) that calls an always-inlined function (mix: its code
 * counts at its own line, in annot_main_hot's total), then a hot loop in
 * a shared library (annot_lib_hot). Usage: annot_main MAIN_S LIB_S (CPU
 * seconds of each phase). Lines marked "hot:NAME" are NAME's loop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

unsigned annot_lib_hot(unsigned long n);

volatile unsigned annot_main_sink;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline __attribute__((always_inline)) unsigned mix(unsigned x,
							  unsigned i)
{
	return (x ^ (x >> 7)) * 31u + i;               /* hot:annot_main_hot */
}

__attribute__((noinline)) unsigned annot_main_hot(unsigned long n)
{
	unsigned x = 7;

	for (unsigned long i = 0; i < n; i++) {        /* hot:annot_main_hot */
		x = mix(x, (unsigned)i);               /* hot:annot_main_hot */
		annot_main_sink = x;                   /* hot:annot_main_hot */
	}                                              /* hot:annot_main_hot */
	return x;
}

static void spin(double seconds, unsigned (*fn)(unsigned long))
{
	double end = cpu_now() + seconds;

	while (cpu_now() < end)
		fn(1UL << 20);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: annot_main MAIN_S LIB_S\n");
		return 2;
	}
	spin(atof(argv[1]), annot_main_hot);
	spin(atof(argv[2]), annot_lib_hot);
	return 0;
}
