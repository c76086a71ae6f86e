/*
 * Crash safety. First the states a writer killed in the middle of growth
 * or of an insert can leave are built by hand, byte by byte, and each must
 * open read-only, pass odb_check and show every committed count, and be
 * repaired by a read-write open. Then the real thing: a writer doing adds
 * is SIGKILLed at random moments, fifty times, and after each kill the
 * file must open read-only and pass odb_check, lose no committed count,
 * and reopen for writing.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "odb_helpers.h"

#define LAYOUT(n) ((off_t)(HDR + 32 + (uint64_t)(n) * 20))
#define NODE_OFF(i) ((off_t)(104 + 16 * (uint64_t)(i)))
#define HASH_OFF(size, b) ((off_t)(104 + 16 * (uint64_t)(size) + 4 * (uint64_t)(b)))

/* A file whose 128 nodes are full: the next new key would double it. */
static void make_full(char const *path, struct t_model *m)
{
	struct odb db;
	uint64_t key;
	uint32_t i;

	unlink(path);
	t_model_init(m);
	t_open(&db, path, ODB_RDWR);
	op_header_init(odb_get_header(&db));
	for (i = 1; i < 128; i++) {
		key = (uint64_t)i * 0x9e3779b97f4a7c15ULL;
		check_assert(odb_add(&db, key, i) == 0, "add");
		*t_model_slot(m, key) = i;
	}
	check_assert(db.descr->size == 128 && db.descr->current_size == 128, "not full");
	odb_close(&db);
}

static uint32_t get32(char const *path, off_t off)
{
	uint32_t v;

	t_pread(path, &v, sizeof(v), off);
	return v;
}

static void put32(char const *path, off_t off, uint32_t v)
{
	t_pwrite(path, &v, sizeof(v), off);
}

/* Read-only: opens, passes odb_check, shows exactly the model. */
static void expect_readable(char const *path, struct t_model const *m,
			    uint32_t view, char const *what)
{
	struct odb db;

	t_open(&db, path, ODB_RDONLY);
	check_assert(t_view(&db) == view, "%s: view %u, expected %u",
		     what, t_view(&db), view);
	check_assert(odb_check(&db) == 0, "%s: odb_check: %s", what, db.err);
	t_compare(&db, m, what);
	check_assert(odb_refresh(&db) == 0, "%s: odb_refresh: %s", what, db.err);
	odb_close(&db);
}

/* Read-write open repairs; afterwards the file is plain and sound. */
static void expect_repaired(char const *path, struct t_model *m, uint32_t size,
			    char const *what)
{
	struct odb db;

	t_open(&db, path, ODB_RDWR);
	odb_close(&db);
	check_assert(get32(path, 72) == size, "%s: size %u after repair", what,
		     get32(path, 72));
	check_assert(get32(path, 80) == 0, "%s: marker still set", what);
	check_assert(t_file_size(path) == LAYOUT(size), "%s: length %lld", what,
		     (long long)t_file_size(path));
	expect_readable(path, m, size, what);
	/* and it takes new keys: enough to need the next doubling */
	t_open(&db, path, ODB_RDWR);
	for (uint32_t i = 0; i < size; i++) {
		check_assert(odb_add(&db, 0xabc000000000ULL + i, 2) == 0, "%s: add: %s",
			     what, db.err);
		*t_model_slot(m, 0xabc000000000ULL + i) += 2;
	}
	odb_close(&db);
	expect_readable(path, m, 2 * size, what);
}

/* Killed after step (1): file doubled, descr and hash still the old ones. */
static void test_crash__doubled_file(void)
{
	char const *path = t_path("doubled.samples");
	struct t_model m;

	make_full(path, &m);
	check_assert(truncate(path, LAYOUT(256)) == 0, "truncate");
	expect_readable(path, &m, 128, "doubled file, old descr");
	expect_repaired(path, &m, 256, "doubled file, repaired");
	t_model_free(&m);
	check_pass("file doubled but descr old: read-only uses 128 nodes and passes; read-write completes the growth");
}

/* Killed in step (3): marker set, size not yet stored. */
static void test_crash__marker_old_size(void)
{
	char const *path = t_path("marker-old.samples");
	struct t_model m;

	make_full(path, &m);
	check_assert(truncate(path, LAYOUT(256)) == 0, "truncate");
	put32(path, 80, ODB_PAD_GROWING);
	expect_readable(path, &m, 128, "marker, old size");
	expect_repaired(path, &m, 256, "marker, old size, repaired");
	t_model_free(&m);
	check_pass("marker set, size still 128 in a doubled file: readable, repaired");
}

/* Killed in step (4): size doubled, hash half rebuilt, nexts rewritten. */
static void test_crash__half_rehash(void)
{
	char const *path = t_path("half-rehash.samples");
	struct t_model m;
	uint32_t b, i;

	make_full(path, &m);
	check_assert(truncate(path, LAYOUT(256)) == 0, "truncate");
	put32(path, 80, ODB_PAD_GROWING);
	put32(path, 72, 256);
	for (b = 0; b < 256; b += 3)
		put32(path, HASH_OFF(256, b), b % 2 ? 9999 : b / 3 + 1);
	for (i = 1; i < 128; i += 5)
		put32(path, NODE_OFF(i) + 12, i % 2 ? 7777 : i);
	expect_readable(path, &m, 256, "half rebuilt hash");
	expect_repaired(path, &m, 256, "half rebuilt hash, repaired");
	t_model_free(&m);
	check_pass("marker set, size 256, garbage chains: read-only skips chains and passes; read-write rebuilds");
}

/* Killed between linking a new node and publishing it. */
static void test_crash__pending_link(void)
{
	char const *path = t_path("pending.samples");
	uint64_t key = 0x5555000000000042ULL;
	struct t_model m;
	struct odb db;
	uint32_t b, cur;

	make_full(path, &m);
	t_open(&db, path, ODB_RDWR);	/* grow to 256 with one more key */
	check_assert(odb_add(&db, 0x77, 1) == 0, "add");
	*t_model_slot(&m, 0x77) = 1;
	odb_close(&db);
	cur = get32(path, 76);
	b = odb_hash(key, 255);
	t_pwrite(path, &key, sizeof(key), NODE_OFF(cur));
	put32(path, NODE_OFF(cur) + 8, 5);
	put32(path, NODE_OFF(cur) + 12, get32(path, HASH_OFF(256, b)));
	put32(path, HASH_OFF(256, b), cur);
	expect_readable(path, &m, 256, "linked, unpublished node");
	t_open(&db, path, ODB_RDWR);
	check_assert(db.hash[b] != cur, "pending link kept by a writer");
	check_assert(odb_add(&db, key, 3) == 0, "add: %s", db.err);
	*t_model_slot(&m, key) = 3;	/* not 5 + 3: the 5 was never committed */
	odb_close(&db);
	expect_readable(path, &m, 256, "pending link, repaired");

	/* the same shape with a key from another bucket is damage, not a crash */
	cur = get32(path, 76);
	t_pread(path, &key, sizeof(key), NODE_OFF(cur));
	put32(path, HASH_OFF(256, (odb_hash(key, 255) + 1) & 255), cur);
	t_open(&db, path, ODB_RDONLY);
	t_expect_err(odb_check(&db), db.err, "beyond current_size", "bad pending");
	odb_close(&db);
	t_model_free(&m);
	check_pass("node linked but not published: invisible, odb_check passes, a writer unlinks it");
}

/* Killed between creating the file and writing its descriptor. */
static void test_crash__unborn(void)
{
	char const *path = t_path("unborn.samples");
	struct odb db;
	FILE *f = fopen(path, "w");

	check_assert(f && fclose(f) == 0, "create");
	t_expect_err(odb_open(&db, path, ODB_RDONLY, HDR), db.err,
		     "file too small for a sample file (0 bytes)", "empty file");
	check_assert(truncate(path, LAYOUT(128)) == 0, "truncate");
	t_expect_err(odb_open(&db, path, ODB_RDONLY, HDR), db.err,
		     "node count 0 is not a power of two", "zero descr");
	t_open(&db, path, ODB_RDWR);
	check_assert(db.descr->size == 128 && db.descr->current_size == 1, "init");
	odb_close(&db);
	check_pass("a zero-filled new-file-sized file is refused read-only and initialised by a writer");
}

/* ---- the real kill -9 loop ---- */

#define NR_KILLS 50
#define NR_FILES 5
#define KEY_SPACE (1u << 19)

static _Noreturn void doomed_writer(char const *path, int ready, uint64_t seed)
{
	uint64_t rng = seed;
	struct odb db;
	int rc;

	t_open(&db, path, ODB_RDWR);
	check_assert(write(ready, "r", 1) == 1, "ready");
	for (;;) {
		uint64_t r = t_rand(&rng), key = r % KEY_SPACE;

		if (r >> 62 == 0)	/* a quarter land in shared buckets */
			key ^= (r >> 32 & 0xff) << 32 | (r >> 32 & 0xff);
		rc = odb_add(&db, key, 1);
		check_assert(rc == 0, "writer: odb_add = %d: %s", rc, db.err);
	}
}

struct survivor {
	uint32_t count;
	uint64_t total;
};

static int sum_one(odb_key_t key, odb_value_t value, void *arg)
{
	struct survivor *s = arg;

	(void)key;
	check_assert(value > 0, "a committed node with count 0");
	s->count++;
	s->total += value;
	return 0;
}

struct kill_stats {
	unsigned growing, doubled, pending;
};

static void after_kill(char const *path, struct survivor *prev,
		       struct kill_stats *ks, int iter)
{
	struct survivor now = { 0 };
	struct odb db;
	uint32_t size;

	t_open(&db, path, ODB_RDONLY);
	check_assert(odb_check(&db) == 0, "kill %d: odb_check: %s", iter, db.err);
	size = db.descr->size;
	ks->growing += db.descr->padding[0] == ODB_PAD_GROWING;
	ks->doubled += t_file_size(path) != LAYOUT(size);
	for (uint32_t b = 0; b < size && db.descr->current_size < size; b++)
		ks->pending += db.hash[b] == db.descr->current_size;
	check_assert(odb_for_each(&db, sum_one, &now) == 0, "for_each");
	check_assert(now.count >= prev->count && now.total >= prev->total,
		     "kill %d: lost data: %u keys/%llu samples, had %u/%llu", iter,
		     now.count, (unsigned long long)now.total, prev->count,
		     (unsigned long long)prev->total);
	odb_close(&db);

	t_open(&db, path, ODB_RDWR);
	check_assert(odb_check(&db) == 0, "kill %d: after repair: %s", iter, db.err);
	check_assert(odb_count(&db) == now.count, "kill %d: repair changed the count",
		     iter);
	odb_close(&db);
	*prev = now;
}

static void test_crash__kill9(void)
{
	struct survivor prev[NR_FILES] = { { 0, 0 } };
	struct kill_stats ks = { 0 };
	uint64_t rng = (uint64_t)time(NULL);
	int iter, fds[2], status;
	char name[32], c;
	pid_t pid;

	check_note("kill -9 seed %llu", (unsigned long long)rng);
	for (iter = 0; iter < NR_KILLS; iter++) {
		int f = iter % NR_FILES;
		char const *path;

		snprintf(name, sizeof(name), "kill9-%d.samples", f);
		path = t_path(name);
		check_assert(pipe(fds) == 0, "pipe");
		pid = fork();
		check_assert(pid >= 0, "fork: %s", strerror(errno));
		if (pid == 0) {
			close(fds[0]);
			doomed_writer(path, fds[1], t_rand(&rng));
		}
		close(fds[1]);
		check_assert(read(fds[0], &c, 1) == 1, "writer died before it was ready");
		close(fds[0]);
		usleep((useconds_t)(t_rand(&rng) % 25000));
		kill(pid, SIGKILL);
		check_assert(waitpid(pid, &status, 0) == pid, "waitpid");
		check_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
			     "writer ended by itself (status 0x%x)", status);
		after_kill(path, &prev[f], &ks, iter);
	}
	check_pass("%d writers killed with SIGKILL: every file opened read-only, passed odb_check, kept every committed count and reopened for writing",
		   NR_KILLS);
	check_pass("kills that left a hash rebuild: %u, a doubled file: %u, a linked unpublished node: %u",
		   ks.growing, ks.doubled, ks.pending);
}

int main(void)
{
	test_crash__doubled_file();
	test_crash__marker_old_size();
	test_crash__half_rehash();
	test_crash__pending_link();
	test_crash__unborn();
	test_crash__kill9();
	return check_done();
}
