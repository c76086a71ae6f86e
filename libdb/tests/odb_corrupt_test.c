/*
 * Corrupt files: one case per fault. Each starts from a sound file and
 * damages it with pwrite/truncate, then expects a clean refusal whose
 * message names the file and the fault, from the layer that must catch
 * it: the header reader, odb_open, or odb_check. A read-write handle on a
 * file that passed odb_open but fails odb_check must never crash or hang
 * either: odb_add then fails cleanly.
 *
 * The same files are committed under tests/corrupt/ (regenerate with
 * "odb_corrupt_test --write-corpus DIR"). Every file in that directory,
 * including fuzzer finds without an entry in the table, is also run
 * through the whole read path and must not crash.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "odb_helpers.h"
#include "op_util.h"

#define HASH_OFF (104 + 128 * 16)
#define NODE_OFF(i) (104 + 16 * (i))

enum stage { AT_HEADER, AT_OPEN, AT_CHECK };

struct fault {
	char const *name;
	void (*damage)(char const *path, char *want, size_t len);
	enum stage stage;
	void (*base)(char const *path);	/* NULL: make_base */
};

/* Nodes 1-3 share bucket 16 at every size (x ^ (x << 32) keeps hi ^ lo). */
static uint64_t const base_keys[12] = {
	0x10, 0x100000011ULL, 0x200000012ULL, 0x500000007ULL,
	0x1234, 0xdeadbeef00000000ULL, 0x4a11, 0x4a22,
	0x4a33, 0x4a44, 0x4a55, 0x4a66,
};

static void put32(char const *path, off_t off, uint32_t v)
{
	t_pwrite(path, &v, sizeof(v), off);
}

static void put64(char const *path, off_t off, uint64_t v)
{
	t_pwrite(path, &v, sizeof(v), off);
}

static void make_base(char const *path)
{
	struct opd_header *h;
	struct odb db;
	uint32_t i, in_b2 = 0;

	unlink(path);
	t_open(&db, path, ODB_RDWR);
	h = odb_get_header(&db);
	op_header_init(h);
	h->ctr_event = 0x3c;
	h->ctr_count = 100000;
	for (i = 0; i < 12; i++) {
		check_assert(odb_add(&db, base_keys[i], i + 1) == 0, "add");
		in_b2 += odb_hash(base_keys[i], 127) == 2;
	}
	/* the cases below rely on these */
	check_assert(odb_hash(0x10, 127) == 16 && db.hash[16] == 3 &&
		     db.nodes[3].next == 2 && db.nodes[2].next == 1 &&
		     db.nodes[1].next == 0, "bucket 16 is not 3 -> 2 -> 1");
	check_assert(in_b2 == 1 && db.hash[2] == 4, "bucket 2 is not node 4 alone");
	check_assert(odb_check(&db) == 0, "base file: %s", db.err);
	odb_close(&db);
}

#define LONG_KEY(i) (0x10 ^ ((uint64_t)(i) << 32 | (i)))

/* 40 keys in bucket 16: longer than the chains odb_check compares in place. */
static void make_long_base(char const *path)
{
	struct odb db;
	uint32_t i;

	unlink(path);
	t_open(&db, path, ODB_RDWR);
	op_header_init(odb_get_header(&db));
	for (i = 0; i < 40; i++)
		check_assert(odb_add(&db, LONG_KEY(i), 1) == 0, "add");
	check_assert(odb_hash(LONG_KEY(39), 127) == 16 && db.hash[16] == 40,
		     "bucket 16 does not hold the long chain");
	check_assert(odb_check(&db) == 0, "long base file: %s", db.err);
	odb_close(&db);
}

static void bad_magic(char const *path, char *want, size_t len)
{
	t_pwrite(path, "XYZ\n", 4, 0);
	snprintf(want, len, "%s: not a sample file (bad magic)", path);
}

static void old_version(char const *path, char *want, size_t len)
{
	put32(path, 4, 0x12);
	snprintf(want, len,
		 "%s: sample file version 0x12, this tool reads version 0x13", path);
}

static void short_header(char const *path, char *want, size_t len)
{
	check_assert(truncate(path, 40) == 0, "truncate");
	snprintf(want, len, "%s: file too short for a sample file header (40 bytes", path);
}

static void too_small(char const *path, char *want, size_t len)
{
	check_assert(truncate(path, 100) == 0, "truncate");
	snprintf(want, len, "%s: file too small for a sample file (100 bytes)", path);
}

static void size_not_pow2(char const *path, char *want, size_t len)
{
	put32(path, 72, 100);
	snprintf(want, len, "%s: node count 100 is not a power of two", path);
}

static void size_zero(char const *path, char *want, size_t len)
{
	put32(path, 72, 0);
	snprintf(want, len, "%s: node count 0 is not a power of two", path);
}

static void length_mismatch(char const *path, char *want, size_t len)
{
	check_assert(truncate(path, 5000) == 0, "truncate");
	snprintf(want, len, "%s: file size 5000 does not match 128 nodes", path);
}

static void size_too_big(char const *path, char *want, size_t len)
{
	put32(path, 72, 64);	/* file holds 128 nodes: neither 64 nor 2 * 64 */
	snprintf(want, len, "%s: file size 2664 does not match 64 nodes", path);
}

static void truncated_nodes(char const *path, char *want, size_t len)
{
	check_assert(truncate(path, 1000) == 0, "truncate");
	snprintf(want, len,
		 "%s: file truncated: 128 nodes need 2664 bytes, file has 1000", path);
}

static void cur_beyond_size(char const *path, char *want, size_t len)
{
	put32(path, 76, 300);
	snprintf(want, len, "%s: current_size 300 exceeds size 128", path);
}

static void cur_zero(char const *path, char *want, size_t len)
{
	put32(path, 76, 0);
	snprintf(want, len, "%s: current_size 0 is invalid", path);
}

static void chain_out_of_range(char const *path, char *want, size_t len)
{
	put32(path, NODE_OFF(1) + 12, 900);
	snprintf(want, len,
		 "%s: bucket 16 chain reaches node 900 beyond current_size 13", path);
}

static void head_out_of_range(char const *path, char *want, size_t len)
{
	put32(path, HASH_OFF + 4 * 7, 40);
	snprintf(want, len,
		 "%s: bucket 7 chain reaches node 40 beyond current_size 13", path);
}

static void chain_cycle(char const *path, char *want, size_t len)
{
	put32(path, NODE_OFF(1) + 12, 3);	/* 3 -> 2 -> 1 -> 3 */
	snprintf(want, len, "%s: chain cycle at node 3", path);
}

static void self_cycle(char const *path, char *want, size_t len)
{
	put32(path, NODE_OFF(4) + 12, 4);
	snprintf(want, len, "%s: chain cycle at node 4", path);
}

static void wrong_bucket(char const *path, char *want, size_t len)
{
	put64(path, NODE_OFF(9), 0x4a34);	/* node 9 held 0x4a33 */
	snprintf(want, len, "%s: key 0x4a34 in node 9 is in bucket %u, expected bucket %u",
		 path, odb_hash(0x4a33, 127), odb_hash(0x4a34, 127));
}

static void duplicate_key(char const *path, char *want, size_t len)
{
	put64(path, NODE_OFF(2), 0x10);		/* same key as node 1, same bucket */
	snprintf(want, len, "%s: duplicate key 0x10 in nodes 1 and 2", path);
}

static void unlinked_node(char const *path, char *want, size_t len)
{
	put32(path, HASH_OFF + 4 * 2, 0);
	snprintf(want, len,
		 "%s: node 4 (key 0x500000007) is not linked from its bucket 2", path);
}

static void duplicate_in_long_chain(char const *path, char *want, size_t len)
{
	put64(path, NODE_OFF(35), LONG_KEY(2));	/* node 3 holds LONG_KEY(2) */
	snprintf(want, len, "%s: duplicate key 0x%llx in nodes 3 and 35", path,
		 (unsigned long long)LONG_KEY(2));
}

static struct fault const faults[] = {
	{ "bad-magic", bad_magic, AT_HEADER, NULL },
	{ "old-version", old_version, AT_HEADER, NULL },
	{ "short-header", short_header, AT_HEADER, NULL },
	{ "too-small", too_small, AT_OPEN, NULL },
	{ "size-not-pow2", size_not_pow2, AT_OPEN, NULL },
	{ "size-zero", size_zero, AT_OPEN, NULL },
	{ "length-mismatch", length_mismatch, AT_OPEN, NULL },
	{ "size-too-big", size_too_big, AT_OPEN, NULL },
	{ "truncated-nodes", truncated_nodes, AT_OPEN, NULL },
	{ "cur-beyond-size", cur_beyond_size, AT_OPEN, NULL },
	{ "cur-zero", cur_zero, AT_OPEN, NULL },
	{ "chain-out-of-range", chain_out_of_range, AT_CHECK, NULL },
	{ "head-out-of-range", head_out_of_range, AT_CHECK, NULL },
	{ "chain-cycle", chain_cycle, AT_CHECK, NULL },
	{ "self-cycle", self_cycle, AT_CHECK, NULL },
	{ "wrong-bucket", wrong_bucket, AT_CHECK, NULL },
	{ "duplicate-key", duplicate_key, AT_CHECK, NULL },
	{ "duplicate-long-chain", duplicate_in_long_chain, AT_CHECK, make_long_base },
	{ "unlinked-node", unlinked_node, AT_CHECK, NULL },
};
#define NR_FAULTS (sizeof(faults) / sizeof(faults[0]))

static int count_one(odb_key_t key, odb_value_t value, void *arg)
{
	(void)key;
	(void)value;
	++*(uint32_t *)arg;
	return 0;
}

/*
 * The whole read path, as a tool runs it. Returns the stage that refused
 * the file (with its message in err), or -1 if every stage accepted it.
 */
static int read_path(char const *path, char *err, size_t len)
{
	struct opd_header h;
	struct odb db;
	uint32_t seen = 0;
	int rc;

	if (op_header_read(path, &h, err, len))
		return AT_HEADER;
	rc = odb_open(&db, path, ODB_RDONLY, HDR);
	if (rc) {
		check_assert(rc == -EINVAL, "%s: odb_open = %d", path, rc);
		snprintf(err, len, "%s", db.err);
		odb_close(&db);	/* must be harmless after a failed open */
		return AT_OPEN;
	}
	rc = odb_check(&db);
	check_assert(odb_for_each(&db, count_one, &seen) == 0, "for_each");
	check_assert(seen == odb_count(&db) && seen < db.descr->size,
		     "%s: visited %u nodes of %u", path, seen, db.descr->size);
	snprintf(err, len, "%s", db.err);
	odb_close(&db);
	odb_close(&db);	/* closing twice is allowed */
	if (rc) {
		check_assert(rc == -EINVAL, "%s: odb_check = %d", path, rc);
		return AT_CHECK;
	}
	return -1;
}

/* A writer given a damaged file fails cleanly; it never crashes or loops. */
static void writer_survives(char const *path)
{
	struct odb db;
	int i, rc, failed = 0;

	rc = odb_open(&db, path, ODB_RDWR, HDR);
	if (rc) {
		check_assert(rc == -EINVAL && strstr(db.err, path),
			     "%s: RDWR open = %d: %s", path, rc, db.err);
		return;
	}
	for (i = 0; i < 24; i++) {
		uint64_t key = base_keys[i % 12] ^ (i < 12 ? 0 : 0x7700000077ULL);

		rc = odb_add(&db, key, 1);
		check_assert(rc == 0 || rc == -EINVAL, "%s: odb_add = %d", path, rc);
		failed += rc != 0;
	}
	if (failed)
		check_assert(strstr(db.err, path), "no file in \"%s\"", db.err);
	odb_close(&db);
}

/* Damaged files are kept as they are: the writer works on a copy. */
static char const *copy_file(char const *from)
{
	char const *to = t_path("writer-copy.samples");
	char err[600];

	check_assert(op_copy_file(from, to, err, sizeof(err)) == 0, "%s", err);
	return to;
}

static void check_fault(struct fault const *f, char const *path)
{
	char want[600], err[600];
	int stage;

	if (f->base)
		f->base(path);
	else
		make_base(path);
	f->damage(path, want, sizeof(want));
	stage = read_path(path, err, sizeof(err));
	check_assert(stage == (int)f->stage, "%s: refused at stage %d, expected %d (%s)",
		     f->name, stage, f->stage, err);
	check_assert(strstr(err, want), "%s: message \"%s\" lacks \"%s\"",
		     f->name, err, want);
	check_pass("%-20s %s", f->name, err);
	if (f->stage == AT_CHECK)
		writer_survives(copy_file(path));
}

/* A FIFO or a directory in a sample directory: refused, never waited on. */
static void check_not_regular(void)
{
	char const *fifo = t_path("fifo.samples"), *dir = t_tmpdir();
	struct opd_header h;
	struct odb db;
	char err[600];

	check_assert(mkfifo(fifo, 0644) == 0, "mkfifo: %s", strerror(errno));
	check_assert(op_header_read(fifo, &h, err, sizeof(err)) == -1, "fifo header");
	check_assert(strstr(err, "not a regular file"), "%s", err);
	t_expect_err(odb_open(&db, fifo, ODB_RDONLY, HDR), db.err,
		     "fifo.samples: not a regular file", "fifo RDONLY");
	t_expect_err(odb_open(&db, fifo, ODB_RDWR, HDR), db.err,
		     "fifo.samples: not a regular file", "fifo RDWR");
	t_expect_err(odb_open(&db, dir, ODB_RDONLY, HDR), db.err,
		     "not a regular file", "directory");
	unlink(fifo);
	check_pass("a FIFO and a directory are refused as \"not a regular file\" without blocking");
}

/* Committed files: the named ones give the same fault, none crashes. */
static void check_corpus(char const *dir)
{
	char path[4096], err[600];
	unsigned nr = 0, named = 0;
	int stage;
	struct dirent *de;
	size_t i;
	DIR *d = opendir(dir);

	if (!d) {
		check_note("skip corpus: cannot open %s: %s", dir, strerror(errno));
		return;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		nr++;
		err[0] = 0;
		stage = read_path(path, err, sizeof(err));

		for (i = 0; i < NR_FAULTS; i++) {
			char name[256];

			snprintf(name, sizeof(name), "%s.samples", faults[i].name);
			if (strcmp(name, de->d_name))
				continue;
			check_assert(stage == (int)faults[i].stage && strstr(err, path),
				     "corpus %s: stage %d: %s", path, stage, err);
			named++;
		}
	}
	closedir(d);
	check_assert(named == NR_FAULTS, "corpus %s has %u of the %zu named faults",
		     dir, named, NR_FAULTS);
	check_pass("corpus %s: %u files read without a crash, %u named faults refused at the right stage",
		   dir, nr, named);
}

int main(int argc, char **argv)
{
	char const *corpus = getenv("ODB_CORRUPT_DIR");
	char path[4096];
	size_t i;

	for (i = 0; i < NR_FAULTS; i++) {
		if (argc == 3 && !strcmp(argv[1], "--write-corpus"))
			snprintf(path, sizeof(path), "%s/%s.samples", argv[2],
				 faults[i].name);
		else
			snprintf(path, sizeof(path), "%s", t_path(faults[i].name));
		check_fault(&faults[i], path);
	}
	if (argc == 1)
		check_not_regular();
	if (corpus && argc == 1)
		check_corpus(corpus);
	return check_done();
}
