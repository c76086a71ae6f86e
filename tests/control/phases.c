/*
 * Two phases, one after the other: phase_a burns CPU for SECONDS, then
 * phase_b for SECONDS (default 1 each). The trace-history test
 * (t1023-stream-time.sh) cuts its recorded stream in time: phase_a must
 * own the first half and phase_b the second. Each prints when its phase
 * began and ended (CLOCK_MONOTONIC ns, the stream's clock); first its pid.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../workloads/spin.h"

static volatile unsigned long sink;

__attribute__((noinline)) unsigned long phase_a(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 3;
	return sink;
}

__attribute__((noinline)) unsigned long phase_b(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 5;
	return sink;
}

static void phase(char const *name, double seconds,
		  unsigned long (*fn)(unsigned long))
{
	double t0 = clock_seconds(CLOCK_MONOTONIC);

	spin_for(seconds, fn, 200000);
	printf("%s %.0f %.0f\n", name, t0 * 1e9,
	       clock_seconds(CLOCK_MONOTONIC) * 1e9);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;

	printf("pid %d\n", (int)getpid());
	phase("phase_a", seconds, phase_a);
	phase("phase_b", seconds, phase_b);
	return 0;
}
