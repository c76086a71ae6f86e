/*
 * A short program that lives in the vDSO: clock_gettime in a loop for
 * MS milliseconds (default 20). Run many times, it is what made a
 * {anon:[vdso]} sample file per process before the vDSO became one image.
 *   vdso_loop [MS]
 */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 20;
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	return 0;
}
