/*
 * odb_bench: how fast libdb is where the daemon and the tools spend their
 * time. The daemon's hot path is adding to keys that already exist (a
 * program's hot code is a few thousand offsets); a new image means a
 * growing file; opreport reads every node once. Figures are per core:
 * one writer, no contention.
 *
 *   odb_bench [DIR]     (files go in DIR, default $TMPDIR or /tmp)
 *
 * Prints one line per figure, e.g. "odb hot adds: 45.2 M/s". Rates are
 * per CPU second of this thread (CLOCK_THREAD_CPUTIME_ID), so a busy
 * machine that lends us only part of a core does not distort them; the
 * wall-clock time is printed alongside.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "odb.h"
#include "op_message.h"
#include "op_sample_file.h"

#define HOT_KEYS 4096
#define HOT_ADDS 100000000UL
#define GROW_KEYS 1000000UL
#define READ_PASSES 50

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU time and wall time of a measured stretch. */
struct span {
	double cpu;
	double wall;
};

static void span_start(struct span *s)
{
	s->cpu = clock_s(CLOCK_THREAD_CPUTIME_ID);
	s->wall = clock_s(CLOCK_MONOTONIC);
}

static void span_stop(struct span *s)
{
	s->cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - s->cpu;
	s->wall = clock_s(CLOCK_MONOTONIC) - s->wall;
}

static uint64_t next_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static void open_or_die(struct odb *db, char const *path)
{
	unlink(path);
	if (odb_open(db, path, ODB_RDWR, sizeof(struct opd_header)))
		op_die("%s", db->err);
}

static void add_or_die(struct odb *db, odb_key_t key)
{
	if (odb_add(db, key, 1) < 0)
		op_die("%s", db->err);
}

/* (a) random adds to 4096 keys that are already in the file */
static void bench_hot(char const *path)
{
	static odb_key_t keys[HOT_KEYS];
	uint64_t rng = 0x2545f4914f6cdd1dULL;
	struct odb db;
	struct span t;
	unsigned long i;

	open_or_die(&db, path);
	for (i = 0; i < HOT_KEYS; i++) {
		keys[i] = next_rand(&rng) & 0xffffff;	/* image offsets */
		add_or_die(&db, keys[i]);
	}
	span_start(&t);
	for (i = 0; i < HOT_ADDS; i++)
		add_or_die(&db, keys[next_rand(&rng) & (HOT_KEYS - 1)]);
	span_stop(&t);
	printf("odb hot adds: %.1f M/s (%d keys, %lu adds, %.2f s cpu, %.2f s wall)\n",
	       HOT_ADDS / t.cpu / 1e6, HOT_KEYS, HOT_ADDS, t.cpu, t.wall);
	odb_close(&db);
}

/* (b) inserting a million new keys, doubling from 128 to 2^20 nodes */
static void bench_grow(char const *path)
{
	uint64_t rng = 0x9e3779b97f4a7c15ULL;
	uint32_t start;
	struct odb db;
	struct span t;
	unsigned long i;

	open_or_die(&db, path);
	start = db.descr->size;
	span_start(&t);
	for (i = 0; i < GROW_KEYS; i++)
		add_or_die(&db, next_rand(&rng));
	span_stop(&t);
	printf("odb growing adds: %.1f M/s (%lu new keys, %u -> %u nodes, %.2f s cpu, %.2f s wall)\n",
	       GROW_KEYS / t.cpu / 1e6, GROW_KEYS, start, db.descr->size,
	       t.cpu, t.wall);
	odb_close(&db);
}

static int visit(odb_key_t key, odb_value_t value, void *arg)
{
	*(uint64_t *)arg += key ^ value;
	return 0;
}

/* (c) visiting every node, as opreport does, and (d) odb_check */
static void bench_read(char const *path)
{
	uint64_t sink = 0;
	struct odb db;
	struct span t;
	int i;

	if (odb_open(&db, path, ODB_RDONLY, sizeof(struct opd_header)))
		op_die("%s", db.err);
	span_start(&t);
	for (i = 0; i < READ_PASSES; i++)
		odb_for_each(&db, visit, &sink);
	span_stop(&t);
	printf("odb reading (for_each): %.1f M nodes/s (%u nodes x %d passes, %.2f s cpu, %.2f s wall, checksum %llx)\n",
	       (double)odb_count(&db) * READ_PASSES / t.cpu / 1e6,
	       odb_count(&db), READ_PASSES, t.cpu, t.wall,
	       (unsigned long long)(sink & 0xffff));
	span_start(&t);
	if (odb_check(&db))
		op_die("%s", db.err);
	span_stop(&t);
	printf("odb check: %.1f ms cpu (%.1f ms wall) for %u nodes\n",
	       t.cpu * 1e3, t.wall * 1e3, odb_count(&db));
	odb_close(&db);
}

int main(int argc, char **argv)
{
	char const *dir = argc > 1 ? argv[1] : getenv("TMPDIR");
	char hot[4096], grow[4096];

	op_set_progname(argv[0]);
	if (!dir || !*dir)
		dir = "/tmp";
	snprintf(hot, sizeof(hot), "%s/odb-bench-hot.%d", dir, (int)getpid());
	snprintf(grow, sizeof(grow), "%s/odb-bench-grow.%d", dir, (int)getpid());
	bench_hot(hot);
	bench_grow(grow);
	bench_read(grow);
	unlink(hot);
	unlink(grow);
	return 0;
}
