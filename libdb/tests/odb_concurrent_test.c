/*
 * One writer process, one reader process, no locks (the odb.h contract).
 *
 * The child adds to keys from a known set while the set it draws from
 * widens, so the file doubles many times during the run. Every add to a
 * key is the same amount, step(key), so any count a reader sees must be a
 * positive multiple of step(key). The parent meanwhile opens the file
 * read-only again and again, refreshes and visits it, and checks that
 * every key it sees is from the set, appears once per visit, has a
 * plausible count, and that no count and no node count ever goes down.
 * When the writer is done the parent's last read must equal the model it
 * rebuilds by replaying the writer's random sequence.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "odb_helpers.h"

#define NR_KEYS 60000
#define NR_ADDS 3000000
#define SEED 0x636f6e63757272ULL

static uint64_t keys[NR_KEYS];		/* sorted, for bsearch */
static uint32_t last_seen[NR_KEYS];
static uint32_t seen_in_pass[NR_KEYS];

static uint32_t step(uint64_t key)
{
	return 1 + (uint32_t)(key % 5);
}

static int cmp_key(void const *a, void const *b)
{
	uint64_t x = *(uint64_t const *)a, y = *(uint64_t const *)b;

	return x < y ? -1 : x > y;
}

/* Unique keys, a third of them in groups that share a bucket at any size. */
static void make_keys(void)
{
	uint64_t rng = SEED;
	size_t i = 0, j;

	while (i < NR_KEYS) {
		uint64_t base = t_rand(&rng), x;

		if (i % 3) {
			keys[i++] = base;
			continue;
		}
		for (j = 0; j < 8 && i < NR_KEYS; j++) {
			x = t_rand(&rng) & 0xffffffff;
			keys[i++] = base ^ (x << 32 | x);
		}
	}
	qsort(keys, NR_KEYS, sizeof(keys[0]), cmp_key);
	for (i = 1; i < NR_KEYS; i++)
		check_assert(keys[i] != keys[i - 1], "duplicate key in the set");
}

/* The writer's sequence: the key for add number i. */
static uint64_t pick(uint64_t *rng, size_t i)
{
	size_t reach = 1 + i / 32 < NR_KEYS ? 1 + i / 32 : NR_KEYS;
	/* pick from a shuffled view so new keys are not in sorted order */
	size_t k = (size_t)(t_rand(rng) % reach);

	return keys[(k * 7919) % NR_KEYS];
}

static _Noreturn void writer(char const *path)
{
	uint64_t rng = SEED;
	struct odb db;
	size_t i;

	t_open(&db, path, ODB_RDWR);
	for (i = 0; i < NR_ADDS; i++) {
		uint64_t key = pick(&rng, i);
		int rc = odb_add(&db, key, step(key));

		check_assert(rc == 0, "writer: odb_add = %d: %s", rc, db.err);
		if (i % 4000 == 0)
			usleep(50);	/* let the reader interleave more */
	}
	odb_close(&db);
	_exit(0);
}

struct pass {
	uint32_t stamp;
	uint32_t nr;
};

static int visit(odb_key_t key, odb_value_t value, void *arg)
{
	struct pass *p = arg;
	uint64_t *hit = bsearch(&key, keys, NR_KEYS, sizeof(keys[0]), cmp_key);
	size_t i;

	check_assert(hit, "reader saw key 0x%llx, which the writer never adds",
		     (unsigned long long)key);
	i = (size_t)(hit - keys);
	check_assert(value && value % step(key) == 0,
		     "key 0x%llx has %u, not a positive multiple of %u",
		     (unsigned long long)key, value, step(key));
	check_assert(value >= last_seen[i], "key 0x%llx went down from %u to %u",
		     (unsigned long long)key, last_seen[i], value);
	check_assert(seen_in_pass[i] != p->stamp, "key 0x%llx twice in one pass",
		     (unsigned long long)key);
	seen_in_pass[i] = p->stamp;
	last_seen[i] = value;
	p->nr++;
	return 0;
}

struct reader_stats {
	unsigned opens, passes, eagain, remaps, sizes_seen;
	uint32_t last_size, max_count;
};

static void read_once(char const *path, struct reader_stats *st)
{
	static uint32_t stamp;
	struct pass p;
	struct odb db;
	int r, rc;

	t_open(&db, path, ODB_RDONLY);
	st->opens++;
	for (r = 0; r < 4; r++) {
		uint32_t before = db.descr ? t_view(&db) : 0;

		rc = odb_refresh(&db);
		check_assert(rc == 0 || rc == -EAGAIN, "odb_refresh = %d: %s", rc, db.err);
		st->eagain += rc == -EAGAIN;
		st->remaps += t_view(&db) != before;
		p.stamp = ++stamp;
		p.nr = 0;
		check_assert(odb_for_each(&db, visit, &p) == 0, "for_each");
		check_assert(p.nr >= st->max_count, "node count went down from %u to %u",
			     st->max_count, p.nr);
		st->max_count = p.nr;
		st->passes++;
		if (t_view(&db) != st->last_size) {
			st->last_size = t_view(&db);
			st->sizes_seen++;
		}
	}
	odb_close(&db);
}

static void put32(char const *path, off_t off, uint32_t v)
{
	t_pwrite(path, &v, sizeof(v), off);
}

/*
 * The states a reader can catch a growth in, made by hand: the descriptor
 * ahead of the file length is "try again", never a remap past the end.
 */
static void test_concurrent__refresh_states(void)
{
	char const *path = t_path("refresh.samples");
	struct odb db, w;
	uint32_t i;

	t_open(&w, path, ODB_RDWR);
	for (i = 1; i < 128; i++)
		check_assert(odb_add(&w, i, i) == 0, "add");
	odb_close(&w);		/* full: 127 keys in 128 nodes */

	t_open(&db, path, ODB_RDONLY);
	check_assert(odb_refresh(&db) == 0 && t_view(&db) == 128, "nothing to do");
	put32(path, 72, 256);	/* size stored, file not extended: cannot happen */
	check_assert(odb_refresh(&db) == -EAGAIN, "descr ahead of the file");
	check_assert(strstr(db.err, "growth in progress"), "%s", db.err);
	check_assert(t_view(&db) == 128 && odb_count(&db) == 127, "view changed");
	put32(path, 72, 128);
	check_assert(truncate(path, HDR + 32 + 256 * 20) == 0, "truncate");
	check_assert(odb_refresh(&db) == 0 && t_view(&db) == 128,
		     "file extended, size not yet stored: keep the old view");
	put32(path, 72, 256);
	check_assert(odb_refresh(&db) == 0 && t_view(&db) == 256, "grown: remap");
	check_assert(odb_count(&db) == 127, "count %u after remap", odb_count(&db));
	check_assert(truncate(path, HDR + 32 + 1024 * 20) == 0, "truncate");
	put32(path, 72, 512);	/* two growths behind, the newest half done */
	check_assert(odb_refresh(&db) == 0 && t_view(&db) == 512, "remap to 512");
	put32(path, 72, 64);
	check_assert(odb_refresh(&db) == -EINVAL, "a shrinking size is damage");
	odb_close(&db);
	check_pass("odb_refresh: EAGAIN while descr is ahead of the file, keeps the old view mid-growth, remaps when grown, refuses shrinking");
}

/*
 * Two writer handles on one file taking turns (one process, one after the
 * other): each add is whole before the next, so the only hazard is a
 * handle whose mapping predates a growth by the other. It must follow the
 * growth, not fail, and every add must be in the file.
 */
static void test_concurrent__writers_take_turns(void)
{
	char const *path = t_path("turns.samples");
	struct t_model m;
	struct odb a, b;
	uint32_t i;

	t_model_init(&m);
	t_open(&a, path, ODB_RDWR);
	t_open(&b, path, ODB_RDWR);
	for (i = 1; i <= 600; i++) {
		struct odb *w = i % 2 ? &a : &b;
		int rc = odb_add(w, i, i);

		check_assert(rc == 0, "add %u: %d %s", i, rc, w->err);
		*t_model_slot(&m, i) += i;
	}
	check_assert(t_view(&a) == 1024 && t_view(&b) == 1024,
		     "views %u %u after 600 keys", t_view(&a), t_view(&b));
	check_assert(odb_check(&b) == 0, "%s", b.err);
	odb_close(&a);
	odb_close(&b);
	t_open(&a, path, ODB_RDONLY);
	t_compare(&a, &m, "two writers taking turns");
	odb_close(&a);
	t_model_free(&m);
	check_pass("two writer handles taking turns: each follows the other's growth, no add lost");
}

int main(void)
{
	char const *path = t_path("concurrent.samples");
	struct reader_stats st = { 0 };
	struct t_model m;
	uint64_t rng = SEED;
	struct odb db;
	int status;
	pid_t pid;
	size_t i;

	test_concurrent__refresh_states();
	test_concurrent__writers_take_turns();
	make_keys();
	t_open(&db, path, ODB_RDWR);	/* the file exists before the reader looks */
	odb_close(&db);

	pid = fork();
	check_assert(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0)
		writer(path);
	while (waitpid(pid, &status, WNOHANG) == 0)
		read_once(path, &st);
	check_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		     "writer failed (status 0x%x)", status);
	check_pass("%u read-only opens, %u passes while the writer ran: keys known, counts multiples of their step, never decreasing",
		   st.opens, st.passes);
	check_pass("reader saw %u node-array sizes, remapped %u times, odb_refresh said EAGAIN %u times",
		   st.sizes_seen, st.remaps, st.eagain);
	check_assert(st.passes >= 10, "only %u passes overlapped the writer", st.passes);

	t_model_init(&m);
	for (i = 0; i < NR_ADDS; i++) {
		uint64_t key = pick(&rng, i);

		*t_model_slot(&m, key) += step(key);
	}
	t_open(&db, path, ODB_RDONLY);
	check_assert(odb_check(&db) == 0, "odb_check: %s", db.err);
	t_compare(&db, &m, "final read");
	check_pass("final read: %zu keys, %u nodes, equals the writer's model; odb_check passes",
		   m.n, db.descr->size);
	check_assert(db.descr->size >= 128 << 5, "the writer grew the file only to %u",
		     db.descr->size);
	odb_close(&db);
	t_model_free(&m);
	return check_done();
}
