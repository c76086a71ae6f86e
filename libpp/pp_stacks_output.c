/*
 * Text from stacks: opreport --stacks (the most common whole paths, then
 * for each hot symbol the most common paths into it: the systemtap
 * document's "most common path to the most common pc") and --folded
 * (one "proc;root;...;leaf COUNT" line per path, as flamegraph.pl and
 * speedscope read it).
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "op_escape.h"
#include "op_events.h"
#include "op_stacks.h"
#include "op_util.h"
#include "pp_output.h"
#include "pp_stacks_output.h"

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static bool shown(struct pp_stacks_print const *o, size_t rank,
		  uint64_t count, uint64_t whole)
{
	if (o->limit && rank >= o->limit)
		return false;
	return share(count, whole) >= o->threshold;
}

static void print_path(FILE *out, struct pp_stacks const *st,
		       struct pp_spath const *p)
{
	op_fputs_escaped(out, p->proc);
	fputc(':', out);
	for (size_t i = 0; i < p->nr_funcs; i++) {
		fputs(i ? " -> " : " ", out);
		op_fputs_escaped(out, st->funcs[p->funcs[i]].name);
	}
	fputc('\n', out);
}

static void header(FILE *out, struct pp_stacks const *st,
		   struct pp_spaths const *p, struct pp_strlist const *notes)
{
	uint64_t stopped = 0;
	char *event = op_escape(st->event);

	fprintf(out, "Stacks of event %s: %" PRIu64 " %s, %zu stacks, "
		"%zu distinct paths (root first)\n", event, st->total,
		op_event_count_word(st->event), st->n, p->n);
	if (op_event_key_is_off_cpu(st->event))
		fprintf(out, "Counts are off-CPU time in microseconds (" OP_OFF_CPU_UNIT
			"), not samples: time threads spent blocked off the cpu\n");
	free(event);
	for (size_t i = 0; i < st->nr_stops; i++)
		stopped += st->stops[i].count;
	if (st->flat)
		fprintf(out, "Without stacks (recorded without --callgraph): %"
			PRIu64 " samples (%.2f%%), each its function alone\n",
			st->flat, share(st->flat, st->total));
	if (!stopped && st->flat < st->total)
		fprintf(out, "Every stack was unwound to its root.\n");
	else if (stopped)
		fprintf(out, "Unwinding stopped before the root: %" PRIu64
			" samples (%.2f%%)\n", stopped,
			share(stopped, st->total));
	for (size_t i = 0; i < st->nr_stops; i++)
		fprintf(out, "  %-24s %" PRIu64 " samples (%.2f%%)\n",
			op_unwind_stop_name(st->stops[i].reason),
			st->stops[i].count, share(st->stops[i].count,
						  st->total));
	for (size_t i = 0; notes && i < notes->n; i++)
		pp_output_line(out, "Note: ", notes->v[i]);
}

/* A leaf function and its samples. */
struct hot {
	size_t func;
	uint64_t count;
};

static int cmp_hot(void const *a, void const *b)
{
	struct hot const *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

static size_t leaf_of(struct pp_spath const *p)
{
	return p->funcs[p->nr_funcs - 1];
}

/* The leaf functions, hottest first. */
static struct hot *hot_leaves(struct pp_stacks const *st,
			      struct pp_spaths const *p, size_t *n)
{
	struct hot *h = op_xcalloc(st->nr_funcs + 1, sizeof(*h));

	*n = 0;
	for (size_t i = 0; i < st->nr_funcs; i++)
		h[i].func = i;
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].nr_funcs)
			h[leaf_of(&p->v[i])].count += p->v[i].count;
	if (st->nr_funcs > 1)
		qsort(h, st->nr_funcs, sizeof(*h), cmp_hot);
	while (*n < st->nr_funcs && h[*n].count)
		(*n)++;
	return h;
}

/* For each hot symbol: the most common paths into it. */
static void paths_into(FILE *out, struct pp_stacks const *st,
		       struct pp_spaths const *p,
		       struct pp_stacks_print const *o)
{
	size_t nh, per = o->limit && o->limit < 5 ? o->limit : 5;
	struct hot *h = hot_leaves(st, p, &nh);

	fprintf(out, "\nMost common paths into each hot symbol (%% of the "
		"symbol's samples):\n");
	for (size_t k = 0; k < nh && shown(o, k, h[k].count, p->total); k++) {
		struct pp_sfunc const *f = &st->funcs[h[k].func];
		size_t rank = 0;

		fputc('\n', out);
		op_fputs_escaped(out, f->name);
		fputs(" (", out);
		op_fputs_escaped(out, *f->image ? f->image : "-");
		fprintf(out, "): %" PRIu64 " %s (%.2f%%)\n", h[k].count,
			op_event_count_word(st->event), share(h[k].count, p->total));
		for (size_t i = 0; i < p->n && rank < per; i++) {
			if (!p->v[i].nr_funcs || leaf_of(&p->v[i]) != h[k].func)
				continue;
			fprintf(out, "  %-8" PRIu64 " %7.2f%%  ", p->v[i].count,
				share(p->v[i].count, h[k].count));
			print_path(out, st, &p->v[i]);
			rank++;
		}
	}
	free(h);
}

void pp_stacks_report(FILE *out, struct pp_stacks const *st,
		      struct pp_spaths const *p,
		      struct pp_stacks_print const *o,
		      struct pp_strlist const *notes)
{
	if (!o->no_header)
		header(out, st, p, notes);
	fprintf(out, "\nMost common paths (process: root -> ... -> leaf):\n");
	fprintf(out, "  %-8s %8s  %s\n", op_event_count_word(st->event), "%", "path");
	for (size_t i = 0; i < p->n && shown(o, i, p->v[i].count, p->total);
	     i++) {
		fprintf(out, "  %-8" PRIu64 " %7.2f%%  ", p->v[i].count,
			share(p->v[i].count, p->total));
		print_path(out, st, &p->v[i]);
	}
	paths_into(out, st, p, o);
}

/* A name as one folded element, escaped (op_escape.h) so that it stays
 * on its line; ';' separates elements, so it becomes ':'. */
static void folded_name(FILE *out, char const *name)
{
	char *e = op_escape(name);

	for (char *s = e; *s; s++)
		fputc(*s == ';' ? ':' : *s, out);
	free(e);
}

void pp_stacks_folded(FILE *out, struct pp_stacks const *st,
		      struct pp_spaths const *p)
{
	for (size_t i = 0; i < p->n; i++) {
		folded_name(out, p->v[i].proc);
		for (size_t k = 0; k < p->v[i].nr_funcs; k++) {
			fputc(';', out);
			folded_name(out, st->funcs[p->v[i].funcs[k]].name);
		}
		fprintf(out, " %" PRIu64 "\n", p->v[i].count);
	}
}
