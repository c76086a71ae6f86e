/*
 * Unit tests of the sample file cache against rebuilt binaries: a sample
 * file holds the samples of one build of its binary, the one whose mtime
 * is in its header (doc/formats.md 2.1). Opening it for the build on disk
 * after a restart replaces another build's file. Within one daemon, each
 * build of a path is an image and a file of its own: the first keeps the
 * path's name, a later one is named PATH/{build:ID} (op_mangle.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "check.h"
#include "odb.h"
#include "op_build_id.h"
#include "op_message.h"
#include "op_sample_file.h"
#include "opd_core.h"
#include "opd_image.h"
#include "opd_sfile.h"
#include "sfile_scratch.h"

static char const *dir;
static char bin[SCRATCH_BIN_LEN], sfile_path[SCRATCH_PATH_LEN];
static struct opd_config cfg;
static struct opd_images *images;
static struct opd_sfiles *sfiles;

static void set_mtime(time_t t)
{
	struct utimbuf u = { t, t };

	if (utime(bin, &u))
		op_die("cannot set the mtime of %s", bin);
}

/* The daemon (re)starting: a fresh image table and sample file cache. */
static void start(void)
{
	opd_sfiles_free(sfiles);
	opd_images_free(images);
	images = opd_images_new();
	sfiles = opd_sfiles_new(&cfg, images, dir);
}

static void add(int image, uint64_t key, int n)
{
	scratch_add(sfiles, image, key, n);
}

struct seen {
	uint64_t key[8];
	uint32_t value[8];
	int n;
};

static int collect(odb_key_t key, odb_value_t value, void *arg)
{
	struct seen *s = arg;

	if (s->n < 8) {
		s->key[s->n] = key;
		s->value[s->n] = value;
	}
	s->n++;
	return 0;
}

/* The file at path must have header mtime and exactly the one key with
 * n samples. */
static void expect_at(char const *path, char const *what, uint64_t mtime,
		      uint64_t key, uint32_t n)
{
	struct seen s = { .n = 0 };
	struct odb db;

	opd_sfile_close_all(sfiles);
	if (odb_open(&db, path, ODB_RDONLY, sizeof(struct opd_header))) {
		check(0, "%s: %s", what, db.err);
		return;
	}
	check(((struct opd_header *)odb_get_header(&db))->mtime == mtime,
	      "%s: header mtime %" PRIu64 ", want %" PRIu64, what,
	      ((struct opd_header *)odb_get_header(&db))->mtime, mtime);
	odb_for_each(&db, collect, &s);
	check(s.n == 1 && s.key[0] == key && s.value[0] == n,
	      "%s: %d keys, first %#" PRIx64 "=%u; want %#" PRIx64 "=%u", what,
	      s.n, s.n ? s.key[0] : 0, s.n ? s.value[0] : 0, key, n);
	odb_close(&db);
}

static void expect(char const *what, uint64_t mtime, uint64_t key, uint32_t n)
{
	expect_at(sfile_path, what, mtime, key, n);
}

/* The sample file of a later build, tagged ID. */
static void tagged_path(char *buf, size_t len, char const *id)
{
	snprintf(buf, len, "%s/{root}%s/{build:%s}/{dep}/{root}%s/{build:%s}/"
		 "CPU_CLOCK.1000000.0.all.all.all", dir, bin, id, bin, id);
}

/* Install src as bin (a new inode, as install(1) does) with mtime t. */
static void install(char *cmd, size_t len, char const *src, time_t t)
{
	snprintf(cmd, len, "cp '%s' '%s.new' && mv -f '%s.new' '%s'", src, bin,
		 bin, bin);
	if (system(cmd))
		op_die("cannot install %s as %s", src, bin);
	set_mtime(t);
}

static void check_files_read_by_daemon(char *cmd, size_t len)
{
	char want[OP_BUILD_ID_HEX_MAX], other[OP_BUILD_ID_HEX_MAX];
	char id[OP_BUILD_ID_HEX_MAX + 16];
	int a, b;

	if (op_build_id_of("/bin/true", want) ||
	    op_build_id_of("/bin/false", other) || !strcmp(want, other)) {
		check(1, "# SKIP /bin/true and /bin/false without build-ids");
		return;
	}
	start();
	install(cmd, len, "/bin/true", 5000);
	a = opd_image_file(images, bin);
	install(cmd, len, "/bin/false", 6000);
	b = opd_image_file(images, bin);
	snprintf(id, sizeof(id), "/{build:%s}", other);
	check(a != b && !opd_image_get(images, a)->tagged &&
	      opd_image_get(images, b)->tagged &&
	      strstr(opd_image_get(images, b)->tagged, id) &&
	      !strcmp(opd_image_get(images, b)->build_id, other),
	      "the file's build-id tags a later build: %s",
	      opd_image_get(images, b)->tagged);
	install(cmd, len, "/bin/false", 7000);
	check(opd_image_file(images, bin) == b, "the same build touched is "
	      "the same image");
	install(cmd, len, "/bin/true", 8000);
	check(opd_image_file(images, bin) == a, "the first build again keeps "
	      "its image and name");
}

int main(void)
{
	struct opd_sfile_counts const *c;
	char cmd[1200];
	static unsigned char const id1[] = { 1, 2, 3, 4 };
	static unsigned char const id2[] = { 0xa, 0xb, 0xc, 0xd };
	char path2[1024];
	FILE *f;
	int old, new;

	op_set_progname("sfile_build_test");
	dir = scratch_make(bin, sfile_path, &cfg);

	/* build 1 */
	set_mtime(1000);
	start();
	add(opd_image_file(images, bin), 0x10, 3);
	expect("build 1", 1000, 0x10, 3);

	/* the same build after a restart: its samples add up */
	start();
	add(opd_image_file(images, bin), 0x10, 1);
	expect("build 1 again", 1000, 0x10, 4);

	/* rebuilt, then the daemon restarts: the file is replaced */
	set_mtime(2000);
	start();
	add(opd_image_file(images, bin), 0x20, 2);
	expect("build 2 after a restart", 2000, 0x20, 2);
	c = opd_sfile_counts(sfiles);
	check(c->written == 2 && c->errors == 0, "written %" PRIu64 " errors %"
	      PRIu64, c->written, c->errors);

	/* an unknown mtime (a deleted binary) disables the check */
	unlink(bin);
	start();
	add(opd_image_file(images, bin), 0x20, 1);
	expect("deleted binary", 2000, 0x20, 3);

	/* rebuilt while the daemon runs, the old build still running: a
	 * file for each */
	f = fopen(bin, "w");
	if (!f)
		op_die("cannot create %s", bin);
	fclose(f);
	set_mtime(3000);
	start();
	old = opd_image_file(images, bin);
	check(opd_image_file(images, bin) == old, "the same build is one image");
	add(old, 0x30, 2);
	expect("build 3", 3000, 0x30, 2);
	set_mtime(4000);
	new = opd_image_file(images, bin);
	check(new != old && opd_image_get(images, new)->mtime == 4000 &&
	      opd_image_get(images, old)->mtime == 3000, "a rebuilt binary is a new image");
	check(!opd_image_get(images, old)->tagged &&
	      opd_image_get(images, new)->tagged &&
	      !strcmp(opd_image_get(images, new)->name, bin),
	      "the first build keeps the path, the later one is tagged: %s",
	      opd_image_get(images, new)->tagged);
	opd_sfile_reset_counts(sfiles);
	add(new, 0x40, 5);
	opd_sfile_flush(sfiles);
	add(old, 0x30, 7);
	expect("build 3 keeps its file", 3000, 0x30, 9);
	tagged_path(path2, sizeof(path2), "m4000");
	expect_at(path2, "build 4 in its own file", 4000, 0x40, 5);
	c = opd_sfile_counts(sfiles);
	check(c->written == 12 && c->errors == 0, "nothing dropped: written %"
	      PRIu64 " errors %" PRIu64, c->written, c->errors);

	/* builds named by the kernel's build-id: the first keeps the path,
	 * another one is tagged by its build-id; the same build-id again
	 * (a later mmap) is the same image */
	start();
	old = opd_image_binary(images, bin, NULL, id1, sizeof(id1));
	new = opd_image_binary(images, bin, NULL, id2, sizeof(id2));
	check(old != new &&
	      opd_image_binary(images, bin, NULL, id1, sizeof(id1)) == old &&
	      opd_image_binary(images, bin, NULL, id2, sizeof(id2)) == new,
	      "one image per build-id");
	check(!strcmp(opd_image_get(images, new)->build_id, "0a0b0c0d") &&
	      opd_image_get(images, new)->mtime == 0,
	      "a build-id the file does not have: mtime unknown");
	add(old, 0x50, 1);
	add(new, 0x60, 4);
	tagged_path(path2, sizeof(path2), "0a0b0c0d");
	expect_at(path2, "the other build-id's file", 0, 0x60, 4);

	/* no build-id from the kernel (the driver): the daemon reads the
	 * file's; a later build is tagged by it, and the same build with
	 * another mtime (touched, installed again) stays one image */
	check_files_read_by_daemon(cmd, sizeof(cmd));

	opd_sfiles_free(sfiles);
	opd_images_free(images);
	scratch_remove(dir);
	return check_done();
}
