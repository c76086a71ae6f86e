/* op_stacks: the stack table and its counts written, reopened, read back;
 * torn tails ignored and cut, bad records and counts refused by name. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "odb.h"
#include "op_hashmap.h"
#include "op_message.h"
#include "op_sample_file.h"
#include "op_stacks.h"
#include "op_util.h"

static char const *dir;

static char *table_path(void)
{
	return op_xasprintf("%s/%s/%s", dir, OP_STACKS_DIR, OP_STACKS_TABLE);
}

static struct opd_header header(void)
{
	struct opd_header h;

	op_header_init(&h);
	h.ctr_count = 100000;
	return h;
}

struct tally {
	uint64_t total;
	uint64_t by_id[16];
	unsigned calls;
	char last_event[64];
};

static int add_up(void *arg, struct op_stack const *s, char const *event,
		  uint64_t count)
{
	struct tally *t = arg;

	t->total += count;
	if (s->id < 16)
		t->by_id[s->id] += count;
	t->calls++;
	snprintf(t->last_event, sizeof(t->last_event), "%s", event);
	return 0;
}

static struct op_stack stack_of(uint32_t tgid, uint32_t app, uint32_t stop,
				struct op_stack_frame const *f, uint32_t n)
{
	struct op_stack s = {
		.tgid = tgid, .app = app, .stop = stop, .nframes = n,
		.frames = f,
	};
	return s;
}

static void test_stacks__names(void)
{
	check_str(op_unwind_stop_name(OP_UNWIND_ROOT), "root", "0 is root");
	check_str(op_unwind_stop_name(OP_UNWIND_NO_CFI), "no_cfi", "no_cfi");
	check_str(op_unwind_stop_name(OP_UNWIND_DEPTH_LIMIT), "depth_limit",
		  "depth_limit");
	check_str(op_unwind_stop_name(999), "unknown", "an unknown reason");
}

/* doc/formats.md's worked example of a record checksum */
static void test_stacks__checksum(void)
{
	unsigned char frame[20] = { 3 };
	uint64_t offset = 0x401000;

	memcpy(frame + 12, &offset, 8);
	check_int(op_stacks_checksum(frame, sizeof(frame)), 0x3c74c0df,
		  "the documented frame record's checksum is 0x3c74c0df");
	check_int(op_stacks_checksum("", 0), 0x811c9dc5u ^ (0x811c9dc5u >> 15),
		  "no bytes: the FNV-1a offset basis, folded");
}

static void test_stacks__absent(void)
{
	struct op_stacks *st = (void *)1;

	check_int(op_stacks_open(dir, &st), -ENOENT, "no stacks: -ENOENT");
	check(st == NULL, "and no handle");
}

/* Two images, three stacks (one interned twice), two events. */
static void test_stacks__write_read(void)
{
	struct op_stack_frame f1[] = { { 1, 0x1130 }, { 0, 0x1040 } };
	struct op_stack_frame f2[] = { { 1, 0x1150 }, { 0, 0x1040 } };
	struct op_stack_frame f3[] = { { 2, 0x99 } };
	struct opd_header h = header();
	struct op_stacks_writer *w;
	struct op_stacks *st;
	struct op_stack s;
	struct tally t = { 0 };
	uint32_t app, lib, kern, again;
	uint64_t id1, id2, id3, id1b;
	struct stat sb;
	char *p;

	if (!check(op_stacks_writer_open(dir, &w) == 0, "writer opens"))
		return;
	check(op_stacks_writer_image(w, "{root}/usr/bin/leafs", "abcd01", &app)
	      == 0 && app == 0, "app image is 0");
	check(op_stacks_writer_image(w, "{root}/usr/lib/libc.so.6", NULL, &lib)
	      == 0 && lib == 1, "libc is 1");
	check(op_stacks_writer_image(w, "{root}/usr/bin/leafs", NULL, &again)
	      == 0 && again == 0, "an image is interned once");
	check(op_stacks_writer_image(w, "{kern}/ext4", NULL, &kern) == 0 &&
	      kern == 2, "a module is 2");
	s = stack_of(42, app, OP_UNWIND_ROOT, f1, 2);
	check(op_stacks_writer_stack(w, &s, &id1) == 0 && id1 == 1, "id 1");
	s = stack_of(42, app, OP_UNWIND_ROOT, f2, 2);
	check(op_stacks_writer_stack(w, &s, &id2) == 0 && id2 == 2, "id 2");
	s = stack_of(42, app, OP_UNWIND_ROOT, f1, 2);
	check(op_stacks_writer_stack(w, &s, &id1b) == 0 && id1b == 1,
	      "the same frames get the same id");
	s = stack_of(43, app, OP_UNWIND_NO_CFI, f3, 1);
	check(op_stacks_writer_stack(w, &s, &id3) == 0 && id3 == 3,
	      "another tgid and stop: id 3");
	check(op_stacks_writer_count(w, "CPU_CLOCK.100000.0", &h, id1, 7) == 0,
	      "count");
	check(op_stacks_writer_count(w, "CPU_CLOCK.100000.0", &h, id1, 3) == 0,
	      "count again");
	check(op_stacks_writer_count(w, "CPU_CLOCK.100000.0", &h, id2, 5) == 0,
	      "count id 2");
	check(op_stacks_writer_count(w, "BR_MISS.5000.0", &h, id3, 2) == 0,
	      "another event");
	check(op_stacks_writer_count(w, "CPU_CLOCK.100000.0", &h, 99, 1) < 0,
	      "a count of a stack not in the table is refused");
	check(op_stacks_writer_count(w, "../x", &h, id1, 1) < 0,
	      "an event name with '/' is refused");
	check(op_stacks_writer_sync(w) == 0, "sync");
	op_stacks_writer_close(w);

	p = table_path();
	check(stat(p, &sb) == 0 && (sb.st_mode & 07777) == 0644,
	      "table is 0644");
	free(p);

	if (!check(op_stacks_open(dir, &st) == 0, "reader opens"))
		return;
	check_int(op_stacks_nimages(st), 3, "three images");
	check_str(op_stacks_image(st, 0)->name, "{root}/usr/bin/leafs",
		  "image 0 name");
	check_str(op_stacks_image(st, 0)->build_id, "abcd01", "its build-id");
	check(op_stacks_image(st, 1)->build_id == NULL, "libc: no build-id");
	check(op_stacks_image(st, 3) == NULL, "no image 3");
	check_int(op_stacks_nstacks(st), 3, "three stacks");
	check_int(op_stacks_nevents(st), 2, "two events");
	check_str(op_stacks_event(st, 0), "BR_MISS.5000.0", "events sorted");
	check_str(op_stacks_event(st, 1), "CPU_CLOCK.100000.0", "second");
	s = *op_stacks_find(st, 2);
	check(s.tgid == 42 && s.app == 0 && s.nframes == 2 &&
	      s.frames[0].image == 1 && s.frames[0].offset == 0x1150 &&
	      s.frames[1].offset == 0x1040, "stack 2 read back leaf first");
	check(op_stacks_find(st, 3)->stop == OP_UNWIND_NO_CFI,
	      "stop reason read back");
	check(op_stacks_find(st, 4) == NULL && op_stacks_find(st, 0) == NULL,
	      "no stack 0 or 4");
	check(op_stacks_foreach(st, NULL, add_up, &t) == 0, "foreach all");
	check(t.total == 17 && t.by_id[1] == 10 && t.by_id[2] == 5 &&
	      t.by_id[3] == 2, "counts: 10 + 5 + 2 (%llu)",
	      (unsigned long long)t.total);
	memset(&t, 0, sizeof(t));
	op_stacks_foreach(st, "BR_MISS.5000.0", add_up, &t);
	check(t.total == 2 && t.calls == 1 &&
	      !strcmp(t.last_event, "BR_MISS.5000.0"), "one event only");
	op_stacks_close(st);
}

/* A second writer continues the table: old stacks keep their ids. */
static void test_stacks__reopen(void)
{
	struct op_stack_frame f1[] = { { 1, 0x1130 }, { 0, 0x1040 } };
	struct op_stack_frame f4[] = { { 0, 0x2000 } };
	struct opd_header h = header();
	struct op_stacks_writer *w;
	struct op_stacks *st;
	struct op_stack s;
	struct tally t = { 0 };
	uint64_t id;
	uint32_t img;

	if (!check(op_stacks_writer_open(dir, &w) == 0, "writer reopens"))
		return;
	check_int(op_stacks_writer_nstacks(w), 3, "it knows three stacks");
	check(op_stacks_writer_image(w, "{root}/usr/lib/libc.so.6", NULL, &img)
	      == 0 && img == 1, "libc keeps index 1");
	s = stack_of(42, 0, OP_UNWIND_ROOT, f1, 2);
	check(op_stacks_writer_stack(w, &s, &id) == 0 && id == 1,
	      "stack 1 keeps its id");
	s = stack_of(42, 0, OP_UNWIND_ROOT, f4, 1);
	check(op_stacks_writer_stack(w, &s, &id) == 0 && id == 4, "new: 4");
	check(op_stacks_writer_count(w, "CPU_CLOCK.100000.0", &h, 1, 1) == 0 &&
	      op_stacks_writer_count(w, "CPU_CLOCK.100000.0", &h, 4, 1) == 0,
	      "counts added to the existing file");
	op_stacks_writer_close(w);
	if (!check(op_stacks_open(dir, &st) == 0, "reader opens"))
		return;
	op_stacks_foreach(st, "CPU_CLOCK.100000.0", add_up, &t);
	check(t.by_id[1] == 11 && t.by_id[4] == 1 && t.total == 17,
	      "counts continue (%llu)", (unsigned long long)t.total);
	op_stacks_close(st);
}

static off_t file_size(char const *path)
{
	struct stat sb;

	return stat(path, &sb) ? -1 : sb.st_size;
}

/* A writer killed in an append leaves a torn record: readers stop before
 * it, and the next writer cuts it off. */
static void test_stacks__torn_tail(void)
{
	struct op_stack_frame f5[] = { { 0, 0x3000 }, { 0, 0x3100 } };
	struct op_stacks_writer *w;
	struct op_stacks *st;
	struct op_stack s;
	char *p = table_path();
	off_t size = file_size(p);
	uint64_t id;
	int fd;

	check(truncate(p, size - 5) == 0, "tear the last record");
	if (check(op_stacks_open(dir, &st) == 0, "a torn table opens")) {
		check_int(op_stacks_nstacks(st), 3, "the torn stack is not seen");
		op_stacks_close(st);
	}
	/* garbage with a wrong checksum at the end */
	fd = open(p, O_WRONLY | O_APPEND);
	check(write(fd, "\x10\0\0\0\1\2\3\4garbagegarbage!!", 24) == 24,
	      "append a record with a bad checksum");
	close(fd);
	if (check(op_stacks_open(dir, &st) == 0, "it opens")) {
		check_int(op_stacks_nstacks(st), 3, "and the bad tail is ignored");
		op_stacks_close(st);
	}
	if (!check(op_stacks_writer_open(dir, &w) == 0, "writer opens"))
		return;
	s = stack_of(7, 0, OP_UNWIND_DEPTH_LIMIT, f5, 2);
	check(op_stacks_writer_stack(w, &s, &id) == 0 && id == 4,
	      "the next stack takes the torn one's id");
	op_stacks_writer_close(w);
	if (check(op_stacks_open(dir, &st) == 0, "reader opens")) {
		check(op_stacks_nstacks(st) == 4 &&
		      op_stacks_find(st, 4)->tgid == 7, "and reads it");
		op_stacks_close(st);
	}
	free(p);
}

static int fail_cb(void *arg, struct op_stack const *s, char const *e,
		   uint64_t n)
{
	(void)arg; (void)s; (void)e; (void)n;
	return 0;
}

/* Whole records that make no sense, and counts of unknown stacks. */
static void test_stacks__bad_input(void)
{
	struct opd_header h = header();
	struct op_stacks *st;
	struct odb db;
	char *p = table_path();
	char *ev = op_xasprintf("%s/%s/BAD.1.0", dir, OP_STACKS_DIR);
	char *saved;
	size_t len;
	int fd;

	check(odb_create(&db, ev, &h, sizeof(h)) == 0 &&
	      odb_add(&db, 77, 1) == 0, "a count file with a stray stack id");
	odb_close(&db);
	if (check(op_stacks_open(dir, &st) == 0, "opens")) {
		check_int(op_stacks_foreach(st, "BAD.1.0", fail_cb, NULL),
			  -EINVAL, "a count of an unknown stack is an error");
		op_stacks_close(st);
	}
	unlink(ev);

	saved = op_read_file(p, 0, &len, NULL, 0);
	/* bad magic */
	fd = open(p, O_WRONLY);
	check(pwrite(fd, "XX", 2, 0) == 2, "spoil the magic");
	close(fd);
	check_int(op_stacks_open(dir, &st), -EINVAL, "bad magic: -EINVAL");
	/* a record with a good checksum and a frame image not in the table */
	{
		unsigned char rec[8 + 20] = { 0 };
		uint32_t v;
		unsigned sum;

		op_write_file_atomic(p, saved, len, NULL, 0);
		v = 20;
		memcpy(rec, &v, 4);
		v = 3;			/* a frame (node) record */
		memcpy(rec + 8, &v, 4);
		v = 500;		/* its image */
		memcpy(rec + 16, &v, 4);
		sum = op_stacks_checksum(rec + 8, 20);
		memcpy(rec + 4, &sum, 4);
		fd = open(p, O_WRONLY | O_APPEND);
		check(write(fd, rec, sizeof(rec)) == (ssize_t)sizeof(rec),
		      "append a whole record naming image 500");
		close(fd);
		check_int(op_stacks_open(dir, &st), -EINVAL,
			  "a frame in no image: -EINVAL");
	}
	op_write_file_atomic(p, saved, len, NULL, 0);
	free(saved);
	free(ev);
	free(p);
}

/* A build-id goes into report paths (session/binaries/ID): a table with
 * one that is not lower-case hex is refused, not followed out. */
static void test_stacks__bad_build_id(void)
{
	char *d = op_xasprintf("%s/bid", dir);
	struct op_stacks_writer *w;
	struct op_stacks *st = NULL;
	uint32_t img;

	if (!check(op_stacks_writer_open(d, &w) == 0, "writer opens"))
		return;
	check(op_stacks_writer_image(w, "{root}/usr/bin/x", "../../../bait",
				     &img) == 0, "an image with a path as build-id");
	op_stacks_writer_close(w);
	check_int(op_stacks_open(d, &st), -EINVAL,
		  "a build-id not in hex: the table is refused");
	check(st == NULL, "and no handle");
	free(d);
}

/* Stacks share their callers' frames: a stack that differs from one in
 * the table by its leaf costs one frame record and its stack record. */
static void test_stacks__sharing(void)
{
	struct op_stack_frame f[] = { { 0, 0x10 }, { 0, 0x20 }, { 0, 0x30 },
				      { 0, 0x40 }, { 0, 0x50 } };
	struct op_stacks_writer *w;
	struct op_stacks *st;
	struct op_stack s = stack_of(9, 0, OP_UNWIND_ROOT, f, 5);
	char *p = table_path();
	uint64_t id;
	off_t before;

	if (!check(op_stacks_writer_open(dir, &w) == 0, "writer opens"))
		return;
	check(op_stacks_writer_stack(w, &s, &id) == 0, "a 5-frame stack");
	before = file_size(p);
	f[0].offset = 0x11;
	check(op_stacks_writer_stack(w, &s, &id) == 0, "its sibling");
	check_int(file_size(p) - before, 8 + 20 + 8 + 32,
		  "the sibling costs one frame and one stack record");
	op_stacks_writer_close(w);
	if (check(op_stacks_open(dir, &st) == 0, "reader opens")) {
		struct op_stack const *r = op_stacks_find(st, id);

		check(r && r->nframes == 5 && r->frames[0].offset == 0x11 &&
		      r->frames[1].offset == 0x20 && r->frames[4].offset == 0x50,
		      "the sibling's frames read back whole");
		op_stacks_close(st);
	}
	free(p);
}

static void test_stacks__symlink(void)
{
	struct op_stacks_writer *w;
	char *other = op_xasprintf("%s/other", dir);
	char *sdir = op_xasprintf("%s/sym", dir);
	char *sstacks = op_xasprintf("%s/sym/%s", dir, OP_STACKS_DIR);
	char *stable = op_xasprintf("%s/%s", sstacks, OP_STACKS_TABLE);

	mkdir(sdir, 0755);
	mkdir(sstacks, 0755);
	check(symlink(other, stable) == 0, "plant a link as the table");
	check(op_stacks_writer_open(sdir, &w) < 0, "the writer refuses it");
	check(access(other, F_OK) < 0, "and writes nothing through it");
	free(other);
	free(sdir);
	free(sstacks);
	free(stable);
}

int main(void)
{
	op_set_progname("stacks_test");
	dir = check_tmpdir();
	test_stacks__names();
	test_stacks__checksum();
	test_stacks__absent();
	test_stacks__write_read();
	test_stacks__reopen();
	test_stacks__torn_tail();
	test_stacks__bad_input();
	test_stacks__bad_build_id();
	test_stacks__sharing();
	test_stacks__symlink();
	return check_done();
}
