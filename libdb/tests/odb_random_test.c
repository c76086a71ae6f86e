/*
 * Random adds against an in-memory model: over a million adds to more than
 * a hundred thousand keys, many of them colliding in one bucket whatever
 * the table size, across many doublings of the file. Then the file must
 * pass odb_check, hold exactly the model's counts, keep them through
 * close/reopen in both modes, and be exactly as long as the layout says.
 */
#include <stdio.h>
#include <stdlib.h>

#include "odb_helpers.h"

#define NR_KEYS 120000
#define NR_ADDS 1500000
#define SEED 0x6f70726f66696c65ULL	/* "oprofile" */

/*
 * Keys of several kinds: random 64-bit, small image offsets, callgraph
 * style from<<32|to, the extremes, and groups that share a bucket at every
 * table size: xoring the same x into both halves leaves (hi ^ lo) alone.
 */
static uint64_t *make_keys(uint64_t *rng)
{
	uint64_t *keys = malloc(NR_KEYS * sizeof(*keys));
	size_t i = 0;

	check_assert(keys, "out of memory");
	keys[i++] = 0;
	keys[i++] = UINT64_MAX;
	keys[i++] = 0xffffffffULL;
	while (i < NR_KEYS) {
		uint64_t r = t_rand(rng), x, base;
		int j;

		switch (r % 4) {
		case 0:
			keys[i++] = t_rand(rng);
			break;
		case 1:
			keys[i++] = t_rand(rng) & 0xfffff;
			break;
		case 2:
			keys[i++] = (t_rand(rng) & 0xffff) << 32 |
				    (t_rand(rng) & 0xffff);
			break;
		default:
			base = t_rand(rng);
			for (j = 0; j < 12 && i < NR_KEYS; j++) {
				x = t_rand(rng) & 0xffffffffULL;
				keys[i++] = base ^ (x << 32 | x);
			}
			break;
		}
	}
	return keys;
}

struct run_stats {
	unsigned growths;
	uint32_t final_size;
};

static void test_random__adds(char const *path, struct t_model *m,
			      struct run_stats *st)
{
	uint64_t rng = SEED, *keys = make_keys(&rng);
	uint32_t size = ODB_DEFAULT_NODES;
	struct odb db;
	size_t i;

	t_open(&db, path, ODB_RDWR);
	for (i = 0; i < NR_ADDS; i++) {
		/* the reachable key set widens over the run, so growth is spread out */
		size_t reach = 1 + i / 8 < NR_KEYS ? 1 + i / 8 : NR_KEYS;
		uint64_t key = keys[t_rand(&rng) % reach];
		uint32_t n = 1 + t_rand(&rng) % 8;
		int rc = odb_add(&db, key, n);

		check_assert(rc == 0, "odb_add #%zu = %d: %s", i, rc, db.err);
		*t_model_slot(m, key) += n;
		if (db.descr->size != size) {
			check_assert(db.descr->size == 2 * size,
				     "size went from %u to %u", size, db.descr->size);
			size = db.descr->size;
			st->growths++;
		}
	}
	check_assert(odb_check(&db) == 0, "odb_check after the run: %s", db.err);
	t_compare(&db, m, "after the run");
	st->final_size = db.descr->size;
	check_assert(db.saturated == 0, "unexpected saturation");
	odb_close(&db);
	free(keys);
}

static void test_random__reopen(char const *path, struct t_model const *m,
				enum odb_mode mode, char const *what)
{
	struct odb db;

	t_open(&db, path, mode);
	check_assert(odb_check(&db) == 0, "%s: odb_check: %s", what, db.err);
	t_compare(&db, m, what);
	odb_close(&db);
}

int main(void)
{
	char const *path = t_path("random.samples");
	struct run_stats st = { 0 };
	struct t_model m;
	off_t len;
	uint64_t want;
	struct odb db;

	t_model_init(&m);
	test_random__adds(path, &m, &st);
	check_pass("%d adds over %zu distinct keys match the model; %u growths to %u nodes",
		   NR_ADDS, m.n, st.growths, st.final_size);
	check_assert(m.n >= 100000, "only %zu distinct keys", m.n);
	check_assert(st.growths >= 5, "only %u growths", st.growths);

	len = t_file_size(path);
	want = HDR + 32 + (uint64_t)st.final_size * 20;
	check_assert((uint64_t)len == want, "file is %lld bytes, layout says %llu",
		     (long long)len, (unsigned long long)want);
	check_pass("file length %lld = 72 + 32 + %u * 20", (long long)len,
		   st.final_size);

	test_random__reopen(path, &m, ODB_RDWR, "reopened read-write");
	check_pass("reopened read-write: odb_check passes, every count kept");
	test_random__reopen(path, &m, ODB_RDONLY, "reopened read-only");
	check_pass("reopened read-only: odb_check passes, every count kept");

	/* a reopened writer keeps adding to the same counts */
	t_open(&db, path, ODB_RDWR);
	check_assert(odb_add(&db, 0, 5) == 0, "add after reopen: %s", db.err);
	check_assert(odb_add(&db, 0x123456789abcdefULL, 7) == 0, "add: %s", db.err);
	*t_model_slot(&m, 0) += 5;
	*t_model_slot(&m, 0x123456789abcdefULL) += 7;
	check_assert(odb_check(&db) == 0, "odb_check: %s", db.err);
	t_compare(&db, &m, "adds after reopen");
	odb_close(&db);
	test_random__reopen(path, &m, ODB_RDONLY, "read-only after more adds");
	check_pass("adds after reopening update existing keys and insert new ones");

	t_model_free(&m);
	return check_done();
}
