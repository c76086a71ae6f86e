/*
 * A workload with a function of known share, for the soak's statistical
 * check: share_one() and share_rest() run the same loop, called 1 : 99
 * times, so share_one takes 1% of this program's CPU time. The program
 * also times both with the thread CPU clock and prints the share it
 * measured when it ends (after SECONDS, or at SIGTERM/SIGINT), so the
 * truth a profile is compared with is measured, not assumed:
 *   share_work SECONDS [PERCENT]      (default 1)
 * prints: one_cpu_seconds rest_cpu_seconds measured_share_percent
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define UNIT (1ul << 14)        /* loop steps per call: ~20 us */
#define BATCH 10                /* share_one calls per timed batch */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

#define SHARE_LOOP(n) do { \
	volatile unsigned long acc = 0; \
	for (unsigned long i = 0; i < (n); i++) \
		acc += i ^ (acc >> 3); \
	return acc; \
} while (0)

__attribute__((noinline, aligned(64))) unsigned long share_one(unsigned long n);
__attribute__((noinline, aligned(64))) unsigned long share_rest(unsigned long n);

unsigned long share_one(unsigned long n)
{
	SHARE_LOOP(n);
}

unsigned long share_rest(unsigned long n)
{
	SHARE_LOOP(n);
}

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 10;
	double percent = argc > 2 ? atof(argv[2]) : 1;
	double end = mono() + seconds, one = 0, rest = 0, t0, t1;
	unsigned long rest_calls;

	if (seconds <= 0 || percent <= 0 || percent >= 100) {
		fprintf(stderr, "usage: share_work SECONDS [PERCENT (0..100)]\n");
		return 2;
	}
	rest_calls = (unsigned long)((100 - percent) / percent + 0.5);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	while (!stop && mono() < end) {
		/* timed in batches: the clock's own cost is then
		 * negligible against both */
		t0 = thread_cpu();
		for (unsigned long i = 0; i < BATCH; i++)
			share_one(UNIT);
		t1 = thread_cpu();
		for (unsigned long i = 0; i < BATCH * rest_calls; i++)
			share_rest(UNIT);
		one += t1 - t0;
		rest += thread_cpu() - t1;
	}
	printf("%.6f %.6f %.4f\n", one, rest, one / (one + rest) * 100);
	return 0;
}
