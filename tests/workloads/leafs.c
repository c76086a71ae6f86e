/*
 * main calls three small leaf functions (no frame of their own at -O2),
 * for argv[1] seconds of CPU time (so a loaded machine still gives the
 * samples tests/control/t1034-stacks.sh counts on).
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long leaf_a(unsigned long x)
{
	for (int i = 0; i < 1000; i++)
		x = x * 6364136223846793005ul + 1;
	return x;
}

__attribute__((noinline)) static unsigned long leaf_b(unsigned long x)
{
	for (int i = 0; i < 1000; i++)
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
	return x;
}

__attribute__((noinline)) static unsigned long leaf_c(unsigned long x)
{
	for (int i = 0; i < 1000; i++)
		x += (x >> 3) | 1;
	return x;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, end = now() + secs;
	unsigned long x = 1;

	while (now() < end) {
		for (int i = 0; i < 100; i++) {
			x = leaf_a(x);
			x = leaf_b(x);
			x = leaf_c(x);
		}
	}
	sink = x;
	return 0;
}
