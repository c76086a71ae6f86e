/* Workload for opwatch: routines that take known times, and the truth
 * about each call measured twice on opwatch's clock (CLOCK_MONOTONIC):
 * inside the routine (its first statement to its last) and around the
 * call (the caller's reads). opwatch stamps the routine's entry and
 * return, which lie between the two, so per call inside <= opwatch <=
 * around, whatever the scheduler did between the reads and the probes
 * (on a busy machine the caller can lose the cpu for milliseconds right
 * before the call). Printed per routine:
 *   truth NAME CALLS IN_MIN IN_MEAN IN_MAX OUT_MIN OUT_MEAN OUT_MAX
 * t_1ms and t_5ms sleep; t_bimodal sleeps 1 or 4 ms; t_recurse nests
 * (level d takes d + 1 ms); t_migrate spins and moves to another cpu
 * before it returns; t_fork returns in the parent after 1 ms and in the
 * child after 3 ms (the child prints "child IN OUT"); q_add and q_remove
 * take an item into and out of a queue (keyed by its address): 8 items
 * added 1 ms apart, removed in reverse order 1 ms apart, each one's time
 * from q_add's entry to q_remove's entry is the truth "pair". */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct span {
	uint64_t min, max, sum;
};

struct truth {
	char const *name;
	unsigned long n;
	struct span in, out;
};

/* The last routine's time from inside: its first read to its last. */
static uint64_t inner_ns;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void span_add(struct span *s, unsigned long n, uint64_t d)
{
	if (!n || d < s->min)
		s->min = d;
	if (d > s->max)
		s->max = d;
	s->sum += d;
}

/* One call: its time inside and around (the count follows the inside). */
static void note_in(struct truth *t, uint64_t d)
{
	span_add(&t->in, t->n++, d);
}

static void note_out(struct truth *t, unsigned long nth, uint64_t d)
{
	span_add(&t->out, nth, d);
}

static void note(struct truth *t, uint64_t in, uint64_t out)
{
	note_out(t, t->n, out);
	note_in(t, in);
}

static void print(struct truth const *t)
{
	unsigned long n = t->n ? t->n : 1;

	printf("truth %s %lu %llu %llu %llu %llu %llu %llu\n", t->name, t->n,
	       (unsigned long long)t->in.min,
	       (unsigned long long)(t->in.sum / n),
	       (unsigned long long)t->in.max,
	       (unsigned long long)t->out.min,
	       (unsigned long long)(t->out.sum / n),
	       (unsigned long long)t->out.max);
	fflush(stdout);
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

__attribute__((noinline)) void t_1ms(void)
{
	uint64_t t0 = now_ns();

	sleep_us(1000);
	inner_ns = now_ns() - t0;
}

__attribute__((noinline)) void t_5ms(void)
{
	uint64_t t0 = now_ns();

	sleep_us(5000);
	inner_ns = now_ns() - t0;
}

__attribute__((noinline)) void t_bimodal(int slow)
{
	uint64_t t0 = now_ns();

	sleep_us(slow ? 4000 : 1000);
	inner_ns = now_ns() - t0;
}

static struct truth rec = { "t_recurse", 0, { 0, 0, 0 }, { 0, 0, 0 } };
static unsigned long rec_out;	/* the outside times noted so far */

void t_recurse(int d);

/* t_recurse(d) timed around the call, as its caller sees it. */
static void recurse_timed(int d)
{
	uint64_t t0 = now_ns();

	t_recurse(d);
	note_out(&rec, rec_out++, now_ns() - t0);
}

__attribute__((noinline)) void t_recurse(int d)
{
	uint64_t t0 = now_ns();

	if (d > 0)
		recurse_timed(d - 1);
	sleep_us(1000);
	note_in(&rec, now_ns() - t0);
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
	uint64_t t0 = now_ns();
	int cpu;

	pin(from);
	spin_ns(2000000);
	pin(to);
	spin_ns(2000000);
	cpu = sched_getcpu();
	inner_ns = now_ns() - t0;
	return cpu;
}

/* Returns twice: in the parent after 1 ms, in the child after 3 ms. */
__attribute__((noinline)) pid_t t_fork(void)
{
	uint64_t t0 = now_ns();
	pid_t pid = fork();

	sleep_us(pid == 0 ? 3000 : 1000);
	inner_ns = now_ns() - t0;
	return pid;
}

/* An item in the queue: when its adding began, seen from the caller
 * (before the call) and from inside q_add. */
struct item {
	uint64_t add_out, add_in;
	int id;
};

__attribute__((noinline)) void q_add(struct item *it)
{
	it->add_in = now_ns();
}

/* The time inside q_remove, after its entry. */
__attribute__((noinline)) uint64_t q_remove(struct item *it)
{
	__asm__ volatile("" : : "r"(it));
	return now_ns();
}

/* From q_add's entry to q_remove's entry: at least from inside q_add to
 * the caller's read before q_remove, at most from the caller's read
 * before q_add to inside q_remove. */
static void queue_items(void)
{
	struct truth pair = { "pair", 0, { 0, 0, 0 }, { 0, 0, 0 } };
	struct item items[8];

	for (int i = 0; i < 8; i++) {
		items[i].id = i;
		items[i].add_out = now_ns();
		q_add(&items[i]);
		sleep_us(1000);
	}
	for (int i = 7; i >= 0; i--) {
		uint64_t before = now_ns(), inside = q_remove(&items[i]);

		note(&pair, before - items[i].add_in, inside - items[i].add_out);
		sleep_us(1000);
	}
	print(&pair);
}

#define TIMED(t, call) do { uint64_t t0 = now_ns(); call; \
	note(t, inner_ns, now_ns() - t0); } while (0)

int main(void)
{
	struct truth one = { "t_1ms", 0, { 0, 0, 0 }, { 0, 0, 0 } };
	struct truth five = { "t_5ms", 0, { 0, 0, 0 }, { 0, 0, 0 } };
	struct truth bi = { "t_bimodal", 0, { 0, 0, 0 }, { 0, 0, 0 } };
	struct truth mig = { "t_migrate", 0, { 0, 0, 0 }, { 0, 0, 0 } };
	struct truth par = { "t_fork", 0, { 0, 0, 0 }, { 0, 0, 0 } };
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), moved = 0;

	for (int i = 0; i < 20; i++)
		TIMED(&one, t_1ms());
	for (int i = 0; i < 10; i++)
		TIMED(&five, t_5ms());
	for (int i = 0; i < 20; i++)
		TIMED(&bi, t_bimodal(i % 2));
	for (int i = 0; i < 3; i++)
		recurse_timed(4);
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
			printf("child %llu %llu\n", (unsigned long long)inner_ns,
			       (unsigned long long)d);
			fflush(stdout);
			_exit(0);
		}
		note(&par, inner_ns, d);
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
