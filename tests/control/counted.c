/*
 * Workload for opwatch --count: c_sleep sleeps 5 ms (next to no CPU, a
 * context switch), c_spin burns 5 ms of its thread's CPU time (whatever
 * the load: it spins on CLOCK_THREAD_CPUTIME_ID), c_fault touches 64
 * fresh pages (64 page faults). Each is called 10 times; the truth, the
 * thread CPU time of each call as the program measured it, is printed:
 *   truth NAME CALLS MIN_NS MEAN_NS MAX_NS P50_NS
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PAGES 64

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) void c_sleep(void)
{
	struct timespec ts = { 0, 5000000 };

	nanosleep(&ts, NULL);
	__asm__ volatile("");
}

__attribute__((noinline)) void c_spin(void)
{
	uint64_t end = cpu_ns() + 5000000;

	while (cpu_ns() < end)
		;
	__asm__ volatile("");
}

__attribute__((noinline)) void c_fault(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)(PAGES * page), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	for (long i = 0; i < PAGES; i++)
		p[i * page] = 1;
	munmap(p, (size_t)(PAGES * page));
	__asm__ volatile("");
}

static int cmp_u64(void const *a, void const *b)
{
	uint64_t x = *(uint64_t const *)a, y = *(uint64_t const *)b;

	return (x > y) - (x < y);
}

static void run(char const *name, void (*fn)(void))
{
	uint64_t d[10], sum = 0;

	for (int i = 0; i < 10; i++) {
		uint64_t t0 = cpu_ns();

		fn();
		d[i] = cpu_ns() - t0;
		sum += d[i];
	}
	qsort(d, 10, sizeof(d[0]), cmp_u64);
	/* p50 by nearest rank, as opwatch's: the 5th of 10 */
	printf("truth %s 10 %llu %llu %llu %llu\n", name,
	       (unsigned long long)d[0], (unsigned long long)(sum / 10),
	       (unsigned long long)d[9], (unsigned long long)d[4]);
}

int main(void)
{
	run("c_sleep", c_sleep);
	run("c_spin", c_spin);
	run("c_fault", c_fault);
	return 0;
}
