/*
 * The entry store of a profile (see pp_profile.h): adding entries and
 * per-address details, folding details, merging duplicate entries, class
 * totals. pp_populate.c decides what goes in.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "op_util.h"
#include "pp_profile.h"

size_t pp_profile_add(struct pp_profile *p, char const *app,
		      char const *image, char *symbol, bool has_vma,
		      uint64_t vma)
{
	OP_ALLOC_GROW(p->v, p->n + 1, p->alloc);
	p->v[p->n] = (struct pp_entry){
		.app = op_xstrdup(app),
		.image = op_xstrdup(image),
		.symbol = symbol,
		.has_vma = has_vma,
		.vma = vma,
		.counts = op_xcalloc(p->nr_classes, sizeof(uint64_t)),
	};
	return p->n++;
}

void pp_entry_add_detail(struct pp_entry *e, uint64_t vma, int cls,
			 uint64_t count)
{
	OP_ALLOC_GROW(e->raw, e->nr_raw + 1, e->alloc_raw);
	e->raw[e->nr_raw++] = (struct pp_raw_detail){ vma, cls, count };
}

static int cmp_raw(void const *pa, void const *pb)
{
	struct pp_raw_detail const *a = pa, *b = pb;

	return a->vma < b->vma ? -1 : a->vma > b->vma;
}

static void fold_entry(struct pp_entry *e, size_t nr_classes)
{
	if (e->nr_raw > 1)
		qsort(e->raw, e->nr_raw, sizeof(*e->raw), cmp_raw);
	for (size_t i = 0; i < e->nr_raw; i++) {
		struct pp_detail *d = e->nr_details ?
				      &e->details[e->nr_details - 1] : NULL;

		if (!d || d->vma != e->raw[i].vma) {
			OP_ALLOC_GROW(e->details, e->nr_details + 1,
				      e->alloc_details);
			d = &e->details[e->nr_details++];
			*d = (struct pp_detail){
				.vma = e->raw[i].vma,
				.counts = op_xcalloc(nr_classes,
						     sizeof(uint64_t)),
			};
		}
		d->counts[e->raw[i].cls] += e->raw[i].count;
	}
	free(e->raw);
	e->raw = NULL;
	e->nr_raw = e->alloc_raw = 0;
}

void pp_profile_fold_details(struct pp_profile *p, size_t from)
{
	for (size_t i = from; i < p->n; i++)
		fold_entry(&p->v[i], p->nr_classes);
}

static int cmp_str(char const *a, char const *b)
{
	if (!a || !b)
		return !!a - !!b;
	return strcmp(a, b);
}

static int cmp_entry(void const *pa, void const *pb)
{
	struct pp_entry const *a = pa, *b = pb;
	int c = strcmp(a->app, b->app);

	if (!c)
		c = strcmp(a->image, b->image);
	if (!c)
		c = cmp_str(a->symbol, b->symbol);
	if (!c)
		c = a->has_vma - b->has_vma;
	if (!c && a->vma != b->vma)
		c = a->vma < b->vma ? -1 : 1;
	return c;
}

static void free_details(struct pp_entry *e)
{
	for (size_t i = 0; i < e->nr_details; i++) {
		free(e->details[i].counts);
		free(e->details[i].file);
	}
	free(e->details);
	e->details = NULL;
	e->nr_details = 0;
	e->alloc_details = 0;
}

static void free_entry(struct pp_entry *e)
{
	free(e->app);
	free(e->image);
	free(e->symbol);
	free(e->file);
	free(e->counts);
	free(e->raw);
	free_details(e);
}

/* Add src (then freed) into dst: counts and details. */
static void merge_into(struct pp_entry *dst, struct pp_entry *src,
		       size_t nr_classes)
{
	dst->hidden = dst->hidden && src->hidden;
	if (!dst->file && src->file) {
		dst->file = src->file;
		dst->line = src->line;
		src->file = NULL;
	}
	for (size_t c = 0; c < nr_classes; c++)
		dst->counts[c] += src->counts[c];
	for (size_t i = 0; i < dst->nr_details; i++)
		for (size_t c = 0; c < nr_classes; c++)
			pp_entry_add_detail(dst, dst->details[i].vma, (int)c,
					    dst->details[i].counts[c]);
	for (size_t i = 0; i < src->nr_details; i++)
		for (size_t c = 0; c < nr_classes; c++)
			pp_entry_add_detail(dst, src->details[i].vma, (int)c,
					    src->details[i].counts[c]);
	free_details(dst);
	fold_entry(dst, nr_classes);
	free_entry(src);
}

void pp_profile_finish(struct pp_profile *p)
{
	size_t out = 0;

	if (p->n > 1)
		qsort(p->v, p->n, sizeof(*p->v), cmp_entry);
	for (size_t i = 0; i < p->n; i++) {
		if (out && !cmp_entry(&p->v[out - 1], &p->v[i]))
			merge_into(&p->v[out - 1], &p->v[i], p->nr_classes);
		else
			p->v[out++] = p->v[i];
	}
	p->n = out;
	free(p->totals);
	p->totals = op_xcalloc(p->nr_classes, sizeof(uint64_t));
	for (size_t i = 0; i < p->n; i++)
		for (size_t c = 0; c < p->nr_classes; c++)
			p->totals[c] += p->v[i].counts[c];
}

bool pp_profile_has_dependents(struct pp_profile const *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->v[i].app, p->v[i].image))
			return true;
	return false;
}

long pp_profile_find(struct pp_profile const *p, char const *app,
		     char const *image, char const *symbol, bool has_vma,
		     uint64_t vma)
{
	struct pp_entry key = {
		.app = (char *)app, .image = (char *)image,
		.symbol = (char *)symbol, .has_vma = has_vma, .vma = vma,
	};
	/* an empty profile (every sample file refused) has no array at all */
	struct pp_entry const *e = p->n ? bsearch(&key, p->v, p->n,
						  sizeof(*p->v), cmp_entry)
					: NULL;

	return e ? e - p->v : -1;
}

bool pp_profile_has_image(struct pp_profile const *p, char const *app,
			  char const *image)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {        /* the first entry >= (app, image) */
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(p->v[mid].app, app);

		if (!c)
			c = strcmp(p->v[mid].image, image);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->n && !strcmp(p->v[lo].app, app) &&
	       !strcmp(p->v[lo].image, image);
}

/* The first of the n sorted indexes whose arc has entry i at that end. */
static size_t lower_bound(struct pp_profile const *p, size_t const *idx,
			  size_t n, size_t i, bool by_callee)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct pp_arc const *a = &p->arcs[idx ? idx[mid] : mid];

		if ((by_callee ? a->callee : a->caller) < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t pp_arcs_out(struct pp_profile const *p, size_t i, size_t *first)
{
	size_t n = 0;

	*first = lower_bound(p, NULL, p->nr_arcs, i, false);
	while (*first + n < p->nr_arcs && p->arcs[*first + n].caller == i)
		n++;
	return n;
}

size_t pp_arcs_in(struct pp_profile const *p, size_t i, size_t *first)
{
	size_t n = 0;

	*first = lower_bound(p, p->arcs_in, p->nr_arcs, i, true);
	while (*first + n < p->nr_arcs &&
	       p->arcs[p->arcs_in[*first + n]].callee == i)
		n++;
	return n;
}

void pp_profile_free(struct pp_profile *p)
{
	for (size_t i = 0; i < p->n; i++)
		free_entry(&p->v[i]);
	for (size_t i = 0; i < p->nr_arcs; i++)
		free(p->arcs[i].counts);
	free(p->arcs);
	free(p->arcs_in);
	free(p->v);
	free(p->totals);
	memset(p, 0, sizeof(*p));
}
