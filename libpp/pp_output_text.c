/*
 * Text reports in OProfile's layout: the header lines, then for a symbol
 * list (-l) one row per symbol with its samples and percentage in each
 * class, optional vma, cumulative, diff %, linenr, image and application
 * columns, and with -d one line per sampled address under each symbol.
 * Image summaries are written by pp_output_summary.c.
 *
 * A call graph (-c) has the symbol list's columns and one block per
 * symbol, each block and the column titles followed by a line of 79
 * dashes:
 *
 *   CALLER rows   indented 2, the arcs from each caller, fewest first; %
 *                 of all the arcs into the symbol
 *   SYMBOL row    its samples; % of the profile
 *   CALLEE rows   indented 2, the arcs into each callee, most first,
 *                 with "SYMBOL [self]": the symbol's own samples; % of
 *                 the arcs out of the symbol plus its own samples
 *
 * With -% both are percentages of the profile instead. -t hides blocks,
 * callers and callees below that percentage (of what their % column is
 * of) in every class.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_escape.h"
#include "op_events.h"
#include "op_util.h"
#include "pp_header.h"
#include "pp_output.h"
#include "pp_output_summary.h"
#include "pp_output_text.h"

#define DASHES "----------------------------------------" \
	       "---------------------------------------"

/* Column widths, as OProfile's: a longer value is followed by one space. */
enum {
	W_VMA = 17, W_SAMPLES = 9, W_PERCENT = 9, W_CUM_SAMPLES = 14,
	W_DIFF = 10, W_NAME = 25,
};

struct text {
	FILE *out;               /* the line being built (see line_begin) */
	FILE *dest;              /* the report */
	char *line;
	size_t line_len;
	struct pp_report const *r;
	struct pp_output_opts const *o;
	bool show_image, show_app;
	uint64_t *cum;           /* -a: running sums per class */
};

/* Lines are built in memory so that trailing padding can be cut. */
static void line_begin(struct text *t)
{
	t->out = open_memstream(&t->line, &t->line_len);
	if (!t->out)
		op_die("out of memory");
}

static void line_end(struct text *t)
{
	size_t len;

	fclose(t->out);
	len = strlen(t->line);
	while (len && t->line[len - 1] == ' ')
		len--;
	op_fput_escaped(t->dest, t->line, len, 0);
	fputc('\n', t->dest);
	free(t->line);
	t->line = NULL;
	t->out = NULL;
}

static void field(FILE *out, char const *s, int width)
{
	int len = (int)strlen(s);

	fputs(s, out);
	fprintf(out, "%*s", len < width ? width - len : 1, "");
}

static void field_u64(FILE *out, uint64_t v, int width)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	field(out, buf, width);
}

static void field_percent(FILE *out, double v, int width)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.4f", v);
	field(out, buf, width);
}

static void field_diff(FILE *out, uint64_t const *counts,
		       uint64_t const *totals)
{
	char buf[32];

	pp_diff_text(counts, totals, buf, sizeof(buf));
	field(out, buf, W_DIFF);
}

static void titles(struct text *t)
{
	FILE *out;

	line_begin(t);
	out = t->out;
	if (t->o->show_vma || t->o->details)
		field(out, "vma", W_VMA);
	for (size_t c = 0; c < t->r->profile->nr_classes; c++) {
		field(out, op_event_count_word(t->r->classes->v[c].event),
		      W_SAMPLES);
		field(out, "%", W_PERCENT);
		if (t->o->accumulated) {
			field(out, "cum. samples", W_CUM_SAMPLES);
			field(out, "cum. %", W_PERCENT);
		}
	}
	if (t->o->diff)
		field(out, "diff %", W_DIFF);
	if (t->o->debug_info)
		field(out, "linenr info", W_NAME);
	if (t->show_image)
		field(out, "image name", W_NAME);
	if (t->show_app)
		field(out, "app name", W_NAME);
	fputs("symbol name", out);
	line_end(t);
}

static void linenr(struct text *t, char const *file, unsigned line)
{
	char *s;

	if (!file) {
		field(t->out, "(no location information)", W_NAME);
		return;
	}
	s = op_xasprintf("%s:%u", pp_short_name(file, t->o->long_names), line);
	field(t->out, s, W_NAME);
	free(s);
}

static void counts(struct text *t, uint64_t const *n, uint64_t const *base)
{
	struct pp_profile const *p = t->r->profile;

	for (size_t c = 0; c < p->nr_classes; c++) {
		field_u64(t->out, n[c], W_SAMPLES);
		field_percent(t->out, pp_percent(n[c], base[c]), W_PERCENT);
		if (t->o->accumulated && t->cum) {
			t->cum[c] += n[c];
			field_u64(t->out, t->cum[c], W_CUM_SAMPLES);
			field_percent(t->out, pp_percent(t->cum[c], base[c]),
				      W_PERCENT);
		}
	}
	if (t->o->diff)
		field_diff(t->out, n, p->totals);
}

static void vma_field(struct text *t, bool has, uint64_t vma)
{
	char buf[32] = "";

	if (has)
		snprintf(buf, sizeof(buf), "%016" PRIx64, vma);
	field(t->out, buf, W_VMA);
}

static void details(struct text *t, struct pp_entry const *e)
{
	struct pp_profile const *p = t->r->profile;
	uint64_t *cum = t->cum;

	t->cum = NULL;   /* no running sums inside a symbol */
	for (size_t i = 0; i < e->nr_details; i++) {
		struct pp_detail const *d = &e->details[i];

		line_begin(t);
		fprintf(t->out, "  %016" PRIx64 " ", d->vma);
		counts(t, d->counts, t->o->global_percent ? p->totals :
				     e->counts);
		if (t->o->debug_info)
			linenr(t, d->file, d->line);
		line_end(t);
	}
	t->cum = cum;
}

/* The columns after the counts: source line, image, app, symbol. */
static void entry_names(struct text *t, struct pp_entry const *e)
{
	if (t->o->debug_info)
		linenr(t, e->symbol ? e->file : NULL, e->line);
	if (t->show_image)
		field(t->out, pp_short_name(e->image, t->o->long_names), W_NAME);
	if (t->show_app)
		field(t->out, pp_short_name(e->app, t->o->long_names), W_NAME);
	fputs(e->symbol ? e->symbol : "(no symbols)", t->out);
}

static void row(struct text *t, struct pp_entry const *e)
{
	line_begin(t);
	if (t->o->show_vma || t->o->details)
		vma_field(t, e->has_vma, e->vma);
	counts(t, e->counts, t->r->profile->totals);
	entry_names(t, e);
	line_end(t);
	if (t->o->details)
		details(t, e);
}

static bool several_images(struct pp_profile const *p)
{
	for (size_t i = 1; i < p->n; i++)
		if (strcmp(p->v[i].image, p->v[0].image))
			return true;
	return false;
}

static void symbol_list(FILE *out, struct pp_report const *r,
			struct pp_output_opts const *o)
{
	struct pp_profile const *p = r->profile;
	struct text t = {
		.dest = out, .r = r, .o = o,
		.show_image = several_images(p) || pp_profile_has_dependents(p),
		.show_app = pp_profile_has_dependents(p),
		.cum = op_xcalloc(p->nr_classes, sizeof(uint64_t)),
	};
	struct pp_entry const **rows;
	size_t n;

	if (!o->no_header) {
		pp_header_text(out, r);
		titles(&t);
	}
	rows = pp_select_rows(p, o, &n);
	for (size_t i = 0; i < n; i++)
		row(&t, rows[i]);
	free(rows);
	free(t.cum);
}

/* A caller or callee line of a call-graph block, or the symbol's own. */
struct cg_row {
	struct pp_entry const *e;
	uint64_t const *counts;
	bool self;               /* "SYMBOL [self]" */
};

static void cg_line(struct text *t, bool indent, struct cg_row const *c,
		    uint64_t const *base)
{
	struct pp_entry const *e = c->e;

	line_begin(t);
	if (indent)
		fputs("  ", t->out);
	if (t->o->show_vma)
		vma_field(t, e->has_vma, e->vma);
	counts(t, c->counts, base);
	entry_names(t, e);
	if (c->self)
		fputs(" [self]", t->out);
	line_end(t);
}

static int cmp_name(char const *a, char const *b)
{
	if (!a || !b)
		return !!b - !!a;     /* "(no symbols)" last */
	return strcmp(a, b);
}

/* Ties between arc counts: image, symbol, application, address; self first. */
static int cmp_cg_names(struct cg_row const *x, struct cg_row const *y)
{
	int c = y->self - x->self;

	if (!c)
		c = strcmp(x->e->image, y->e->image);
	if (!c)
		c = cmp_name(x->e->symbol, y->e->symbol);
	if (!c)
		c = strcmp(x->e->app, y->e->app);
	if (!c && x->e->vma != y->e->vma)
		c = x->e->vma < y->e->vma ? -1 : 1;
	return c;
}

static int cmp_callers(void const *a, void const *b)
{
	struct cg_row const *x = a, *y = b;

	if (x->counts[0] != y->counts[0])
		return x->counts[0] < y->counts[0] ? -1 : 1;
	return cmp_cg_names(x, y);
}

static int cmp_callees(void const *a, void const *b)
{
	struct cg_row const *x = a, *y = b;

	if (x->counts[0] != y->counts[0])
		return x->counts[0] > y->counts[0] ? -1 : 1;
	return cmp_cg_names(x, y);
}

/* Rows r[0..n) that pass the threshold against base, sorted, written. */
static void cg_rows(struct text *t, struct cg_row *r, size_t n,
		    uint64_t const *sum, bool callers)
{
	struct pp_profile const *p = t->r->profile;
	uint64_t const *base = t->o->global_percent ? p->totals : sum;
	size_t kept = 0;

	for (size_t i = 0; i < n; i++)
		if (pp_row_shown(r[i].counts, base, p->nr_classes,
				 t->o->threshold))
			r[kept++] = r[i];
	if (kept > 1)
		qsort(r, kept, sizeof(*r), callers ? cmp_callers : cmp_callees);
	for (size_t i = 0; i < kept; i++)
		cg_line(t, true, &r[i], base);
}

static void cg_block(struct text *t, size_t ei)
{
	struct pp_profile const *p = t->r->profile;
	struct pp_entry const *e = &p->v[ei];
	size_t nin, nout, fin, fout;
	uint64_t *sum = op_xcalloc(p->nr_classes, sizeof(uint64_t));
	struct cg_row *r, self = { e, e->counts, false };

	nin = pp_arcs_in(p, ei, &fin);
	nout = pp_arcs_out(p, ei, &fout);
	r = op_xcalloc(nin + nout + 1, sizeof(*r));
	for (size_t i = 0; i < nin; i++) {
		struct pp_arc const *a = &p->arcs[p->arcs_in[fin + i]];

		r[i] = (struct cg_row){ &p->v[a->caller], a->counts, false };
		for (size_t c = 0; c < p->nr_classes; c++)
			sum[c] += a->counts[c];
	}
	cg_rows(t, r, nin, sum, true);
	cg_line(t, false, &self, p->totals);
	memcpy(sum, e->counts, p->nr_classes * sizeof(*sum));
	r[0] = (struct cg_row){ e, e->counts, true };
	for (size_t i = 0; i < nout; i++) {
		struct pp_arc const *a = &p->arcs[fout + i];

		r[i + 1] = (struct cg_row){ &p->v[a->callee], a->counts, false };
		for (size_t c = 0; c < p->nr_classes; c++)
			sum[c] += a->counts[c];
	}
	cg_rows(t, r, nout + 1, sum, false);
	fprintf(t->dest, "%.79s\n", DASHES);
	free(r);
	free(sum);
}

/* A block for each entry with samples or arcs out, -i/-e and -t allowing. */
static bool cg_primary(struct pp_profile const *p, size_t i,
		       struct pp_output_opts const *o)
{
	struct pp_entry const *e = &p->v[i];
	size_t first;
	bool any = false;

	if (e->hidden)
		return false;
	for (size_t c = 0; c < p->nr_classes && !any; c++)
		any = e->counts[c] > 0;
	if (!any && !pp_arcs_out(p, i, &first))
		return false;
	return pp_row_shown(e->counts, p->totals, p->nr_classes, o->threshold);
}

/* The image and app name columns, as for -l, over the entries a call
 * graph can show: the blocks' symbols and their callers and callees. */
static void cg_columns(struct text *t, struct pp_entry const **rows, size_t n)
{
	struct pp_profile const *p = t->r->profile;
	bool *shown = op_xcalloc(p->n + 1, sizeof(*shown));
	char const *image = NULL;

	for (size_t i = 0; i < n; i++) {
		size_t ei = (size_t)(rows[i] - p->v), first, nr;

		shown[ei] = true;
		nr = pp_arcs_out(p, ei, &first);
		for (size_t k = 0; k < nr; k++)
			shown[p->arcs[first + k].callee] = true;
		nr = pp_arcs_in(p, ei, &first);
		for (size_t k = 0; k < nr; k++)
			shown[p->arcs[p->arcs_in[first + k]].caller] = true;
	}
	for (size_t i = 0; i < p->n; i++) {
		if (!shown[i])
			continue;
		if (strcmp(p->v[i].app, p->v[i].image))
			t->show_app = true;
		if (image && strcmp(image, p->v[i].image))
			t->show_image = true;
		image = p->v[i].image;
	}
	t->show_image = t->show_image || t->show_app;
	free(shown);
}

static void callgraph(FILE *out, struct pp_report const *r,
		      struct pp_output_opts const *o)
{
	struct pp_profile const *p = r->profile;
	struct text t = { .dest = out, .r = r, .o = o };
	struct pp_entry const **rows = op_xcalloc(p->n + 1, sizeof(*rows));
	size_t n = 0;

	for (size_t i = 0; i < p->n; i++)
		if (cg_primary(p, i, o))
			rows[n++] = &p->v[i];
	cg_columns(&t, rows, n);
	if (!o->no_header) {
		pp_header_text(out, r);
		titles(&t);
	}
	fprintf(out, "%.79s\n", DASHES);
	pp_sort_rows(rows, n, &o->sort, 0);
	for (size_t i = 0; i < n; i++)
		cg_block(&t, (size_t)(rows[i] - p->v));
	free(rows);
}

void pp_output_text(FILE *out, struct pp_report const *r,
		    struct pp_output_opts const *o)
{
	if (o->callgraph)
		callgraph(out, r, o);
	else if (o->symbols)
		symbol_list(out, r, o);
	else
		pp_output_summary(out, r, o);
}
