/* Workload: the CPU loop lives in libhot.so, linked normally.
 * Usage: hot_lib [SECONDS]  (CPU seconds, default 1.5) */
#include <stdlib.h>

#include "spin.h"

unsigned long hot_lib_loop(unsigned long n);

int main(int argc, char **argv)
{
	spin_for(argc > 1 ? atof(argv[1]) : 1.5, hot_lib_loop, 1UL << 20);
	return 0;
}
