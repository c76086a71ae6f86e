/* Workload for opwatch: routines that take known times, each measured
 * here around the call (CLOCK_MONOTONIC) and printed as the truth:
 *   truth NAME CALLS MIN_NS MEAN_NS MAX_NS
 * t_1ms and t_5ms sleep; t_bimodal sleeps 1 or 4 ms; t_recurse nests
 * (level d takes d + 1 ms); t_migrate spins and moves to another cpu
 * before it returns; t_fork returns in the parent after 1 ms and in the
 * child after 3 ms; q_add and q_remove take an item into and out of a
 * queue (keyed by its address): 8 items added 1 ms apart, removed in
 * reverse order 1 ms apart, each one's time in the queue is the truth
 * "pair". */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct truth {
	char const *name;
	unsigned long n;
	uint64_t min, max, sum;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void note(struct truth *t, uint64_t d)
{
	if (!t->n || d < t->min)
		t->min = d;
	if (d > t->max)
		t->max = d;
	t->sum += d;
	t->n++;
}

static void print(struct truth const *t)
{
	printf("truth %s %lu %llu %llu %llu\n", t->name, t->n,
	       (unsigned long long)t->min,
	       (unsigned long long)(t->sum / (t->n ? t->n : 1)),
	       (unsigned long long)t->max);
	fflush(stdout);
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

__attribute__((noinline)) void t_1ms(void) { sleep_us(1000); __asm__ volatile(""); }
__attribute__((noinline)) void t_5ms(void) { sleep_us(5000); __asm__ volatile(""); }
__attribute__((noinline)) void t_bimodal(int slow) { sleep_us(slow ? 4000 : 1000); __asm__ volatile(""); }

static struct truth rec = { "t_recurse", 0, 0, 0, 0 };

__attribute__((noinline)) void t_recurse(int d)
{
	uint64_t t0 = now_ns();

	if (d > 0)
		t_recurse(d - 1);
	sleep_us(1000);
	note(&rec, now_ns() - t0);
	__asm__ volatile("");
}

static void spin_ns(uint64_t ns)
{
	uint64_t end = now_ns() + ns;

	while (now_ns() < end)
		;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Spin 2 ms on one cpu, move, spin 2 ms on another: returns elsewhere. */
__attribute__((noinline)) int t_migrate(int from, int to)
{
	pin(from);
	spin_ns(2000000);
	pin(to);
	spin_ns(2000000);
	return sched_getcpu();
}

/* Returns twice: in the parent after 1 ms, in the child after 3 ms. */
__attribute__((noinline)) pid_t t_fork(void)
{
	pid_t pid = fork();

	sleep_us(pid == 0 ? 3000 : 1000);
	return pid;
}

struct item {
	uint64_t added;
	int id;
};

__attribute__((noinline)) void q_add(struct item *it) { it->added = now_ns(); __asm__ volatile(""); }
__attribute__((noinline)) uint64_t q_remove(struct item *it) { __asm__ volatile(""); return now_ns() - it->added; }

static void queue_items(void)
{
	struct truth pair = { "pair", 0, 0, 0, 0 };
	struct item items[8];

	for (int i = 0; i < 8; i++) {
		items[i].id = i;
		q_add(&items[i]);
		sleep_us(1000);
	}
	for (int i = 7; i >= 0; i--) {
		note(&pair, q_remove(&items[i]));
		sleep_us(1000);
	}
	print(&pair);
}

#define TIMED(t, call) do { uint64_t t0 = now_ns(); call; note(t, now_ns() - t0); } while (0)

int main(void)
{
	struct truth one = { "t_1ms", 0, 0, 0, 0 }, five = { "t_5ms", 0, 0, 0, 0 };
	struct truth bi = { "t_bimodal", 0, 0, 0, 0 }, mig = { "t_migrate", 0, 0, 0, 0 };
	struct truth par = { "t_fork", 0, 0, 0, 0 };
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), moved = 0;

	for (int i = 0; i < 20; i++)
		TIMED(&one, t_1ms());
	for (int i = 0; i < 10; i++)
		TIMED(&five, t_5ms());
	for (int i = 0; i < 20; i++)
		TIMED(&bi, t_bimodal(i % 2));
	for (int i = 0; i < 3; i++)
		t_recurse(4);
	for (int i = 0; i < 5 && ncpu > 1; i++) {
		int cpu;

		TIMED(&mig, cpu = t_migrate(0, 1));
		moved += cpu == 1;
	}
	for (int i = 0; i < 3; i++) {
		uint64_t t0 = now_ns();
		pid_t pid = t_fork();
		uint64_t d = now_ns() - t0;

		if (pid == 0) {
			printf("child %llu\n", (unsigned long long)d);
			fflush(stdout);
			_exit(0);
		}
		note(&par, d);
		waitpid(pid, NULL, 0);
	}
	print(&one);
	print(&five);
	print(&bi);
	print(&rec);
	if (ncpu > 1)
		print(&mig);
	print(&par);
	queue_items();
	printf("migrated %d\n", moved);
	return 0;
}
