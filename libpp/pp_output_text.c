/*
 * Text reports in OProfile's layout: the header lines, then for a symbol
 * list (-l) one row per symbol with its samples and percentage in each
 * class, optional vma, cumulative, diff %, linenr, image and application
 * columns, and with -d one line per sampled address under each symbol.
 * Image summaries are written by pp_output_summary.c.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_message.h"
#include "pp_header.h"
#include "pp_output.h"

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
	fprintf(t->dest, "%.*s\n", (int)len, t->line);
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

/* Header lines and notes: what was counted, and what went wrong. */
void pp_output_text_header(FILE *out, struct pp_report const *r)
{
	pp_header_write(out, r->classes);
	for (size_t i = 0; r->notes && i < r->notes->n; i++)
		fprintf(out, "Note: %s\n", r->notes->v[i]);
}

static void titles(struct text *t)
{
	FILE *out;

	line_begin(t);
	out = t->out;
	if (t->o->show_vma || t->o->details)
		field(out, "vma", W_VMA);
	for (size_t c = 0; c < t->r->profile->nr_classes; c++) {
		field(out, "samples", W_SAMPLES);
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
	if (asprintf(&s, "%s:%u", pp_short_name(file, t->o->long_names),
		     line) < 0)
		op_die("out of memory");
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

static void row(struct text *t, struct pp_entry const *e)
{
	line_begin(t);
	if (t->o->show_vma || t->o->details)
		vma_field(t, e->has_vma, e->vma);
	counts(t, e->counts, t->r->profile->totals);
	if (t->o->debug_info)
		linenr(t, e->symbol ? e->file : NULL, e->line);
	if (t->show_image)
		field(t->out, pp_short_name(e->image, t->o->long_names), W_NAME);
	if (t->show_app)
		field(t->out, pp_short_name(e->app, t->o->long_names), W_NAME);
	fputs(e->symbol ? e->symbol : "(no symbols)", t->out);
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
		pp_output_text_header(out, r);
		titles(&t);
	}
	rows = pp_select_rows(p, o, &n);
	for (size_t i = 0; i < n; i++)
		row(&t, rows[i]);
	free(rows);
	free(t.cum);
}

void pp_output_text(FILE *out, struct pp_report const *r,
		    struct pp_output_opts const *o)
{
	if (o->symbols)
		symbol_list(out, r, o);
	else
		pp_output_summary(out, r, o);
}
