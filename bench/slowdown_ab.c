/*
 * A profiler's slowdown of a CPU-bound workload, measured A/B at a fine
 * grain so that the noise of a shared VM averages out.
 *
 * On this kind of VM the speed of a vcpu wanders by 10-25% from one
 * fraction of a second to the next (the host's other tenants), so two
 * long runs, one with and one without the profiler, cannot resolve a
 * cost of a few tenths of a percent. Here one thread per cpu (pinned)
 * does short units of fixed work, and between units the daemon is
 * switched between paused (SIGUSR2: its perf events disabled, no timer)
 * and sampling (SIGUSR1), in random order within each pair of units. A
 * unit's cost is its thread's CPU time: the timer interrupts and the
 * perf samples taken while it runs are charged to it (this kernel has no
 * IRQ time accounting), the host's steal is not (paravirt steal
 * accounting). The slowdown is the mean over all pairs of
 * log(sampling / paused), with its standard error; thousands of pairs
 * make that error a small fraction of a percent.
 *
 * What this does not see: the daemon's own CPU time, which competes with
 * the workload when every cpu is busy. bench/slowdown.sh measures that
 * apart and adds it.
 *
 *   slowdown_ab DAEMON_PID STATE_FILE SECONDS [UNIT_MS]
 *     STATE_FILE  the session's daemon_state ("sampling" / "paused")
 *     UNIT_MS     length of one unit of work (default 100)
 * Prints one summary line per thread and one for all, "key=value" words.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum arm { PAUSED = 0, SAMPLING = 1 };

struct worker {
	pthread_t thread;
	int cpu;
	double unit_ns[2];	/* CPU time of this thread's current unit */
	double *log_ratio;	/* per pair */
	size_t nr, cap;
};

static pthread_barrier_t start_unit, end_unit;
static volatile int stop_all;
static unsigned long iters;	/* loop iterations in one unit */
static volatile enum arm cur_arm;

static double thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The work: the same dependent arithmetic loop as bench/cpu_work. */
__attribute__((noinline)) static unsigned long work(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += i ^ (acc >> 3);
	return acc;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	pin(w->cpu);
	for (;;) {
		pthread_barrier_wait(&start_unit);
		if (stop_all)
			return NULL;
		double t0 = thread_cpu_ns();
		work(iters);
		w->unit_ns[cur_arm] = thread_cpu_ns() - t0;
		pthread_barrier_wait(&end_unit);
	}
}

static void die(char const *what)
{
	fprintf(stderr, "slowdown_ab: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Tell the daemon, then wait until its state file says so. */
static void set_arm(pid_t pid, char const *state_file, enum arm a)
{
	char const *want = a == SAMPLING ? "sampling" : "paused";
	char buf[32];

	if (kill(pid, a == SAMPLING ? SIGUSR1 : SIGUSR2))
		die("signalling the daemon");
	for (int i = 0; i < 5000; i++) {
		FILE *f = fopen(state_file, "r");
		size_t n = 0;

		if (f) {
			n = fread(buf, 1, sizeof(buf) - 1, f);
			fclose(f);
		}
		buf[n] = 0;
		if (n && buf[n - 1] == '\n')
			buf[n - 1] = 0;
		if (!strcmp(buf, want))
			return;
		usleep(1000);
	}
	fprintf(stderr, "slowdown_ab: %s never said %s\n", state_file, want);
	exit(1);
}

/* Iterations that take about ms milliseconds of this thread's CPU. */
static unsigned long calibrate(double ms)
{
	unsigned long n = 1ul << 16;
	double t;

	for (;;) {
		double t0 = thread_cpu_ns();
		work(n);
		t = thread_cpu_ns() - t0;
		if (t > 20e6)
			break;
		n *= 2;
	}
	return (unsigned long)(n * (ms * 1e6 / t));
}

static int cmp_double(void const *a, void const *b)
{
	double x = *(double const *)a, y = *(double const *)b;

	return (x > y) - (x < y);
}

static void summary(char const *who, double const *v, size_t n)
{
	double s = 0, ss = 0, *sorted;

	if (n < 2) {
		printf("%s pairs=%zu\n", who, n);
		return;
	}
	for (size_t i = 0; i < n; i++)
		s += v[i];
	double mean = s / n;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	double se = sqrt(ss / (n - 1) / n);
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		die("malloc");
	memcpy(sorted, v, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	double med = sorted[n / 2];
	free(sorted);
	/* percent; the interval is mean +- 1.96 se on the log scale */
	printf("%s pairs=%zu slowdown_pct=%.3f ci95_low=%.3f ci95_high=%.3f "
	       "median_pct=%.3f sd_pct=%.2f\n", who, n,
	       (exp(mean) - 1) * 100, (exp(mean - 1.96 * se) - 1) * 100,
	       (exp(mean + 1.96 * se) - 1) * 100, (exp(med) - 1) * 100,
	       sqrt(ss / (n - 1)) * 100);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: slowdown_ab DAEMON_PID STATE_FILE "
			"SECONDS [UNIT_MS]\n");
		return 2;
	}
	pid_t pid = (pid_t)atol(argv[1]);
	char const *state_file = argv[2];
	double seconds = atof(argv[3]);
	double unit_ms = argc > 4 ? atof(argv[4]) : 100;
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	struct worker *w = calloc(ncpu, sizeof(*w));

	if (pid <= 0 || seconds <= 0 || unit_ms <= 0 || ncpu < 1 || !w) {
		fprintf(stderr, "slowdown_ab: bad arguments\n");
		return 2;
	}
	set_arm(pid, state_file, PAUSED);
	iters = calibrate(unit_ms);
	srand48(getpid());
	pthread_barrier_init(&start_unit, NULL, ncpu + 1);
	pthread_barrier_init(&end_unit, NULL, ncpu + 1);
	for (int c = 0; c < ncpu; c++) {
		w[c].cpu = c;
		if (pthread_create(&w[c].thread, NULL, worker_main, &w[c]))
			die("pthread_create");
	}
	double end = mono_s() + seconds, sampling_s = 0;
	size_t pairs = 0;
	while (mono_s() < end) {
		enum arm first = drand48() < 0.5 ? PAUSED : SAMPLING;

		for (int k = 0; k < 2; k++) {
			enum arm a = k ? !first : first;
			set_arm(pid, state_file, a);
			cur_arm = a;
			double t0 = mono_s();
			pthread_barrier_wait(&start_unit);
			pthread_barrier_wait(&end_unit);
			if (a == SAMPLING)
				sampling_s += mono_s() - t0;
		}
		for (int c = 0; c < ncpu; c++) {
			struct worker *x = &w[c];
			if (x->nr == x->cap) {
				x->cap = x->cap ? 2 * x->cap : 1024;
				x->log_ratio = realloc(x->log_ratio,
					x->cap * sizeof(*x->log_ratio));
				if (!x->log_ratio)
					die("realloc");
			}
			x->log_ratio[x->nr++] =
				log(x->unit_ns[SAMPLING] / x->unit_ns[PAUSED]);
		}
		pairs++;
	}
	set_arm(pid, state_file, SAMPLING);
	stop_all = 1;
	pthread_barrier_wait(&start_unit);
	for (int c = 0; c < ncpu; c++)
		pthread_join(w[c].thread, NULL);

	printf("units unit_ms=%.1f pairs=%zu sampling_wall_s=%.2f\n",
	       unit_ms, pairs, sampling_s);
	double *all = malloc(pairs * ncpu * sizeof(*all));
	size_t n = 0;
	if (!all)
		die("malloc");
	for (int c = 0; c < ncpu; c++) {
		char who[32];
		snprintf(who, sizeof(who), "cpu%d", c);
		summary(who, w[c].log_ratio, w[c].nr);
		memcpy(all + n, w[c].log_ratio, w[c].nr * sizeof(*all));
		n += w[c].nr;
		free(w[c].log_ratio);
	}
	summary("all", all, n);
	free(all);
	free(w);
	return 0;
}
