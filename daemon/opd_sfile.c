/*
 * Sample file cache.
 *
 * Entries live in a hash table keyed by struct opd_sfile_key; the last
 * entry used is checked first, since consecutive samples mostly hit the
 * same file. Open files are on an LRU list; past the bound (or on EMFILE)
 * the least recently used is closed. Each file is created with its header
 * (OProfile 1.x layout, op_sample_file.h) the first time it is opened.
 *
 * A file holds the samples of one build of its binary: the one whose
 * st_mtime is in its header, so that a report can check it reads the
 * binary that was sampled. A file found holding another build's samples
 * when it is opened (the binary was rebuilt since) is replaced when this
 * build is the one on disk; when the file's build is the one on disk, this
 * build is an old one still running and its samples are dropped (counted
 * as errors) rather than mixed in.
 *
 * Samples are first summed in a small in-memory table of (file, key) ->
 * count, as DCPI did: a hot loop hits the same few pcs again and again, so
 * most samples cost one probe of a cache-resident table instead of a walk
 * through a large mmap'ed file. The table is written to the files when it
 * is half full and on every sync, close or stats read, so a dump still
 * sees every sample taken before it.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_file.h"
#include "op_mangle.h"
#include "op_message.h"
#include "op_sample_file.h"
#include "opd_image.h"
#include "opd_sfile.h"

#define DEFAULT_MAX_OPEN 256
#define NR_BUCKETS 8192

struct opd_sfile {
	struct opd_sfile_key key;
	struct odb db;
	int is_open;
	int failed;                  /* reported once; further adds just fail */
	int stale;                   /* an old build: dropped until close_all */
	struct opd_sfile *hash_next;
	struct opd_sfile *lru_prev, *lru_next;
};

static struct opd_config const *config;
static char *samples_dir;
static size_t max_open;
static size_t nr_open;
static struct opd_sfile *buckets[NR_BUCKETS];
static struct opd_sfile *last;
static struct opd_sfile lru = { .lru_prev = &lru, .lru_next = &lru };

#define AGG_SIZE (1u << 13)
struct agg_slot {
	struct opd_sfile *sf;   /* NULL: empty */
	uint64_t key;
	uint32_t count;
};
static struct agg_slot agg[AGG_SIZE];
static unsigned agg_used;
static struct opd_sfile_counts counts;

void opd_sfile_init(struct opd_config const *cfg, char const *dir)
{
	config = cfg;
	free(samples_dir);
	samples_dir = op_xstrdup(dir);
	max_open = cfg->max_open_files ? cfg->max_open_files : DEFAULT_MAX_OPEN;
}

static uint32_t key_hash(struct opd_sfile_key const *k)
{
	uint32_t const *w = (uint32_t const *)k;
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < sizeof(*k) / sizeof(uint32_t); i++)
		h = (h ^ w[i]) * 16777619u;
	return h ^ (h >> 15);
}

static int key_equal(struct opd_sfile_key const *a, struct opd_sfile_key const *b)
{
	return !memcmp(a, b, sizeof(*a));
}

static void lru_unlink(struct opd_sfile *sf)
{
	sf->lru_prev->lru_next = sf->lru_next;
	sf->lru_next->lru_prev = sf->lru_prev;
}

static void lru_push_front(struct opd_sfile *sf)
{
	sf->lru_next = lru.lru_next;
	sf->lru_prev = &lru;
	lru.lru_next->lru_prev = sf;
	lru.lru_next = sf;
}

static void close_file(struct opd_sfile *sf)
{
	if (!sf->is_open)
		return;
	lru_unlink(sf);
	odb_close(&sf->db);
	sf->is_open = 0;
	nr_open--;
}

static void close_lru(void)
{
	if (lru.lru_prev != &lru)
		close_file(lru.lru_prev);
}

/* Close every open file; pending samples stay pending (no flush). */
static void close_open_files(void)
{
	while (lru.lru_next != &lru)
		close_file(lru.lru_next);
}

/* One image as the mangler wants it. */
static void set_image(struct op_mangle_values *v, int which, int id)
{
	struct opd_image const *img = opd_image_get(id);
	int anon = img->kind == OPD_IMAGE_ANON;
	char const *name = img->name;

	if (img->kind == OPD_IMAGE_KERNEL)
		v->flags |= OP_MANGLE_KERNEL;
	if (which == 0) {
		v->app_name = name;
	} else if (which == 1) {
		if (anon) {
			v->flags |= OP_MANGLE_ANON;
			v->anon_name = name;
			v->anon_start = img->start;
			v->anon_end = img->end;
		}
		v->image_name = name;
	} else {
		if (anon) {
			v->flags |= OP_MANGLE_CG_ANON;
			v->cg_anon_name = name;
			v->cg_anon_start = img->start;
			v->cg_anon_end = img->end;
		}
		v->cg_image_name = name;
		v->flags |= OP_MANGLE_CALLGRAPH;
	}
}

static int build_path(struct opd_sfile_key const *k, char *buf, size_t len)
{
	struct opd_event const *ev = &config->events[k->event];
	struct opd_image const *img = opd_image_get(k->image);
	struct op_mangle_values v = {
		.event_name = ev->name,
		.count = (int)ev->count,
		.unit_mask = (int)ev->unit_mask,
		.tgid = k->tgid, .tid = k->tid, .cpu = k->cpu,
	};
	size_t n = snprintf(buf, len, "%s/", samples_dir);
	char err[256];

	set_image(&v, 0, k->app);
	set_image(&v, 1, k->image);
	if (k->cg >= 0)
		set_image(&v, 2, k->cg);
	if (img->kind == OPD_IMAGE_ANON)
		v.tgid = img->tgid;  /* the region's owner names the region */
	if (k->tgid >= 0)
		v.flags |= OP_MANGLE_TGID;
	if (k->tid >= 0)
		v.flags |= OP_MANGLE_TID;
	if (k->cpu >= 0)
		v.flags |= OP_MANGLE_CPU;
	if (n >= len || op_mangle_filename(&v, buf + n, len - n, err, sizeof(err)) < 0) {
		op_warn("cannot name a sample file for '%s': %s", img->name, err);
		return -1;
	}
	return 0;
}

static void fill_header(struct opd_sfile const *sf, struct opd_header *h)
{
	struct opd_event const *ev = &config->events[sf->key.event];
	struct opd_image const *img = opd_image_get(sf->key.image);
	struct opd_image const *cg = sf->key.cg >= 0 ? opd_image_get(sf->key.cg) : NULL;

	op_header_init(h);
	h->cpu_type = (uint32_t)config->cpu_type;
	h->ctr_event = ev->code;
	h->ctr_um = ev->unit_mask;
	h->ctr_count = ev->count;
	h->is_kernel = img->kind == OPD_IMAGE_KERNEL;
	h->cpu_speed = config->cpu_speed;
	h->mtime = img->mtime;
	if (img->kind == OPD_IMAGE_ANON)
		h->anon_start = img->start;
	if (cg) {
		h->cg_to_is_kernel = cg->kind == OPD_IMAGE_KERNEL;
		if (cg->kind == OPD_IMAGE_ANON)
			h->cg_to_anon_start = cg->start;
	}
}

/* odb_create: a new file appears with its header, or not at all */
/* Open or create path; its directories are made only when missing. */
static int create(struct opd_sfile *sf, char const *path, struct opd_header const *h)
{
	int rc = odb_create(&sf->db, path, h, sizeof(*h));

	if (rc == -ENOENT) {
		rc = op_mkdir_parents(path);
		if (rc) {
			snprintf(sf->db.err, sizeof(sf->db.err),
				 "cannot create the directories of '%s': %s",
				 path, strerror(-rc));
			return rc;
		}
		rc = odb_create(&sf->db, path, h, sizeof(*h));
	}
	while (rc == -EMFILE && nr_open > 0) {
		close_lru();
		rc = odb_create(&sf->db, path, h, sizeof(*h));
	}
	return rc;
}

/*
 * sf's file is open and its header may be another build's (see the top of
 * the file). 0: the file is this build's (or either mtime is unknown);
 * 1: the file's build is gone from disk, replace the file; -1: the file
 * is the build on disk and this one is stale.
 */
static int other_build(struct opd_sfile *sf, struct opd_header const *want)
{
	struct opd_header const *have = odb_get_header(&sf->db);
	struct opd_image const *img = opd_image_get(sf->key.image);
	struct stat st;
	uint64_t on_disk;

	if (!have->mtime || !want->mtime || have->mtime == want->mtime)
		return 0;
	on_disk = stat(img->name, &st) == 0 ? (uint64_t)st.st_mtime : 0;
	return have->mtime == on_disk ? -1 : 1;
}

static int open_file(struct opd_sfile *sf)
{
	char path[PATH_MAX + 512];
	struct opd_header h;
	int rc;

	if (sf->stale || build_path(&sf->key, path, sizeof(path)))
		return -1;
	if (nr_open >= max_open)
		close_lru();
	fill_header(sf, &h);
	rc = create(sf, path, &h);
	if (!rc && (rc = other_build(sf, &h))) {
		uint64_t had = ((struct opd_header const *)
				odb_get_header(&sf->db))->mtime;

		odb_close(&sf->db);
		if (rc < 0) {
			op_warn("samples of an old build (mtime %" PRIu64 ") of "
				"'%s' dropped: '%s' holds another build's, the "
				"one on disk (mtime %" PRIu64 ")", h.mtime,
				opd_image_get(sf->key.image)->name, path, had);
			sf->stale = 1;
			return -1;
		}
		op_warn("'%s' holds samples of another build (mtime %" PRIu64
			") of '%s' (mtime %" PRIu64 "): replaced", path, had,
			opd_image_get(sf->key.image)->name, h.mtime);
		/* No open file may keep writing to the old one: the other
		 * build's entries reopen, and see they are stale. */
		close_open_files();
		if (unlink(path) && errno != ENOENT) {
			if (!sf->failed)
				op_warn("cannot remove '%s': %s", path,
					strerror(errno));
			sf->failed = 1;
			return -1;
		}
		rc = create(sf, path, &h);
	}
	if (rc && !sf->failed)
		op_warn("cannot open sample file: %s", sf->db.err);
	if (rc) {
		sf->failed = 1;
		return -1;
	}
	sf->is_open = 1;
	sf->failed = 0;
	nr_open++;
	lru_push_front(sf);
	return 0;
}

static struct opd_sfile *lookup(struct opd_sfile_key const *k)
{
	uint32_t b;
	struct opd_sfile *sf;

	if (last && key_equal(&last->key, k))
		return last;
	b = key_hash(k) % NR_BUCKETS;
	for (sf = buckets[b]; sf; sf = sf->hash_next)
		if (key_equal(&sf->key, k))
			return last = sf;
	sf = op_xcalloc(1, sizeof(*sf));
	sf->key = *k;
	sf->db.fd = -1;
	sf->hash_next = buckets[b];
	buckets[b] = sf;
	return last = sf;
}

/*
 * Write n at key into sf's file and count the outcome. Callgraph ({cg})
 * files hold arcs, not samples: they have a counter of their own.
 */
static void write_one(struct opd_sfile *sf, uint64_t key, uint32_t n)
{
	uint64_t *fate;
	int rc;

	if (!sf->is_open) {
		rc = open_file(sf) ? -1 : 0;
	} else {
		rc = 0;
		if (lru.lru_next != sf) {
			lru_unlink(sf);
			lru_push_front(sf);
		}
	}
	if (rc == 0) {
		rc = odb_add(&sf->db, key, n);
		if (rc < 0)
			op_warn("cannot add to sample file: %s", sf->db.err);
	}
	if (sf->key.cg >= 0)
		fate = &counts.arcs;
	else if (rc < 0)
		fate = &counts.errors;
	else if (rc == ODB_SATURATED)
		fate = &counts.saturated;
	else
		fate = &counts.written;
	*fate += n;
}

void opd_sfile_flush(void)
{
	unsigned i;

	if (!agg_used)
		return;
	for (i = 0; i < AGG_SIZE; i++) {
		if (!agg[i].sf)
			continue;
		write_one(agg[i].sf, agg[i].key, agg[i].count);
		agg[i].sf = NULL;
	}
	agg_used = 0;
}

void opd_sfile_add(struct opd_sfile_key const *k, uint64_t key)
{
	static unsigned mru;  /* the slot of the previous sample */
	struct opd_sfile *sf = lookup(k);
	uintptr_t h;
	unsigned i;

	if (agg[mru].sf == sf && agg[mru].key == key && agg[mru].count < UINT32_MAX) {
		agg[mru].count++;
		return;
	}
	h = ((uintptr_t)sf >> 4) ^ (key * 0x9e3779b97f4a7c15ull >> 20);
	for (i = (unsigned)h & (AGG_SIZE - 1);; i = (i + 1) & (AGG_SIZE - 1)) {
		struct agg_slot *a = &agg[i];

		if (a->sf == sf && a->key == key) {
			if (a->count == UINT32_MAX) {
				write_one(sf, key, a->count);
				a->count = 0;
			}
			a->count++;
			mru = i;
			return;
		}
		if (!a->sf) {
			a->sf = sf;
			a->key = key;
			a->count = 1;
			mru = i;
			if (++agg_used >= AGG_SIZE / 2)
				opd_sfile_flush();
			return;
		}
	}
}

struct opd_sfile_counts const *opd_sfile_counts(void)
{
	opd_sfile_flush();
	return &counts;
}

void opd_sfile_reset_counts(void)
{
	opd_sfile_flush();
	memset(&counts, 0, sizeof(counts));
}

void opd_sfile_sync_all(void)
{
	struct opd_sfile *sf;

	opd_sfile_flush();
	for (sf = lru.lru_next; sf != &lru; sf = sf->lru_next)
		odb_sync(&sf->db);
}

void opd_sfile_close_all(void)
{
	unsigned i;
	struct opd_sfile *sf;

	opd_sfile_flush();
	close_open_files();
	/* after a reset, save or HUP an old build may have a file again */
	for (i = 0; i < NR_BUCKETS; i++)
		for (sf = buckets[i]; sf; sf = sf->hash_next)
			sf->stale = 0;
}

void opd_sfile_exit(void)
{
	int i;

	opd_sfile_close_all();
	memset(&counts, 0, sizeof(counts));
	for (i = 0; i < NR_BUCKETS; i++) {
		struct opd_sfile *sf = buckets[i], *next;
		for (; sf; sf = next) {
			next = sf->hash_next;
			free(sf);
		}
		buckets[i] = NULL;
	}
	last = NULL;
	free(samples_dir);
	samples_dir = NULL;
}

size_t opd_sfile_nr_open(void)
{
	return nr_open;
}
