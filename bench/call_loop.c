/*
 * opwatch's per-call cost: N calls of a tiny non-inlined function, then
 * the wall time per call in ns on stdout. Run plain and under a probing
 * tool: the difference per call is the probe's cost (entry + return).
 *   call_loop [N]   (default 200000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) unsigned long bench_target(unsigned long x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	struct timespec a, b;
	unsigned long acc = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		acc = bench_target(acc);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) /
	       (double)n);
	return acc == 0;
}
