/*
 * The README demo's workload: three phases, each run until this process
 * has used its share of CPU time, so the report has something known to
 * show at its top:
 *   1. demo_main_hot, a loop in this binary
 *   2. demo_lib_hot, a loop in libdemo.so
 *   3. kernel time: read 1 MiB from /dev/zero (the kernel clears the
 *      buffer: read_zero, clear_user) and write it to /dev/null
 * Usage: demo_work MAIN_S LIB_S KERNEL_S (CPU seconds of each phase).
 * Prints the CPU seconds each phase used, "main=S lib=S kernel=S": the
 * end-to-end report test (pp/tests/t2009) reads it to know the shares.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

unsigned long demo_lib_hot(unsigned long n);

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) unsigned long demo_main_hot(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += i ^ (acc >> 3);
	return acc;
}

static double spin(double seconds, unsigned long (*fn)(unsigned long))
{
	double start = cpu_now(), now;

	while ((now = cpu_now()) < start + seconds)
		fn(1UL << 18);
	return now - start;
}

static double syscalls(double seconds)
{
	static char buf[1 << 20];
	int in = open("/dev/zero", O_RDONLY), out = open("/dev/null", O_WRONLY);
	double start = cpu_now(), now;

	if (in < 0 || out < 0) {
		perror("demo_work: /dev/zero or /dev/null");
		exit(1);
	}
	while ((now = cpu_now()) < start + seconds)
		if (read(in, buf, sizeof(buf)) != (ssize_t)sizeof(buf) ||
		    write(out, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			perror("demo_work: read/write");
			exit(1);
		}
	close(in);
	close(out);
	return now - start;
}

int main(int argc, char **argv)
{
	double m, l, k;

	if (argc != 4) {
		fprintf(stderr, "usage: demo_work MAIN_S LIB_S KERNEL_S\n");
		return 2;
	}
	m = spin(atof(argv[1]), demo_main_hot);
	l = spin(atof(argv[2]), demo_lib_hot);
	k = syscalls(atof(argv[3]));
	printf("main=%.4f lib=%.4f kernel=%.4f\n", m, l, k);
	return 0;
}
