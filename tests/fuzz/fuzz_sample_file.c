/*
 * libFuzzer target for the sample file reader: the input is a whole sample
 * file. It goes through what a tool does (op_header_read, odb_open
 * read-only, odb_check, odb_count, odb_for_each, odb_refresh, odb_close),
 * then what the daemon does when it reopens a file (odb_open read-write,
 * adds that also force a doubling, odb_check). Every byte is attacker
 * controlled; nothing may crash, hang, leak or read out of bounds.
 *
 * Random bytes rarely have a length that matches their descriptor, so
 * each input is also run a second time "fixed": the node count is forced
 * to a small power of two and the file padded or cut to match it. That
 * lets the fuzzer spend its time in the chain, cycle and duplicate checks.
 *
 * The file lives in a memfd reached through /proc/self/fd, so no disk I/O.
 * Build (from the top of the tree):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Ilibop -Ilibdb \
 *     tests/fuzz/fuzz_sample_file.c libdb/odb_*.c libop/op_*.c \
 *     -o fuzz_sample_file
 *   ./fuzz_sample_file -max_total_time=60 CORPUS tests/fuzz/corpus/sample_file
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* memfd_create */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "odb.h"
#include "op_sample_file.h"

struct tally {
	uint64_t keys;
	uint64_t sum;
};

static int visit(odb_key_t key, odb_value_t value, void *arg)
{
	struct tally *t = arg;

	t->keys++;
	t->sum += value ^ (key & 1);
	return 0;
}

static char const *file_path(void)
{
	static char path[64];
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("odb-fuzz", MFD_CLOEXEC);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0))
		abort();
	return path;
}

static void put_file(char const *path, uint8_t const *data, size_t size)
{
	FILE *f = fopen(path, "r+");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
}

static void read_side(char const *path)
{
	struct opd_header h;
	struct tally t = { 0, 0 };
	struct odb db;
	char err[256];

	op_header_read(path, &h, err, sizeof(err));
	if (odb_open(&db, path, ODB_RDONLY, sizeof(struct opd_header))) {
		odb_close(&db);
		return;
	}
	odb_check(&db);
	odb_for_each(&db, visit, &t);
	if (t.keys != odb_count(&db) || t.keys >= db.descr->size + 1u)
		abort();
	odb_refresh(&db);
	odb_close(&db);
}

/* Adds existing-looking and new keys: 300 new keys force one doubling. */
static void write_side(char const *path, uint8_t const *data, size_t size)
{
	struct odb db;
	uint64_t key;
	size_t i;

	if (odb_open(&db, path, ODB_RDWR, sizeof(struct opd_header)))
		return;
	for (i = 0; i < 300; i++) {
		key = i < size ? data[i] * 0x1000193ULL : i * 0x9e3779b97f4a7c15ULL;
		if (odb_add(&db, key, 1) < 0)
			break;
	}
	odb_check(&db);
	odb_close(&db);
}

static void run(uint8_t const *data, size_t size)
{
	char const *path = file_path();

	put_file(path, data, size);
	read_side(path);
	path = file_path();
	put_file(path, data, size);
	write_side(path, data, size);
}

#define DESCR_OFF sizeof(struct opd_header)

/* A copy of the input with a node count of 1 .. 512 and the matching length. */
static uint8_t *fixed_copy(uint8_t const *data, size_t size, size_t *len)
{
	uint32_t nodes;
	uint8_t *buf;

	if (size < DESCR_OFF + sizeof(struct odb_descr))
		return NULL;
	memcpy(&nodes, data + DESCR_OFF, sizeof(nodes));
	nodes = 1u << (nodes % 10);
	*len = DESCR_OFF + sizeof(struct odb_descr) +
		(size_t)nodes * (sizeof(struct odb_node) + sizeof(odb_index_t));
	buf = calloc(1, *len);
	if (!buf)
		abort();
	memcpy(buf, data, size < *len ? size : *len);
	memcpy(buf + DESCR_OFF, &nodes, sizeof(nodes));
	return buf;
}

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size)
{
	uint8_t *fixed;
	size_t len;

	run(data, size);
	fixed = fixed_copy(data, size, &len);
	if (fixed) {
		run(fixed, len);
		free(fixed);
	}
	return 0;
}
