/*
 * The call graph of a profile (opreport -c): the arcs of the {cg} files
 * between the profile's entries (see pp_profile.h).
 *
 * A callgraph file A/{dep}/B/{cg}/C/... holds the arcs from image B (the
 * caller's) into image C (the callee's), keyed (from << 32) | to with
 * both offsets in their image's sample key space (file offsets, kernel
 * image offsets, anon region offsets). Each end is symbolised exactly as
 * samples are - libbfd, the session's kallsyms, nothing for anonymous
 * regions - and the arc is counted between the caller's entry and the
 * callee's, in the class of the file.
 *
 * Only one binary is open at a time: the arcs are read and their callers
 * symbolised image by image (B), then sorted by callee image and
 * symbolised image by image (C). Ends the samples gave no entry (a caller
 * never sampled, a symbol -i/-e leave out) get an entry without samples;
 * those -i/-e leave out are hidden: listed under others, never a block.
 *
 * The application of an end: the file's A for the caller (its image with
 * --merge=lib). For the callee, the application its own samples are shown
 * under: A when the profile has samples of C under A, else C itself when
 * it has samples of C under C (an image not separated by application),
 * else A when the caller's samples were separated (A is then the process;
 * anonymous regions are always under the process), else C.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_util.h"
#include "pp_binary.h"
#include "pp_callgraph.h"
#include "pp_image.h"
#include "pp_invert.h"
#include "pp_kernel.h"
#include "pp_linenr.h"
#include "pp_notes.h"
#include "pp_populate.h"
#include "pp_profile.h"
#include "pp_sample_file.h"
#include "pp_samples.h"
#include "pp_symname.h"

#define NO_SYMBOL (-1L)

/* A symbol some arc end fell in, named once. */
struct cgsym {
	bool named;
	bool wanted;             /* -i/-e keep it */
	char *name;              /* display name */
	uint64_t vma;
	char *file;              /* -g */
	unsigned line;
};

/* An image on either side of callgraph files. */
struct cgimg {
	char const *name;        /* as parsed (borrowed) */
	bool kern, anon;
	int tgid;
	uint64_t start, end;     /* anon region */
	size_t session;          /* a file's session (kernel symbols) */
	bool is_kernel;          /* a header says so (a vmlinux by path) */
	char *display;           /* as reports name it */
	struct pp_image img;     /* while its side is being resolved */
	struct cgsym *syms;      /* per symbol of bin, kept after closing */
	size_t nr_syms;
	uint64_t nr_stale;       /* arcs from a changed binary */
};

/* An image candidate: side (B or C) of one file, before deduplication. */
struct cand {
	struct cgimg img;
	size_t file;
	bool callee;
};

/* An arc of a file, being resolved. */
struct pending {
	size_t file;             /* in files->cg */
	uint64_t count;
	uint32_t to;             /* the callee's key */
	size_t from_img, to_img;
	long from_sym, to_sym;   /* NO_SYMBOL: none */
	char const *from_app, *to_app;
};

/* An arc between entries, before folding. */
struct raw_arc {
	size_t caller, callee;
	int cls;
	uint64_t count;
};

struct cg {
	struct pp_profile *p;
	struct pp_filelist const *files;
	struct pp_populate_opts const *opts;
	struct pp_kernels *kernels;
	struct pp_strlist *notes;
	struct cgimg *imgs;
	size_t nr_imgs;
	size_t *b_of, *c_of;     /* per file: its images */
	struct pending *v;
	size_t n, alloc;
	size_t nr_flat;          /* entries given by the samples */
	struct pp_strlist apps;  /* later builds' applications as shown */
};

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* The same image: kind, name, anon region, and session for kernels. */
static int cmp_img(struct cgimg const *a, struct cgimg const *b)
{
	int c = a->kern - b->kern;

	if (!c)
		c = a->anon - b->anon;
	if (!c)
		c = strcmp(a->name, b->name);
	if (!c && a->anon)
		c = a->tgid < b->tgid ? -1 : a->tgid > b->tgid;
	if (!c && a->anon)
		c = cmp_u64(a->start, b->start);
	if (!c && a->anon)
		c = cmp_u64(a->end, b->end);
	if (!c && a->kern)
		c = cmp_u64(a->session, b->session);
	return c;
}

static int cmp_cand(void const *a, void const *b)
{
	return cmp_img(&((struct cand const *)a)->img,
		       &((struct cand const *)b)->img);
}

/* An image of file f from one side's fields of its parsed name. */
static struct cgimg image_of(struct pp_sfile const *f, char *name, int kern,
			     int anon, int tgid, uint64_t start, uint64_t end)
{
	struct op_parsed_name shown = {
		.image_name = name, .image_is_anon = anon,
		.anon_tgid = tgid, .anon_start = start, .anon_end = end,
		/* B and C are both images of A's process */
		.app_name = f->name.app_name,
		.app_is_kernel = f->name.app_is_kernel,
	};
	struct cgimg im = {
		.name = name, .kern = kern, .anon = anon, .tgid = tgid,
		.start = start, .end = end, .session = f->session,
	};

	im.display = pp_image_display(&shown);
	return im;
}

/* Side B (callee false) or C of a file as an image. */
static struct cgimg side_of(struct pp_sfile const *f, bool callee)
{
	struct op_parsed_name const *n = &f->name;

	if (callee)
		return image_of(f, n->cg_image_name, n->cg_is_kernel,
				n->cg_is_anon, n->cg_anon_tgid,
				n->cg_anon_start, n->cg_anon_end);
	return image_of(f, n->image_name, n->image_is_kernel, n->image_is_anon,
			n->anon_tgid, n->anon_start, n->anon_end);
}

/* The distinct images of the files, and each file's two. */
static void list_images(struct cg *ctx)
{
	struct pp_filelist const *fl = ctx->files;
	struct cand *c = op_xcalloc(2 * fl->nr_cg + 1, sizeof(*c));
	size_t n = 0;

	for (size_t i = 0; i < fl->nr_cg; i++) {
		if (fl->cg[i].cls < 0)
			continue;
		for (int side = 0; side < 2; side++) {
			c[n].img = side_of(&fl->cg[i], side);
			c[n].file = i;
			c[n].callee = side;
			n++;
		}
	}
	if (n > 1)
		qsort(c, n, sizeof(*c), cmp_cand);
	ctx->imgs = op_xcalloc(n + 1, sizeof(*ctx->imgs));
	for (size_t i = 0; i < n; i++) {
		if (!ctx->nr_imgs || cmp_img(&ctx->imgs[ctx->nr_imgs - 1],
					     &c[i].img))
			ctx->imgs[ctx->nr_imgs++] = c[i].img;
		else
			free(c[i].img.display);
		(c[i].callee ? ctx->c_of : ctx->b_of)[c[i].file] =
			ctx->nr_imgs - 1;
	}
	free(c);
}

static bool image_has_samples(struct cg const *ctx, char const *display)
{
	for (size_t i = 0; i < ctx->nr_flat; i++)
		if (!strcmp(ctx->p->v[i].image, display))
			return true;
	return false;
}

/* A problem with an image: noted unless its samples' report did. */
static void note_image(struct cg *ctx, struct cgimg const *im,
		       char const *what)
{
	if (!image_has_samples(ctx, im->display))
		pp_note(ctx->notes, "%s: its call-graph arcs are shown "
			"without symbols", what);
}

/* The symbols of an image, through the same opener as the samples'. */
static void open_image(struct cg *ctx, struct cgimg *im)
{
	struct pp_image_ref ref = {
		.name = im->name, .display = im->display, .kern = im->kern,
		.anon = im->anon, .anon_tgid = im->tgid,
		.anon_start = im->start, .anon_end = im->end,
		.session = im->session,
	};
	char what[8192];

	/* the sampled build's bytes, as for the samples (said once) */
	im->img.quiet = image_has_samples(ctx, im->display);
	if (pp_image_find(&im->img, &ref, ctx->opts->locate,
			  ctx->files->sessions[im->session].dir, NULL,
			  ctx->notes))
		return;         /* another build: no symbols, never wrong ones */
	if (pp_image_open(&im->img, &ref, im->is_kernel, ctx->kernels, what,
			  sizeof(what)))
		note_image(ctx, im, what);
	if (!im->syms && im->img.bin.symtab.n) {
		im->nr_syms = im->img.bin.symtab.n;
		im->syms = op_xcalloc(im->nr_syms, sizeof(*im->syms));
	}
}

static void close_image(struct cgimg *im)
{
	pp_image_free(&im->img);
}

/* The symbol of an image's key, named on first use; NO_SYMBOL if none. */
static long symbol_at(struct cg *ctx, struct cgimg *im, uint64_t key)
{
	struct pp_populate_opts const *o = ctx->opts;
	struct pp_symtab const *t = &im->img.bin.symtab;
	struct pp_symbol const *s;
	struct cgsym *cs;
	uint64_t vma;

	if (!pp_binary_vma(&im->img.bin, key, &vma) ||
	    !(s = pp_symtab_find(t, vma)))
		return NO_SYMBOL;
	if ((size_t)(s - t->v) >= im->nr_syms)
		return NO_SYMBOL;
	cs = &im->syms[s - t->v];
	if (!cs->named) {
		cs->named = true;
		cs->name = pp_symbol_display(t, s, o->demangle);
		cs->wanted = pp_symbol_wanted(o, s->name, cs->name);
		cs->vma = s->start;
		if (o->debug_info)
			pp_binary_linenr(&im->img.bin, s->start, &cs->file,
					 &cs->line);
	}
	return s - t->v;
}

static void add_pending(struct cg *ctx, struct pending const *a)
{
	OP_ALLOC_GROW(ctx->v, ctx->n + 1, ctx->alloc);
	ctx->v[ctx->n++] = *a;
}

/* The caller's application as the flat profile shows it (a later build
 * of a path as "PATH (build ID)", pp_path_display). */
static char const *caller_app(struct cg *ctx, struct pp_sfile const *f,
			      struct cgimg const *b)
{
	char const *app = f->name.app_name;
	char *shown;

	if (ctx->opts->merge_lib)
		return b->display;
	if (!op_build_tag_split(app, NULL, NULL))
		return app;
	shown = pp_path_display(app);
	for (size_t i = 0; i < ctx->apps.n; i++)
		if (!strcmp(ctx->apps.v[i], shown)) {
			free(shown);
			return ctx->apps.v[i];
		}
	pp_strlist_add(&ctx->apps, shown);
	free(shown);
	return ctx->apps.v[ctx->apps.n - 1];
}

/* See the header comment: the application C's samples are shown under. */
static char const *callee_app(struct cg const *ctx, struct pp_sfile const *f,
			      char const *app, struct cgimg const *c)
{
	struct pp_profile flat = *ctx->p;

	flat.n = ctx->nr_flat;
	if (ctx->opts->merge_lib)
		return c->display;
	if (pp_profile_has_image(&flat, app, c->display))
		return app;
	if (pp_profile_has_image(&flat, c->display, c->display))
		return c->display;
	if (c->anon || pp_sfile_is_dependent(&f->name))
		return app;
	return c->display;
}

struct read_file {
	struct pp_samples s;
	struct opd_header h;
	bool ok;
};

/* The files files[0..n) of caller image b: read, symbolise the callers. */
static void read_caller_image(struct cg *ctx, size_t const *files, size_t n,
			      size_t b)
{
	struct cgimg *im = &ctx->imgs[b];
	struct read_file *r = op_xcalloc(n, sizeof(*r));
	char err[1024];

	for (size_t i = 0; i < n; i++) {
		struct pp_sfile const *f = &ctx->files->cg[files[i]];

		if (pp_samples_read(&r[i].s, f->path, &r[i].h, err,
				    sizeof(err))) {
			pp_note(ctx->notes, "skipped bad sample file %s", err);
			continue;
		}
		r[i].ok = true;
		if (r[i].h.is_kernel)
			im->is_kernel = true;
		if (r[i].h.cg_to_is_kernel)
			ctx->imgs[ctx->c_of[files[i]]].is_kernel = true;
	}
	open_image(ctx, im);
	for (size_t i = 0; i < n; i++) {
		struct pp_sfile const *f = &ctx->files->cg[files[i]];
		bool stale = im->img.have_mtime && r[i].h.mtime &&
			     r[i].h.mtime != im->img.mtime;
		struct pending a = {
			.file = files[i], .from_img = b,
			.to_img = ctx->c_of[files[i]],
		};

		if (!r[i].ok)
			continue;
		a.from_app = caller_app(ctx, f, im);
		a.to_app = callee_app(ctx, f, a.from_app,
				      &ctx->imgs[a.to_img]);
		for (size_t k = 0; k < r[i].s.n; k++) {
			uint64_t key = r[i].s.v[k].key;

			a.count = r[i].s.v[k].count;
			a.to = (uint32_t)key;
			a.from_sym = stale ? NO_SYMBOL :
				     symbol_at(ctx, im, key >> 32);
			if (stale)
				im->nr_stale += a.count;
			add_pending(ctx, &a);
		}
		pp_samples_free(&r[i].s);
	}
	close_image(im);
	free(r);
}

static int cmp_file_by_caller(void const *a, void const *b, void *arg)
{
	struct cg const *ctx = arg;
	size_t x = *(size_t const *)a, y = *(size_t const *)b;
	size_t bx = ctx->b_of[x], by = ctx->b_of[y];

	return bx < by ? -1 : bx > by ? 1 : x < y ? -1 : x > y;
}

static int cmp_pending_by_callee(void const *a, void const *b)
{
	struct pending const *x = a, *y = b;

	if (x->to_img != y->to_img)
		return x->to_img < y->to_img ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/* Phase 1: every file, grouped by caller image. */
static void read_callers(struct cg *ctx)
{
	struct pp_filelist const *fl = ctx->files;
	size_t *idx = op_xcalloc(fl->nr_cg + 1, sizeof(*idx));
	size_t n = 0;

	for (size_t i = 0; i < fl->nr_cg; i++)
		if (fl->cg[i].cls >= 0)
			idx[n++] = i;
	if (n > 1)
		qsort_r(idx, n, sizeof(*idx), cmp_file_by_caller, ctx);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && ctx->b_of[idx[j]] == ctx->b_of[idx[i]]; j++)
			;
		read_caller_image(ctx, idx + i, j - i, ctx->b_of[idx[i]]);
	}
	free(idx);
}

/* Phase 2: the callees, image by image. */
static void resolve_callees(struct cg *ctx)
{
	if (ctx->n > 1)
		qsort(ctx->v, ctx->n, sizeof(*ctx->v), cmp_pending_by_callee);
	for (size_t i = 0, j; i < ctx->n; i = j) {
		struct cgimg *im = &ctx->imgs[ctx->v[i].to_img];

		for (j = i + 1; j < ctx->n && ctx->v[j].to_img == ctx->v[i].to_img; j++)
			;
		open_image(ctx, im);
		for (size_t k = i; k < j; k++)
			ctx->v[k].to_sym = k > i && ctx->v[k].to == ctx->v[k - 1].to ?
				ctx->v[k - 1].to_sym :
				symbol_at(ctx, im, ctx->v[k].to);
		close_image(im);
	}
}

/* An arc end as an entry's name. */
struct end {
	char const *app, *image, *symbol;
	bool has_vma, wanted;
	uint64_t vma;
	struct cgsym const *sym;
};

static struct end end_of(struct cg const *ctx, char const *app, size_t img,
			 long sym)
{
	struct cgimg const *im = &ctx->imgs[img];
	struct pp_strlist const *inc = ctx->opts->include;
	struct end e = { .app = app, .image = im->display };

	if (sym == NO_SYMBOL) {
		e.wanted = !(inc && inc->n);
		return e;
	}
	e.sym = &im->syms[sym];
	e.symbol = e.sym->name;
	e.has_vma = true;
	e.vma = e.sym->vma;
	e.wanted = e.sym->wanted;
	return e;
}

/* An entry for an end the samples did not give. */
static void add_end(struct cg *ctx, struct end const *e)
{
	struct pp_profile flat = *ctx->p;
	size_t i;

	flat.n = ctx->nr_flat;
	if (pp_profile_find(&flat, e->app, e->image, e->symbol, e->has_vma,
			    e->vma) >= 0)
		return;
	i = pp_profile_add(ctx->p, e->app, e->image,
			   e->symbol ? op_xstrdup(e->symbol) : NULL,
			   e->has_vma, e->vma);
	ctx->p->v[i].hidden = !e->wanted;
	if (e->sym && e->sym->file) {
		ctx->p->v[i].file = op_xstrdup(e->sym->file);
		ctx->p->v[i].line = e->sym->line;
	}
}

static size_t find_end(struct cg const *ctx, struct end const *e)
{
	long i = pp_profile_find(ctx->p, e->app, e->image, e->symbol,
				 e->has_vma, e->vma);

	if (i < 0)
		BUG("callgraph: no entry for an arc end in %s", e->image);
	return (size_t)i;
}

static int cmp_raw(void const *a, void const *b)
{
	struct raw_arc const *x = a, *y = b;

	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	return x->callee < y->callee ? -1 : x->callee > y->callee;
}

static int cmp_in(void const *a, void const *b, void *arg)
{
	struct pp_profile const *p = arg;
	struct pp_arc const *x = &p->arcs[*(size_t const *)a];
	struct pp_arc const *y = &p->arcs[*(size_t const *)b];

	if (x->callee != y->callee)
		return x->callee < y->callee ? -1 : 1;
	return x->caller < y->caller ? -1 : x->caller > y->caller;
}

/* Phase 3: entries for the ends, and the arcs between them. */
static void make_arcs(struct cg *ctx)
{
	struct pp_profile *p = ctx->p;
	struct raw_arc *raw = op_xcalloc(ctx->n + 1, sizeof(*raw));

	for (size_t i = 0; i < ctx->n; i++) {
		struct pending const *a = &ctx->v[i];
		struct end from = end_of(ctx, a->from_app, a->from_img,
					 a->from_sym);
		struct end to = end_of(ctx, a->to_app, a->to_img, a->to_sym);

		add_end(ctx, &from);
		add_end(ctx, &to);
	}
	pp_profile_finish(p);
	for (size_t i = 0; i < ctx->n; i++) {
		struct pending const *a = &ctx->v[i];
		struct end from = end_of(ctx, a->from_app, a->from_img,
					 a->from_sym);
		struct end to = end_of(ctx, a->to_app, a->to_img, a->to_sym);

		raw[i] = (struct raw_arc){
			.caller = find_end(ctx, &from),
			.callee = find_end(ctx, &to),
			.cls = ctx->files->cg[a->file].cls,
			.count = a->count,
		};
	}
	if (ctx->n > 1)
		qsort(raw, ctx->n, sizeof(*raw), cmp_raw);
	for (size_t i = 0; i < ctx->n; i++) {
		struct pp_arc *last = p->nr_arcs ? &p->arcs[p->nr_arcs - 1] :
				      NULL;

		if (!last || last->caller != raw[i].caller ||
		    last->callee != raw[i].callee) {
			OP_ALLOC_GROW(p->arcs, p->nr_arcs + 1, p->alloc_arcs);
			last = &p->arcs[p->nr_arcs++];
			*last = (struct pp_arc){
				.caller = raw[i].caller,
				.callee = raw[i].callee,
				.counts = op_xcalloc(p->nr_classes,
						     sizeof(uint64_t)),
			};
		}
		last->counts[raw[i].cls] += raw[i].count;
	}
	free(raw);
	p->arcs_in = op_xcalloc(p->nr_arcs + 1, sizeof(*p->arcs_in));
	for (size_t i = 0; i < p->nr_arcs; i++)
		p->arcs_in[i] = i;
	if (p->nr_arcs > 1)
		qsort_r(p->arcs_in, p->nr_arcs, sizeof(*p->arcs_in), cmp_in,
			p);
}

static void free_ctx(struct cg *ctx)
{
	for (size_t i = 0; i < ctx->nr_imgs; i++) {
		struct cgimg *im = &ctx->imgs[i];

		for (size_t s = 0; s < im->nr_syms; s++) {
			free(im->syms[s].name);
			free(im->syms[s].file);
		}
		free(im->syms);
		free(im->display);
	}
	free(ctx->imgs);
	pp_strlist_free(&ctx->apps);
	free(ctx->b_of);
	free(ctx->c_of);
	free(ctx->v);
}

void pp_callgraph_populate(struct pp_profile *p,
			   struct pp_filelist const *files,
			   struct pp_populate_opts const *opts,
			   struct pp_kernels *kernels,
			   struct pp_strlist *notes)
{
	struct cg ctx = {
		.p = p, .files = files, .opts = opts, .kernels = kernels,
		.notes = notes, .nr_flat = p->n,
		.b_of = op_xcalloc(files->nr_cg + 1, sizeof(size_t)),
		.c_of = op_xcalloc(files->nr_cg + 1, sizeof(size_t)),
	};
	size_t unmatched = 0;

	if (!files->nr_cg)
		pp_note(notes, "no call-graph files in the selection (%zu in "
			"the session%s): each symbol is shown with its own "
			"samples only; record with opcontrol --callgraph=DEPTH",
			files->nr_callgraph, files->nr_sessions > 1 ? "s" : "");
	for (size_t i = 0; i < files->nr_cg; i++)
		unmatched += files->cg[i].cls < 0;
	if (unmatched)
		pp_note(notes, "%zu call-graph files match no selected sample "
			"file's event or class and are left out", unmatched);
	list_images(&ctx);
	read_callers(&ctx);
	resolve_callees(&ctx);
	for (size_t i = 0; i < ctx.nr_imgs; i++)
		if (ctx.imgs[i].nr_stale)
			pp_note(notes, "'%s' has changed since it was "
				"profiled: %" PRIu64 " call-graph arcs from "
				"it are shown without symbols",
				ctx.imgs[i].display, ctx.imgs[i].nr_stale);
	make_arcs(&ctx);
	free_ctx(&ctx);
}
