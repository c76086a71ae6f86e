/* Differential profiles: classes and matched entries; see pp_diff.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_message.h"
#include "pp_diff.h"
#include "pp_output.h"

static void copy_class(struct pp_class *dst, struct pp_class const *src,
		       char const *label)
{
	*dst = *src;
	dst->event = op_xstrdup(src->event);
	dst->label = op_xstrdup(label);
}

int pp_diff_classes(struct pp_classes *out, struct pp_classes const *old,
		    struct pp_classes const *new, char *err, size_t errlen)
{
	if (old->n != 1 || new->n != 1) {
		snprintf(err, errlen, "a differential profile compares one "
			 "class per side, but the %s specification gives %zu "
			 "(%s...); narrow it or use -m", old->n != 1 ? "first" :
			 "second", old->n != 1 ? old->n : new->n,
			 old->n != 1 ? old->v[0].label : new->v[0].label);
		return -1;
	}
	memset(out, 0, sizeof(*out));
	out->v = op_xcalloc(2, sizeof(*out->v));
	out->n = 2;
	out->axis = PP_AXIS_NONE;
	copy_class(&out->v[0], &old->v[0], "old");
	copy_class(&out->v[1], &new->v[0], "new");
	return 0;
}

struct ref {
	struct pp_entry const *e;
	int side;
	char const *app, *image;    /* as matched */
};

/* Entries that a report would show as the same row. */
static int cmp_shown(struct ref const *a, struct ref const *b)
{
	int c = strcmp(a->app, b->app);

	if (!c)
		c = strcmp(a->image, b->image);
	if (!c && (!a->e->symbol || !b->e->symbol))
		c = !!a->e->symbol - !!b->e->symbol;
	if (!c && a->e->symbol)
		c = strcmp(a->e->symbol, b->e->symbol);
	return c;
}

static int cmp_ref(void const *pa, void const *pb)
{
	struct ref const *a = pa, *b = pb;
	int c = cmp_shown(a, b);

	return c ? c : a->side - b->side;
}

static void add_refs(struct ref *refs, size_t *n, struct pp_profile const *p,
		     int side, bool long_names)
{
	for (size_t i = 0; i < p->n; i++) {
		refs[*n] = (struct ref){
			.e = &p->v[i], .side = side,
			.app = pp_short_name(p->v[i].app, long_names),
			.image = pp_short_name(p->v[i].image, long_names),
		};
		(*n)++;
	}
}

void pp_diff_profiles(struct pp_profile *out, struct pp_profile const *old,
		      struct pp_profile const *new, bool long_names)
{
	struct ref *refs = op_xcalloc(old->n + new->n, sizeof(*refs));
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	out->nr_classes = 2;
	out->nr_bad_files = old->nr_bad_files + new->nr_bad_files;
	add_refs(refs, &n, old, 0, long_names);
	add_refs(refs, &n, new, 1, long_names);
	if (n > 1)
		qsort(refs, n, sizeof(*refs), cmp_ref);
	for (size_t i = 0; i < n; i++) {
		struct pp_entry const *e = refs[i].e;
		struct pp_entry *d;

		if (!i || cmp_shown(&refs[i - 1], &refs[i]))
			pp_profile_add(out, e->app, e->image,
				       e->symbol ? op_xstrdup(e->symbol) : NULL,
				       e->has_vma, e->vma);
		d = &out->v[out->n - 1];
		d->counts[refs[i].side] += e->counts[0];
		if (refs[i].side == 1 && e->has_vma) {
			d->has_vma = true;
			d->vma = e->vma;
		}
		if (e->file && !d->file) {
			d->file = op_xstrdup(e->file);
			d->line = e->line;
		}
	}
	free(refs);
	pp_profile_finish(out);
}
