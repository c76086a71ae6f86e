/*
 * twothreads: a two-thread workload for the --separate=thread test. The
 * main thread and one more thread each burn SECONDS (default 0.8) of their
 * own CPU time in thread_hot(), then the process prints "TGID TID1 TID2"
 * (TID1 is the main thread, so TID1 == TGID) and exits.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../workloads/spin.h"

static double seconds = 0.8;
static volatile unsigned long sink;

__attribute__((noinline)) static void thread_hot(void)
{
	for (unsigned long i = 0; i < 1000000; i++)
		sink += i ^ (sink >> 3);
}

/* Spin for seconds of this thread's CPU time; return its tid. */
static void *spin(void *arg)
{
	double end = clock_seconds(CLOCK_THREAD_CPUTIME_ID) + seconds;

	(void)arg;
	while (clock_seconds(CLOCK_THREAD_CPUTIME_ID) < end)
		thread_hot();
	return (void *)(long)syscall(SYS_gettid);
}

int main(int argc, char **argv)
{
	pthread_t t;
	void *tid2, *tid1;

	if (argc > 1)
		seconds = atof(argv[1]);
	if (pthread_create(&t, NULL, spin, NULL)) {
		fprintf(stderr, "twothreads: pthread_create failed\n");
		return 1;
	}
	tid1 = spin(NULL);
	pthread_join(t, &tid2);
	printf("%ld %ld %ld\n", (long)getpid(), (long)tid1, (long)tid2);
	return 0;
}
