/*
 * The daemon's core: from decoded stream to sample files.
 *
 * The decoder (opd_trans) keeps the transient state; for each sample this
 * file decides which image it fell in (a binary by cookie, an anonymous
 * region, or a kernel image by address), which application it belongs to
 * under the --separate rules, and adds it to that sample file. Every
 * sample is accounted for: received = written + saturated + every drop
 * counter in struct opd_stats.
 *
 * Separation rules (OProfile's): a library sample goes to LIB/{dep}/LIB
 * unless --separate=lib, then to APP/{dep}/LIB; a kernel sample goes to
 * {kern}/K/{dep}/{kern}/K unless --separate=kernel (then under its app);
 * an anonymous region always lives under its application.
 *
 * All state lives in struct opd_core and the tables it owns (images,
 * kernel images, sample files): two cores in one process share nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "op_config.h"
#include "op_file.h"
#include "op_mangle.h"
#include "op_util.h"
#include "opd_core.h"
#include "opd_image.h"
#include "opd_jit.h"
#include "opd_kernel.h"
#include "opd_sfile.h"
#include "opd_stacks.h"
#include "opd_trans.h"
#include "opd_vdso.h"

struct opd_core {
	struct opd_config config;
	struct opd_stats stats;
	struct opd_sink sink;         /* ctx: this core */
	struct opd_trans dec;
	/* The last definitions looked up for a sample and for its app: runs
	 * of samples share them. Valid until the decoder is reset. */
	struct opd_cookie *last_def, *last_app_def;
	char *current_dir;            /* SESSION/samples/current */
	time_t last_kernel_reload;
	unsigned errors_printed;      /* stream errors shown so far */
	int *kimage_ids;              /* kernel image id -> image id, -1: none */
	size_t nr_kimage_ids;
	struct opd_images *images;
	struct opd_kernel *kernel;
	struct opd_sfiles *sfiles;
	int vdso_image;               /* the vDSO's one image; -1: none yet */
	bool vdso_failed;             /* could not save it: anon regions */
	/* whole stacks: the last sample's resolved leaf, for its trace */
	size_t nr_anon;               /* anonymous region images made */
	struct opd_stacks *stacks;
	struct opd_jit *jit;          /* cfg jit_maps: perf maps; else NULL */
	bool trace_ok;
	int trace_image, trace_app;
	uint64_t trace_offset;
};

/*
 * The name of an anonymous region in a sample file name: the producer's
 * "//anon" becomes "anon" as in OProfile; a pseudo path ("/memfd:x
 * (deleted)") loses its leading '/'; '/' and '}' cannot appear in
 * {anon:NAME} and become '_'; len is at most OP_MANGLE_ANON_NAME_MAX + 1,
 * so that {anon:NAME} fits one file name component.
 */
static void anon_name(char const *in, char *out, size_t len)
{
	size_t i;

	if (!strncmp(in, "//anon", 6) || !*in)
		in = "anon";
	while (*in == '/')
		in++;
	for (i = 0; i + 1 < len && in[i]; i++)
		out[i] = in[i] == '/' || in[i] == '}' ? '_' : in[i];
	out[i] = '\0';
}

/*
 * /proc/TGID/root when process tgid lives in another mount namespace than
 * the daemon (a container: its paths name its own files), else NULL.
 */
static char const *foreign_root(unsigned long tgid, char *buf, size_t len)
{
	struct stat self, other;
	char ns[64];

	if (!tgid)
		return NULL;
	snprintf(ns, sizeof(ns), "/proc/%lu/ns/mnt", tgid);
	if (stat("/proc/self/ns/mnt", &self) || stat(ns, &other) ||
	    (self.st_ino == other.st_ino && self.st_dev == other.st_dev))
		return NULL;
	snprintf(buf, len, "/proc/%lu/root", tgid);
	return buf;
}

/*
 * A copy of a binary in the session, by build-id, for the reports
 * (perf's build-id cache): each one with --keep-binaries, else one of
 * another mount namespace that the path does not name on this side
 * (another build, or no file).
 */
static void keep_binary(struct opd_core *core, struct opd_image const *img)
{
	char host[OP_BUILD_ID_HEX_MAX], err[512];
	char *dir, *dst, *src;
	struct stat st;
	int rc;

	if (!img->build_id[0])
		return;
	if (!core->config.keep_binaries && (!img->root ||
	    (!op_build_id_of(img->name, host) && !strcmp(host, img->build_id))))
		return;
	dir = op_xasprintf("%s/%s/%s", core->current_dir, OP_META_DIR,
			   OP_META_BINARIES);
	dst = op_xasprintf("%s/%s", dir, img->build_id);
	src = opd_image_path(img);
	rc = op_mkdir_p(dir);
	if (rc) {
		op_warn("cannot create '%s': %s", dir, strerror(-rc));
	} else if (stat(dst, &st)) {
		char have[OP_BUILD_ID_HEX_MAX];

		/* only the sampled build (the path may name another now) */
		if (op_build_id_of(src, have) || strcmp(have, img->build_id)) {
			op_warn("'%s' is not the sampled build %s any more "
				"(gone or replaced): no copy kept", src,
				img->build_id);
		} else if (op_copy_file(src, dst, err, sizeof(err))) {
			op_warn("%s", err);
		} else {
			struct timespec t[2] = {
				{ .tv_nsec = UTIME_OMIT },
				{ .tv_sec = (time_t)img->mtime },
			};

			utimensat(AT_FDCWD, dst, t, 0);
			op_info("'%s'%s%s%s kept as '%s'", img->name,
				img->root ? " of another mount namespace (" : "",
				img->root ? img->root : "",
				img->root ? ")" : "", dst);
		}
	}
	free(src);
	free(dst);
	free(dir);
}

/* --- the vDSO: one image for every process (opd_vdso.h) ------------- */

/* Save the vDSO's bytes in the current session; its copy's path, or NULL. */
static char *vdso_save(struct opd_core *core, char hex[])
{
	char err[512], *dir, *path = NULL;

	dir = op_xasprintf("%s/%s/%s", core->current_dir, OP_META_DIR,
			   OP_META_BINARIES);
	if (opd_vdso_save(dir, hex, &path, err, sizeof(err)))
		op_warn("%s: [vdso] samples stay per-process anonymous regions",
			err);
	free(dir);
	return path;
}

/* The vDSO's image, made (and its bytes saved) on first use; -1 if it
 * cannot be saved (its samples then stay anonymous regions). */
static int vdso_image(struct opd_core *core)
{
	char hex[OP_BUILD_ID_HEX_MAX];
	char *copy;

	if (core->vdso_image >= 0 || core->vdso_failed)
		return core->vdso_image;
	copy = vdso_save(core, hex);
	if (!copy) {
		core->vdso_failed = true;
		return -1;
	}
	core->vdso_image = opd_image_copy(core->images, OPD_VDSO_PATH, copy);
	opd_image_ref(core->images, core->vdso_image);  /* the core's */
	free(copy);
	return core->vdso_image;
}

/* A definition naming this boot's vDSO: the perf source's file-like one,
 * or a region of a process of the vDSO's size (the driver's). */
static bool is_vdso(struct opd_cookie const *c)
{
	return c->anon ? opd_vdso_is(c->name, c->start, c->end) :
			 !strcmp(c->name, OPD_VDSO_REGION);
}

/* --- anonymous regions, bounded ------------------------------------- */

/*
 * Each (tgid, region) is an image and a sample file of its own, so short
 * processes with anonymous code (JIT, trampolines) would add files
 * without end. Beyond OPD_ANON_PER_APP regions of one app, or
 * OPD_ANON_MAX in all, a region's samples are folded into the app's
 * {anon:NAME}/0.0x0.0x0 (tgid 0, no range: offsets are from each
 * region's own start); stats/anon_regions_folded counts the regions.
 * The core holds a region's image for its life (the bounds keep them
 * few): a region defined again after its cookie was forgotten keeps its
 * file, and a forgotten region does not make room for another file.
 */
#define OPD_ANON_PER_APP 64
#define OPD_ANON_MAX 4096

static int anon_image(struct opd_core *core, struct opd_cookie const *c,
		      int app, char const *name)
{
	size_t nr = opd_images_nr(core->images);
	int id = opd_image_anon_find(core->images, (int)c->tgid, c->start,
				     c->end, name);

	if (id >= 0)            /* defined again: it keeps its file */
		return id;
	if (core->nr_anon < OPD_ANON_MAX &&
	    (app < 0 || opd_image_anon_count(core->images, app, 0) <
			OPD_ANON_PER_APP)) {
		id = opd_image_anon(core->images, (int)c->tgid, c->start,
				    c->end, name);
		if (opd_images_nr(core->images) > nr) {
			core->nr_anon++;
			if (core->jit && c->tgid)
				opd_jit_region(core->jit, c->tgid, c->start,
					       c->end);
			if (app >= 0)
				opd_image_anon_count(core->images, app, 1);
			opd_image_ref(core->images, id);  /* kept: see above */
		}
		return id;
	}
	core->stats.anon_regions_folded++;
	nr = opd_images_nr(core->images);
	id = opd_image_anon(core->images, 0, 0, 0, name);
	if (opd_images_nr(core->images) > nr)
		opd_image_ref(core->images, id);
	return id;
}

static int cookie_image(struct opd_core *core, unsigned long cookie,
			struct opd_transient const *t, struct opd_cookie **last);

/* The image of c's first sample (see cookie_image). */
static int intern_cookie(struct opd_core *core, struct opd_cookie *c,
			 struct opd_transient const *t)
{
	char name[OP_MANGLE_ANON_NAME_MAX + 1], rootbuf[64];
	unsigned long cookie = c->cookie;
	int id;

	if (is_vdso(c) && vdso_image(core) >= 0)
		return core->vdso_image;
	if (!c->anon) {
		size_t nr = opd_images_nr(core->images);
		unsigned long tgid = t && (t->known & OPD_KNOWN_TASK) ?
				     t->tgid : 0;
		bool grew;

		/* the build-id the kernel saw at mmap time (ESC BUILD_ID)
		 * names the build: the file may be gone or replaced */
		id = opd_image_binary(core->images, c->name,
				      foreign_root(tgid, rootbuf,
						   sizeof(rootbuf)),
				      c->build_id, c->build_id_len);
		grew = opd_images_nr(core->images) > nr;
		if (grew)
			keep_binary(core, opd_image_get(core->images, id));
	} else {
		int app = t && (t->known & OPD_KNOWN_TASK) &&
			  t->app_cookie != cookie ?
			  cookie_image(core, t->app_cookie, t,
				       &core->last_app_def) : -1;

		anon_name(c->name, name, sizeof(name));
		id = anon_image(core, c, app, name);
	}
	return id;
}

/*
 * The image a cookie names, interned on its first sample and kept in the
 * decoder's definition (the one cookie table), which holds a reference
 * to it until the cookie is forgotten; -1 if undefined. t: the sample's
 * task (NULL: unknown), whose namespace the path is read in.
 */
static int cookie_image(struct opd_core *core, unsigned long cookie,
			struct opd_transient const *t, struct opd_cookie **last)
{
	struct opd_cookie *c = *last;

	if (!c || c->cookie != cookie) {
		c = opd_trans_cookie_mut(&core->dec, cookie);
		if (!c)
			return -1;
		*last = c;
	}
	if (c->image < 0) {
		c->image = intern_cookie(core, c, t);
		opd_image_ref(core->images, c->image);
	}
	return c->image;
}

static int kernel_image_id(struct opd_core *core, struct opd_kimage const *k)
{
	size_t id = (size_t)k->id;

	if (id >= core->nr_kimage_ids) {
		size_t i, alloc = core->nr_kimage_ids;

		OP_ALLOC_GROW(core->kimage_ids, id + 1, alloc);
		for (i = core->nr_kimage_ids; i < alloc; i++)
			core->kimage_ids[i] = -1;
		core->nr_kimage_ids = alloc;
	}
	if (core->kimage_ids[id] < 0) {
		core->kimage_ids[id] = opd_image_kernel(core->images, k->name,
							k->start, k->end);
		/* held for the core's life: kimage_ids keeps the id */
		opd_image_ref(core->images, core->kimage_ids[id]);
	}
	return core->kimage_ids[id];
}

/* A kernel pc outside every known image may be in a new module. */
static struct opd_kimage const *find_kernel(struct opd_core *core,
					    unsigned long pc)
{
	struct opd_kimage const *k;

	if (!core->kernel)
		return NULL;
	k = opd_kernel_find(core->kernel, pc);
	time_t now;

	if (k)
		return k;
	now = time(NULL);
	if (now == core->last_kernel_reload)
		return NULL;  /* at most one re-read per second */
	core->last_kernel_reload = now;
	opd_core_reload_kernel(core);
	return opd_kernel_find(core->kernel, pc);
}

/*
 * Resolve one frame: image id and key offset. Returns 0, or a pointer to
 * the drop counter to bump.
 */
static uint64_t *resolve(struct opd_core *core, struct opd_transient const *t,
			 int in_kernel, unsigned long pc,
			 unsigned long cookie, int *image, uint64_t *offset)
{
	if (in_kernel) {
		struct opd_kimage const *k = find_kernel(core, pc);
		if (!k)
			return &core->stats.unresolved_kernel;
		*image = kernel_image_id(core, k);
		*offset = pc - k->start;
		return NULL;
	}
	if (cookie == OP_NO_COOKIE || cookie == OP_INVALID_COOKIE)
		return &core->stats.no_mapping;
	*image = cookie_image(core, cookie, t, &core->last_def);
	if (*image < 0)
		return &core->stats.unknown_cookie;
	*offset = pc;
	return NULL;
}

/* Which application (A) a sample in image belongs to; -1: drop it. */
static int app_of(struct opd_core *core, struct opd_transient const *t,
		  int image)
{
	struct opd_image const *img = opd_image_get(core->images, image);
	unsigned separate = core->config.separate;
	int app = (t->known & OPD_KNOWN_TASK) ?
		cookie_image(core, t->app_cookie, t, &core->last_app_def) : -1;

	switch (img->kind) {
	case OPD_IMAGE_ANON:
		return app;
	case OPD_IMAGE_KERNEL:
		return (separate & OPD_SEP_KERNEL) && app >= 0 ? app : image;
	default:
		return (separate & OPD_SEP_LIB) && app >= 0 ? app : image;
	}
}

static int listed(struct opd_core *core, int image)
{
	struct opd_image const *img = opd_image_get(core->images, image);
	char const *const *p;

	if (!img || img->kind != OPD_IMAGE_FILE)
		return 0;
	for (p = core->config.image_filter; *p; p++)
		if (!strcmp(*p, img->name))
			return 1;
	return 0;
}

/* --image: keep a sample whose image or application is listed. */
static int filtered_out(struct opd_core *core, struct opd_transient const *t,
			int image)
{
	if (!core->config.image_filter || listed(core, image))
		return 0;
	return !(t->known & OPD_KNOWN_TASK) ||
	       !listed(core, cookie_image(core, t->app_cookie, t,
					   &core->last_app_def));
}

static void fill_task_fields(struct opd_core const *core,
			     struct opd_sfile_key *k,
			     struct opd_transient const *t)
{
	unsigned separate = core->config.separate;
	int thread = (separate & OPD_SEP_THREAD) && (t->known & OPD_KNOWN_TASK);

	k->tgid = thread ? (int32_t)t->tgid : -1;
	/* a thread being torn down has no id any more (perf: tid -1): its
	 * samples go to TGID.all (doc/formats.md section 3) */
	k->tid = thread ? (int32_t)t->tid : -1;
	k->cpu = (separate & OPD_SEP_CPU) && (t->known & OPD_KNOWN_CPU) ?
		(int32_t)t->cpu : -1;
}

/* opreport --stream --time: the sample's time is not in the window. */
static bool outside_window(struct opd_core const *core,
			   struct opd_transient const *t)
{
	return core->config.time_window &&
	       (t->time < core->config.time_start ||
		t->time >= core->config.time_end);
}

/* What a sample counts: 1, or its ESC WEIGHT (off-CPU microseconds). */
static uint32_t weight_of(struct opd_transient const *t)
{
	return t->weight && t->weight <= OP_MAX_WEIGHT ? (uint32_t)t->weight : 1;
}

/* --- whole stacks: a written sample's trace, resolved frame by frame --- */

static void keep_trace_leaf(struct opd_core *core,
			    struct opd_transient const *t, int image,
			    uint64_t offset)
{
	int app = (t->known & OPD_KNOWN_TASK) ?
		cookie_image(core, t->app_cookie, t, &core->last_app_def) : -1;

	core->trace_ok = true;
	core->trace_image = image;
	core->trace_offset = offset;
	core->trace_app = app >= 0 ? app : image;
}

/* A frame that does not resolve ends the stack, as it ends the arcs. */
static void on_trace(void *ctx, struct opd_trace const *tr)
{
	struct opd_core *core = ctx;
	int images[OPD_TRACE_MAX];
	uint64_t offsets[OPD_TRACE_MAX];
	uint32_t stop = (uint32_t)tr->stop;
	size_t n;

	if (!core->trace_ok)
		return;		/* its sample is not in its file */
	core->trace_ok = false;
	images[0] = core->trace_image;
	offsets[0] = core->trace_offset;
	for (n = 1; n < tr->nframes; n++) {
		struct opd_frame const *f = &tr->frames[n];

		if (resolve(core, &tr->t, f->in_kernel, f->pc, f->cookie,
			    &images[n], &offsets[n])) {
			stop = OP_UNWIND_NO_MAPPING;
			break;
		}
	}
	opd_stacks_add(core->stacks, (uint32_t)tr->t.tgid, core->trace_app,
		       stop, images, offsets, n, tr->t.event,
		       weight_of(&tr->t), &core->stats);
}

static void on_sample(void *ctx, struct opd_transient const *t,
		      unsigned long pc, unsigned long event)
{
	struct opd_core *core = ctx;
	struct opd_sfile_key k;
	uint64_t offset, *drop;
	int image;
	/* the stats count what the files count: a weighted sample its
	 * weight, so that received = written + dropped still holds */
	uint32_t w = weight_of(t);

	core->trace_ok = false;
	core->stats.received += w;
	if (outside_window(core, t)) {
		core->stats.outside_window += w;
		return;
	}
	if (event >= core->config.nr_events) {
		core->stats.bad_event += w;
		return;
	}
	drop = resolve(core, t, t->in_kernel, pc, t->cookie, &image, &offset);
	if (drop) {
		*drop += w;
		return;
	}
	if (filtered_out(core, t, image)) {
		core->stats.filtered += w;
		return;
	}
	k.app = app_of(core, t, image);
	if (k.app < 0) {
		core->stats.no_app += w;
		return;
	}
	k.image = image;
	k.cg = -1;
	k.event = (int32_t)event;
	fill_task_fields(core, &k, t);
	if (!t->in_trace) {
		opd_sfile_add_n(core->sfiles, &k, offset, w);
		return;
	}
	/* stacks/ counts only samples that are in their file (the folded
	 * stacks add up to the sample files): written now, not aggregated */
	if (opd_sfile_add_now(core->sfiles, &k, offset, w))
		keep_trace_leaf(core, t, image, offset);
}

/* An arc lives in the caller's file, with the callee as the {cg} image. */
static void on_arc(void *ctx, struct opd_transient const *t,
		   struct opd_frame const *caller, struct opd_frame const *callee)
{
	struct opd_core *core = ctx;
	struct opd_sfile_key k;
	uint64_t from, to;

	if (t->event >= core->config.nr_events || outside_window(core, t))
		return;
	if (resolve(core, t, caller->in_kernel, caller->pc, caller->cookie,
		    &k.image, &from) ||
	    resolve(core, t, callee->in_kernel, callee->pc, callee->cookie,
		    &k.cg, &to))
		return;  /* unresolvable frames end the chain: not a sample */
	if (filtered_out(core, t, k.image))
		return;
	k.app = app_of(core, t, k.image);
	if (k.app < 0)
		return;
	k.event = (int32_t)t->event;
	fill_task_fields(core, &k, t);
	opd_sfile_add_n(core->sfiles, &k, (from << 32) | (to & 0xffffffffu),
			weight_of(t));
}

static void on_lost(void *ctx, unsigned long category, unsigned long count)
{
	struct opd_core *core = ctx;

	if (category < OP_LOST_CATEGORY_MAX)
		core->stats.lost[category] += count;
}

static void on_count(void *ctx, unsigned long counter, unsigned long n)
{
	struct opd_core *core = ctx;

	if (counter < OP_COUNT_MAX)
		core->stats.count[counter] += n;
}

static void on_module_loaded(void *ctx)
{
	opd_core_reload_kernel(ctx);
}

/* Stream errors are counted by the decoder; print only the first few. */
static void on_error(void *ctx, uint64_t pos, char const *msg)
{
	struct opd_core *core = ctx;

	if (core->errors_printed++ < 10)
		op_warn("event stream word %llu: %s", (unsigned long long)pos, msg);
}

int opd_core_write_session(struct opd_core *core)
{
	char dir[4096], err[512];
	int rc;

	snprintf(dir, sizeof(dir), "%s/session", core->current_dir);
	rc = op_mkdir_p(dir);
	if (rc)
		return op_error("cannot create '%s': %s", dir, strerror(-rc));
	if (core->kernel && opd_kernel_save(core->kernel, dir, err, sizeof(err)))
		return op_error("%s", err);
	if (opd_images_write_build_ids(core->images, dir, err, sizeof(err)))
		return op_error("%s", err);
	if (core->vdso_image >= 0) {    /* a new session has its own copy */
		char hex[OP_BUILD_ID_HEX_MAX];

		free(vdso_save(core, hex));
	}
	return 0;
}

int opd_core_new_session(struct opd_core *core)
{
	opd_images_new_session(core->images);
	if (core->jit)
		opd_jit_new_session(core->jit);
	return opd_core_write_session(core);
}

/* The parts that can fail: directories, kernel images, session data. */
static int core_open(struct opd_core *core)
{
	struct opd_config const *cfg = &core->config;
	char err[512], *cache;
	int rc;

	core->current_dir = op_xasprintf("%s/%s/%s", cfg->session_dir,
					 OP_SAMPLES_DIR, OP_CURRENT_SESSION);
	rc = op_mkdir_p(core->current_dir);
	if (rc)
		return op_error("cannot create '%s': %s", core->current_dir,
				strerror(-rc));
	if (!cfg->no_kernel) {
		cache = op_xasprintf("%s/kernel-cache", cfg->session_dir);
		core->kernel = opd_kernel_new(cfg->vmlinux, cache, err,
					      sizeof(err));
		free(cache);
		if (!core->kernel)
			return op_error("%s", err);
	}
	core->sfiles = opd_sfiles_new(cfg, core->images, core->current_dir);
	opd_sfiles_settle(core->sfiles);
	core->stacks = opd_stacks_new(core->current_dir, &core->config,
				      core->images);
	return opd_core_write_session(core);
}

/*
 * A forgotten cookie's image: its sample file entries let go of it (they
 * come back if it is sampled again), then the cookie; the image is freed
 * with the last reference. The vDSO's entries stay: the core holds it.
 */
static void release_cookie_image(struct opd_core *core, int id)
{
	if (id < 0)
		return;
	if (id != core->vdso_image)
		opd_sfile_release_image(core->sfiles, id);
	opd_image_unref(core->images, id);
}

/* The producer freed c: let go of the cached pointers to it. */
static void on_cookie_forget(void *ctx, struct opd_cookie const *c)
{
	struct opd_core *core = ctx;

	if (core->last_def == c)
		core->last_def = NULL;
	if (core->last_app_def == c)
		core->last_app_def = NULL;
	/* a sampled region forgotten: its process is gone (the perf
	 * source forgets them at exit), its map is read at the next flush */
	if (core->jit && c->anon && c->image >= 0 && c->tgid)
		opd_jit_gone(core->jit, c->tgid);
	release_cookie_image(core, c->image);
}

/* A new stream: the old one's definitions let go of their images. */
static void forget_all_cookies(struct opd_core *core)
{
	struct op_hashmap_iter it;
	struct op_hashmap_entry *e;

	for (e = op_hashmap_iter_first(&core->dec.tab, &it); e;
	     e = op_hashmap_iter_next(&it))
		opd_image_unref(core->images,
				OP_HASHMAP_ENTRY(e, struct opd_cookie, ent)->image);
}

struct opd_core *opd_core_new(struct opd_config const *cfg)
{
	struct opd_core *core = op_xcalloc(1, sizeof(*core));

	core->config = *cfg;
	core->vdso_image = -1;
	core->sink = (struct opd_sink){
		.ctx = core,
		.sample = on_sample,
		.arc = on_arc,
		.trace = on_trace,
		.lost = on_lost,
		.count = on_count,
		.module_loaded = on_module_loaded,
		.cookie_forget = on_cookie_forget,
		.error = on_error,
	};
	core->images = opd_images_new();
	opd_trans_init(&core->dec, &core->sink, "event stream");
	if (cfg->jit_maps)
		core->jit = opd_jit_new(NULL);
	if (core_open(core)) {
		opd_core_free(core);
		return NULL;
	}
	return core;
}

void opd_core_process(struct opd_core *core, unsigned long const *words,
		      size_t n)
{
	opd_trans_feed(&core->dec, words, n);
}

void opd_core_new_stream(struct opd_core *core)
{
	forget_all_cookies(core);
	opd_trans_free(&core->dec);
	opd_trans_init(&core->dec, &core->sink, "event stream");
	core->last_def = core->last_app_def = NULL;
}

static void save_jit_maps(struct opd_core *core, bool all)
{
	char *meta = op_xasprintf("%s/%s", core->current_dir, OP_META_DIR);

	opd_jit_save(core->jit, meta, all, &core->stats);
	free(meta);
}

void opd_core_flush(struct opd_core *core)
{
	opd_sfile_flush(core->sfiles);
	if (core->jit && opd_jit_pending(core->jit))
		save_jit_maps(core, false);
}

void opd_core_save_jit_maps(struct opd_core *core)
{
	if (core->jit)
		save_jit_maps(core, true);
}

char const *opd_core_no_space(struct opd_core const *core)
{
	return opd_sfile_no_space(core->sfiles);
}

void opd_core_sync(struct opd_core *core)
{
	opd_sfile_sync_all(core->sfiles);
	opd_stacks_sync(core->stacks);
}

size_t opd_core_release_fds(struct opd_core *core)
{
	return opd_sfile_release_fds(core->sfiles);
}

void opd_core_close_files(struct opd_core *core)
{
	opd_sfile_close_all(core->sfiles);
	opd_stacks_close(core->stacks);
}

void opd_core_reload_kernel(struct opd_core *core)
{
	char err[512];

	if (!core->kernel)
		return;
	if (opd_kernel_reload(core->kernel, err, sizeof(err)))
		op_warn("%s", err);
	else
		opd_core_write_session(core);
}

struct opd_stats const *opd_core_stats(struct opd_core *core)
{
	struct opd_sfile_counts const *c = opd_sfile_counts(core->sfiles);
	struct opd_stats *stats = &core->stats;

	stats->written = c->written;
	stats->saturated = c->saturated;
	stats->sfile_errors = c->errors;
	stats->no_space = c->no_space;
	stats->arcs = c->arcs;
	stats->arcs_dropped = c->arcs_dropped;
	stats->stream_errors = core->dec.stats.errors;
	stats->cookies_forgotten = core->dec.stats.forgotten;
	stats->decoder_cookies = op_hashmap_size(&core->dec.tab);
	stats->images_live = opd_images_live(core->images);
	return stats;
}

void opd_core_reset_stats(struct opd_core *core)
{
	opd_sfile_reset_counts(core->sfiles);
	memset(&core->stats, 0, sizeof(core->stats));
	core->dec.stats.errors = 0;
	core->dec.stats.forgotten = 0;
}

size_t opd_core_nr_open_files(struct opd_core const *core)
{
	return opd_sfile_nr_open(core->sfiles);
}

void opd_core_free(struct opd_core *core)
{
	if (!core)
		return;
	/* the files first: closing flushes samples named after images */
	opd_sfiles_free(core->sfiles);
	opd_stacks_free(core->stacks);
	opd_trans_free(&core->dec);
	opd_images_free(core->images);
	opd_kernel_free(core->kernel);
	opd_jit_free(core->jit);
	free(core->kimage_ids);
	free(core->current_dir);
	free(core);
}
