/*
 * Threads that block in known places for times they measure themselves:
 * the truth an off-CPU profile is checked against (tests/control/t1054).
 *
 *   offcpu_places places SECONDS   the main thread cycles through three
 *       places, each its own function, for about 30 / 20 / 50 of its
 *       blocked time: wait_sleep (nanosleep 6 ms), wait_pipe (read of a
 *       pipe a feeder thread writes 4 ms later), wait_mutex (a mutex a
 *       holder thread keeps 10 ms more). Prints "PLACE US" per place:
 *       the time spent in its blocking call, by CLOCK_MONOTONIC around it.
 *       The helpers block in helper_wait, apart.
 *   offcpu_places mixed SECONDS    one thread (mixed_thread) computes
 *       (mixed_compute) 4 ms of its own cpu time, then sleeps
 *       (mixed_sleep) 6 ms, in cycles. Prints "cpu US", "sleep US" and
 *       "wall US": its cpu time (CLOCK_THREAD_CPUTIME_ID), the time in
 *       nanosleep and its whole life; "sleeps N" and "sleep_sq US2":
 *       the sleeps' number and the sum of their squared lengths.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))

static double now_us(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void sleep_us(double us)
{
	struct timespec ts = { (time_t)(us / 1e6), (long)((long long)(us * 1e3) % 1000000000) };

	while (nanosleep(&ts, &ts))
		;
}

static double truth[3];
static volatile int stop;
static int feed[2];
static sem_t feed_go, hold_go, hold_back, holder_has_it;
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;

NOINLINE static void wait_sleep(void)
{
	double t0 = now_us(CLOCK_MONOTONIC);

	sleep_us(6000);
	truth[0] += now_us(CLOCK_MONOTONIC) - t0;
}

NOINLINE static void wait_pipe(void)
{
	double t0 = now_us(CLOCK_MONOTONIC);
	char c;

	if (read(feed[0], &c, 1) != 1)
		exit(2);
	truth[1] += now_us(CLOCK_MONOTONIC) - t0;
}

NOINLINE static void wait_mutex(void)
{
	double t0 = now_us(CLOCK_MONOTONIC);

	pthread_mutex_lock(&held);
	truth[2] += now_us(CLOCK_MONOTONIC) - t0;
}

NOINLINE static void helper_wait(sem_t *s)
{
	while (sem_wait(s))
		;
}

static void *feeder(void *arg)
{
	(void)arg;
	for (;;) {
		helper_wait(&feed_go);
		if (stop)
			return NULL;
		sleep_us(4000);
		if (write(feed[1], "x", 1) != 1)
			exit(2);
	}
}

/* Keeps the mutex but for the moment the main thread takes it. */
static void *holder(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&held);
	sem_post(&holder_has_it);
	for (;;) {
		helper_wait(&hold_go);
		if (stop)
			break;
		sleep_us(10000);
		pthread_mutex_unlock(&held);
		helper_wait(&hold_back);
		pthread_mutex_lock(&held);
		sem_post(&holder_has_it);
	}
	pthread_mutex_unlock(&held);
	return NULL;
}

static int places(double seconds)
{
	static char const *const names[3] = { "wait_sleep", "wait_pipe", "wait_mutex" };
	pthread_t tf, th;
	double end;

	if (pipe(feed) || sem_init(&feed_go, 0, 0) || sem_init(&hold_go, 0, 0) ||
	    sem_init(&hold_back, 0, 0) || sem_init(&holder_has_it, 0, 0) ||
	    pthread_create(&tf, NULL, feeder, NULL) ||
	    pthread_create(&th, NULL, holder, NULL))
		return 2;
	end = now_us(CLOCK_MONOTONIC) + seconds * 1e6;
	while (now_us(CLOCK_MONOTONIC) < end) {
		helper_wait(&holder_has_it);
		wait_sleep();
		sem_post(&feed_go);
		wait_pipe();
		sem_post(&hold_go);
		wait_mutex();
		pthread_mutex_unlock(&held);
		sem_post(&hold_back);
	}
	helper_wait(&holder_has_it);
	stop = 1;
	sem_post(&feed_go);
	sem_post(&hold_go);
	pthread_join(tf, NULL);
	pthread_join(th, NULL);
	for (int i = 0; i < 3; i++)
		printf("%s %.0f\n", names[i], truth[i]);
	return 0;
}

static double mixed_secs, mixed_truth[3];
/* the sleeps' number and sum of squares: how far a 1-in-N sample of
 * them may fall from their sum (t1055's tolerance for OFF_CPU:N) */
static double mixed_sleeps, mixed_sleep_sq;

NOINLINE static void mixed_compute(double cpu_us)
{
	double end = now_us(CLOCK_THREAD_CPUTIME_ID) + cpu_us;
	volatile unsigned long x = 0;

	while (now_us(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 1000; i++)
			x += (unsigned long)i * i;
}

NOINLINE static void mixed_sleep(double us)
{
	double t0 = now_us(CLOCK_MONOTONIC);

	double d;

	sleep_us(us);
	d = now_us(CLOCK_MONOTONIC) - t0;
	mixed_truth[1] += d;
	mixed_sleeps++;
	mixed_sleep_sq += d * d;
}

static void *mixed_thread(void *arg)
{
	double w0 = now_us(CLOCK_MONOTONIC), c0 = now_us(CLOCK_THREAD_CPUTIME_ID);
	double end = w0 + mixed_secs * 1e6;

	(void)arg;
	while (now_us(CLOCK_MONOTONIC) < end) {
		mixed_compute(4000);
		mixed_sleep(6000);
	}
	mixed_truth[0] = now_us(CLOCK_THREAD_CPUTIME_ID) - c0;
	mixed_truth[2] = now_us(CLOCK_MONOTONIC) - w0;
	return NULL;
}

static int mixed(double seconds)
{
	pthread_t t;

	mixed_secs = seconds;
	if (pthread_create(&t, NULL, mixed_thread, NULL) || pthread_join(t, NULL))
		return 2;
	printf("cpu %.0f\nsleep %.0f\nwall %.0f\nsleeps %.0f\nsleep_sq %.0f\n",
	       mixed_truth[0], mixed_truth[1], mixed_truth[2], mixed_sleeps,
	       mixed_sleep_sq);
	return 0;
}

int main(int argc, char **argv)
{
	double seconds = argc > 2 ? atof(argv[2]) : 2;

	if (argc > 1 && !strcmp(argv[1], "places"))
		return places(seconds);
	if (argc > 1 && !strcmp(argv[1], "mixed"))
		return mixed(seconds);
	fprintf(stderr, "usage: offcpu_places places|mixed [SECONDS]\n");
	return 2;
}
