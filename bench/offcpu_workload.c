/*
 * A workload whose off-CPU time is known: threads that block in named
 * places for known times, each blocking call timed by the program itself
 * (CLOCK_MONOTONIC around the call), so that an off-CPU profile of it
 * can be checked against the truth it prints.
 *
 *   offcpu_workload [-m MODE] [-s SECONDS] [-c CYCLE_MS] [-p PAIRS] [-r RATE]
 *                   [-l LINGER_S]
 *
 * MODE places (default): one thread cycles through three places, each
 *   its own function, for shares of its blocked time of about 30 / 20 / 50:
 *     wait_nanosleep   nanosleep(2) for 30% of a cycle
 *     wait_pipe_read   read(2) on an empty pipe; a feeder thread writes
 *                      to it 20% of a cycle after being told to
 *     wait_mutex       locking a mutex (a futex) that a holder thread
 *                      keeps for 50% of a cycle after being told to
 *   The feeder's and the holder's own waits (feeder_wait, holder_wait)
 *   are off-CPU time too; they are printed apart ("helper=").
 * MODE switch: PAIRS pairs of threads (default 2) play ping-pong over two
 *   pipes as fast as they can: every round trip blocks each side once, so
 *   the process makes tens of thousands of blocking context switches a
 *   second (with -r RATE, RATE round trips a second in all, paced by a
 *   sleep in pace_wait every millisecond). Prints round trips and voluntary switches per second, and the
 *   process's CPU time per round trip: the figures a profiler slows down.
 * MODE mixed: one thread computes (mixed_compute, its own CPU time) for
 *   40% of a cycle and sleeps (mixed_sleep, nanosleep) for 60%.
 *
 * With -l, the program calls measure_done() when its figures are printed,
 * then sleeps LINGER_S seconds before it exits: a tracer that stops at
 * measure_done (a uprobe) can still read the process's maps to name the
 * user addresses of its stacks.
 *
 * SECONDS is the run's length (default 10), CYCLE_MS one cycle's length in
 * places and mixed mode (default 20). Output is "key=value" words, one
 * line per place; blocked_us is the sum of the timed calls, share its
 * percentage of all the places' blocked time (helpers not counted).
 *
 * Every blocking system call is made by an inline syscall instruction in
 * its place's function (built with frame pointers): a frame-pointer
 * unwinder starting in a libc wrapper that keeps no frame would skip its
 * caller, and the place would lose its name. So the mutex and the
 * semaphores are this file's own, on futexes, as glibc's are.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <linux/futex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;
static double cycle_ns = 20e6;

static double mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static struct timespec ts_of(double ns)
{
	struct timespec ts = { (time_t)(ns / 1e9), (long)((uint64_t)ns % 1000000000) };

	return ts;
}

/* A system call made here, so the place's function is the user ip. */
static inline long raw_syscall3(long nr, long a, long b, long c)
{
#if defined(__x86_64__)
	long ret;

	__asm__ volatile ("syscall"
		: "=a" (ret)
		: "a" (nr), "D" (a), "S" (b), "d" (c)
		: "rcx", "r11", "memory");
	if (ret < 0 && ret > -4096) {
		errno = -ret;
		return -1;
	}
	return ret;
#else
	return syscall(nr, a, b, c);
#endif
}

/* With a fourth argument (futex's timeout, always none here). */
static inline long raw_syscall4(long nr, long a, long b, long c, long d)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	long ret;

	__asm__ volatile ("syscall"
		: "=a" (ret)
		: "a" (nr), "D" (a), "S" (b), "d" (c), "r" (r10)
		: "rcx", "r11", "memory");
	if (ret < 0 && ret > -4096) {
		errno = -ret;
		return -1;
	}
	return ret;
#else
	return syscall(nr, a, b, c, d);
#endif
}

#define ALWAYS_INLINE static inline __attribute__((always_inline))
/* A place keeps its own name: no inlining, no gcc ".constprop" clone. */
#if defined(__clang__)
#define PLACE static __attribute__((noinline))
#else
#define PLACE static __attribute__((noinline, noclone))
#endif

ALWAYS_INLINE void futex_wait(int *word, int val)
{
	raw_syscall4(SYS_futex, (long)word, FUTEX_WAIT_PRIVATE, val, 0);
}

static void futex_wake(int *word)
{
	raw_syscall4(SYS_futex, (long)word, FUTEX_WAKE_PRIVATE, 1, 0);
}

/*
 * A mutex as glibc's (0 free, 1 taken, 2 taken with waiters) and a
 * counting semaphore, both on futexes, their waits inlined into the
 * place that calls them: glibc's pthread_mutex_lock and sem_wait block
 * in frameless functions that hide their caller from a frame-pointer
 * unwinder.
 */
ALWAYS_INLINE void fmutex_lock(int *m)
{
	int c = 0;

	if (__atomic_compare_exchange_n(m, &c, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	if (c != 2)
		c = __atomic_exchange_n(m, 2, __ATOMIC_ACQUIRE);
	while (c != 0) {
		futex_wait(m, 2);
		c = __atomic_exchange_n(m, 2, __ATOMIC_ACQUIRE);
	}
}

static void fmutex_unlock(int *m)
{
	if (__atomic_fetch_sub(m, 1, __ATOMIC_RELEASE) != 1) {
		__atomic_store_n(m, 0, __ATOMIC_RELEASE);
		futex_wake(m);
	}
}

ALWAYS_INLINE void fsem_wait(int *count)
{
	for (;;) {
		int v = __atomic_load_n(count, __ATOMIC_ACQUIRE);

		if (v > 0) {
			if (__atomic_compare_exchange_n(count, &v, v - 1, 0,
					__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				return;
		} else {
			futex_wait(count, 0);
		}
	}
}

static void fsem_post(int *count)
{
	__atomic_fetch_add(count, 1, __ATOMIC_RELEASE);
	futex_wake(count);
}

ALWAYS_INLINE void sleep_ns(double ns)
{
	struct timespec ts = ts_of(ns);

	while (raw_syscall3(SYS_nanosleep, (long)&ts, (long)&ts, 0) < 0 && errno == EINTR)
		;
}

/* One place's truth: the blocked time of its timed calls. */
struct place {
	const char *name;
	double blocked_ns;
	unsigned long calls;
};

static struct place places[] = {
	{ "wait_nanosleep", 0, 0 },
	{ "wait_pipe_read", 0, 0 },
	{ "wait_mutex", 0, 0 },
};
static struct place helpers[] = {
	{ "feeder_wait", 0, 0 },
	{ "holder_wait", 0, 0 },
};

static void account(struct place *p, double t0)
{
	p->blocked_ns += mono_ns() - t0;
	p->calls++;
}

static void die_errno(const char *what)
{
	fprintf(stderr, "offcpu_workload: %s failed: %s\n", what, strerror(errno));
	exit(1);
}

PLACE void wait_nanosleep(double ns)
{
	double t0 = mono_ns();

	sleep_ns(ns);
	account(&places[0], t0);
}

PLACE void wait_pipe_read(int fd)
{
	char c;
	double t0 = mono_ns();
	long n;

	while ((n = raw_syscall3(SYS_read, fd, (long)&c, 1)) < 0 && errno == EINTR)
		;
	if (n != 1)
		die_errno("read of the feeder's pipe");
	account(&places[1], t0);
}

PLACE void wait_mutex(int *m)
{
	double t0 = mono_ns();

	fmutex_lock(m);
	account(&places[2], t0);
}

/* The places mode's shared state: semaphores and the mutex. */
static int feed_pipe[2];
static int feed_go, hold_go, victim_got, holder_ready;
static int held;

/* A helper's wait: for a semaphore, or (sem NULL) a sleep of ns. */
PLACE void feeder_wait(int *sem, double ns)
{
	double t0 = mono_ns();

	if (sem)
		fsem_wait(sem);
	else
		sleep_ns(ns);
	account(&helpers[0], t0);
}

PLACE void holder_wait(int *sem, int *mutex, double ns)
{
	double t0 = mono_ns();

	if (sem)
		fsem_wait(sem);
	else if (mutex)
		fmutex_lock(mutex);
	else
		sleep_ns(ns);
	account(&helpers[1], t0);
}

static void *feeder(void *arg)
{
	(void)arg;
	for (;;) {
		feeder_wait(&feed_go, 0);
		if (stop)
			break;
		feeder_wait(NULL, 0.2 * cycle_ns);
		if (write(feed_pipe[1], "x", 1) != 1)
			die_errno("write to the reader's pipe");
	}
	return NULL;
}

/*
 * The holder keeps the mutex between cycles; told to, it lets it go 50%
 * of a cycle later, waits until the victim has had it, and takes it back
 * (so that the next wait_mutex finds it held).
 */
static void *holder(void *arg)
{
	(void)arg;
	fmutex_lock(&held);
	fsem_post(&holder_ready);
	for (;;) {
		holder_wait(&hold_go, NULL, 0);
		if (stop)
			break;
		holder_wait(NULL, NULL, 0.5 * cycle_ns);
		fmutex_unlock(&held);
		holder_wait(&victim_got, NULL, 0);
		holder_wait(NULL, &held, 0);
	}
	fmutex_unlock(&held);
	return NULL;
}

static void run_places(double seconds)
{
	pthread_t tf, th;
	unsigned long cycles = 0;
	double end, sum = 0;

	if (pipe(feed_pipe) < 0)
		die_errno("pipe");
	if (pthread_create(&tf, NULL, feeder, NULL) || pthread_create(&th, NULL, holder, NULL))
		die_errno("pthread_create");
	fsem_wait(&holder_ready);

	end = mono_ns() + seconds * 1e9;
	while (mono_ns() < end) {
		wait_nanosleep(0.3 * cycle_ns);
		fsem_post(&feed_go);
		wait_pipe_read(feed_pipe[0]);
		fsem_post(&hold_go);
		wait_mutex(&held);
		fmutex_unlock(&held);
		fsem_post(&victim_got);
		cycles++;
	}
	stop = 1;
	fsem_post(&feed_go);
	fsem_post(&hold_go);
	pthread_join(tf, NULL);
	pthread_join(th, NULL);

	for (size_t i = 0; i < 3; i++)
		sum += places[i].blocked_ns;
	printf("mode=places seconds=%.3f cycle_ms=%.3f cycles=%lu\n",
	       seconds, cycle_ns / 1e6, cycles);
	for (size_t i = 0; i < 3; i++)
		printf("place=%s blocked_us=%.0f calls=%lu share=%.2f\n",
		       places[i].name, places[i].blocked_ns / 1e3, places[i].calls,
		       sum > 0 ? places[i].blocked_ns / sum * 100 : 0.0);
	for (size_t i = 0; i < 2; i++)
		printf("helper=%s blocked_us=%.0f calls=%lu\n", helpers[i].name,
		       helpers[i].blocked_ns / 1e3, helpers[i].calls);
}

/* The switch mode: ping-pong between the two ends of a pair. */
struct pair {
	pthread_t ping, pong;
	int to_pong[2], to_ping[2];
	unsigned long trips;
};

static double trip_rate;	/* per pair; 0: as fast as they can */

/* Between batches of a paced pair's round trips, a sleep to a deadline. */
PLACE void pace_wait(double until_ns)
{
	double now = mono_ns();

	if (until_ns > now)
		sleep_ns(until_ns - now);
}

PLACE void *pingpong_ping(void *arg)
{
	struct pair *p = arg;
	char c = 'x';
	double next = mono_ns();

	while (!stop) {
		/* paced: a millisecond's worth of trips, then a sleep */
		if (trip_rate > 0 && p->trips % (unsigned long)(trip_rate / 1000 + 1) == 0) {
			next += 1e6;
			pace_wait(next);
		}
		if (raw_syscall3(SYS_write, p->to_pong[1], (long)&c, 1) != 1 ||
		    raw_syscall3(SYS_read, p->to_ping[0], (long)&c, 1) != 1)
			die_errno("ping-pong");
		p->trips++;
	}
	c = 'q';
	if (write(p->to_pong[1], &c, 1) != 1)
		die_errno("ping-pong's last write");
	return NULL;
}

PLACE void *pingpong_pong(void *arg)
{
	struct pair *p = arg;
	char c;

	for (;;) {
		if (raw_syscall3(SYS_read, p->to_pong[0], (long)&c, 1) != 1)
			die_errno("ping-pong");
		if (c == 'q')
			break;
		if (raw_syscall3(SYS_write, p->to_ping[1], (long)&c, 1) != 1)
			die_errno("ping-pong");
	}
	return NULL;
}

static double rusage_cpu_s(struct rusage *ru)
{
	return ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6 +
	       ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6;
}

static void run_switch(double seconds, int npairs, double rate)
{
	struct pair *pairs = calloc(npairs, sizeof(*pairs));
	struct rusage r0, r1;
	unsigned long trips = 0;
	double t0, t1;

	if (!pairs)
		die_errno("calloc");
	trip_rate = rate / npairs;
	getrusage(RUSAGE_SELF, &r0);
	t0 = mono_ns();
	for (int i = 0; i < npairs; i++) {
		if (pipe(pairs[i].to_pong) < 0 || pipe(pairs[i].to_ping) < 0)
			die_errno("pipe");
		if (pthread_create(&pairs[i].pong, NULL, pingpong_pong, &pairs[i]) ||
		    pthread_create(&pairs[i].ping, NULL, pingpong_ping, &pairs[i]))
			die_errno("pthread_create");
	}
	wait_nanosleep(seconds * 1e9);
	stop = 1;
	for (int i = 0; i < npairs; i++) {
		pthread_join(pairs[i].ping, NULL);
		pthread_join(pairs[i].pong, NULL);
		trips += pairs[i].trips;
	}
	t1 = mono_ns();
	getrusage(RUSAGE_SELF, &r1);
	double wall = (t1 - t0) / 1e9;
	double cpu = rusage_cpu_s(&r1) - rusage_cpu_s(&r0);
	printf("mode=switch seconds=%.3f pairs=%d trips=%lu trips_per_s=%.0f "
	       "vcsw_per_s=%.0f ivcsw_per_s=%.0f cpu_s=%.3f cpu_us_per_trip=%.3f\n",
	       wall, npairs, trips, trips / wall,
	       (r1.ru_nvcsw - r0.ru_nvcsw) / wall, (r1.ru_nivcsw - r0.ru_nivcsw) / wall,
	       cpu, trips ? cpu * 1e6 / trips : 0.0);
	free(pairs);
}

/* The mixed mode: 40% computing, 60% sleeping, of each cycle. */
static volatile unsigned long sink;

PLACE void mixed_compute(double cpu_ns, double *on_ns)
{
	double c0 = thread_cpu_ns(), c;
	unsigned long acc = sink;

	do {
		for (int i = 0; i < 10000; i++)
			acc += i ^ (acc >> 3);
		c = thread_cpu_ns();
	} while (c - c0 < cpu_ns);
	sink = acc;
	*on_ns += c - c0;
}

PLACE void mixed_sleep(double ns, double *off_ns)
{
	double t0 = mono_ns();

	sleep_ns(ns);
	*off_ns += mono_ns() - t0;
}

static void run_mixed(double seconds)
{
	double end = mono_ns() + seconds * 1e9, on = 0, off = 0;
	unsigned long cycles = 0;

	while (mono_ns() < end) {
		mixed_compute(0.4 * cycle_ns, &on);
		mixed_sleep(0.6 * cycle_ns, &off);
		cycles++;
	}
	printf("mode=mixed seconds=%.3f cycle_ms=%.3f cycles=%lu\n",
	       seconds, cycle_ns / 1e6, cycles);
	printf("place=mixed_compute cpu_us=%.0f share=%.2f\n", on / 1e3,
	       on + off > 0 ? on / (on + off) * 100 : 0.0);
	printf("place=mixed_sleep blocked_us=%.0f share=%.2f\n", off / 1e3,
	       on + off > 0 ? off / (on + off) * 100 : 0.0);
}

/* The end of the measured part (see -l): a place for a uprobe. */
PLACE void measure_done(double linger_s)
{
	__asm__ volatile ("" ::: "memory");
	if (linger_s > 0)
		sleep_ns(linger_s * 1e9);
}

static void usage(void)
{
	fprintf(stderr, "usage: offcpu_workload [-m places|switch|mixed] [-s SECONDS] "
		"[-c CYCLE_MS] [-p PAIRS] [-r RATE] [-l LINGER_S]\n");
	exit(2);
}

static double number_arg(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi)) {
		fprintf(stderr, "offcpu_workload: invalid %s '%s' (%g to %g)\n", opt, s, lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	const char *mode = "places";
	double seconds = 10;
	double rate = 0, linger = 0;
	int npairs = 2, opt;

	while ((opt = getopt(argc, argv, "m:s:c:p:r:l:")) != -1) {
		switch (opt) {
		case 'm': mode = optarg; break;
		case 's': seconds = number_arg("seconds", optarg, 0.01, 86400); break;
		case 'c': cycle_ns = number_arg("cycle", optarg, 0.1, 10000) * 1e6; break;
		case 'p': npairs = (int)number_arg("pairs", optarg, 1, 256); break;
		case 'r': rate = number_arg("rate", optarg, 0, 1e8); break;
		case 'l': linger = number_arg("linger", optarg, 0, 3600); break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "places"))
		run_places(seconds);
	else if (!strcmp(mode, "switch"))
		run_switch(seconds, npairs, rate);
	else if (!strcmp(mode, "mixed"))
		run_mixed(seconds);
	else {
		fprintf(stderr, "offcpu_workload: unknown mode '%s'\n", mode);
		usage();
	}
	measure_done(linger);
	return 0;
}
