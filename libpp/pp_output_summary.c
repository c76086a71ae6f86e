/*
 * The image summary in OProfile's layout: one row per application with
 * its samples and percentage in each class, and when the session
 * separated libraries (--separate=lib/kernel), the images each
 * application's samples fell in, indented under it with their share of
 * the application (of the whole profile with -%):
 *
 *   CPU_CLOCK:100000|
 *     samples|      %|
 *   ------------------
 *         900 90.0000 foo
 *   	  CPU_CLOCK:100000|
 *   	    samples|      %|
 *   	  ------------------
 *   	        600 66.6667 foo
 *   	        300 33.3333 libc.so.6
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_escape.h"
#include "op_events.h"
#include "op_message.h"
#include "pp_header.h"
#include "pp_output.h"
#include "pp_output_summary.h"

#define LABEL_WIDTH 17

struct summary {
	FILE *out;
	struct pp_report const *r;
	struct pp_output_opts const *o;
	size_t nr_classes;
};

static void block_header(struct summary *s, char const *indent)
{
	size_t width = s->nr_classes * (LABEL_WIDTH + 1) + (s->o->diff ? 10 : 0);

	fputs(indent, s->out);
	for (size_t c = 0; c < s->nr_classes; c++) {
		char *l = op_escape(s->r->classes->v[c].label);
		int cut = LABEL_WIDTH - 3;

		if (strlen(l) > LABEL_WIDTH) {
			/* not inside a UTF-8 character: still valid UTF-8 */
			while (cut > 0 &&
			       ((unsigned char)l[cut] & 0xc0) == 0x80)
				cut--;
			fprintf(s->out, "%.*s...|", cut, l);
		} else
			fprintf(s->out, "%*s|", LABEL_WIDTH, l);
		free(l);
	}
	fprintf(s->out, "%s\n%s", s->o->diff ? "          |" : "", indent);
	for (size_t c = 0; c < s->nr_classes; c++)
		fprintf(s->out, "%9s|      %%|",
			op_event_count_word(s->r->classes->v[c].event));
	fprintf(s->out, "%s\n%s", s->o->diff ? "   diff %|" : "", indent);
	for (size_t i = 0; i < width; i++)
		fputc('-', s->out);
	fputc('\n', s->out);
}

static void row(struct summary *s, char const *indent,
		struct pp_entry const *e, uint64_t const *base,
		char const *name)
{
	fputs(indent, s->out);
	for (size_t c = 0; c < s->nr_classes; c++)
		fprintf(s->out, "%9" PRIu64 " %7.4f ", e->counts[c],
			pp_percent(e->counts[c], base[c]));
	if (s->o->diff) {
		char diff[32];

		pp_diff_text(e->counts, s->r->profile->totals, diff,
			     sizeof(diff));
		fprintf(s->out, "%9s ", diff);
	}
	pp_output_line(s->out, "", pp_short_name(name, s->o->long_names));
}

/* The images of one application: entries [first, first + n). */
static void dependents(struct summary *s, struct pp_entry const *app,
		       struct pp_entry const *first, size_t n)
{
	struct pp_profile const *p = s->r->profile;
	uint64_t const *base = s->o->global_percent ? p->totals : app->counts;
	struct pp_entry const **rows = op_xcalloc(n, sizeof(*rows));
	size_t nr = 0;

	for (size_t i = 0; i < n; i++)
		if (pp_row_shown(first[i].counts, base, s->nr_classes,
				 s->o->threshold))
			rows[nr++] = &first[i];
	pp_sort_rows(rows, nr, &s->o->sort, s->o->diff ? 1 : 0);
	if (nr && !s->o->no_header)
		block_header(s, "\t");
	for (size_t i = 0; i < nr; i++)
		row(s, "\t", rows[i], base, rows[i]->image);
	free(rows);
}

/* One entry per application with the sums of its images. */
static struct pp_entry *app_totals(struct pp_profile const *p, size_t *n,
				   size_t **first, size_t **count)
{
	struct pp_entry *apps = op_xcalloc(p->n, sizeof(*apps));

	*first = op_xcalloc(p->n, sizeof(**first));
	*count = op_xcalloc(p->n, sizeof(**count));
	*n = 0;
	for (size_t i = 0; i < p->n; i++) {
		struct pp_entry *a = *n ? &apps[*n - 1] : NULL;

		if (!a || strcmp(a->app, p->v[i].app)) {
			a = &apps[(*n)++];
			a->app = a->image = p->v[i].app;
			a->counts = op_xcalloc(p->nr_classes, sizeof(uint64_t));
			(*first)[*n - 1] = i;
		}
		(*count)[*n - 1]++;
		for (size_t c = 0; c < p->nr_classes; c++)
			a->counts[c] += p->v[i].counts[c];
	}
	return apps;
}

/* Whether the app whose entries are [first, first + n) has other images. */
static bool has_own_dependents(struct pp_entry const *first, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(first[i].app, first[i].image))
			return true;
	return false;
}

void pp_output_summary(FILE *out, struct pp_report const *r,
		       struct pp_output_opts const *o)
{
	struct pp_profile const *p = r->profile;
	struct summary s = { out, r, o, p->nr_classes };
	bool deps = pp_profile_has_dependents(p);
	size_t n, nr = 0, *first, *count;
	struct pp_entry *apps = app_totals(p, &n, &first, &count);
	struct pp_entry const **rows = op_xcalloc(n, sizeof(*rows));

	for (size_t i = 0; i < n; i++)
		if (pp_row_shown(apps[i].counts, p->totals, s.nr_classes,
				 o->threshold))
			rows[nr++] = &apps[i];
	pp_sort_rows(rows, nr, &o->sort, o->diff ? 1 : 0);
	if (!o->no_header) {
		pp_header_text(out, r);
		block_header(&s, "");
	}
	for (size_t i = 0; i < nr; i++) {
		size_t a = (size_t)(rows[i] - apps);

		row(&s, "", rows[i], p->totals, rows[i]->app);
		/* an application with no other image needs no block of
		 * its own 100 %, even when others have dependents */
		if (deps && has_own_dependents(&p->v[first[a]], count[a]))
			dependents(&s, rows[i], &p->v[first[a]], count[a]);
	}
	for (size_t i = 0; i < n; i++)
		free(apps[i].counts);
	free(apps);
	free(rows);
	free(first);
	free(count);
}
