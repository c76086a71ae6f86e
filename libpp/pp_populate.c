/*
 * Populating a profile (see pp_profile.h), OProfile's
 * populate_for_image(): for each inverted profile, read its sample files,
 * open its binary once, and add every sample to the entry of its symbol.
 *
 * A user binary whose mtime differs from the one recorded in a sample
 * file's header is not the binary that was sampled: that file's samples
 * stay under the image without symbols, and the report says so once.
 * With a callgraph, pp_callgraph.c then adds the arcs.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "op_build_id.h"
#include "op_session.h"
#include "op_util.h"
#include "pp_binary.h"
#include "pp_callgraph.h"
#include "pp_debuginfo.h"
#include "pp_image.h"
#include "pp_kernel.h"
#include "pp_linenr.h"
#include "pp_notes.h"
#include "pp_populate.h"
#include "pp_profile.h"
#include "pp_sample_file.h"
#include "pp_samples.h"
#include "pp_symname.h"

#define NO_ENTRY ((size_t)-1)
#define EXCLUDED ((size_t)-2)

struct populate {
	struct pp_profile *p;
	struct pp_filelist const *files;
	struct pp_classes *classes;
	struct pp_populate_opts const *opts;
	struct pp_strlist *notes;
	struct pp_kernels kernels;    /* per session, loaded on first use */
};

/* One image (inverted profile) being processed. */
struct image {
	struct pp_inverted const *inv;
	struct pp_sfile const *first; /* a file naming the image */
	char *name;                   /* display name */
	struct pp_image_ref ref;      /* what to open */
	struct pp_image img;          /* located binary and its symbols */
	bool is_kernel;               /* a sample header said so */
	struct pp_samples *fresh;     /* per group */
	struct pp_samples *stale;     /* per group: the binary changed */
	uint64_t nr_fresh, nr_stale;
	bool rebuilt;                 /* its build-id is not the sampled one */
};

/*
 * A header that contradicts the file's name (or its class's other files)
 * is said: the report goes by the name, which may not be what was
 * sampled. Once per file.
 */
static void check_header(struct populate *ctx, struct pp_sfile const *f,
			 struct opd_header const *h, struct pp_class const *k)
{
	if (h->ctr_count != (uint32_t)f->name.count)
		pp_note(ctx->notes, "'%s': its header says count %u, its name %d",
			f->path, h->ctr_count, f->name.count);
	if (h->ctr_um != (uint32_t)f->name.unit_mask)
		pp_note(ctx->notes, "'%s': its header says unit mask 0x%x, its name 0x%x",
			f->path, h->ctr_um, (unsigned)f->name.unit_mask);
	if (!k->has_header)
		return;
	if (h->cpu_type != k->header.cpu_type)
		pp_note(ctx->notes, "'%s': its header says cpu type %u, other files of "
			"event %s say %u", f->path, h->cpu_type, f->name.event_name,
			k->header.cpu_type);
	if (h->ctr_event != k->header.ctr_event)
		pp_note(ctx->notes, "'%s': its header says event code %u, other files "
			"of event %s say %u", f->path, h->ctr_event,
			f->name.event_name, k->header.ctr_event);
}

static void read_file(struct populate *ctx, struct image *im,
		      struct pp_sfile const *f, int cls, size_t gi)
{
	struct pp_class *k = &ctx->classes->v[cls];
	struct pp_samples tmp = { 0 };
	struct opd_header h;
	char err[1024];

	if (pp_samples_read(&tmp, f->path, &h, err, sizeof(err))) {
		pp_note(ctx->notes, "skipped bad sample file %s", err);
		ctx->p->nr_bad_files++;
		return;
	}
	check_header(ctx, f, &h, k);
	if (!k->has_header) {
		k->header = h;
		k->has_header = true;
	}
	if (h.is_kernel)
		im->is_kernel = true;
	if (im->rebuilt ||
	    (im->img.have_mtime && h.mtime && h.mtime != im->img.mtime))
		pp_samples_move(&im->stale[gi], &tmp);
	else
		pp_samples_move(&im->fresh[gi], &tmp);
}

/*
 * The binary of the sampled build (pp_image_find): a binary found with
 * another build-id than the sampled one is replaced by the kept copy or
 * the sampled build's debug file, else its samples get no symbols.
 */
static void find_binary(struct populate *ctx, struct image *im)
{
	char const *dir = ctx->files->sessions[im->first->session].dir;

	im->rebuilt = pp_image_find(&im->img, &im->ref, ctx->opts->locate,
				    dir, NULL, ctx->notes);
}

static void read_samples(struct populate *ctx, struct image *im)
{
	size_t n = im->inv->n;

	im->fresh = op_xcalloc(n, sizeof(*im->fresh));
	im->stale = op_xcalloc(n, sizeof(*im->stale));
	for (size_t gi = 0; gi < n; gi++) {
		struct pp_group const *g = &im->inv->groups[gi];

		for (size_t i = 0; i < g->n; i++)
			read_file(ctx, im, &ctx->files->v[g->files[i]], g->cls,
				  gi);
		pp_samples_finish(&im->fresh[gi]);
		pp_samples_finish(&im->stale[gi]);
		im->nr_fresh += pp_samples_total(&im->fresh[gi]);
		im->nr_stale += pp_samples_total(&im->stale[gi]);
	}
}

static void open_binary(struct populate *ctx, struct image *im)
{
	char what[8192];
	char const *sep;

	if (!im->nr_fresh)
		return;
	switch (pp_image_open(&im->img, &im->ref, im->is_kernel, &ctx->kernels,
			      what, sizeof(what))) {
	case PP_IMAGE_OK:
		return;
	case PP_IMAGE_NOT_FOUND:
		sep = ":";
		break;
	default:
		sep = ";";
		break;
	}
	pp_note(ctx->notes, "%s%s its %" PRIu64 " samples are shown without "
		"symbols", what, sep, im->nr_fresh);
}

static size_t new_entry(struct populate *ctx, struct image *im,
			char const *app, struct pp_symbol const *s)
{
	struct pp_populate_opts const *o = ctx->opts;
	struct pp_entry *e;
	char *name = NULL;
	size_t i;

	if (s) {
		name = pp_symbol_display(&im->img.bin.symtab, s, o->demangle);
		if (!pp_symbol_wanted(o, s->name, name)) {
			free(name);
			return EXCLUDED;
		}
	} else if (o->symbols && o->include && o->include->n) {
		return EXCLUDED;
	}
	i = pp_profile_add(ctx->p, app, im->name, name, s != NULL,
			   s ? s->start : 0);
	e = &ctx->p->v[i];
	if (s && o->debug_info)
		pp_binary_linenr(&im->img.bin, s->start, &e->file, &e->line);
	return i;
}

/*
 * Add the samples of one group. map[i] is the entry of symbol i for the
 * group's application (map[nsyms]: no symbol); it is shared by the groups
 * (classes) of one application. Details of an entry without a symbol are
 * sample keys (offsets in the image), not addresses.
 */
static void add_samples(struct populate *ctx, struct image *im,
			struct pp_group const *g, struct pp_samples const *s,
			bool symbolise, size_t *map)
{
	struct pp_symtab const *t = &im->img.bin.symtab;

	for (size_t i = 0; i < s->n; i++) {
		struct pp_symbol const *sym = NULL;
		uint64_t vma;
		size_t si;

		if (symbolise && ctx->opts->symbols &&
		    pp_binary_vma(&im->img.bin, s->v[i].key, &vma))
			sym = pp_symtab_find(t, vma);
		si = sym ? (size_t)(sym - t->v) : t->n;
		if (map[si] == NO_ENTRY)
			map[si] = new_entry(ctx, im, g->app, sym);
		if (map[si] == EXCLUDED)
			continue;
		ctx->p->v[map[si]].counts[g->cls] += s->v[i].count;
		if (ctx->opts->details)
			pp_entry_add_detail(&ctx->p->v[map[si]],
					    sym ? vma : s->v[i].key,
					    g->cls, s->v[i].count);
	}
}

static void add_groups(struct populate *ctx, struct image *im)
{
	size_t nsyms = im->img.bin.symtab.n;
	size_t *map = op_xmalloc((nsyms + 1) * sizeof(*map));
	size_t *stale_map = op_xmalloc((nsyms + 1) * sizeof(*map));

	for (size_t gi = 0; gi < im->inv->n; gi++) {
		struct pp_group const *g = &im->inv->groups[gi];

		if (!gi || strcmp(g->app, im->inv->groups[gi - 1].app)) {
			memset(map, 0xff, (nsyms + 1) * sizeof(*map));
			memset(stale_map, 0xff, (nsyms + 1) * sizeof(*map));
		}
		add_samples(ctx, im, g, &im->fresh[gi], true, map);
		add_samples(ctx, im, g, &im->stale[gi], false, stale_map);
	}
	free(map);
	free(stale_map);
}

static void details_linenr(struct populate *ctx, struct image *im,
			   size_t from)
{
	for (size_t i = from; i < ctx->p->n; i++) {
		struct pp_entry *e = &ctx->p->v[i];

		for (size_t d = 0; e->has_vma && d < e->nr_details; d++)
			pp_binary_linenr(&im->img.bin, e->details[d].vma,
					 &e->details[d].file,
					 &e->details[d].line);
	}
}

static void populate_image(struct populate *ctx, struct pp_inverted const *inv)
{
	struct image im = { .inv = inv };
	size_t from = ctx->p->n;

	im.first = &ctx->files->v[inv->first];
	im.name = pp_image_display(&im.first->name);
	im.ref = (struct pp_image_ref){
		.name = im.first->name.image_name, .display = im.name,
		.kern = im.first->name.image_is_kernel,
		.anon = im.first->name.image_is_anon,
		.anon_tgid = im.first->name.anon_tgid,
		.anon_start = im.first->name.anon_start,
		.anon_end = im.first->name.anon_end,
		.session = im.first->session,
	};
	if (ctx->opts->symbols)
		find_binary(ctx, &im);
	read_samples(ctx, &im);
	if (ctx->opts->symbols)
		open_binary(ctx, &im);
	if (im.nr_stale && !im.rebuilt)
		pp_note(ctx->notes, "'%s' has changed since it was profiled: "
			"%" PRIu64 " of its samples are shown without symbols",
			im.img.path, im.nr_stale);
	add_groups(ctx, &im);
	pp_profile_fold_details(ctx->p, from);
	if (ctx->opts->debug_info && ctx->opts->details)
		details_linenr(ctx, &im, from);
	if (ctx->opts->image_done)
		ctx->opts->image_done(ctx->opts->image_done_arg, &im.img.bin,
				      ctx->p, from, im.name);
	for (size_t gi = 0; gi < inv->n; gi++) {
		pp_samples_free(&im.fresh[gi]);
		pp_samples_free(&im.stale[gi]);
	}
	free(im.fresh);
	free(im.stale);
	pp_image_free(&im.img);
	free(im.name);
}

void pp_profile_populate(struct pp_profile *p,
			 struct pp_filelist const *files,
			 struct pp_classes *classes,
			 struct pp_invlist const *inv,
			 struct pp_populate_opts const *opts,
			 struct pp_strlist *notes)
{
	struct populate ctx = {
		.p = p, .files = files, .classes = classes, .opts = opts,
		.notes = notes,
	};

	memset(p, 0, sizeof(*p));
	p->nr_classes = classes->n;
	pp_kernels_init(&ctx.kernels, files, notes);
	ctx.kernels.vmlinux = opts->vmlinux;
	for (size_t i = 0; i < inv->n; i++)
		populate_image(&ctx, &inv->v[i]);
	pp_profile_finish(p);
	if (opts->callgraph)
		pp_callgraph_populate(p, files, opts, &ctx.kernels, notes);
	pp_kernels_free(&ctx.kernels);
}
