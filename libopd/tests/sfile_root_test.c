/*
 * A binary of another mount namespace (a container) is read below its
 * process's root (/proc/PID/root): when its sample file holds another
 * build, the build on disk is the one below that root, not whatever the
 * daemon's own namespace has at that path. Here the root is a directory
 * of the scratch tree, and the daemon's side has another file (another
 * mtime) at the same path.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <utime.h>

#include "check.h"
#include "odb.h"
#include "op_file.h"
#include "op_message.h"
#include "op_sample_file.h"
#include "opd_image.h"
#include "sfile_scratch.h"

static char const *dir;
static char bin[SCRATCH_BIN_LEN], sfile_path[SCRATCH_PATH_LEN];
static char root[SCRATCH_PATH_LEN], inside[2 * SCRATCH_PATH_LEN];

static void set_mtime(char const *path, time_t t)
{
	struct utimbuf u = { t, t };

	if (utime(path, &u))
		op_die("cannot set the mtime of %s", path);
}

struct sum {
	uint32_t at10, other;
};

static int sum_up(odb_key_t key, odb_value_t value, void *arg)
{
	struct sum *s = arg;

	*(key == 0x10 ? &s->at10 : &s->other) += value;
	return 0;
}

/* The file must hold header mtime and key 0x10 with n samples only. */
static void expect(char const *what, uint64_t mtime, uint32_t n)
{
	struct opd_header const *h;
	struct sum s = { 0, 0 };
	struct odb db;

	if (odb_open(&db, sfile_path, ODB_RDONLY, sizeof(struct opd_header))) {
		check(0, "%s: %s", what, db.err);
		return;
	}
	h = odb_get_header(&db);
	odb_for_each(&db, sum_up, &s);
	check(h->mtime == mtime && s.at10 == n && !s.other,
	      "%s: mtime %" PRIu64 " (want %" PRIu64 "), 0x10=%u (want %u), "
	      "other keys %u (want 0)", what, h->mtime, mtime, s.at10, n,
	      s.other);
	odb_close(&db);
}

int main(void)
{
	struct opd_config cfg;
	struct opd_images *images;
	struct opd_sfiles *sfs;
	struct opd_sfile_counts const *c;
	FILE *f;

	op_set_progname("sfile_root_test");
	dir = scratch_make(bin, sfile_path, &cfg);
	set_mtime(bin, 3000);	/* the daemon's side: another file */
	snprintf(root, sizeof(root), "%s/ns", dir);
	snprintf(inside, sizeof(inside), "%s%s", root, bin);
	if (op_mkdir_parents(inside) || !(f = fopen(inside, "w")))
		op_die("cannot create %s", inside);
	fclose(f);

	/* build 1000 in the namespace: its samples in its file */
	set_mtime(inside, 1000);
	images = opd_images_new();
	sfs = opd_sfiles_new(&cfg, images, dir);
	scratch_add(sfs, opd_image_file_at(images, bin, root), 0x10, 3);
	opd_sfiles_free(sfs);
	opd_images_free(images);
	expect("build 1000", 1000, 3);

	/* the daemon restarts and meets an old build (500) still running,
	 * while 1000 is on disk below the root again: the old build's
	 * samples are dropped (counted), build 1000's file is kept */
	set_mtime(inside, 500);
	images = opd_images_new();
	sfs = opd_sfiles_new(&cfg, images, dir);
	scratch_add(sfs, opd_image_file_at(images, bin, root), 0x20, 2);
	set_mtime(inside, 1000);
	c = opd_sfile_counts(sfs);
	check(c->errors == 2 && c->written == 0,
	      "the old build's samples dropped and counted: errors %" PRIu64
	      " written %" PRIu64 " (want 2, 0)", c->errors, c->written);
	opd_sfiles_free(sfs);
	opd_images_free(images);
	expect("build 1000 kept, read below the root", 1000, 3);

	scratch_remove(dir);
	return check_done();
}
