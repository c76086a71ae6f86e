/*
 * sfrange: how many of a sample file's samples fall in one function, for
 * the control tests' attribution checks.
 *
 *   sfrange FILE ELF FUNC   print "IN TOTAL": the samples of FILE whose key
 *                           (a file offset in ELF) lies in FUNC's file-offset
 *                           range, and all of FILE's samples
 *   sfrange FILE            print TOTAL
 *
 * The range comes from tests/lib/elf_range (plain <elf.h> parsing, nothing
 * shared with the daemon); the file is read with libdb (odb_open read-only,
 * odb_for_each) after odb_check. The range and the file's key count go to
 * stderr. Exit 1 on any error.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "elf_range.h"
#include "odb.h"
#include "op_sample_file.h"

struct tally {
	unsigned long start, end;
	uint64_t in, total;
	uint32_t keys;
};

static int count(odb_key_t key, odb_value_t value, void *arg)
{
	struct tally *t = arg;

	t->total += value;
	t->keys++;
	if (key >= t->start && key < t->end)
		t->in += value;
	return 0;
}

int main(int argc, char **argv)
{
	struct tally t = { 0 };
	struct odb db;

	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: sfrange FILE [ELF FUNC]\n");
		return 2;
	}
	if (argc == 4 && elf_func_range(argv[2], argv[3], &t.start, &t.end) < 0) {
		fprintf(stderr, "sfrange: no range for %s in %s\n", argv[3], argv[2]);
		return 1;
	}
	if (odb_open(&db, argv[1], ODB_RDONLY, sizeof(struct opd_header)) < 0) {
		fprintf(stderr, "sfrange: %s\n", db.err);
		return 1;
	}
	if (odb_check(&db) < 0) {
		fprintf(stderr, "sfrange: %s\n", db.err);
		odb_close(&db);
		return 1;
	}
	odb_for_each(&db, count, &t);
	odb_close(&db);
	if (argc == 4) {
		fprintf(stderr, "sfrange: %s [%#lx, %#lx): %" PRIu64 " of %" PRIu64
			" samples at %" PRIu32 " offsets\n", argv[3], t.start, t.end,
			t.in, t.total, t.keys);
		printf("%" PRIu64 " %" PRIu64 "\n", t.in, t.total);
	} else {
		printf("%" PRIu64 "\n", t.total);
	}
	return 0;
}
