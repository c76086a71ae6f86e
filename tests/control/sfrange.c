/*
 * sfrange: how many of a sample file's samples fall in one function, for
 * the control tests' attribution checks.
 *
 *   sfrange FILE ELF FUNC   print "IN TOTAL": the samples of FILE whose key
 *                           (a file offset in ELF) lies in FUNC's file-offset
 *                           range, and all of FILE's samples
 *   sfrange FILE            print TOTAL
 *   sfrange --arcs FILE TO [FROM]
 *                           FILE is a callgraph ({cg}) file, whose keys are
 *                           (caller offset << 32) | callee offset: print
 *                           "INTO TOTAL", the arcs whose callee lies in TO
 *                           and all arcs, or with FROM "BOTH INTO TOTAL",
 *                           BOTH being those of INTO whose caller lies in
 *                           FROM. TO and FROM are ELF:FUNC (FUNC's range
 *                           in ELF, as above) or START-END (offsets, e.g.
 *                           0x1200-0x1240, for kernel images: pc - image
 *                           start)
 *
 * The range comes from tests/lib/elf_range (plain <elf.h> parsing, nothing
 * shared with the daemon); the file is read with libdb (odb_open read-only,
 * odb_for_each) after odb_check. The range and the file's key count go to
 * stderr. Exit 1 on any error.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_range.h"
#include "odb.h"
#include "op_sample_file.h"

struct range {
	unsigned long start, end;
};

struct tally {
	unsigned long start, end;
	uint64_t in, total;
	uint32_t keys;
	/* --arcs */
	struct range to, from;
	int has_from;
	uint64_t into, both;
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

static int count_arc(odb_key_t key, odb_value_t value, void *arg)
{
	struct tally *t = arg;
	unsigned long from = (unsigned long)(key >> 32), to = (uint32_t)key;

	t->total += value;
	t->keys++;
	if (to < t->to.start || to >= t->to.end)
		return 0;
	t->into += value;
	if (t->has_from && from >= t->from.start && from < t->from.end)
		t->both += value;
	return 0;
}

/* ELF:FUNC or START-END into r; -1 after a message. */
static int parse_range(char const *text, struct range *r)
{
	char const *colon = strrchr(text, ':'), *arg = text;
	char *end;

	if (colon) {
		char *elf = strndup(text, (size_t)(colon - text));
		int rc = elf ? elf_func_range(elf, colon + 1, &r->start, &r->end) : -1;

		if (rc < 0)
			fprintf(stderr, "sfrange: no range for %s in %s\n", colon + 1,
				elf ? elf : "?");
		free(elf);
		return rc;
	}
	r->start = strtoul(arg, &end, 0);
	if (end == arg || *end != '-')
		goto bad;
	arg = end + 1;
	r->end = strtoul(arg, &end, 0);
	if (end == arg || *end || r->end <= r->start)
		goto bad;
	return 0;
bad:
	fprintf(stderr, "sfrange: bad range '%s': want ELF:FUNC or START-END\n", text);
	return -1;
}

/* Open FILE and visit its nodes; 0 or 1 after a message. */
static int read_file(char const *path, int (*fn)(odb_key_t, odb_value_t, void *),
		     struct tally *t)
{
	struct odb db;

	if (odb_open(&db, path, ODB_RDONLY, sizeof(struct opd_header)) < 0) {
		fprintf(stderr, "sfrange: %s\n", db.err);
		return 1;
	}
	if (odb_check(&db) < 0) {
		fprintf(stderr, "sfrange: %s\n", db.err);
		odb_close(&db);
		return 1;
	}
	odb_for_each(&db, fn, t);
	odb_close(&db);
	return 0;
}

static int arcs(int argc, char **argv)
{
	struct tally t = { 0 };

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: sfrange --arcs FILE TO [FROM]\n");
		return 2;
	}
	if (parse_range(argv[3], &t.to) < 0 ||
	    (argc == 5 && parse_range(argv[4], &t.from) < 0))
		return 1;
	t.has_from = argc == 5;
	if (read_file(argv[2], count_arc, &t))
		return 1;
	fprintf(stderr, "sfrange: arcs into [%#lx, %#lx): %" PRIu64 " of %" PRIu64
		" at %" PRIu32 " keys", t.to.start, t.to.end, t.into, t.total, t.keys);
	if (t.has_from) {
		fprintf(stderr, ", %" PRIu64 " of them from [%#lx, %#lx)\n", t.both,
			t.from.start, t.from.end);
		printf("%" PRIu64 " ", t.both);
	} else {
		fputc('\n', stderr);
	}
	printf("%" PRIu64 " %" PRIu64 "\n", t.into, t.total);
	return 0;
}

int main(int argc, char **argv)
{
	struct tally t = { 0 };

	if (argc > 1 && !strcmp(argv[1], "--arcs"))
		return arcs(argc, argv);
	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: sfrange FILE [ELF FUNC] | --arcs FILE TO [FROM]\n");
		return 2;
	}
	if (argc == 4 && elf_func_range(argv[2], argv[3], &t.start, &t.end) < 0) {
		fprintf(stderr, "sfrange: no range for %s in %s\n", argv[3], argv[2]);
		return 1;
	}
	if (read_file(argv[1], count, &t))
		return 1;
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
