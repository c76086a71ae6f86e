/* Row ordering for reports; see pp_sort.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp_sort.h"

static char const *const key_names[] = {
	[PP_SORT_SAMPLE] = "sample",
	[PP_SORT_IMAGE] = "image",
	[PP_SORT_APP] = "app-name",
	[PP_SORT_SYMBOL] = "symbol",
	[PP_SORT_DEBUG] = "debug",
	[PP_SORT_VMA] = "vma",
};

int pp_sort_parse(char const *text, struct pp_sort *s, char *err,
		  size_t errlen)
{
	struct pp_strlist l = { 0 };
	int rc = 0;

	s->n = 0;
	if (pp_strlist_split(&l, text, err, errlen))
		return -1;
	for (size_t i = 0; i < l.n && !rc; i++) {
		size_t k;

		for (k = 0; k < sizeof(key_names) / sizeof(key_names[0]); k++)
			if (!strcmp(l.v[i], key_names[k]))
				break;
		if (k == sizeof(key_names) / sizeof(key_names[0])) {
			snprintf(err, errlen, "unknown sort key '%s' (sample, "
				 "image, app-name, symbol, debug, vma)", l.v[i]);
			rc = -1;
		} else if (s->n == PP_SORT_MAX_KEYS) {
			snprintf(err, errlen, "too many sort keys");
			rc = -1;
		} else {
			s->keys[s->n++] = (enum pp_sort_key)k;
		}
	}
	pp_strlist_free(&l);
	return rc;
}

struct sort_ctx {
	struct pp_sort const *s;
	size_t cls;
};

static int cmp_str(char const *a, char const *b)
{
	if (!a || !b)
		return !!b - !!a;   /* missing names last */
	return strcmp(a, b);
}

/* Image and application names as OProfile's symbol_sort compares them:
 * base names, full paths only with -f. */
static int cmp_path(char const *a, char const *b, bool long_names)
{
	char const *sa = long_names ? NULL : strrchr(a, '/');
	char const *sb = long_names ? NULL : strrchr(b, '/');
	int c = strcmp(sa ? sa + 1 : a, sb ? sb + 1 : b);

	return c ? c : strcmp(a, b);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_key(struct pp_entry const *a, struct pp_entry const *b,
		   enum pp_sort_key k, struct sort_ctx const *ctx)
{
	size_t cls = ctx->cls;
	bool long_names = ctx->s->long_names;
	int c;

	switch (k) {
	case PP_SORT_SAMPLE:
		return cmp_u64(b->counts[cls], a->counts[cls]);
	case PP_SORT_IMAGE:
		return cmp_path(a->image, b->image, long_names);
	case PP_SORT_APP:
		return cmp_path(a->app, b->app, long_names);
	case PP_SORT_SYMBOL:
		return cmp_str(a->symbol, b->symbol);
	case PP_SORT_DEBUG:
		c = cmp_str(a->file, b->file);
		return c ? c : (a->line > b->line) - (a->line < b->line);
	case PP_SORT_VMA:
		return cmp_u64(a->vma, b->vma);
	}
	return 0;
}

static int cmp_row(void const *pa, void const *pb, void *arg)
{
	struct sort_ctx const *ctx = arg;
	struct pp_entry const *a = *(struct pp_entry const *const *)pa;
	struct pp_entry const *b = *(struct pp_entry const *const *)pb;
	static enum pp_sort_key const ties[] = {
		PP_SORT_IMAGE, PP_SORT_APP, PP_SORT_SYMBOL, PP_SORT_VMA,
	};
	int c = 0;

	for (size_t i = 0; i < ctx->s->n && !c; i++)
		c = cmp_key(a, b, ctx->s->keys[i], ctx);
	if (!ctx->s->n && !c)
		c = cmp_key(a, b, PP_SORT_SAMPLE, ctx);
	for (size_t i = 0; i < sizeof(ties) / sizeof(ties[0]) && !c; i++)
		c = cmp_key(a, b, ties[i], ctx);
	return ctx->s->reverse ? -c : c;
}

void pp_sort_rows(struct pp_entry const **rows, size_t n,
		  struct pp_sort const *s, size_t cls)
{
	struct sort_ctx ctx = { s, cls };

	if (n > 1)
		qsort_r(rows, n, sizeof(*rows), cmp_row, &ctx);
}
