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

#include "op_hashmap.h"
#include "op_util.h"
#include "pp_stacks.h"
#include "pp_stacks_paths.h"

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

/*
 * A distinct path while building: its process (interned, so compared by
 * pointer), tgid when grouped by pid, and its functions root first.
 */
struct path_ent {
	struct op_hashmap_entry ent;
	char const *proc;
	uint32_t tgid;
	size_t *funcs;
	size_t nr_funcs;
	size_t idx;              /* in the paths being built */
};

static int cmp_path_ent(void const *data, struct op_hashmap_entry const *a,
			struct op_hashmap_entry const *b, void const *keydata)
{
	struct path_ent const *x = OP_HASHMAP_ENTRY(a, struct path_ent, ent);
	struct path_ent const *y = OP_HASHMAP_ENTRY(b, struct path_ent, ent);

	(void)data;
	(void)keydata;
	return x->proc != y->proc || x->tgid != y->tgid ||
	       x->nr_funcs != y->nr_funcs ||
	       memcmp(x->funcs, y->funcs, x->nr_funcs * sizeof(*x->funcs));
}

/* s's functions root first into funcs (nr_frames + 1 long), their number. */
static size_t funcs_of(size_t *funcs, struct pp_stacks *st,
		       struct pp_sstack const *s, size_t *stops)
{
	size_t n = 0;

	if (s->stop >= NR_CACHED_STOPS)
		funcs[n++] = stop_func(st, s->stop);
	else if (s->stop) {
		if (stops[s->stop] == SIZE_MAX)
			stops[s->stop] = stop_func(st, s->stop);
		funcs[n++] = stops[s->stop];
	}
	for (size_t i = s->nr_frames; i-- > 0;)
		funcs[n++] = st->frames[s->frames[i]].func;
	return n;
}

/* The path of s, new or met before (a hash: most stacks share one). */
static void add_path(struct pp_spath *v, size_t *n, struct op_hashmap *map,
		     struct path_ent *k, struct pp_sstack const *s,
		     enum pp_stacks_group group)
{
	struct op_hashmap_entry *hit;
	struct path_ent *e;

	op_hashmap_entry_init(&k->ent, op_hash_mem(k->funcs, k->nr_funcs *
					sizeof(*k->funcs)) ^
			      op_hash_u64((uintptr_t)k->proc ^
					  (uint64_t)k->tgid << 32));
	hit = op_hashmap_get(map, &k->ent, NULL);
	if (hit) {
		v[OP_HASHMAP_ENTRY(hit, struct path_ent, ent)->idx].count +=
			s->count;
		return;
	}
	e = op_xcalloc(1, sizeof(*e));
	*e = *k;
	e->idx = *n;
	e->funcs = op_xcalloc(k->nr_funcs + 1, sizeof(*e->funcs));
	memcpy(e->funcs, k->funcs, k->nr_funcs * sizeof(*k->funcs));
	op_hashmap_add(map, &e->ent);
	v[(*n)++] = (struct pp_spath){
		.proc = group == PP_GROUP_PID ?
			op_xasprintf("%s/%u", s->proc, s->tgid) :
			op_xstrdup(s->proc),
		.funcs = e->funcs, .nr_funcs = e->nr_funcs,
		.count = s->count,
	};
}

void pp_spaths_build(struct pp_spaths *out, struct pp_stacks *st,
		     enum pp_stacks_group group)
{
	struct pp_spath *v = op_xcalloc(st->n + 1, sizeof(*v));
	size_t n = 0, max = 0, stops[NR_CACHED_STOPS], *scratch;
	struct op_hashmap map;

	for (size_t i = 0; i < NR_CACHED_STOPS; i++)
		stops[i] = SIZE_MAX;
	for (size_t i = 0; i < st->n; i++)
		if (st->v[i].nr_frames > max)
			max = st->v[i].nr_frames;
	scratch = op_xcalloc(max + 2, sizeof(*scratch));
	op_hashmap_init(&map, cmp_path_ent, NULL, 0);
	for (size_t i = 0; i < st->n; i++) {
		struct pp_sstack const *s = &st->v[i];
		struct path_ent k = {
			.proc = s->proc, .funcs = scratch,
			.tgid = group == PP_GROUP_PID ? s->tgid : 0,
		};

		k.nr_funcs = funcs_of(scratch, st, s, stops);
		add_path(v, &n, &map, &k, s, group);
	}
	/* the paths own their funcs; the entries only borrowed them */
	op_hashmap_clear(&map, (void (*)(struct op_hashmap_entry *))free);
	free(scratch);
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
