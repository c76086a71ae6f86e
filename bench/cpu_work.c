/*
 * A fixed amount of CPU-bound work for overhead measurements: N rounds of
 * an arithmetic loop, then the CPU time this process used (user + system,
 * seconds) on stdout. Fixed work, not fixed time, so a profiler's cost
 * shows up as extra CPU time of the workload.
 *   cpu_work [ROUNDS]   (default 400; about 1 s per 400 rounds here)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

__attribute__((noinline)) static unsigned long work(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += i ^ (acc >> 3);
	return acc;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 400;
	struct rusage ru;

	for (long r = 0; r < rounds; r++)
		work(1ul << 20);
	getrusage(RUSAGE_SELF, &ru);
	printf("%.6f\n", ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	return 0;
}
