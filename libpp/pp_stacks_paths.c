/*
 * Paths (pp_stacks.h): each stack as its process and its functions root
 * first; stacks naming the same functions in the same process are one
 * path. A stack not unwound to its root starts with its stop label, so
 * the frame where unwinding stopped is the path's second element.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "op_util.h"
#include "pp_stacks.h"

static char const no_image[] = "";

/* The function standing for a stop reason (added on first use). */
static size_t stop_func(struct pp_stacks *st, uint32_t reason)
{
	char *name = pp_stacks_stop_label(reason);

	for (size_t i = 0; i < st->nr_funcs; i++)
		if (st->funcs[i].image == no_image &&
		    !strcmp(st->funcs[i].name, name)) {
			free(name);
			return i;
		}
	OP_ALLOC_GROW(st->funcs, st->nr_funcs + 1, st->alloc_funcs);
	st->funcs[st->nr_funcs] = (struct pp_sfunc){ name, (char *)no_image,
						     false };
	return st->nr_funcs++;
}

static int cmp_path(struct pp_spath const *x, struct pp_spath const *y)
{
	int c = strcmp(x->proc, y->proc);

	for (size_t i = 0; !c && i < x->nr_funcs && i < y->nr_funcs; i++)
		c = x->funcs[i] < y->funcs[i] ? -1 : x->funcs[i] > y->funcs[i];
	if (!c)
		c = x->nr_funcs < y->nr_funcs ? -1 : x->nr_funcs > y->nr_funcs;
	return c;
}

static int cmp_same(void const *a, void const *b)
{
	return cmp_path(a, b);
}

/* Most common first; equal counts in path order (stable output). */
static int cmp_count(void const *a, void const *b)
{
	struct pp_spath const *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return cmp_path(x, y);
}

/* The stop labels' functions, by reason (looked up once each). */
#define NR_CACHED_STOPS 64

static void path_of(struct pp_spath *p, struct pp_stacks *st,
		    struct pp_sstack const *s, enum pp_stacks_group group,
		    size_t *stops)
{
	size_t n = 0;

	p->proc = group == PP_GROUP_PID ?
		  op_xasprintf("%s/%u", s->proc, s->tgid) : op_xstrdup(s->proc);
	p->funcs = op_xcalloc(s->nr_frames + 2, sizeof(*p->funcs));
	if (s->stop >= NR_CACHED_STOPS)
		p->funcs[n++] = stop_func(st, s->stop);
	else if (s->stop) {
		if (stops[s->stop] == SIZE_MAX)
			stops[s->stop] = stop_func(st, s->stop);
		p->funcs[n++] = stops[s->stop];
	}
	for (size_t i = s->nr_frames; i-- > 0;)
		p->funcs[n++] = st->frames[s->frames[i]].func;
	p->nr_funcs = n;
	p->count = s->count;
}

void pp_spaths_build(struct pp_spaths *out, struct pp_stacks *st,
		     enum pp_stacks_group group)
{
	struct pp_spath *v = op_xcalloc(st->n + 1, sizeof(*v));
	size_t n = 0, stops[NR_CACHED_STOPS];

	for (size_t i = 0; i < NR_CACHED_STOPS; i++)
		stops[i] = SIZE_MAX;
	for (size_t i = 0; i < st->n; i++)
		path_of(&v[i], st, &st->v[i], group, stops);
	if (st->n > 1)
		qsort(v, st->n, sizeof(*v), cmp_same);
	for (size_t i = 0; i < st->n; i++) {
		if (n && !cmp_path(&v[n - 1], &v[i])) {
			v[n - 1].count += v[i].count;
			free(v[i].proc);
			free(v[i].funcs);
			continue;
		}
		v[n++] = v[i];
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_count);
	out->v = v;
	out->n = n;
	out->total = st->total;
}

void pp_spaths_free(struct pp_spaths *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].proc);
		free(p->v[i].funcs);
	}
	free(p->v);
	memset(p, 0, sizeof(*p));
}
