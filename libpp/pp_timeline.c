/* opreport --timeline's table; see pp_timeline.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "op_escape.h"
#include "op_util.h"
#include "pp_profile.h"
#include "pp_timeline.h"

/* One symbol (in one image): its samples per interval. */
struct pp_timeline_col {
	struct op_hashmap_entry ent;
	char *name;		/* "symbol\timage" */
	size_t sym_len;		/* the symbol part */
	uint64_t *counts;	/* per row */
	uint64_t total;
};

static int col_cmp(void const *data, struct op_hashmap_entry const *a,
		   struct op_hashmap_entry const *b, void const *key)
{
	(void)data;
	(void)b;
	return strcmp(OP_HASHMAP_ENTRY(a, struct pp_timeline_col, ent)->name,
		      key);
}

static void col_free(struct op_hashmap_entry *e)
{
	struct pp_timeline_col *c = OP_HASHMAP_ENTRY(e, struct pp_timeline_col,
						     ent);

	free(c->name);
	free(c->counts);
	free(c);
}

void pp_timeline_init(struct pp_timeline *tl, size_t nr_rows)
{
	memset(tl, 0, sizeof(*tl));
	tl->nr_rows = nr_rows;
	tl->row_total = op_xcalloc(nr_rows ? nr_rows : 1,
				   sizeof(*tl->row_total));
	op_hashmap_init(&tl->cols, col_cmp, NULL, 0);
}

void pp_timeline_free(struct pp_timeline *tl)
{
	op_hashmap_clear(&tl->cols, col_free);
	free(tl->v);
	free(tl->row_total);
	memset(tl, 0, sizeof(*tl));
}

static struct pp_timeline_col *column(struct pp_timeline *tl,
				      struct pp_entry const *e)
{
	char const *sym = e->symbol ? e->symbol : "(no symbols)";
	char *name = op_xasprintf("%s\t%s", sym, e->image ? e->image : "");
	struct op_hashmap_entry key, *found;
	struct pp_timeline_col *c;

	op_hashmap_entry_init(&key, op_hash_str(name));
	found = op_hashmap_get(&tl->cols, &key, name);
	if (found) {
		free(name);
		return OP_HASHMAP_ENTRY(found, struct pp_timeline_col, ent);
	}
	c = op_xcalloc(1, sizeof(*c));
	c->name = name;
	c->sym_len = strlen(sym);
	c->counts = op_xcalloc(tl->nr_rows ? tl->nr_rows : 1,
			       sizeof(*c->counts));
	op_hashmap_entry_init(&c->ent, key.hash);
	op_hashmap_add(&tl->cols, &c->ent);
	OP_ALLOC_GROW(tl->v, tl->n + 1, tl->alloc);
	tl->v[tl->n++] = c;
	return c;
}

void pp_timeline_add(struct pp_timeline *tl, size_t row,
		     struct pp_profile const *p)
{
	for (size_t i = 0; i < p->n && row < tl->nr_rows; i++) {
		struct pp_entry const *e = &p->v[i];
		struct pp_timeline_col *c;
		uint64_t sum = 0;

		for (size_t k = 0; k < p->nr_classes; k++)
			sum += e->counts[k];
		if (!sum)
			continue;
		c = column(tl, e);

		c->counts[row] += sum;
		c->total += sum;
		tl->row_total[row] += sum;
	}
}

/* Most samples first; equal ones by name, so the order is stable. */
static int by_total(void const *a, void const *b)
{
	struct pp_timeline_col const *x = *(struct pp_timeline_col *const *)a;
	struct pp_timeline_col const *y = *(struct pp_timeline_col *const *)b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

void pp_timeline_print(FILE *out, struct pp_timeline *tl, double start_s,
		       double step_s, char const *what)
{
	size_t top = tl->n < PP_TIMELINE_TOP ? tl->n : PP_TIMELINE_TOP;
	uint64_t all = 0, shown_all = 0;
	char *shown = op_escape(what);	/* it names the stream file */

	qsort(tl->v, tl->n, sizeof(*tl->v), by_total);
	for (size_t r = 0; r < tl->nr_rows; r++)
		all += tl->row_total[r];
	fprintf(out, "Timeline: %zu intervals of %.3f s from %.3f s, %s\n",
		tl->nr_rows, step_s, start_s, shown);
	free(shown);
	fprintf(out, "Columns: the %zu symbols with the most samples "
		"(other: the rest)\n", top);
	for (size_t c = 0; c < top; c++) {
		char const *name = tl->v[c]->name;

		fprintf(out, "  #%zu  ", c + 1);
		op_fput_escaped(out, name, tl->v[c]->sym_len, 0);
		fputs("  ", out);
		op_fputs_escaped(out, name + tl->v[c]->sym_len + 1);
		fputc('\n', out);
	}
	fprintf(out, "\n%10s %10s", "start(s)", "samples");
	for (size_t c = 0; c < top; c++) {
		char label[16];

		snprintf(label, sizeof(label), "#%zu", c + 1);
		fprintf(out, " %9s", label);
	}
	fprintf(out, " %9s\n", "other");
	for (size_t r = 0; r < tl->nr_rows; r++) {
		uint64_t shown = 0;

		fprintf(out, "%10.3f %10" PRIu64, start_s + (double)r * step_s,
			tl->row_total[r]);
		for (size_t c = 0; c < top; c++) {
			fprintf(out, " %9" PRIu64, tl->v[c]->counts[r]);
			shown += tl->v[c]->counts[r];
		}
		fprintf(out, " %9" PRIu64 "\n", tl->row_total[r] - shown);
	}
	fprintf(out, "%10s %10" PRIu64, "total", all);
	for (size_t c = 0; c < top; c++) {
		fprintf(out, " %9" PRIu64, tl->v[c]->total);
		shown_all += tl->v[c]->total;
	}
	fprintf(out, " %9" PRIu64 "\n", all - shown_all);
}
