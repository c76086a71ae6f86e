/*
 * spin: a CPU-bound workload for the control tests. Burns one cpu in
 * spin_hot() for the given seconds (default 1), then exits. "spin S cpu"
 * prints the CPU time it got, in milliseconds (what a 1 kHz cpu clock
 * samples), so that a loaded machine does not fail a count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	if (argc > 2 && !strcmp(argv[2], "cpu"))
		printf("%.0f\n", clock_seconds(CLOCK_PROCESS_CPUTIME_ID) * 1000);
	return 0;
}
