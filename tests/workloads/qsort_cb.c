/*
 * Stack unwinding through Debian's libc: main sorts with qsort and looks
 * up with bsearch, both calling back into cmp_long; built without frame
 * pointers by tests/control/t1034-stacks.sh. Runs for argv[1] seconds of
 * CPU time, or argv[2] rounds when given (fixed work, for
 * bench/stacks_bench.sh).
 */
#include <stdlib.h>
#include <time.h>

#define N 4096

static long v[N];
static volatile long sink;

__attribute__((noinline)) static int cmp_long(void const *a, void const *b)
{
	long x = *(long const *)a, y = *(long const *)b;

	return (x > y) - (x < y);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);
	long rounds = argc > 2 ? atol(argv[2]) : -1;
	unsigned long seed = 1;
	long found = 0;

	while (rounds > 0 ? rounds-- > 0 : rounds < 0 && now() < end) {
		for (int i = 0; i < N; i++) {
			seed = seed * 6364136223846793005ul + 1442695040888963407ul;
			v[i] = (long)(seed >> 20);
		}
		qsort(v, N, sizeof(*v), cmp_long);
		for (int i = 0; i < N; i++) {
			long key = v[(i * 7) % N];

			found += bsearch(&key, v, N, sizeof(*v), cmp_long) != NULL;
		}
	}
	sink = found;
	return 0;
}
