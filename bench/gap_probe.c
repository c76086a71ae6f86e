/*
 * Time taken from a running program by interrupts, measured from inside:
 * a loop reads CLOCK_MONOTONIC as fast as it can, and every step longer
 * than a normal one is time the cpu spent elsewhere. Steps of
 * GAP_MIN_NS .. GAP_MAX_NS are interrupt-sized (a timer interrupt with a
 * perf sample, a VM exit to re-arm it); longer ones are the scheduler
 * running another task or the hypervisor stealing the vcpu, which is the
 * noise of a shared machine and is counted apart. A profiler's cost on
 * the profiled workload is the difference in interrupt time between
 * sampling and not sampling — measured this way it is not drowned in
 * the CPU-time noise of a loaded VM.
 *   gap_probe SECONDS
 * prints: seconds gaps gap_seconds long_gaps long_seconds
 * (gap_seconds / seconds: the fraction of the cpu interrupts took).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define GAP_MIN_NS 400u         /* a normal step is 20..100 ns */
#define GAP_MAX_NS 100000u      /* longer: another task or the host */

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	unsigned long long start = now_ns(), end, prev = start, t, d;
	unsigned long long gaps = 0, gap_ns = 0, long_gaps = 0, long_ns = 0;

	if (seconds <= 0) {
		fprintf(stderr, "gap_probe: SECONDS must be positive, not '%s'\n",
			argv[1]);
		return 2;
	}
	end = start + (unsigned long long)(seconds * 1e9);
	do {
		t = now_ns();
		d = t - prev;
		prev = t;
		if (d < GAP_MIN_NS)
			continue;
		if (d <= GAP_MAX_NS) {
			gaps++;
			gap_ns += d;
		} else {
			long_gaps++;
			long_ns += d;
		}
	} while (t < end);
	printf("%.6f %llu %.6f %llu %.6f\n", (t - start) / 1e9, gaps,
	       gap_ns / 1e9, long_gaps, long_ns / 1e9);
	return 0;
}
