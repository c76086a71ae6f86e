/* Workload: a CPU loop in a non-inlined function of the main binary.
 * Usage: hot_main [SECONDS]  (CPU seconds, default 1.5) */
#include <stdlib.h>

#include "spin.h"

__attribute__((noinline)) unsigned long hot_main_loop(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += i ^ (acc >> 3);
	return acc;
}

int main(int argc, char **argv)
{
	spin_for(argc > 1 ? atof(argv[1]) : 1.5, hot_main_loop, 1UL << 20);
	return 0;
}
