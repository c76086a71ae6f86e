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
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "op_config.h"
#include "op_file.h"
#include "op_message.h"
#include "opd_core.h"
#include "opd_image.h"
#include "opd_kernel.h"
#include "opd_sfile.h"
#include "opd_trans.h"

static struct opd_config config;
static struct opd_stats stats;
static struct opd_trans dec;
static char *current_dir;     /* SESSION/samples/current */
static time_t last_kernel_reload;

/* cookie -> image id, open addressing; reset with each new stream. */
struct cookie_slot {
	unsigned long cookie;   /* 0 (OP_NO_COOKIE) marks an empty slot */
	int image;
};
static struct cookie_slot *cookies;
static size_t cookie_mask;
static size_t nr_cookies;

/* kernel image id (opd_kernel) -> image id (opd_image) */
static int *kimage_ids;
static int nr_kimage_ids;

static void cookies_clear(void)
{
	free(cookies);
	cookie_mask = 1023;
	cookies = op_xcalloc(cookie_mask + 1, sizeof(*cookies));
	nr_cookies = 0;
}

static size_t cookie_slot(unsigned long cookie)
{
	size_t i = (cookie * 0x9e3779b97f4a7c15ul) >> 40;

	for (i &= cookie_mask; cookies[i].cookie && cookies[i].cookie != cookie;
	     i = (i + 1) & cookie_mask)
		;
	return i;
}

static void cookies_grow(void)
{
	struct cookie_slot *old = cookies;
	size_t i, n = cookie_mask + 1;

	cookie_mask = 2 * n - 1;
	cookies = op_xcalloc(2 * n, sizeof(*cookies));
	for (i = 0; i < n; i++)
		if (old[i].cookie)
			cookies[cookie_slot(old[i].cookie)] = old[i];
	free(old);
}

/*
 * The name of an anonymous region in a sample file name: the producer's
 * "//anon" becomes "anon" as in OProfile; a pseudo path ("/memfd:x
 * (deleted)") loses its leading '/'; '/' and '}' cannot appear in
 * {anon:NAME} and become '_'.
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

/* The image a cookie names, interned on first use; -1 if undefined. */
static int cookie_image(unsigned long cookie)
{
	struct opd_cookie const *c;
	size_t i;
	int id;

	if (cookie == OP_NO_COOKIE || cookie == OP_INVALID_COOKIE)
		return -1;
	i = cookie_slot(cookie);
	if (cookies[i].cookie)
		return cookies[i].image;
	c = opd_trans_cookie(&dec, cookie);
	if (!c)
		return -1;
	if (c->anon) {
		char name[256];

		anon_name(c->name, name, sizeof(name));
		id = opd_image_anon((int)c->tgid, c->start, c->end, name);
	} else
		id = opd_image_file(c->name);
	cookies[i].cookie = cookie;
	cookies[i].image = id;
	if (++nr_cookies * 2 > cookie_mask)
		cookies_grow();
	return id;
}

static int kernel_image_id(struct opd_kimage const *k)
{
	if (k->id >= nr_kimage_ids) {
		int n = k->id + 16, i;
		kimage_ids = op_xrealloc(kimage_ids, n * sizeof(int));
		for (i = nr_kimage_ids; i < n; i++)
			kimage_ids[i] = -1;
		nr_kimage_ids = n;
	}
	if (kimage_ids[k->id] < 0)
		kimage_ids[k->id] = opd_image_kernel(k->name, k->start, k->end);
	return kimage_ids[k->id];
}

/* A kernel pc outside every known image may be in a new module. */
static struct opd_kimage const *find_kernel(unsigned long pc)
{
	struct opd_kimage const *k = opd_kernel_find(pc);
	time_t now;

	if (k)
		return k;
	now = time(NULL);
	if (now == last_kernel_reload)
		return NULL;  /* at most one re-read per second */
	last_kernel_reload = now;
	opd_core_reload_kernel();
	return opd_kernel_find(pc);
}

/*
 * Resolve one frame: image id and key offset. Returns 0, or a pointer to
 * the drop counter to bump.
 */
static uint64_t *resolve(int in_kernel, unsigned long pc, unsigned long cookie,
			 int *image, uint64_t *offset)
{
	if (in_kernel) {
		struct opd_kimage const *k = find_kernel(pc);
		if (!k)
			return &stats.unresolved_kernel;
		*image = kernel_image_id(k);
		*offset = pc - k->start;
		return NULL;
	}
	if (cookie == OP_NO_COOKIE || cookie == OP_INVALID_COOKIE)
		return &stats.no_mapping;
	*image = cookie_image(cookie);
	if (*image < 0)
		return &stats.unknown_cookie;
	*offset = pc;
	return NULL;
}

/* Which application (A) a sample in image belongs to; -1: drop it. */
static int app_of(struct opd_transient const *t, int image)
{
	struct opd_image const *img = opd_image_get(image);
	int app = (t->known & OPD_KNOWN_TASK) ? cookie_image(t->app_cookie) : -1;

	switch (img->kind) {
	case OPD_IMAGE_ANON:
		return app;
	case OPD_IMAGE_KERNEL:
		return (config.separate & OPD_SEP_KERNEL) && app >= 0 ? app : image;
	default:
		return (config.separate & OPD_SEP_LIB) && app >= 0 ? app : image;
	}
}

static void fill_task_fields(struct opd_sfile_key *k, struct opd_transient const *t)
{
	int thread = (config.separate & OPD_SEP_THREAD) && (t->known & OPD_KNOWN_TASK);

	k->tgid = thread ? (int32_t)t->tgid : -1;
	/* a thread being torn down has no id any more (perf: tid -1): its
	 * samples go to TGID.all (doc/formats.md section 3) */
	k->tid = thread ? (int32_t)t->tid : -1;
	k->cpu = (config.separate & OPD_SEP_CPU) && (t->known & OPD_KNOWN_CPU) ?
		(int32_t)t->cpu : -1;
}

static void on_sample(void *ctx, struct opd_transient const *t,
		      unsigned long pc, unsigned long event)
{
	struct opd_sfile_key k;
	uint64_t offset, *drop;
	int image;

	(void)ctx;
	stats.received++;
	if (event >= config.nr_events) {
		stats.bad_event++;
		return;
	}
	drop = resolve(t->in_kernel, pc, t->cookie, &image, &offset);
	if (drop) {
		(*drop)++;
		return;
	}
	k.app = app_of(t, image);
	if (k.app < 0) {
		stats.no_app++;
		return;
	}
	k.image = image;
	k.cg = -1;
	k.event = (int32_t)event;
	fill_task_fields(&k, t);
	opd_sfile_add(&k, offset);
}

/* An arc lives in the caller's file, with the callee as the {cg} image. */
static void on_arc(void *ctx, struct opd_transient const *t,
		   struct opd_frame const *caller, struct opd_frame const *callee)
{
	struct opd_sfile_key k;
	uint64_t from, to;
	(void)ctx;
	if (t->event >= config.nr_events)
		return;
	if (resolve(caller->in_kernel, caller->pc, caller->cookie, &k.image, &from) ||
	    resolve(callee->in_kernel, callee->pc, callee->cookie, &k.cg, &to))
		return;  /* unresolvable frames end the chain: not a sample */
	k.app = app_of(t, k.image);
	if (k.app < 0)
		return;
	k.event = (int32_t)t->event;
	fill_task_fields(&k, t);
	opd_sfile_add(&k, (from << 32) | (to & 0xffffffffu));
}

static void on_lost(void *ctx, unsigned long category, unsigned long count)
{
	(void)ctx;
	if (category < OP_LOST_CATEGORY_MAX)
		stats.lost[category] += count;
}

static void on_count(void *ctx, unsigned long counter, unsigned long n)
{
	(void)ctx;
	if (counter < OP_COUNT_MAX)
		stats.count[counter] += n;
}

static void on_module_loaded(void *ctx)
{
	(void)ctx;
	opd_core_reload_kernel();
}

/* Stream errors are counted by the decoder; print only the first few. */
static void on_error(void *ctx, uint64_t pos, char const *msg)
{
	static unsigned printed;

	(void)ctx;
	if (printed++ < 10)
		op_warn("event stream word %llu: %s", (unsigned long long)pos, msg);
}

static struct opd_sink const sink = {
	.sample = on_sample,
	.arc = on_arc,
	.lost = on_lost,
	.count = on_count,
	.module_loaded = on_module_loaded,
	.error = on_error,
};

int opd_core_write_session(void)
{
	char dir[4096], err[512];
	int rc;

	snprintf(dir, sizeof(dir), "%s/session", current_dir);
	rc = op_mkdir_p(dir);
	if (rc)
		return op_error("cannot create '%s': %s", dir, strerror(-rc));
	if (opd_kernel_save(dir, err, sizeof(err)))
		return op_error("%s", err);
	return 0;
}

int opd_core_init(struct opd_config const *cfg)
{
	char err[512], cache[4096];
	size_t len;
	int rc;

	config = *cfg;
	memset(&stats, 0, sizeof(stats));
	len = strlen(cfg->session_dir) + sizeof("/" OP_SAMPLES_DIR "/" OP_CURRENT_SESSION);
	current_dir = op_xmalloc(len);
	snprintf(current_dir, len, "%s/%s/%s", cfg->session_dir, OP_SAMPLES_DIR,
		 OP_CURRENT_SESSION);
	rc = op_mkdir_p(current_dir);
	if (rc)
		return op_error("cannot create '%s': %s", current_dir, strerror(-rc));
	snprintf(cache, sizeof(cache), "%s/kernel-cache", cfg->session_dir);
	if (opd_kernel_init(cfg->vmlinux, cache, err, sizeof(err)))
		return op_error("%s", err);
	opd_sfile_init(&config, current_dir);
	opd_trans_init(&dec, &sink, "event stream");
	cookies_clear();
	return opd_core_write_session();
}

void opd_core_process(unsigned long const *words, size_t n)
{
	opd_trans_feed(&dec, words, n);
}

void opd_core_new_stream(void)
{
	opd_trans_free(&dec);
	opd_trans_init(&dec, &sink, "event stream");
	cookies_clear();
}

void opd_core_sync(void)
{
	opd_sfile_sync_all();
}

void opd_core_close_files(void)
{
	opd_sfile_close_all();
}

void opd_core_reload_kernel(void)
{
	char err[512];

	if (opd_kernel_reload(err, sizeof(err)))
		op_warn("%s", err);
	else
		opd_core_write_session();
}

struct opd_stats const *opd_core_stats(void)
{
	struct opd_sfile_counts const *c = opd_sfile_counts();

	stats.written = c->written;
	stats.saturated = c->saturated;
	stats.sfile_errors = c->errors;
	stats.arcs = c->arcs;
	stats.stream_errors = dec.stats.errors;
	return &stats;
}

void opd_core_reset_stats(void)
{
	opd_sfile_reset_counts();
	memset(&stats, 0, sizeof(stats));
	dec.stats.errors = 0;
}

void opd_core_exit(void)
{
	opd_sfile_exit();
	opd_trans_free(&dec);
	opd_image_exit();
	opd_kernel_exit();
	free(cookies);
	free(kimage_ids);
	free(current_dir);
	cookies = NULL;
	kimage_ids = NULL;
	current_dir = NULL;
	nr_kimage_ids = 0;
}
