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

void pp_symtab_add(struct pp_symtab *t, char const *name, uint64_t start,
		   uint64_t limit, int rank, bool is_range)
{
	OP_ALLOC_GROW(t->v, t->n + 1, t->alloc);
	t->v[t->n] = (struct pp_symbol){
		.name = op_xstrdup(name), .start = start, .end = limit,
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

void pp_symtab_finish(struct pp_symtab *t)
{
	size_t out = 0;

	/* a copy of a finished table (a kernel image's kallsyms symbols,
	 * 100k+) comes in order: a merge sort would still pay n log n */
	if (t->n > 1 && !is_sorted(t))
		qsort(t->v, t->n, sizeof(*t->v), cmp_sym);
	for (size_t i = 0; i < t->n; i++) {
		if (out && t->v[out - 1].start == t->v[i].start) {
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
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	memset(t, 0, sizeof(*t));
}
