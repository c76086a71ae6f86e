/* The samples of sample files held in memory; see pp_samples.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "op_util.h"
#include "pp_samples.h"

void pp_samples_add(struct pp_samples *s, uint64_t key, uint64_t count)
{
	OP_ALLOC_GROW(s->v, s->n + 1, s->alloc);
	s->v[s->n].key = key;
	s->v[s->n].count = count;
	s->n++;
}

void pp_samples_move(struct pp_samples *dst, struct pp_samples *src)
{
	for (size_t i = 0; i < src->n; i++)
		pp_samples_add(dst, src->v[i].key, src->v[i].count);
	pp_samples_free(src);
}

static int cmp_count(void const *a, void const *b)
{
	uint64_t x = ((struct pp_count const *)a)->key;
	uint64_t y = ((struct pp_count const *)b)->key;

	return x < y ? -1 : x > y;
}

void pp_samples_finish(struct pp_samples *s)
{
	size_t out = 0;

	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), cmp_count);
	for (size_t i = 0; i < s->n; i++) {
		if (out && s->v[out - 1].key == s->v[i].key)
			s->v[out - 1].count += s->v[i].count;
		else
			s->v[out++] = s->v[i];
	}
	s->n = out;
}

uint64_t pp_samples_total(struct pp_samples const *s)
{
	uint64_t t = 0;

	for (size_t i = 0; i < s->n; i++)
		t += s->v[i].count;
	return t;
}

void pp_samples_free(struct pp_samples *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
