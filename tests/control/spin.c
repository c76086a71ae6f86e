/*
 * spin: a CPU-bound workload for the control tests. Burns one cpu in
 * spin_hot() for the given seconds (default 1), then exits.
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void spin_hot(void)
{
	unsigned long i;

	for (i = 0; i < 1000000; i++)
		sink += i * i;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);

	while (now() < end)
		spin_hot();
	return 0;
}
