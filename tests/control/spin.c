/*
 * spin: a CPU-bound workload for the control tests. Burns one cpu in
 * spin_hot() for the given seconds (default 1), then exits.
 */
#include <stdlib.h>

#include "../workloads/spin.h"

static volatile unsigned long sink;

__attribute__((noinline)) static void spin_hot(void)
{
	unsigned long i;

	for (i = 0; i < 1000000; i++)
		sink += i * i;
}

int main(int argc, char **argv)
{
	double end = clock_seconds(CLOCK_MONOTONIC) +
		     (argc > 1 ? atof(argv[1]) : 1.0);

	while (clock_seconds(CLOCK_MONOTONIC) < end)
		spin_hot();
	return 0;
}
