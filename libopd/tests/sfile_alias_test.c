/*
 * Unit test of the sample file cache when two keys name one file: two
 * images with one name (here a binary and a saved copy of it,
 * opd_image_copy; before builds were told apart by build-id, also a
 * binary seen through another mount namespace and from the daemon's
 * own), so their samples go to one sample file. Each entry used to open its own handle;
 * when one grew the file the other's mapping went stale and its samples
 * were lost ("current_size 129 outside 1 .. 128"). Every sample must be
 * in the file and counted written, whichever order the entries write in.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "odb.h"
#include "op_message.h"
#include "op_sample_file.h"
#include "opd_core.h"
#include "opd_image.h"
#include "opd_sfile.h"
#include "sfile_scratch.h"

/* more distinct keys than a new file holds (128 nodes): it must grow */
#define NR_KEYS 300

static char const *dir;
static char bin[SCRATCH_BIN_LEN], sfile_path[SCRATCH_PATH_LEN];

static void add(struct opd_sfiles *sfs, int image, uint64_t key)
{
	scratch_add(sfs, image, key, 1);
}

struct sum {
	uint64_t keys, samples;
	int bad;
};

static int sum_up(odb_key_t key, odb_value_t value, void *arg)
{
	struct sum *s = arg;

	s->keys++;
	s->samples += value;
	s->bad += key >= NR_KEYS || value != 2;
	return 0;
}

/* Both images write every key once; flush after each add when one_by_one. */
static void run(struct opd_config const *cfg, int one_by_one)
{
	struct opd_images *images = opd_images_new();
	struct opd_sfiles *sfs = opd_sfiles_new(cfg, images, dir);
	int here = opd_image_file(images, bin);
	int there = opd_image_copy(images, bin, bin);
	struct opd_sfile_counts const *c;
	struct sum s = { 0, 0, 0 };
	struct odb db;
	uint64_t k;

	check(here != there && !strcmp(opd_image_get(images, here)->name,
				       opd_image_get(images, there)->name),
	      "two images of one name");
	for (k = 0; k < NR_KEYS; k++) {
		add(sfs, here, k);
		if (one_by_one)
			opd_sfile_flush(sfs);
		add(sfs, there, k);
		if (one_by_one)
			opd_sfile_flush(sfs);
	}
	c = opd_sfile_counts(sfs);
	check(c->written == 2 * NR_KEYS && c->errors == 0,
	      "%s: written %" PRIu64 " (want %d), errors %" PRIu64,
	      one_by_one ? "one by one" : "batched", c->written, 2 * NR_KEYS,
	      c->errors);
	check(opd_sfile_nr_open(sfs) == 1, "one handle open for one file, not %zu",
	      opd_sfile_nr_open(sfs));
	opd_sfiles_free(sfs);
	opd_images_free(images);

	if (odb_open(&db, sfile_path, ODB_RDONLY, sizeof(struct opd_header))) {
		check(0, "%s", db.err);
		return;
	}
	check(odb_check(&db) == 0, "the file is sound: %s", db.err);
	odb_for_each(&db, sum_up, &s);
	check(s.keys == NR_KEYS && s.samples == 2 * NR_KEYS && !s.bad,
	      "%s: the file holds %" PRIu64 " keys, %" PRIu64 " samples, %d "
	      "wrong; want %d keys of 2", one_by_one ? "one by one" : "batched",
	      s.keys, s.samples, s.bad, NR_KEYS);
	odb_close(&db);
	unlink(sfile_path);
}

int main(void)
{
	struct opd_config cfg;

	op_set_progname("sfile_alias_test");
	dir = scratch_make(bin, sfile_path, &cfg);

	run(&cfg, 1);
	run(&cfg, 0);

	scratch_remove(dir);
	return check_done();
}
