/*
 * Byte layout: files written through libdb are read back with pread(), not
 * through libdb, and every offset is checked against the OProfile 1.x
 * format: header at 0, descriptor at 72, nodes at 104, the hash table
 * after the node array, a new file exactly 2664 bytes. The bucket of each
 * key below was worked out by hand from the format's hash function.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "odb_helpers.h"
#include "op_bytes.h"

/* Fields at byte offsets of the file's bytes (op_bytes.h's loads). */
static uint32_t get32(uint8_t const *b, size_t off)
{
	return op_get32(b + off);
}

static uint64_t get64(uint8_t const *b, size_t off)
{
	return op_get64(b + off);
}

static int all_zero(uint8_t const *b, size_t from, size_t to)
{
	for (; from < to; from++)
		if (b[from])
			return 0;
	return 1;
}

static uint8_t *slurp(char const *path, size_t *len)
{
	off_t size = t_file_size(path);
	uint8_t *buf;

	check_assert(size > 0, "%s: no file", path);
	buf = malloc((size_t)size);
	check_assert(buf, "out of memory");
	t_pread(path, buf, (size_t)size, 0);
	*len = (size_t)size;
	return buf;
}

static void test_layout__new_file(void)
{
	char const *path = t_path("new.samples");
	struct odb db;
	struct stat st;
	uint8_t *b;
	size_t len;

	t_open(&db, path, ODB_RDWR);
	odb_close(&db);
	check_assert(stat(path, &st) == 0, "stat");
	check_assert(st.st_size == 2664, "new file is %lld bytes, not 2664",
		     (long long)st.st_size);
	check_assert((st.st_mode & 0777) == 0644, "mode %o, not 0644",
		     st.st_mode & 0777);
	b = slurp(path, &len);
	check_assert(all_zero(b, 0, 72), "header of a new file is not zero");
	check_assert(get32(b, 72) == 128, "size %u", get32(b, 72));
	check_assert(get32(b, 76) == 1, "current_size %u", get32(b, 76));
	check_assert(all_zero(b, 80, len), "descr padding, nodes, hash not zero");
	free(b);
	check_pass("new file: 2664 bytes, mode 0644, size 128, current_size 1, rest zero");
}

struct want_node {
	uint64_t key;
	uint32_t value;
	uint32_t next;
	uint32_t bucket;	/* by hand: t = hi ^ lo; (t ^ t >> 8) & 127 */
};

static struct want_node const want[] = {
	{ 0, 0, 0, 0 },				/* node 0 is unused */
	{ 0x1234, 7, 0, 38 },			/* 0x1234 ^ 0x12 = 0x1226 */
	{ 0x1000, 10, 0, 16 },			/* 0x1000 ^ 0x10 = 0x1010 */
	{ 0x90, 1, 2, 16 },			/* same bucket: linked at head */
	{ 0x500000007ULL, 0xffff, 0, 2 },	/* 5 ^ 7 = 2 */
	{ 0xdeadbeef00000000ULL, 42, 0, 81 },	/* 0xde731351 & 127 */
};
#define NR_WANT (sizeof(want) / sizeof(want[0]))

static void fill_header(struct opd_header *h)
{
	op_header_init(h);
	h->cpu_type = 41;
	h->ctr_event = 0x3c;
	h->ctr_um = 0x5;
	h->ctr_count = 100000;
	h->is_kernel = 1;
	h->cpu_speed = 2400.5;
	h->mtime = 0x1122334455667788ULL;
	h->cg_to_is_kernel = 1;
	h->anon_start = 0x7f0000001000ULL;
	h->cg_to_anon_start = 0x400000ULL;
}

static void check_header_bytes(uint8_t const *b)
{
	double speed;

	check_assert(!memcmp(b, "DAE\n", 4), "magic");
	check_assert(get32(b, 4) == 0x13, "version 0x%x", get32(b, 4));
	check_assert(get32(b, 8) == 41, "cpu_type");
	check_assert(get32(b, 12) == 0x3c, "ctr_event");
	check_assert(get32(b, 16) == 0x5, "ctr_um");
	check_assert(get32(b, 20) == 100000, "ctr_count");
	check_assert(get32(b, 24) == 1, "is_kernel");
	check_assert(get32(b, 28) == 0, "padding at 28");
	memcpy(&speed, b + 32, sizeof(speed));
	check_assert(speed == 2400.5, "cpu_speed");
	check_assert(get64(b, 40) == 0x1122334455667788ULL, "mtime");
	check_assert(get32(b, 48) == 1, "cg_to_is_kernel");
	check_assert(get32(b, 52) == 0, "padding at 52");
	check_assert(get64(b, 56) == 0x7f0000001000ULL, "anon_start");
	check_assert(get64(b, 64) == 0x400000ULL, "cg_to_anon_start");
}

static void test_layout__known_file(void)
{
	char const *path = t_path("known.samples");
	size_t hash_off = 104 + 128 * 16, len, i;
	uint32_t heads[128] = { 0 };
	struct odb db;
	uint8_t *b;

	t_open(&db, path, ODB_RDWR);
	fill_header(odb_get_header(&db));
	for (i = 1; i < NR_WANT; i++)
		check_assert(odb_add(&db, want[i].key,
				     i == 1 ? 3 : want[i].value) == 0, "add");
	check_assert(odb_add(&db, 0x1234, 4) == 0, "add to an existing key");
	odb_close(&db);

	b = slurp(path, &len);
	check_assert(len == 2664, "file is %zu bytes", len);
	check_header_bytes(b);
	check_assert(get32(b, 72) == 128, "descr size %u", get32(b, 72));
	check_assert(get32(b, 76) == NR_WANT, "current_size %u", get32(b, 76));
	check_assert(all_zero(b, 80, 104), "descr padding");
	for (i = 0; i < NR_WANT; i++) {
		size_t off = 104 + 16 * i;

		check_assert(get64(b, off) == want[i].key, "node %zu key 0x%llx",
			     i, (unsigned long long)get64(b, off));
		check_assert(get32(b, off + 8) == want[i].value, "node %zu value %u",
			     i, get32(b, off + 8));
		check_assert(get32(b, off + 12) == want[i].next, "node %zu next %u",
			     i, get32(b, off + 12));
		if (i)
			heads[want[i].bucket] = (uint32_t)i;
	}
	check_assert(all_zero(b, 104 + 16 * NR_WANT, hash_off), "unused nodes");
	for (i = 0; i < 128; i++)
		check_assert(get32(b, hash_off + 4 * i) == heads[i],
			     "hash[%zu] = %u, expected %u", i,
			     get32(b, hash_off + 4 * i), heads[i]);
	free(b);
	check_pass("header fields at 0..72, descr at 72, nodes at 104 (key/value/next), hash at 2152, all as expected");
}

static uint32_t raw_bucket(uint64_t key, uint32_t mask)
{
	uint32_t t = (uint32_t)(key >> 32) ^ (uint32_t)key;

	return (t ^ (t >> 8)) & mask;
}

/* After growth: every node is found from the new hash position by raw walk. */
static void test_layout__grown_file(void)
{
	char const *path = t_path("grown.samples");
	uint32_t size, cur, i, b, idx, steps;
	size_t len, hash_off;
	struct odb db;
	uint8_t *buf;

	t_open(&db, path, ODB_RDWR);
	for (i = 0; i < 300; i++)
		check_assert(odb_add(&db, (uint64_t)i * 0x10001, i + 1) == 0, "add");
	odb_close(&db);

	buf = slurp(path, &len);
	size = get32(buf, 72);
	cur = get32(buf, 76);
	check_assert(size == 512 && cur == 301, "size %u current_size %u", size, cur);
	check_assert(len == 72 + 32 + 512 * 20, "file is %zu bytes", len);
	check_assert(get32(buf, 80) == 0, "growth marker left set");
	hash_off = 104 + (size_t)size * 16;
	for (i = 1; i < cur; i++) {
		uint64_t key = get64(buf, 104 + 16 * (size_t)i);

		check_assert(key == (uint64_t)(i - 1) * 0x10001, "node %u key", i);
		b = raw_bucket(key, size - 1);
		idx = get32(buf, hash_off + 4 * (size_t)b);
		for (steps = 0; idx && idx != i && steps < cur; steps++)
			idx = get32(buf, 104 + 16 * (size_t)idx + 12);
		check_assert(idx == i, "node %u not on the chain of bucket %u", i, b);
	}
	free(buf);
	check_pass("after two doublings: 512 nodes, 10344 bytes, hash at 8296 reaches all 300 nodes");
}

int main(void)
{
	umask(022);
	test_layout__new_file();
	test_layout__known_file();
	test_layout__grown_file();
	return check_done();
}
