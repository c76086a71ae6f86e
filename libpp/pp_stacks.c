/*
 * Reading and symbolising the stacks of a profile (pp_stacks.h).
 *
 * Per session: the stack table is opened (op_stacks.h), its images are
 * parsed as sample file image names (the one parser, op_parse_filename),
 * the stacks of the chosen event whose leaf a selected sample file holds
 * are kept with their raw (image, offset) frames. Then the distinct
 * frames are sorted by image and each image is opened once to name them,
 * exactly as the flat profile names samples.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_build_id.h"
#include "op_hashmap.h"
#include "op_session.h"
#include "op_session_kv.h"
#include "op_stacks.h"
#include "op_util.h"
#include "pp_binary.h"
#include "pp_debuginfo.h"
#include "pp_image.h"
#include "pp_invert.h"
#include "pp_kernel.h"
#include "pp_linenr.h"
#include "pp_notes.h"
#include "pp_profile.h"
#include "pp_sample_file.h"
#include "pp_samples.h"
#include "pp_stacks.h"
#include "pp_symname.h"

/* An image of one session's table, parsed. */
struct timage {
	bool ok;                 /* parsed as a sample file image name */
	char *key;               /* "k:NAME", "u:PATH", "a:NAME/TGID/S/E" */
	size_t global;           /* in st->images */
	size_t proc;             /* as an application: in st->procs */
	bool app_named;          /* anon: display names its program */
};

/* A selected sample file as a stack filter: "LEAFKEY\nAPPKEY" or "\n*". */
struct filt {
	char *key;
	int tgid;                /* -1: any */
};

/* A distinct (image, offset) met while reading, in first-met order. */
struct raw_frame {
	struct op_hashmap_entry ent;
	size_t image;
	uint64_t key;
	size_t final;            /* its index in st->frames, once sorted */
};

struct load {
	struct pp_stacks *st;
	struct pp_filelist const *files;
	struct pp_stacks_opts const *o;
	struct pp_strlist *notes;
	size_t session;
	struct op_stacks *tab;
	struct timage *timg;
	size_t nr_timg;
	struct filt *filt;
	size_t nr_filt;
	struct op_hashmap sel_map;       /* struct sel: selected() memo */
	struct raw_frame **raw;  /* distinct frames; stacks hold indexes */
	size_t nr_raw, alloc_raw;
	struct op_hashmap raw_map;
	size_t alloc_stacks;
	uint64_t nr_bad;         /* frames naming no image of the table */
};

static char *image_key(int kern, int anon, char const *name, int tgid,
		       uint64_t start, uint64_t end)
{
	if (anon)
		return op_xasprintf("a:%s/%d/%" PRIx64 "/%" PRIx64, name, tgid,
				    start, end);
	return op_xasprintf("%c:%s", kern ? 'k' : 'u', name);
}

static char *file_event(struct op_parsed_name const *n)
{
	return op_xasprintf("%s.%d.%d", n->event_name, n->count, n->unit_mask);
}

static char *base_of(char const *path)
{
	char const *b = strrchr(path, '/');

	return op_xstrdup(b && b[1] ? b + 1 : path);
}

static size_t intern_proc(struct pp_stacks *st, char const *name)
{
	for (size_t i = 0; i < st->nr_procs; i++)
		if (!strcmp(st->procs[i], name))
			return i;
	st->procs = op_xrealloc(st->procs, (st->nr_procs + 1) *
				sizeof(*st->procs));
	st->procs[st->nr_procs] = op_xstrdup(name);
	return st->nr_procs++;
}

/* g as the image of a parsed sample file name (kernel aliases applied). */
static void fill_image(struct pp_simage *g, struct op_parsed_name const *pn,
		       size_t session)
{
	g->display = pp_image_display(pn);
	g->path = op_xstrdup(pn->image_name);
	g->base = base_of(g->path);
	g->kern = pn->image_is_kernel;
	g->anon = pn->image_is_anon;
	g->anon_tgid = pn->anon_tgid;
	g->anon_start = pn->anon_start;
	g->anon_end = pn->anon_end;
	g->session = session;
}

/* A table image as a sample file's image: the same parser, same fields. */
static void parse_image(struct load *l, uint32_t i, struct timage *t)
{
	struct op_stack_image const *si = op_stacks_image(l->tab, i);
	struct pp_stacks *st = l->st;
	struct op_parsed_name pn;
	struct pp_simage *g;
	char err[256];

	st->images = op_xrealloc(st->images, (st->nr_images + 1) *
				 sizeof(*st->images));
	t->global = st->nr_images;
	g = &st->images[st->nr_images++];
	memset(g, 0, sizeof(*g));
	g->build_id = si->build_id ? op_xstrdup(si->build_id) : NULL;
	t->ok = !op_parse_image_name(si->name, &pn, err, sizeof(err));
	if (!t->ok) {
		pp_note(l->notes, "stack table of %s: image '%s' is not a "
			"sample file image name (%s): its frames are shown "
			"without symbols", l->files->sessions[l->session].name,
			si->name, err);
		g->display = op_xstrdup(si->name);
		g->path = op_xstrdup(si->name);
		t->key = op_xasprintf("?:%s", si->name);
		g->unparsed = true;
	} else {
		pp_files_kernel_alias(&pn.image_name, &pn.image_is_kernel);
		fill_image(g, &pn, l->session);
		t->key = image_key(pn.image_is_kernel, pn.image_is_anon,
				   pn.image_name, pn.anon_tgid, pn.anon_start,
				   pn.anon_end);
		op_parsed_name_free(&pn);
	}
	if (!g->base)
		g->base = base_of(g->path);
	g->session = l->session;
	t->proc = intern_proc(st, g->base);
}

static int cmp_filt(void const *a, void const *b)
{
	return strcmp(((struct filt const *)a)->key,
		      ((struct filt const *)b)->key);
}

/* The selected files of this session in the chosen event, as filters. */
static void make_filters(struct load *l)
{
	struct pp_filelist const *fl = l->files;

	l->filt = op_xcalloc(fl->n + 1, sizeof(*l->filt));
	for (size_t i = 0; i < fl->n; i++) {
		struct op_parsed_name const *n = &fl->v[i].name;
		char *ev, *b, *a;

		if (fl->v[i].session != l->session)
			continue;
		ev = file_event(n);
		if (strcmp(ev, l->st->event)) {
			free(ev);
			continue;
		}
		free(ev);
		b = image_key(n->image_is_kernel, n->image_is_anon,
			      n->image_name, n->anon_tgid, n->anon_start,
			      n->anon_end);
		a = pp_sfile_is_dependent(n) ?
		    image_key(n->app_is_kernel, 0, n->app_name, 0, 0, 0) :
		    op_xstrdup("*");
		l->filt[l->nr_filt].key = op_xasprintf("%s\n%s", b, a);
		l->filt[l->nr_filt].tgid = n->tgid;
		l->nr_filt++;
		free(a);
		free(b);
	}
	if (l->nr_filt > 1)
		qsort(l->filt, l->nr_filt, sizeof(*l->filt), cmp_filt);
}

static bool filter_has(struct load const *l, char const *key, uint32_t tgid)
{
	struct filt k = { .key = (char *)key };
	struct filt const *f = bsearch(&k, l->filt, l->nr_filt,
				       sizeof(*l->filt), cmp_filt);

	if (!f)
		return false;
	while (f > l->filt && !strcmp(f[-1].key, key))
		f--;
	for (; f < l->filt + l->nr_filt && !strcmp(f->key, key); f++)
		if (f->tgid < 0 || (uint32_t)f->tgid == tgid)
			return true;
	return false;
}

static bool select_by_filters(struct load const *l,
			      struct op_stack const *s)
{
	char const *leaf, *app;
	char *k;
	bool yes;

	leaf = l->timg[s->frames[0].image].key;
	app = l->timg[s->app].key;
	k = op_xasprintf("%s\n%s", leaf, app);
	yes = filter_has(l, k, s->tgid);
	free(k);
	if (!yes) {
		k = op_xasprintf("%s\n*", leaf);
		yes = filter_has(l, k, s->tgid);
		free(k);
	}
	return yes;
}

/* Whether a (leaf image, app, tgid) is selected, worked out once. */
struct sel {
	struct op_hashmap_entry ent;
	uint32_t leaf, app, tgid;
	bool yes;
};

static int cmp_sel(void const *data, struct op_hashmap_entry const *a,
		   struct op_hashmap_entry const *b, void const *keydata)
{
	struct sel const *x = OP_HASHMAP_ENTRY(a, struct sel, ent);
	struct sel const *y = OP_HASHMAP_ENTRY(b, struct sel, ent);

	(void)data;
	(void)keydata;
	return x->leaf != y->leaf || x->app != y->app || x->tgid != y->tgid;
}

static bool selected(struct load *l, struct op_stack const *s)
{
	struct sel k, *e;
	struct op_hashmap_entry *hit;

	if (!s->nframes || s->frames[0].image >= l->nr_timg ||
	    s->app >= l->nr_timg)
		return false;
	k = (struct sel){ .leaf = s->frames[0].image, .app = s->app,
			  .tgid = s->tgid };
	op_hashmap_entry_init(&k.ent, op_hash_u64((uint64_t)k.leaf << 40 ^
						  (uint64_t)k.app << 20 ^
						  k.tgid));
	hit = op_hashmap_get(&l->sel_map, &k.ent, NULL);
	if (hit)
		return OP_HASHMAP_ENTRY(hit, struct sel, ent)->yes;
	e = op_xcalloc(1, sizeof(*e));
	*e = k;
	e->yes = select_by_filters(l, s);
	op_hashmap_add(&l->sel_map, &e->ent);
	return e->yes;
}

static void add_stop(struct pp_stacks *st, uint32_t reason, uint64_t count)
{
	for (size_t i = 0; i < st->nr_stops; i++)
		if (st->stops[i].reason == reason) {
			st->stops[i].count += count;
			return;
		}
	st->stops = op_xrealloc(st->stops, (st->nr_stops + 1) *
				sizeof(*st->stops));
	st->stops[st->nr_stops++] = (struct pp_stop_total){ reason, count };
}

static int cmp_raw_ent(void const *data, struct op_hashmap_entry const *a,
		       struct op_hashmap_entry const *b, void const *keydata)
{
	struct raw_frame const *x = OP_HASHMAP_ENTRY(a, struct raw_frame, ent);
	struct raw_frame const *y = OP_HASHMAP_ENTRY(b, struct raw_frame, ent);

	(void)data;
	(void)keydata;
	return x->image != y->image || x->key != y->key;
}

/* The index of (image, key) among the distinct frames met so far: a
 * stack shares most frames with others, so each is sorted once. */
static size_t intern_raw(struct load *l, size_t image, uint64_t key)
{
	struct raw_frame k = { .image = image, .key = key }, *r;
	struct op_hashmap_entry *hit;

	op_hashmap_entry_init(&k.ent, op_hash_u64(key ^ (uint64_t)image << 48));
	hit = op_hashmap_get(&l->raw_map, &k.ent, NULL);
	if (hit)
		return OP_HASHMAP_ENTRY(hit, struct raw_frame, ent)->final;
	OP_ALLOC_GROW(l->raw, l->nr_raw + 1, l->alloc_raw);
	r = op_xcalloc(1, sizeof(*r));
	*r = k;
	r->final = l->nr_raw;
	l->raw[l->nr_raw] = r;
	op_hashmap_add(&l->raw_map, &r->ent);
	return l->nr_raw++;
}

/* The stacks' frame indexes, many stacks to a block: one allocation per
 * 64k frames, not one per stack (100k+ stacks in a long session). */
struct pp_frame_block {
	struct pp_frame_block *next;
	size_t used, cap;
	size_t v[];
};

static size_t *alloc_frames(struct pp_stacks *st, size_t n)
{
	struct pp_frame_block *b = st->frame_blocks;
	size_t *out;

	if (!b || b->cap - b->used < n) {
		size_t cap = n > 65536 ? n : 65536;

		b = op_xmalloc(sizeof(*b) + (cap + 1) * sizeof(size_t));
		b->used = 0;
		b->cap = cap;
		b->next = st->frame_blocks;
		st->frame_blocks = b;
	}
	out = b->v + b->used;
	b->used += n;
	return out;
}

/*
 * An anonymous region of the table is named after its process's program
 * (pp_anon_display), which only the stacks in it give: the first one's.
 */
static void name_anon(struct load *l, struct timage *t,
		      struct timage const *app)
{
	struct pp_simage *g = &l->st->images[t->global];
	struct pp_simage const *a = &l->st->images[app->global];

	if (!t->ok || t->app_named || !g->anon || a->kern ||
	    OP_MANGLE_ANON_MERGED(g->anon_start, g->anon_end))
		return;
	t->app_named = true;
	free(g->display);
	g->display = pp_anon_display(g->path, g->anon_tgid, a->path);
}

/* One stack of the table: kept with its raw frames when selected. */
static int take_stack(void *arg, struct op_stack const *s, char const *event,
		      uint64_t count)
{
	struct load *l = arg;
	struct pp_stacks *st = l->st;
	struct pp_sstack *d;

	(void)event;
	if (!count || !selected(l, s))
		return 0;
	OP_ALLOC_GROW(st->v, st->n + 1, l->alloc_stacks);
	d = &st->v[st->n++];
	*d = (struct pp_sstack){
		.frames = alloc_frames(st, s->nframes),
		.nr_frames = s->nframes, .tgid = s->tgid,
		.proc = st->procs[l->timg[s->app].proc],
		.stop = s->stop, .count = count,
	};
	st->total += count;
	if (s->stop)
		add_stop(st, s->stop, count);
	for (uint32_t i = 0; i < s->nframes; i++) {
		struct op_stack_frame const *f = &s->frames[i];

		if (f->image >= l->nr_timg) {
			/* the table names no such image: cut the stack here */
			l->nr_bad += count;
			d->nr_frames = i;
			break;
		}
		name_anon(l, &l->timg[f->image], &l->timg[s->app]);
		/* a caller's offset is a return address: look up the call */
		d->frames[i] = intern_raw(l, l->timg[f->image].global,
					  f->offset - (i && f->offset));
	}
	return 0;
}

static void free_session(struct load *l)
{
	for (size_t i = 0; i < l->nr_timg; i++)
		free(l->timg[i].key);
	free(l->timg);
	for (size_t i = 0; i < l->nr_filt; i++)
		free(l->filt[i].key);
	free(l->filt);
	op_hashmap_clear(&l->sel_map,
			 (void (*)(struct op_hashmap_entry *))free);
	l->timg = NULL;
	l->filt = NULL;
	l->nr_timg = l->nr_filt = 0;
}

/* The event used: the first of the selected files; a note if more. */
static void choose_event(struct pp_stacks *st, struct pp_filelist const *fl,
			 struct pp_strlist *notes)
{
	bool more = false;

	for (size_t i = 0; i < fl->n; i++) {
		char *ev = file_event(&fl->v[i].name);

		if (!st->event)
			st->event = ev;
		else {
			more |= strcmp(ev, st->event) != 0;
			free(ev);
		}
	}
	if (more)
		pp_note(notes, "stacks are shown for event %s only (the "
			"selection has more: choose one with event:NAME)",
			st->event);
}

/* When the session started (session.conf start_time), for pprof. */
static int64_t start_time(char const *dir)
{
	char *path = op_xasprintf("%s/%s", dir, OP_SESSION_CONF);
	struct op_kv kv = { 0 };
	char const *v;
	int64_t t = 0;

	if (!op_kv_read(&kv, path) && (v = op_kv_get(&kv, "start_time")))
		t = strtoll(v, NULL, 10);
	op_kv_free(&kv);
	free(path);
	return t;
}

/* The global image of a flat session's file: one per image key. */
static size_t flat_image(struct load *l, struct op_parsed_name const *n,
			 char ***keys, size_t *nr_keys)
{
	struct pp_stacks *st = l->st;
	char *key = image_key(n->image_is_kernel, n->image_is_anon,
			      n->image_name, n->anon_tgid, n->anon_start,
			      n->anon_end);
	size_t first = st->nr_images - *nr_keys;

	for (size_t i = 0; i < *nr_keys; i++)
		if (!strcmp((*keys)[i], key)) {
			free(key);
			return first + i;
		}
	*keys = op_xrealloc(*keys, (*nr_keys + 1) * sizeof(**keys));
	(*keys)[(*nr_keys)++] = key;
	st->images = op_xrealloc(st->images, (st->nr_images + 1) *
				 sizeof(*st->images));
	memset(&st->images[st->nr_images], 0, sizeof(*st->images));
	fill_image(&st->images[st->nr_images], n, l->session);
	return st->nr_images++;
}

/* A selected file's samples as one-frame stacks under its application. */
static int flat_file(struct load *l, struct pp_sfile const *f, size_t image,
		     char *err, size_t errlen)
{
	struct pp_stacks *st = l->st;
	struct op_parsed_name const *n = &f->name;
	struct pp_samples s = { 0 };
	struct opd_header h;
	char *app = base_of(n->app_name ? n->app_name : n->image_name);
	size_t proc_index = intern_proc(st, app);	/* may move st->procs */
	char const *proc = st->procs[proc_index];

	free(app);
	if (pp_samples_read(&s, f->path, &h, err, errlen))
		return -1;
	for (size_t i = 0; i < s.n; i++) {
		struct pp_sstack *d;

		if (!s.v[i].count)
			continue;
		OP_ALLOC_GROW(st->v, st->n + 1, l->alloc_stacks);
		d = &st->v[st->n++];
		*d = (struct pp_sstack){
			.frames = alloc_frames(st, 1), .nr_frames = 1,
			.tgid = n->tgid > 0 ? (uint32_t)n->tgid : 0,
			.proc = proc, .count = s.v[i].count,
		};
		d->frames[0] = intern_raw(l, image, s.v[i].key);
		st->total += s.v[i].count;
		st->flat += s.v[i].count;
	}
	pp_samples_free(&s);
	return 0;
}

/*
 * A session recorded without stacks (no stack table): every selected
 * sample file of the chosen event gives one-frame stacks, the sampled
 * function under its process, so that --stacks, --folded, --pprof and
 * --flame work on a flat profile as perf's and pprof's tools do (a flame
 * graph two deep: process, then function).
 */
static int read_flat_session(struct load *l, char *err, size_t errlen)
{
	struct pp_filelist const *fl = l->files;
	char **keys = NULL;
	size_t nr_keys = 0;
	int rc = 0;

	if (!l->st->start_time)
		l->st->start_time = start_time(fl->sessions[l->session].dir);
	for (size_t i = 0; i < fl->n && !rc; i++) {
		struct pp_sfile const *f = &fl->v[i];
		char *ev;

		if (f->session != l->session)
			continue;
		ev = file_event(&f->name);
		if (!strcmp(ev, l->st->event))
			rc = flat_file(l, f, flat_image(l, &f->name, &keys,
							&nr_keys), err, errlen);
		free(ev);
	}
	for (size_t i = 0; i < nr_keys; i++)
		free(keys[i]);
	free(keys);
	if (!rc)
		pp_note(l->notes, "session '%s' has no stack table (recorded "
			"without --callgraph): each sample is shown as its "
			"function under its process",
			fl->sessions[l->session].name);
	return rc;
}

static int read_session(struct load *l, char *err, size_t errlen)
{
	char const *dir = l->files->sessions[l->session].dir;
	int rc = op_stacks_open(dir, &l->tab);

	if (rc == -ENOENT)
		return read_flat_session(l, err, errlen);
	if (rc) {
		snprintf(err, errlen, "cannot read the stack table of "
			 "session '%s' (%s)", l->files->sessions[l->session].name,
			 dir);
		return -1;
	}
	if (!l->st->start_time)
		l->st->start_time = start_time(dir);
	op_hashmap_init(&l->sel_map, cmp_sel, NULL, 0);
	l->nr_timg = op_stacks_nimages(l->tab);
	l->timg = op_xcalloc(l->nr_timg + 1, sizeof(*l->timg));
	for (uint32_t i = 0; i < l->nr_timg; i++)
		parse_image(l, i, &l->timg[i]);
	make_filters(l);
	rc = op_stacks_foreach(l->tab, l->st->event, take_stack, l);
	op_stacks_close(l->tab);
	free_session(l);
	if (rc) {
		snprintf(err, errlen, "reading the stack table of session "
			 "'%s' (%s) failed", l->files->sessions[l->session].name,
			 dir);
		return -1;
	}
	return 0;
}

static int cmp_raw(void const *a, void const *b)
{
	struct raw_frame const *x = *(struct raw_frame * const *)a;
	struct raw_frame const *y = *(struct raw_frame * const *)b;

	if (x->image != y->image)
		return x->image < y->image ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

static void free_raw(struct load *l)
{
	for (size_t i = 0; i < l->nr_raw; i++)
		free(l->raw[i]);
	free(l->raw);
	l->raw = NULL;
	l->nr_raw = 0;
	op_hashmap_clear(&l->raw_map, NULL);
}

/* The distinct frames, sorted by image and offset, become st->frames;
 * the stacks' first-met indexes are renumbered to them. */
static void make_frames(struct load *l)
{
	struct pp_stacks *st = l->st;
	size_t *final = op_xcalloc(l->nr_raw + 1, sizeof(*final));

	/* ->final is still the first-met index the stacks hold */
	if (l->nr_raw > 1)
		qsort(l->raw, l->nr_raw, sizeof(*l->raw), cmp_raw);
	st->frames = op_xcalloc(l->nr_raw + 1, sizeof(*st->frames));
	for (size_t i = 0; i < l->nr_raw; i++) {
		struct raw_frame const *r = l->raw[i];

		final[r->final] = i;
		st->frames[st->nr_frames++] = (struct pp_sframe){
			.image = r->image, .key = r->key,
		};
		if (r->key > st->images[r->image].max_key)
			st->images[r->image].max_key = r->key;
	}
	for (size_t i = 0; i < st->n; i++)
		for (size_t k = 0; k < st->v[i].nr_frames; k++)
			st->v[i].frames[k] = final[st->v[i].frames[k]];
	free(final);
	free_raw(l);
}

/* --- naming frames ------------------------------------------------------ */

struct func_ent {
	struct op_hashmap_entry ent;
	size_t idx;
};

static int cmp_func(void const *data, struct op_hashmap_entry const *a,
		    struct op_hashmap_entry const *b, void const *keydata)
{
	struct pp_stacks const *st = data;
	struct pp_sfunc const *x = &st->funcs[OP_HASHMAP_ENTRY(a, struct func_ent, ent)->idx];
	struct pp_sfunc const *y = keydata;

	(void)b;
	return strcmp(x->name, y->name) || strcmp(x->image, y->image);
}

/* The function named so in image (name taken over), its index. */
static size_t intern_func(struct pp_stacks *st, struct op_hashmap *map,
			  char *name, char const *image, bool has_symbol)
{
	struct pp_sfunc k = { name, (char *)image, has_symbol };
	struct func_ent key, *e;
	struct op_hashmap_entry *hit;

	op_hashmap_entry_init(&key.ent, op_hash_str(name) ^ op_hash_str(image));
	hit = op_hashmap_get(map, &key.ent, &k);
	if (hit) {
		free(name);
		return OP_HASHMAP_ENTRY(hit, struct func_ent, ent)->idx;
	}
	OP_ALLOC_GROW(st->funcs, st->nr_funcs + 1, st->alloc_funcs);
	st->funcs[st->nr_funcs] = k;
	e = op_xcalloc(1, sizeof(*e));
	e->idx = st->nr_funcs;
	op_hashmap_entry_init(&e->ent, key.ent.hash);
	op_hashmap_add(map, &e->ent);
	return st->nr_funcs++;
}

/* The source lines of a frame, innermost first; the outermost is the
 * symbol as the flat profile names it. */
static void frame_lines(struct pp_stacks *st, struct pp_sframe *f,
			struct pp_binary const *b, enum pp_demangle d)
{
	struct pp_lineinfo *li = NULL;
	size_t n = 0;

	if (f->has_vma)
		n = pp_binary_lines(b, f->vma, &li);
	f->lines = op_xcalloc(n + 1, sizeof(*f->lines));
	for (size_t i = 0; i < n; i++) {
		f->lines[i].func = li[i].func ? pp_demangle(li[i].func, d) :
				   NULL;
		f->lines[i].file = li[i].file;
		f->lines[i].line = li[i].line;
		free(li[i].func);
	}
	free(li);
	if (!n)
		n = 1;
	free(f->lines[n - 1].func);
	f->lines[n - 1].func = op_xstrdup(st->funcs[f->func].name);
	for (size_t i = 0; i + 1 < n; i++)
		if (!f->lines[i].func)
			f->lines[i].func = op_xstrdup("??");
	f->nr_lines = n;
}

/* Name the frames [from, to) of one image. */
static void name_image(struct load *l, struct op_hashmap *map,
		       struct pp_kernels *kernels, size_t from, size_t to)
{
	struct pp_stacks *st = l->st;
	struct pp_simage *g = &st->images[st->frames[from].image];
	struct pp_image_ref ref = {
		.name = g->path, .display = g->display, .kern = g->kern,
		.anon = g->anon, .anon_tgid = g->anon_tgid,
		.anon_start = g->anon_start, .anon_end = g->anon_end,
		.session = g->session,
	};
	struct pp_image im = { 0 };
	struct pp_symtab const *t = &im.bin.symtab;
	char what[8192];

	if (!g->anon && !g->unparsed) {
		/* the table's build-id of the sampled build, else the
		 * session's (pp_image_find) */
		if (!g->kern && pp_image_find(&im, &ref, l->o->locate,
					      l->files->sessions[g->session].dir,
					      g->build_id, l->notes))
			g->rebuilt = true;
		else if (pp_image_open(&im, &ref, g->kern, kernels, what,
				       sizeof(what)))
			pp_note(l->notes, "%s: its stack frames are shown "
				"without symbols", what);
	} else if (g->anon && pp_image_open(&im, &ref, false, kernels, what,
					    sizeof(what))) {
		pp_note(l->notes, "%s: its stack frames are shown without "
			"symbols", what);
	}
	for (size_t i = from; i < to; i++) {
		struct pp_sframe *f = &st->frames[i];
		struct pp_symbol const *s = NULL;

		f->has_vma = pp_binary_vma(&im.bin, f->key, &f->vma);
		if (f->has_vma)
			s = pp_symtab_find(t, f->vma);
		if (s)
			f->func = intern_func(st, map,
					      pp_symbol_display(t, s, l->o->demangle),
					      g->display, true);
		else
			f->func = intern_func(st, map, *g->base == '[' ?
					      op_xstrdup(g->base) :
					      op_xasprintf("[%s]", g->base),
					      g->display, false);
		if (l->o->lines)
			frame_lines(st, f, &im.bin, l->o->demangle);
	}
	pp_image_free(&im);
}

static void name_frames(struct load *l)
{
	struct pp_stacks *st = l->st;
	struct op_hashmap map;
	struct pp_kernels kernels;

	op_hashmap_init(&map, cmp_func, st, 0);
	pp_kernels_init(&kernels, l->files, l->notes);
	for (size_t i = 0, j; i < st->nr_frames; i = j) {
		for (j = i + 1; j < st->nr_frames &&
		     st->frames[j].image == st->frames[i].image; j++)
			;
		name_image(l, &map, &kernels, i, j);
	}
	pp_kernels_free(&kernels);
	op_hashmap_clear(&map, (void (*)(struct op_hashmap_entry *))free);
}

int pp_stacks_load(struct pp_stacks *st, struct pp_filelist const *files,
		   struct pp_stacks_opts const *o, struct pp_strlist *notes,
		   char *err, size_t errlen)
{
	struct load l = { .st = st, .files = files, .o = o, .notes = notes };

	memset(st, 0, sizeof(*st));
	op_hashmap_init(&l.raw_map, cmp_raw_ent, NULL, 0);
	choose_event(st, files, notes);
	if (!st->event) {
		snprintf(err, errlen, "no sample files selected");
		free_raw(&l);
		return -1;
	}
	for (l.session = 0; l.session < files->nr_sessions; l.session++) {
		int rc = read_session(&l, err, errlen);

		if (rc < 0) {
			free_raw(&l);
			pp_stacks_free(st);
			return -1;
		}
	}
	if (l.nr_bad)
		pp_note(notes, "%" PRIu64 " samples' stacks name an image the "
			"stack table does not have: cut there", l.nr_bad);
	make_frames(&l);
	name_frames(&l);
	return 0;
}

void pp_stacks_free(struct pp_stacks *st)
{
	for (size_t i = 0; i < st->nr_images; i++) {
		free(st->images[i].display);
		free(st->images[i].base);
		free(st->images[i].path);
		free(st->images[i].build_id);
	}
	for (size_t i = 0; i < st->nr_frames; i++) {
		for (size_t k = 0; k < st->frames[i].nr_lines; k++) {
			free(st->frames[i].lines[k].func);
			free(st->frames[i].lines[k].file);
		}
		free(st->frames[i].lines);
	}
	for (size_t i = 0; i < st->nr_funcs; i++)
		free(st->funcs[i].name);
	while (st->frame_blocks) {
		struct pp_frame_block *b = st->frame_blocks;

		st->frame_blocks = b->next;
		free(b);
	}
	for (size_t i = 0; i < st->nr_procs; i++)
		free(st->procs[i]);
	free(st->procs);
	free(st->images);
	free(st->frames);
	free(st->funcs);
	free(st->v);
	free(st->stops);
	free(st->event);
	memset(st, 0, sizeof(*st));
}

size_t *pp_stacks_alloc_frames(struct pp_stacks *st, size_t n)
{
	return alloc_frames(st, n);
}

char *pp_stacks_stop_label(uint32_t reason)
{
	return op_xasprintf("[unwinding stopped: %s]",
			    op_unwind_stop_name(reason));
}
