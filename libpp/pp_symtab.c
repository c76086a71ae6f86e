/*
 * Sorted symbol ranges and lookup (see pp_symtab.h). Shared by the bfd and
 * kallsyms sources so both end symbols and break ties the same way.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_util.h"
#include "pp_symtab.h"

#define POOL_CHUNK 65536

struct pool_chunk {
	struct pool_chunk *next;
	size_t used, size;
	char data[];
};

struct pp_strpool {
	struct pool_chunk *chunks;   /* the one being filled first */
	unsigned refs;
};

struct pp_strpool *pp_strpool_new(void)
{
	struct pp_strpool *p = op_xcalloc(1, sizeof(*p));

	p->refs = 1;
	return p;
}

void pp_strpool_unref(struct pp_strpool *p)
{
	if (!p || --p->refs)
		return;
	while (p->chunks) {
		struct pool_chunk *c = p->chunks;

		p->chunks = c->next;
		free(c);
	}
	free(p);
}

static char *pool_strdup(struct pp_strpool *p, char const *s)
{
	size_t len = strlen(s) + 1;
	struct pool_chunk *c = p->chunks;
	char *out;

	if (!c || c->size - c->used < len) {
		size_t size = len > POOL_CHUNK ? len : POOL_CHUNK;

		c = op_xmalloc(sizeof(*c) + size);
		c->used = 0;
		c->size = size;
		c->next = p->chunks;
		p->chunks = c;
	}
	out = c->data + c->used;
	memcpy(out, s, len);
	c->used += len;
	return out;
}

void pp_symtab_use_pool(struct pp_symtab *t, struct pp_strpool *pool)
{
	pp_strpool_unref(t->pool);
	pool->refs++;
	t->pool = pool;
}

void pp_symtab_copy(struct pp_symtab *dst, struct pp_symtab const *src)
{
	memset(dst, 0, sizeof(*dst));
	if (!src->pool) {
		for (size_t i = 0; i < src->n; i++)
			pp_symtab_add(dst, src->v[i].name, src->v[i].start,
				      src->v[i].limit, src->v[i].rank,
				      src->v[i].is_range);
		pp_symtab_finish(dst);
		return;
	}
	/* finished already: sorted, unique, ends set; the names shared */
	pp_symtab_use_pool(dst, src->pool);
	dst->v = op_xmalloc((src->n + 1) * sizeof(*dst->v));
	memcpy(dst->v, src->v, src->n * sizeof(*dst->v));
	dst->n = dst->alloc = src->n;
}

void pp_symtab_add(struct pp_symtab *t, char const *name, uint64_t start,
		   uint64_t limit, int rank, bool is_range)
{
	OP_ALLOC_GROW(t->v, t->n + 1, t->alloc);
	t->v[t->n] = (struct pp_symbol){
		.name = t->pool ? pool_strdup(t->pool, name) : op_xstrdup(name), .start = start, .end = limit,
		.limit = limit, .rank = rank, .is_range = is_range, .next = -1,
	};
	t->n++;
}

/* By address; at one address the preferred symbol first. */
static int cmp_sym(void const *pa, void const *pb)
{
	struct pp_symbol const *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->rank != b->rank)
		return b->rank - a->rank;
	return strcmp(a->name, b->name);
}

static bool is_sorted(struct pp_symtab const *t)
{
	for (size_t i = 1; i < t->n; i++)
		if (cmp_sym(&t->v[i - 1], &t->v[i]) > 0)
			return false;
	return true;
}

static bool starts_sorted(struct pp_symtab const *t)
{
	for (size_t i = 1; i < t->n; i++)
		if (t->v[i - 1].start > t->v[i].start)
			return false;
	return true;
}

/*
 * By cmp_sym. kallsyms lists the kernel's functions by address with a few
 * hundred aliases at one address in no order: then only those runs need
 * sorting. qsort is glibc's stable merge sort, so sorting each run alone
 * gives what sorting the whole would.
 */
static void sort_symbols(struct pp_symtab *t)
{
	size_t i, j;

	if (t->n < 2 || is_sorted(t))
		return;
	if (!starts_sorted(t)) {
		qsort(t->v, t->n, sizeof(*t->v), cmp_sym);
		return;
	}
	for (i = 0; i < t->n; i = j) {
		for (j = i + 1; j < t->n && t->v[j].start == t->v[i].start; j++)
			;
		if (j - i > 1)
			qsort(t->v + i, j - i, sizeof(*t->v), cmp_sym);
	}
}

void pp_symtab_finish(struct pp_symtab *t)
{
	size_t out = 0;

	sort_symbols(t);
	for (size_t i = 0; i < t->n; i++) {
		if (out && t->v[out - 1].start == t->v[i].start) {
			if (!t->pool)
				free(t->v[i].name);
			continue;
		}
		t->v[out++] = t->v[i];
	}
	t->n = out;
	for (size_t i = 0; i < t->n; i++) {
		struct pp_symbol *s = &t->v[i];

		s->end = s->limit;
		if (i + 1 < t->n && t->v[i + 1].start < s->end)
			s->end = t->v[i + 1].start;
		if (s->end <= s->start)
			s->end = s->start + 1;
		if (s->is_range && i + 1 < t->n && t->v[i + 1].start == s->end)
			s->next = (long)(i + 1);
	}
}

static int starts_by(void const *sym, void const *vma)
{
	return ((struct pp_symbol const *)sym)->start <= *(uint64_t const *)vma;
}

struct pp_symbol const *pp_symtab_find(struct pp_symtab const *t,
				       uint64_t vma)
{
	size_t lo = op_partition_point(t->v, t->n, sizeof(t->v[0]),
				       starts_by, &vma);

	if (!lo || vma >= t->v[lo - 1].end)
		return NULL;
	return &t->v[lo - 1];
}

void pp_symtab_free(struct pp_symtab *t)
{
	for (size_t i = 0; !t->pool && i < t->n; i++)
		free(t->v[i].name);
	pp_strpool_unref(t->pool);
	free(t->v);
	memset(t, 0, sizeof(*t));
}
