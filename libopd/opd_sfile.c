/*
 * Sample file cache.
 *
 * Entries live in a hash map (op_hashmap) keyed by struct opd_sfile_key;
 * the last entry used is checked first, since consecutive samples mostly hit the
 * same file. Open files are on an LRU list; past the bound (or on EMFILE)
 * the least recently used is closed; when another file of the session
 * finds no descriptor, all are (opd_sfile_release_fds). Each file is created with its header
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
 * An entry holds a reference to the images of its key (their names make
 * the file's path) until it is freed: by the trim below, or when an
 * image's cookie is forgotten (opd_sfile_release_image). Opening a file
 * records its images in the session's build-ids (opd_image_record).
 *
 * Two keys can name one file (two images with one name: a binary seen
 * from inside and outside a mount namespace, or with and without its
 * mtime): one handle a path, so an entry opening a file another entry
 * holds open takes that entry's handle (open_paths). Two handles would
 * each grow the file under the other's mapping.
 *
 * Samples are first summed in a small in-memory table of (file, key) ->
 * count, as DCPI did: a hot loop hits the same few pcs again and again, so
 * most samples cost one probe of a cache-resident table instead of a walk
 * through a large mmap'ed file. The table is written to the files when it
 * is half full and on every sync, close or stats read, so a dump still
 * sees every sample taken before it.
 *
 * With a sample sink (cfg->sink, opreport --stream) no file is made: the
 * same paths, headers and counts go to the caller, which keeps them in
 * memory.
 */
#define _GNU_SOURCE		/* FTW_ACTIONRETVAL */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_file.h"
#include "op_hashmap.h"
#include "op_mangle.h"
#include "op_message.h"
#include "op_sample_file.h"
#include "op_session.h"
#include "op_util.h"
#include "opd_image.h"
#include "opd_sfile.h"

#define DEFAULT_MAX_OPEN 256

struct opd_sfile {
	struct op_hashmap_entry ent;
	struct opd_sfile_key key;
	struct odb db;
	int is_open;
	int failed;                  /* reported once; further adds just fail */
	int stale;                   /* an old build: dropped until close_all */
	struct opd_sfile *lru_prev, *lru_next;
	struct op_hashmap_entry path_ent;  /* in open_paths while open */
	void *mem;                   /* its file in cfg->sink, once opened */
};

/*
 * The aggregation table: a fixed-size open-addressing cache of (file, key)
 * -> count on the per-sample path, emptied as a whole by a flush; it is
 * not a general map (no removal, no growth), so it stays its own.
 */
#define AGG_SIZE (1u << 13)
struct agg_slot {
	struct opd_sfile *sf;   /* NULL: empty */
	uint64_t key;
	uint32_t count;
};

struct opd_sfiles {
	struct opd_config const *config;
	struct opd_images *images;    /* each entry holds its images */
	char *samples_dir;
	char *meta_dir;               /* where images are recorded */
	size_t max_open;
	size_t nr_open;
	size_t trim_at;               /* entries that make a trim (trim_closed) */
	struct op_hashmap files;      /* struct opd_sfile by key */
	struct op_hashmap open_paths; /* open struct opd_sfile by db.path */
	struct opd_sfile *last;       /* the entry of the previous sample */
	struct opd_sfile lru;         /* list head: most recent first */
	struct opd_sfile_counts counts;
	char no_space[512];           /* "" or the full device, said once */
	unsigned agg_used;
	unsigned mru;                 /* the agg slot of the previous sample */
	struct agg_slot agg[AGG_SIZE];
};

static int sfile_cmp(void const *data, struct op_hashmap_entry const *a,
		     struct op_hashmap_entry const *b, void const *keydata)
{
	(void)data;
	(void)keydata;
	return memcmp(&OP_HASHMAP_ENTRY(a, struct opd_sfile, ent)->key,
		      &OP_HASHMAP_ENTRY(b, struct opd_sfile, ent)->key,
		      sizeof(struct opd_sfile_key));
}

static int path_cmp(void const *data, struct op_hashmap_entry const *a,
		    struct op_hashmap_entry const *b, void const *keydata)
{
	(void)data;
	return strcmp(OP_HASHMAP_ENTRY(a, struct opd_sfile, path_ent)->db.path,
		      keydata ? keydata :
		      OP_HASHMAP_ENTRY(b, struct opd_sfile, path_ent)->db.path);
}

struct opd_sfiles *opd_sfiles_new(struct opd_config const *cfg,
				  struct opd_images *images,
				  char const *dir)
{
	struct opd_sfiles *sfs = op_xcalloc(1, sizeof(*sfs));

	sfs->config = cfg;
	sfs->images = images;
	sfs->samples_dir = op_xstrdup(dir);
	sfs->meta_dir = op_xasprintf("%s/%s", dir, OP_META_DIR);
	sfs->max_open = cfg->max_open_files ? cfg->max_open_files : DEFAULT_MAX_OPEN;
	sfs->lru.lru_prev = sfs->lru.lru_next = &sfs->lru;
	sfs->trim_at = 2 * sfs->max_open;
	op_hashmap_init(&sfs->files, sfile_cmp, NULL, 4096);
	op_hashmap_init(&sfs->open_paths, path_cmp, NULL, 256);
	return sfs;
}

/* FNV-1a by words: the key is seven int32s */
static unsigned key_hash(struct opd_sfile_key const *k)
{
	uint32_t const *w = (uint32_t const *)k;
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < sizeof(*k) / sizeof(uint32_t); i++)
		h = (h ^ w[i]) * 16777619u;
	return h ^ (h >> 15);
}

static void lru_unlink(struct opd_sfile *sf)
{
	sf->lru_prev->lru_next = sf->lru_next;
	sf->lru_next->lru_prev = sf->lru_prev;
}

static void lru_push_front(struct opd_sfiles *sfs, struct opd_sfile *sf)
{
	struct opd_sfile *head = &sfs->lru;

	sf->lru_next = head->lru_next;
	sf->lru_prev = head;
	head->lru_next->lru_prev = sf;
	head->lru_next = sf;
}

static void close_file(struct opd_sfiles *sfs, struct opd_sfile *sf)
{
	if (!sf->is_open)
		return;
	lru_unlink(sf);
	op_hashmap_remove(&sfs->open_paths, &sf->path_ent, sf->db.path);
	odb_close(&sf->db);
	sf->is_open = 0;
	sfs->nr_open--;
}

/*
 * If another entry holds path open, move its handle to sf (and close that
 * entry without closing the file): 1 if so, else 0.
 */
static int take_handle(struct opd_sfiles *sfs, struct opd_sfile *sf,
		       char const *path)
{
	struct op_hashmap_entry probe, *e;
	struct opd_sfile *o;

	op_hashmap_entry_init(&probe, op_hash_str(path));
	e = op_hashmap_remove(&sfs->open_paths, &probe, path);
	if (!e)
		return 0;
	o = OP_HASHMAP_ENTRY(e, struct opd_sfile, path_ent);
	lru_unlink(o);
	sf->db = o->db;
	memset(&o->db, 0, sizeof(o->db));
	o->db.fd = -1;
	o->is_open = 0;
	sfs->nr_open--;
	return 1;
}

static void close_lru(struct opd_sfiles *sfs)
{
	if (sfs->lru.lru_prev != &sfs->lru)
		close_file(sfs, sfs->lru.lru_prev);
}

/* Close every open file; pending samples stay pending (no flush). */
static void close_open_files(struct opd_sfiles *sfs)
{
	while (sfs->lru.lru_next != &sfs->lru)
		close_file(sfs, sfs->lru.lru_next);
}

/* An entry holds the images its key names: the file name needs them. */
static void hold_images(struct opd_sfiles *sfs, struct opd_sfile_key const *k,
			void (*op)(struct opd_images *, int))
{
	op(sfs->images, k->app);
	op(sfs->images, k->image);
	if (k->cg >= 0)
		op(sfs->images, k->cg);
}

static void free_entry(struct opd_sfiles *sfs, struct opd_sfile *sf)
{
	hold_images(sfs, &sf->key, opd_image_unref);
	free(sf);
}

/* The session has samples of the images of sf: their build-ids in it. */
static void record_images(struct opd_sfiles *sfs, struct opd_sfile const *sf)
{
	int ids[3] = { sf->key.app, sf->key.image, sf->key.cg };

	/* a failure is said there, naming the file */
	for (int i = 0; i < 3; i++)
		if (ids[i] >= 0)
			opd_image_record(sfs->images, ids[i], sfs->meta_dir);
}

/* One image as the mangler wants it. */
static void set_image(struct opd_sfiles const *sfs, struct op_mangle_values *v,
		      int which, int id)
{
	struct opd_image const *img = opd_image_get(sfs->images, id);
	int anon = img->kind == OPD_IMAGE_ANON;
	char const *name = opd_image_sfname(img);   /* a later build: tagged */

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

static bool owned_region(struct opd_image const *img)
{
	return img->kind == OPD_IMAGE_ANON &&
	       !OP_MANGLE_ANON_MERGED(img->start, img->end);
}

static int build_path(struct opd_sfiles const *sfs, struct opd_sfile_key const *k,
		      char *buf, size_t len)
{
	struct opd_event const *ev = &sfs->config->events[k->event];
	struct opd_image const *img = opd_image_get(sfs->images, k->image);
	struct op_mangle_values v = {
		.event_name = ev->name,
		.count = (int)ev->count,
		.unit_mask = (int)ev->unit_mask,
		.tgid = k->tgid, .tid = k->tid, .cpu = k->cpu,
	};
	size_t n = snprintf(buf, len, "%s/", sfs->samples_dir);
	char err[256];

	set_image(sfs, &v, 0, k->app);
	set_image(sfs, &v, 1, k->image);
	if (k->cg >= 0)
		set_image(sfs, &v, 2, k->cg);
	/* the region's owner names the region, and an arc stays in its
	 * process; the merged region has no owner: the sample's TGID stays */
	if (owned_region(img))
		v.tgid = img->tgid;
	else if (k->cg >= 0 && owned_region(opd_image_get(sfs->images, k->cg)))
		v.tgid = opd_image_get(sfs->images, k->cg)->tgid;
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

static void fill_header(struct opd_sfiles const *sfs, struct opd_sfile const *sf,
			struct opd_header *h)
{
	struct opd_config const *config = sfs->config;
	struct opd_event const *ev = &config->events[sf->key.event];
	struct opd_image const *img = opd_image_get(sfs->images, sf->key.image);
	struct opd_image const *cg = sf->key.cg >= 0 ?
		opd_image_get(sfs->images, sf->key.cg) : NULL;

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
static int create(struct opd_sfiles *sfs, struct opd_sfile *sf, char const *path,
		  struct opd_header const *h)
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
	while (rc == -EMFILE && sfs->nr_open > 0) {
		close_lru(sfs);
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
static int other_build(struct opd_sfiles const *sfs, struct opd_sfile *sf,
		       struct opd_header const *want)
{
	struct opd_header const *have = odb_get_header(&sf->db);
	struct opd_image const *img = opd_image_get(sfs->images, sf->key.image);
	struct stat st;
	uint64_t on_disk;
	char *path;

	if (!have->mtime || !want->mtime || have->mtime == want->mtime)
		return 0;
	/* the binary as its process sees it (another mount namespace) */
	path = opd_image_path(img);
	on_disk = stat(path, &st) == 0 ? (uint64_t)st.st_mtime : 0;
	free(path);
	return have->mtime == on_disk ? -1 : 1;
}

static int is_no_space(int rc)
{
	return rc == -ENOSPC || rc == -EDQUOT;
}

/*
 * The device is full: said once, until a file could be made or grown
 * again. The samples are counted in stats/sample_dropped_no_space
 * meanwhile.
 */
static void no_space(struct opd_sfiles *sfs, struct opd_sfile *sf, int rc)
{
	char dev[400];

	if (sfs->no_space[0])
		return;
	op_device_name(sfs->samples_dir, dev, sizeof(dev));
	snprintf(sfs->no_space, sizeof(sfs->no_space), "%s %s",
		 rc == -ENOSPC ? "no space left on" : "disk quota exceeded on",
		 dev);
	op_error("%s: samples that cannot be written are counted in "
		 "stats/sample_dropped_no_space until space returns (%s)",
		 sfs->no_space, sf->db.err);
}

static void space_again(struct opd_sfiles *sfs)
{
	op_warn("space available again (%s before): writing resumes",
		sfs->no_space);
	sfs->no_space[0] = '\0';
}

static int open_file(struct opd_sfiles *sfs, struct opd_sfile *sf)
{
	char path[PATH_MAX + 512];
	char const *name = opd_image_get(sfs->images, sf->key.image)->name;
	struct opd_header h;
	int rc, existed;

	if (sf->stale || build_path(sfs, &sf->key, path, sizeof(path)))
		return -EINVAL;
	if (sfs->nr_open >= sfs->max_open)
		close_lru(sfs);
	fill_header(sfs, sf, &h);
	existed = !faccessat(AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW);
	rc = take_handle(sfs, sf, path) ? 0 : create(sfs, sf, path, &h);
	if (!rc && (rc = other_build(sfs, sf, &h))) {
		uint64_t had = ((struct opd_header const *)
				odb_get_header(&sf->db))->mtime;

		odb_close(&sf->db);
		if (rc < 0) {
			op_warn("samples of an old build (mtime %" PRIu64 ") of "
				"'%s' dropped: '%s' holds another build's, the "
				"one on disk (mtime %" PRIu64 ")", h.mtime,
				name, path, had);
			sf->stale = 1;
			return -EINVAL;
		}
		op_warn("'%s' holds samples of another build (mtime %" PRIu64
			") of '%s' (mtime %" PRIu64 "): replaced", path, had,
			name, h.mtime);
		/* No open file may keep writing to the old one: the other
		 * build's entries reopen, and see they are stale. */
		close_open_files(sfs);
		if (unlink(path) && errno != ENOENT) {
			rc = -errno;
			if (!sf->failed)
				op_warn_errno("cannot remove '%s'", path);
			sf->failed = 1;
			return rc;
		}
		rc = create(sfs, sf, path, &h);
	}
	if (rc && !sf->failed && !is_no_space(rc))
		op_warn("cannot open sample file: %s", sf->db.err);
	if (rc) {
		sf->failed = 1;
		return rc;
	}
	if (!existed && sfs->no_space[0])
		space_again(sfs);	/* a new file: space is back */
	record_images(sfs, sf);
	sf->is_open = 1;
	sf->failed = 0;
	sfs->nr_open++;
	lru_push_front(sfs, sf);
	op_hashmap_entry_init(&sf->path_ent, op_hash_str(sf->db.path));
	op_hashmap_add(&sfs->open_paths, &sf->path_ent);
	return 0;
}

/* The file of key k, created (not opened) on first use; out of line
 * when the last file used is not it, so the per-sample path stays small. */
static struct opd_sfile *lookup_slow(struct opd_sfiles *sfs,
				     struct opd_sfile_key const *k)
{
	struct opd_sfile *sf, probe;
	struct op_hashmap_entry *e;

	probe.key = *k;
	op_hashmap_entry_init(&probe.ent, key_hash(k));
	e = op_hashmap_get(&sfs->files, &probe.ent, NULL);
	if (e)
		return sfs->last = OP_HASHMAP_ENTRY(e, struct opd_sfile, ent);
	sf = op_xcalloc(1, sizeof(*sf));
	sf->key = *k;
	sf->db.fd = -1;
	hold_images(sfs, k, opd_image_ref);
	op_hashmap_entry_init(&sf->ent, probe.ent.hash);
	op_hashmap_add(&sfs->files, &sf->ent);
	return sfs->last = sf;
}

static inline struct opd_sfile *lookup(struct opd_sfiles *sfs,
				       struct opd_sfile_key const *k)
{
	struct opd_sfile *sf = sfs->last;

	if (sf && !memcmp(&sf->key, k, sizeof(*k)))
		return sf;
	return lookup_slow(sfs, k);
}

/* n at key into sf's file in the caller's sink (cfg->sink): 0 or -EINVAL.
 * A trimmed entry finds its file again by path. */
static int sink_add(struct opd_sfiles *sfs, struct opd_sfile *sf,
		    uint64_t key, uint32_t n)
{
	struct opd_sample_sink const *sink = sfs->config->sink;

	if (!sf->mem) {
		char path[PATH_MAX + 512];
		struct opd_header h;

		if (sf->failed || build_path(sfs, &sf->key, path, sizeof(path))) {
			sf->failed = 1;
			return -EINVAL;
		}
		fill_header(sfs, sf, &h);
		sf->mem = sink->open(sink->ctx, path, &h);
		if (!sf->mem) {
			sf->failed = 1;
			return -EINVAL;
		}
		record_images(sfs, sf);
	}
	sink->add(sf->mem, key, n);
	return 0;
}

/*
 * Write n at key into sf's file and count the outcome. Callgraph ({cg})
 * files hold arcs, not samples: they have a counter of their own.
 */
static void write_one(struct opd_sfiles *sfs, struct opd_sfile *sf,
		      uint64_t key, uint32_t n)
{
	struct opd_sfile_counts *c = &sfs->counts;
	int rc;

	if (sfs->config->sink) {
		rc = sink_add(sfs, sf, key, n);
	} else if (!sf->is_open) {
		rc = open_file(sfs, sf);
	} else {
		rc = 0;
		if (sfs->lru.lru_next != sf) {
			lru_unlink(sf);
			lru_push_front(sfs, sf);
		}
	}
	if (rc == 0 && !sfs->config->sink) {
		size_t had = sf->db.map_size;

		rc = odb_add(&sf->db, key, n);
		if (rc < 0 && !is_no_space(rc))
			op_warn("cannot add to sample file: %s", sf->db.err);
		/* only a growth shows that space is back */
		if (rc >= 0 && sf->db.map_size > had && sfs->no_space[0])
			space_again(sfs);
	}
	if (is_no_space(rc))
		no_space(sfs, sf, rc);
	/* {cg} files hold arcs, not samples: counted apart, and only when
	 * they are in the file */
	if (sf->key.cg >= 0)
		*(rc < 0 ? &c->arcs_dropped : &c->arcs) += n;
	else if (is_no_space(rc))
		c->no_space += n;
	else if (rc < 0)
		c->errors += n;
	else if (rc == ODB_SATURATED)
		c->saturated += n;
	else
		c->written += n;
}

/*
 * Free the entries of closed files (their file reopens by key on its next
 * sample), once there are twice as many entries as open files allowed: a
 * daemon that sees thousands of binaries come and go keeps no entry per
 * file it ever wrote. Only with the aggregation table empty:
 * it points at entries. Stale and failed entries stay, for their flags.
 */
static void trim_closed(struct opd_sfiles *sfs)
{
	struct op_hashmap_iter it;
	struct op_hashmap_entry *e;

	if (op_hashmap_size(&sfs->files) < sfs->trim_at || sfs->agg_used)
		return;
	for (e = op_hashmap_iter_first(&sfs->files, &it); e;
	     e = op_hashmap_iter_next(&it)) {
		struct opd_sfile *sf = OP_HASHMAP_ENTRY(e, struct opd_sfile, ent);

		if (sf->is_open || sf->stale || sf->failed)
			continue;
		op_hashmap_remove(&sfs->files, e, NULL);
		free_entry(sfs, sf);
	}
	sfs->last = NULL;
	/* what stays (open, stale, failed) does not make the next trim */
	sfs->trim_at = op_hashmap_size(&sfs->files) + sfs->max_open;
	if (sfs->trim_at < 2 * sfs->max_open)
		sfs->trim_at = 2 * sfs->max_open;
}

static int names_image(struct opd_sfile_key const *k, int id)
{
	return k->app == id || k->image == id || k->cg == id;
}

void opd_sfile_release_image(struct opd_sfiles *sfs, int id)
{
	struct op_hashmap_iter it;
	struct op_hashmap_entry *e;

	opd_sfile_flush(sfs);       /* the aggregation table points at entries */
	for (e = op_hashmap_iter_first(&sfs->files, &it); e;
	     e = op_hashmap_iter_next(&it)) {
		struct opd_sfile *sf = OP_HASHMAP_ENTRY(e, struct opd_sfile, ent);

		if (!names_image(&sf->key, id))
			continue;
		close_file(sfs, sf);
		op_hashmap_remove(&sfs->files, e, NULL);
		free_entry(sfs, sf);
	}
	sfs->last = NULL;
}

void opd_sfile_flush(struct opd_sfiles *sfs)
{
	unsigned i;

	if (!sfs->agg_used)
		return;
	for (i = 0; i < AGG_SIZE; i++) {
		struct agg_slot *a = &sfs->agg[i];

		if (!a->sf)
			continue;
		write_one(sfs, a->sf, a->key, a->count);
		a->sf = NULL;
	}
	sfs->agg_used = 0;
	trim_closed(sfs);
}

void opd_sfile_add_n(struct opd_sfiles *sfs, struct opd_sfile_key const *k,
		     uint64_t key, uint32_t n)
{
	struct opd_sfile *sf = lookup(sfs, k);
	struct agg_slot *agg = sfs->agg, *mru = &agg[sfs->mru];
	uintptr_t h;
	unsigned i;

	if (mru->sf == sf && mru->key == key && mru->count <= UINT32_MAX - n) {
		mru->count += n;
		return;
	}
	h = ((uintptr_t)sf >> 4) ^ (key * 0x9e3779b97f4a7c15ull >> 20);
	for (i = (unsigned)h & (AGG_SIZE - 1);; i = (i + 1) & (AGG_SIZE - 1)) {
		struct agg_slot *a = &agg[i];

		if (a->sf == sf && a->key == key) {
			if (a->count > UINT32_MAX - n) {
				write_one(sfs, sf, key, a->count);
				a->count = 0;
			}
			a->count += n;
			sfs->mru = i;
			return;
		}
		if (!a->sf) {
			a->sf = sf;
			a->key = key;
			a->count = n;
			sfs->mru = i;
			if (++sfs->agg_used >= AGG_SIZE / 2)
				opd_sfile_flush(sfs);
			return;
		}
	}
}

void opd_sfile_add(struct opd_sfiles *sfs, struct opd_sfile_key const *k,
		   uint64_t key)
{
	opd_sfile_add_n(sfs, k, key, 1);
}

int opd_sfile_add_now(struct opd_sfiles *sfs, struct opd_sfile_key const *k,
		      uint64_t key, uint32_t n)
{
	uint64_t had = sfs->counts.written;

	write_one(sfs, lookup(sfs, k), key, n);
	return sfs->counts.written > had;
}

char const *opd_sfile_no_space(struct opd_sfiles const *sfs)
{
	return sfs->no_space[0] ? sfs->no_space : NULL;
}

struct opd_sfile_counts const *opd_sfile_counts(struct opd_sfiles *sfs)
{
	opd_sfile_flush(sfs);
	return &sfs->counts;
}

void opd_sfile_reset_counts(struct opd_sfiles *sfs)
{
	opd_sfile_flush(sfs);
	memset(&sfs->counts, 0, sizeof(sfs->counts));
}

size_t opd_sfile_release_fds(struct opd_sfiles *sfs)
{
	size_t had = sfs->nr_open;

	close_open_files(sfs);
	return had;
}

void opd_sfile_sync_all(struct opd_sfiles *sfs)
{
	struct opd_sfile *sf;

	opd_sfile_flush(sfs);
	for (sf = sfs->lru.lru_next; sf != &sfs->lru; sf = sf->lru_next)
		odb_sync(&sf->db);
}

void opd_sfile_close_all(struct opd_sfiles *sfs)
{
	struct op_hashmap_iter it;
	struct op_hashmap_entry *e;

	opd_sfile_flush(sfs);
	close_open_files(sfs);
	/* after a reset, save or HUP an old build may have a file again */
	for (e = op_hashmap_iter_first(&sfs->files, &it); e;
	     e = op_hashmap_iter_next(&it))
		OP_HASHMAP_ENTRY(e, struct opd_sfile, ent)->stale = 0;
}

void opd_sfiles_free(struct opd_sfiles *sfs)
{
	struct op_hashmap_iter it;
	struct op_hashmap_entry *e;

	if (!sfs)
		return;
	opd_sfile_close_all(sfs);
	for (e = op_hashmap_iter_first(&sfs->files, &it); e;
	     e = op_hashmap_iter_next(&it)) {
		op_hashmap_remove(&sfs->files, e, NULL);
		free_entry(sfs, OP_HASHMAP_ENTRY(e, struct opd_sfile, ent));
	}
	op_hashmap_clear(&sfs->files, NULL);
	op_hashmap_clear(&sfs->open_paths, NULL);
	free(sfs->meta_dir);
	free(sfs->samples_dir);
	free(sfs);
}

/* nftw has no argument for its callback: the sweep's state. */
static size_t settle_prefix, settled;

static int settle_one(char const *path, struct stat const *st, int type,
		      struct FTW *ftw)
{
	char const *top = path + settle_prefix;
	char err[600];
	int rc;

	(void)st;
	if (ftw->level == 1 && type == FTW_D && !op_session_is_sample_tree(top))
		return FTW_SKIP_SUBTREE;
	if (type != FTW_F)
		return FTW_CONTINUE;
	rc = odb_settle(path, sizeof(struct opd_header), err, sizeof(err));
	if (rc < 0)
		op_warn("cannot complete an interrupted growth: %s", err);
	settled += rc > 0;
	return FTW_CONTINUE;
}

void opd_sfiles_settle(struct opd_sfiles *sfs)
{
	settle_prefix = strlen(sfs->samples_dir) + 1;
	settled = 0;
	nftw(sfs->samples_dir, settle_one, 16, FTW_PHYS | FTW_ACTIONRETVAL);
	if (settled)
		op_warn("completed the growth of %zu sample file%s cut short by a crash",
			settled, settled == 1 ? "" : "s");
}

size_t opd_sfile_nr_open(struct opd_sfiles const *sfs)
{
	return sfs->nr_open;
}
