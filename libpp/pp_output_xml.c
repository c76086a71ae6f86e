/*
 * XML reports in OProfile 1.x's format (schemaversion 3.x), valid against
 * doc/opreport.xsd, so that its consumers read ours: <options>, <setup>
 * (one <eventsetup> per event), <classes> when there is more than one
 * column, then per application a <binary> with its counts, its own
 * symbols and a <module> per dependent image; symbol names, addresses
 * and source positions once in a <symboltable>, referenced by id; -d
 * details in a <detailtable> at the end; -c callers and callees inside
 * each <symbol>. When every column is one thread (--separate=thread,
 * tids not merged) the body is OProfile's <process pid name> with a
 * <thread tid> per thread, each holding a <module> per image. As in
 * OProfile, -X always lists symbols and zero counts are left out. Notes
 * become XML comments (the schema has no place for them). Every string
 * from a sample file or a binary goes through the printing rule of
 * op_escape.h before XML's quoting, so that hostile names (controls,
 * bytes that are not UTF-8) cannot break the XML.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_cpu_type.h"
#include "op_escape.h"
#include "op_message.h"
#include "pp_header.h"
#include "pp_output.h"
#include "pp_output_xml.h"

struct xml {
	FILE *out;
	struct pp_report const *r;
	struct pp_output_opts const *o;
	long *id_of;                      /* entry -> symboldata id, -1: none */
	size_t *entry_of;                 /* symboldata id -> entry */
	size_t nr_sym;
	bool named_classes;               /* <classes> written: counts say class */
	size_t nr_details;                /* detaildata ids given so far */
	long *detail_lo;                  /* entry -> its first detaildata id */
	bool threads;                     /* <process>/<thread> form */
	size_t lo, hi;                    /* the columns counted now: [lo, hi) */
	size_t *pub;                      /* column -> published class c<N> */
	size_t nr_pub;
	uint64_t *sum_pub;                /* scratch: counts per class */
};

/* name under the printing rule (op_escape.h), then XML's quoting. The rule
 * leaves no control and only valid UTF-8; of what it keeps, XML 1.0
 * forbids U+FFFE and U+FFFF alone: they are written as the rule writes
 * bytes it does not keep. */
static void put_escaped(FILE *out, char const *name)
{
	char *e = op_escape(name);

	for (char const *p = e; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", out); continue;
		case '<': fputs("&lt;", out); continue;
		case '>': fputs("&gt;", out); continue;
		case '"': fputs("&quot;", out); continue;
		case '\'': fputs("&apos;", out); continue;
		}
		if (!strncmp(p, "\xef\xbf\xbe", 3) ||
		    !strncmp(p, "\xef\xbf\xbf", 3)) {
			fprintf(out, "\\xef\\xbf\\x%02x", (unsigned char)p[2]);
			p += 2;
			continue;
		}
		fputc(*p, out);
	}
	free(e);
}

/* The highest cpu number of the columns plus one (0: not separated). */
static size_t separated_cpus(struct pp_classes const *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].cpu >= 0 && (size_t)c->v[i].cpu + 1 > n)
			n = (size_t)c->v[i].cpu + 1;
	return n;
}

static void attr(FILE *out, char const *name, char const *value)
{
	fprintf(out, " %s=\"", name);
	put_escaped(out, value);
	fputc('"', out);
}

/* An NCName from s (OProfile's cputype and processor attributes; the
 * eventname, an xs:Name, is one too). */
static void put_ncname(FILE *out, char const *name, char const *s, size_t n)
{
	fprintf(out, " %s=\"", name);
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  c == '_' || (i > 0 && ((c >= '0' && c <= '9') ||
						  c == '-' || c == '.'));

		fputc(ok ? c : '_', out);
	}
	fputs(n ? "\"" : "unknown\"", out);
}

static bool any_count(struct xml *x, uint64_t const *n)
{
	for (size_t c = x->lo; c < x->hi; c++)
		if (n[c])
			return true;
	return false;
}

/* The non-zero counts of the columns [lo, hi), summed per published
 * class; with <classes>, each names its class. must: at least one
 * element, a zero if need be (detaildata needs one). */
static void counts(struct xml *x, int ind, uint64_t const *n, bool must)
{
	bool none = !any_count(x, n);

	memset(x->sum_pub, 0, x->nr_pub * sizeof(*x->sum_pub));
	for (size_t c = x->lo; c < x->hi; c++)
		x->sum_pub[x->pub[c]] += n[c];
	for (size_t k = 0; k < x->nr_pub; k++) {
		if (!x->sum_pub[k] &&
		    !(must && none && x->lo < x->hi && k == x->pub[x->lo]))
			continue;
		fprintf(x->out, "%*s", ind, "");
		if (x->named_classes)
			fprintf(x->out, "<count class=\"c%zu\">", k);
		else
			fputs("<count>", x->out);
		fprintf(x->out, "%" PRIu64 "</count>\n", x->sum_pub[k]);
	}
}

/* The symboldata id of entry e, given on first use. */
static size_t sym_id(struct xml *x, size_t e)
{
	if (x->id_of[e] < 0) {
		x->id_of[e] = (long)x->nr_sym;
		x->entry_of[x->nr_sym++] = e;
	}
	return (size_t)x->id_of[e];
}

static size_t entry_index(struct xml *x, struct pp_entry const *e)
{
	return (size_t)(e - x->r->profile->v);
}

static void profile_open(struct xml *x)
{
	struct pp_classes const *c = x->r->classes;
	struct pp_class const *k = &c->v[0];
	char const *cpu = NULL, *slash;
	char mhz[64];

	for (size_t i = 0; i < c->n && !cpu; i++) {
		if (!c->v[i].has_header)
			continue;
		k = &c->v[i];
		cpu = op_cpu_name((enum op_cpu)k->header.cpu_type);
	}
	if (!cpu)
		cpu = "unknown";
	snprintf(mhz, sizeof(mhz), "%.3f", k->has_header ?
		 k->header.cpu_speed : 0.0);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<profile", x->out);
	attr(x->out, "title", x->o->title ? x->o->title : "opreport");
	attr(x->out, "schemaversion", PP_XML_SCHEMA_VERSION);
	/* "i386/core_i7": cputype i386, processor core_i7 (OProfile's split) */
	slash = strchr(cpu, '/');
	put_ncname(x->out, "cputype", cpu, slash ? (size_t)(slash - cpu) : strlen(cpu));
	if (slash)
		put_ncname(x->out, "processor", slash + 1, strlen(slash + 1));
	else
		put_ncname(x->out, "processor", cpu, strlen(cpu));
	if (separated_cpus(c) > 1)
		fprintf(x->out, " separatedcpus=\"%zu\"", separated_cpus(c));
	attr(x->out, "mhz", mhz);
	fputs(">\n", x->out);
}

static void options(struct xml *x)
{
	struct pp_output_opts const *o = x->o;

	fputs("  <options", x->out);
	if (o->session)
		attr(x->out, "session", o->session);
	if (o->debug_info)
		attr(x->out, "debuginfo", "true");
	if (o->details)
		attr(x->out, "details", "true");
	if (o->exclude_dependent)
		attr(x->out, "excludedependent", "true");
	if (o->exclude_symbols)
		attr(x->out, "excludesymbols", o->exclude_symbols);
	if (o->image_path)
		attr(x->out, "imagepath", o->image_path);
	if (o->include_symbols)
		attr(x->out, "includesymbols", o->include_symbols);
	if (o->merge)
		attr(x->out, "merge", o->merge);
	if (o->sort.reverse)
		attr(x->out, "reversesort", "true");
	fputs("/>\n", x->out);
}

static bool same_event(struct pp_class const *a, struct pp_class const *b)
{
	return !strcmp(a->event, b->event) && a->count == b->count;
}

static bool first_of_event(struct pp_classes const *c, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (same_event(&c->v[j], &c->v[i]))
			return false;
	return true;
}

/* The setup id of class i's event: the events are numbered in the order
 * the classes first name them. */
static size_t event_id(struct pp_classes const *c, size_t i)
{
	size_t id = 0;

	for (size_t j = 0; j < c->n; j++) {
		if (!first_of_event(c, j))
			continue;
		if (same_event(&c->v[j], &c->v[i]))
			return id;
		id++;
	}
	return id;
}

static void setup(struct xml *x)
{
	struct pp_classes const *c = x->r->classes;

	fputs("  <setup>\n", x->out);
	for (size_t i = 0; i < c->n; i++) {
		if (!first_of_event(c, i))
			continue;
		fprintf(x->out, "    <eventsetup id=\"%zu\"", event_id(c, i));
		/* xs:Name: a hostile name loses what it cannot hold */
		put_ncname(x->out, "eventname", c->v[i].event,
			   strlen(c->v[i].event));
		if (c->v[i].unit_mask >= 0)
			fprintf(x->out, " unitmask=\"%d\"", c->v[i].unit_mask);
		fprintf(x->out, " setupcount=\"%d\"/>\n", c->v[i].count);
	}
	fputs("  </setup>\n", x->out);
}

/* Whether every column is one thread: OProfile's <process> form. */
static bool thread_columns(struct pp_classes const *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].tid < 0 || c->v[i].tgid < 0)
			return false;
	return true;
}

static bool same_class(struct pp_class const *a, struct pp_class const *b)
{
	return same_event(a, b) && a->unit_mask == b->unit_mask &&
	       a->cpu == b->cpu;
}

/*
 * The published classes: one per column, except in the thread form where
 * the threads are elements of their own and a class is what else tells
 * columns apart (cpu, event, mask), as in OProfile.
 */
static void publish_classes(struct xml *x)
{
	struct pp_classes const *c = x->r->classes;

	x->threads = thread_columns(c);
	x->pub = op_xcalloc(c->n, sizeof(*x->pub));
	x->sum_pub = op_xcalloc(c->n, sizeof(*x->sum_pub));
	for (size_t i = 0; i < c->n; i++) {
		size_t j = 0;

		while (j < i && !(x->threads && same_class(&c->v[j], &c->v[i])))
			j++;
		x->pub[i] = j < i ? x->pub[j] : x->nr_pub++;
	}
	x->lo = 0;
	x->hi = c->n;
}

/*
 * <classes>, when there is more than one published class: cpu, event
 * (setup id) and mask as OProfile writes them. Columns per process (tids
 * merged) have no attribute of their own in the format: their class
 * names are c0, c1, ... in the order of the text report's columns.
 */
static void class_list(struct xml *x)
{
	struct pp_classes const *c = x->r->classes;
	bool events = event_id(c, c->n - 1) > 0, masks = false;

	for (size_t i = 0; i < c->n; i++)
		masks |= c->v[i].unit_mask > 0;
	x->named_classes = x->nr_pub > 1;
	if (!x->named_classes)
		return;
	fputs("  <classes>\n", x->out);
	for (size_t i = 0, next = 0; i < c->n; i++) {
		struct pp_class const *k = &c->v[i];

		if (x->pub[i] != next)
			continue;
		next++;
		fprintf(x->out, "    <class name=\"c%zu\"", x->pub[i]);
		if (k->cpu >= 0)
			fprintf(x->out, " cpu=\"%d\"", k->cpu);
		if (events)
			fprintf(x->out, " event=\"%zu\"", event_id(c, i));
		if (masks && k->unit_mask >= 0)
			fprintf(x->out, " mask=\"%d\"", k->unit_mask);
		fputs("/>\n", x->out);
	}
	fputs("  </classes>\n", x->out);
}

/* The notes (a binary not found, ...) as comments, escaped like any
 * text, and with no "--" (which would end the comment). */
static void comments(struct xml *x, char const *what,
		     struct pp_strlist const *n)
{
	for (size_t i = 0; n && i < n->n; i++) {
		char *text = op_xmalloc(2 * strlen(n->v[i]) + 1), *t = text;

		for (char const *p = n->v[i]; *p; p++) {
			*t++ = *p;
			if (*p == '-' && (p[1] == '-' || !p[1]))
				*t++ = ' ';
		}
		*t = '\0';
		fprintf(x->out, "  <!-- %s: ", what);
		put_escaped(x->out, text);
		fputs(" -->\n", x->out);
		free(text);
	}
}

/* A fleet report's header lines (pp_fleet.h), then the notes. */
static void notes(struct xml *x)
{
	comments(x, "fleet", x->r->fleet);
	comments(x, "note", x->r->notes);
}

/* A caller or callee of a call-graph block. */
static void arc_symbol(struct xml *x, int ind, size_t e, uint64_t const *n,
		       bool self)
{
	fprintf(x->out, "%*s<symbol idref=\"%zu\"%s>\n", ind, "", sym_id(x, e),
		self ? " self=\"true\"" : "");
	counts(x, ind + 2, n, false);
	fprintf(x->out, "%*s</symbol>\n", ind, "");
}

/*
 * A block of the call graph, as the text report's: callers (every arc
 * into e, a recursive one too), then callees: e itself marked self, with
 * its own samples, and every arc out of e.
 */
static void arcs(struct xml *x, int ind, size_t e)
{
	struct pp_profile const *p = x->r->profile;
	bool open = false;

	for (size_t i = 0; i < p->nr_arcs; i++) {
		struct pp_arc const *a = &p->arcs[p->arcs_in[i]];

		if (a->callee != e)
			continue;
		if (!open)
			fprintf(x->out, "%*s<callers>\n", ind, "");
		open = true;
		arc_symbol(x, ind + 2, a->caller, a->counts, false);
	}
	if (open)
		fprintf(x->out, "%*s</callers>\n", ind, "");
	fprintf(x->out, "%*s<callees>\n", ind, "");
	arc_symbol(x, ind + 2, e, p->v[e].counts, true);
	for (size_t i = 0; i < p->nr_arcs; i++) {
		struct pp_arc const *a = &p->arcs[i];

		if (a->caller == e)
			arc_symbol(x, ind + 2, a->callee, a->counts, false);
	}
	fprintf(x->out, "%*s</callees>\n", ind, "");
}

/* One symbol of a binary or module: callers, callees, counts; -d: the
 * range of its detaildata ids. */
static void symbol(struct xml *x, int ind, struct pp_entry const *e)
{
	size_t i = entry_index(x, e);

	fprintf(x->out, "%*s<symbol idref=\"%zu\"", ind, "", sym_id(x, i));
	if (x->o->details && e->nr_details) {
		/* the thread form shows a symbol once per thread */
		if (x->detail_lo[i] < 0) {
			x->detail_lo[i] = (long)x->nr_details;
			x->nr_details += e->nr_details;
		}
		fprintf(x->out, " detaillo=\"%ld\" detailhi=\"%zu\"",
			x->detail_lo[i],
			(size_t)x->detail_lo[i] + e->nr_details - 1);
	}
	fputs(">\n", x->out);
	if (x->o->callgraph)
		arcs(x, ind + 2, i);
	counts(x, ind + 2, e->counts, false);
	fprintf(x->out, "%*s</symbol>\n", ind, "");
}

/* Whether entry e is listed: not hidden, over the threshold and, in the
 * thread form, sampled in the thread's columns. */
static bool entry_shown(struct xml *x, struct pp_entry const *e)
{
	struct pp_profile const *p = x->r->profile;

	return !e->hidden && (!x->threads || any_count(x, e->counts)) &&
	       pp_row_shown(e->counts, p->totals, p->nr_classes,
			    x->o->threshold);
}

/* The shown symbols of one image of one application: entries
 * [first, first+n), by samples (-s and -r are for the text only). */
static size_t symbols(struct xml *x, int ind,
		      struct pp_entry const *first, size_t n, bool print)
{
	struct pp_entry const **rows = op_xcalloc(n, sizeof(*rows));
	struct pp_sort const by_samples = { .n = 0 };
	size_t nr = 0;

	for (size_t i = 0; i < n; i++)
		if (entry_shown(x, &first[i]))
			rows[nr++] = &first[i];
	pp_sort_rows(rows, nr, &by_samples, 0);
	for (size_t i = 0; print && i < nr; i++)
		symbol(x, ind, rows[i]);
	free(rows);
	return nr;
}

/* Entries [i, end) of one application and image, summed. */
static size_t image_run(struct pp_profile const *p, size_t i, uint64_t *sum)
{
	size_t j = i;

	memset(sum, 0, p->nr_classes * sizeof(*sum));
	for (; j < p->n && !strcmp(p->v[j].app, p->v[i].app) &&
	       !strcmp(p->v[j].image, p->v[i].image); j++)
		for (size_t c = 0; c < p->nr_classes; c++)
			sum[c] += p->v[j].counts[c];
	return j;
}

/* The entries of one image of the application: counts and symbols (a
 * module needs one symbol at least: one with none shown is left out). */
static void image(struct xml *x, int ind, size_t i, size_t next, bool own,
		  uint64_t const *img)
{
	struct pp_profile const *p = x->r->profile;

	if (own) {
		symbols(x, ind, &p->v[i], next - i, true);
		return;
	}
	if (!symbols(x, 0, &p->v[i], next - i, false))
		return;
	fprintf(x->out, "%*s<module", ind, "");
	attr(x->out, "name", p->v[i].image);
	fputs(">\n", x->out);
	counts(x, ind + 2, img, false);
	symbols(x, ind + 2, &p->v[i], next - i, true);
	fprintf(x->out, "%*s</module>\n", ind, "");
}

/* An application: its counts, its own image's symbols, then its modules. */
static size_t binary(struct xml *x, size_t first, uint64_t *sum,
		     uint64_t *img)
{
	struct pp_profile const *p = x->r->profile;
	char const *app = p->v[first].app;
	size_t end = first;

	memset(sum, 0, p->nr_classes * sizeof(*sum));
	for (; end < p->n && !strcmp(p->v[end].app, app); end++)
		for (size_t c = 0; c < p->nr_classes; c++)
			sum[c] += p->v[end].counts[c];
	fputs("  <binary", x->out);
	attr(x->out, "name", app);
	fputs(">\n", x->out);
	counts(x, 4, sum, false);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = first, next; i < end; i = next) {
			bool own = !strcmp(p->v[i].image, app);

			next = image_run(p, i, img);
			if (own == !pass)
				image(x, 4, i, next, own, img);
		}
	}
	fputs("  </binary>\n", x->out);
	return end;
}

/* The first entry listed in the columns [lo, hi), or NULL. */
static struct pp_entry const *first_shown(struct xml *x, size_t lo, size_t hi)
{
	struct pp_profile const *p = x->r->profile;

	x->lo = lo;
	x->hi = hi;
	for (size_t i = 0; i < p->n; i++)
		if (entry_shown(x, &p->v[i]))
			return &p->v[i];
	return NULL;
}

/* One thread (the columns [lo, hi)): its counts and a module per image
 * it was sampled in; nothing if it has no symbol to list. */
static void thread(struct xml *x, size_t lo, size_t hi, uint64_t *img)
{
	struct pp_profile const *p = x->r->profile;

	if (!first_shown(x, lo, hi))
		return;
	fprintf(x->out, "    <thread tid=\"%d\">\n", x->r->classes->v[lo].tid);
	counts(x, 6, p->totals, false);
	for (size_t i = 0, next; i < p->n; i = next) {
		next = image_run(p, i, img);
		image(x, 6, i, next, false, img);
	}
	fputs("    </thread>\n", x->out);
}

/* One process (the columns [lo, hi), one per thread): named after the
 * application of its first listed entry, as OProfile does. */
static void process(struct xml *x, size_t lo, size_t hi, uint64_t *img)
{
	struct pp_classes const *c = x->r->classes;
	struct pp_entry const *first = first_shown(x, lo, hi);

	if (!first)
		return;
	fprintf(x->out, "  <process pid=\"%d\"", c->v[lo].tgid);
	attr(x->out, "name", first->app);
	fputs(">\n", x->out);
	counts(x, 4, x->r->profile->totals, false);
	for (size_t t = lo, end; t < hi; t = end) {
		for (end = t; end < hi && c->v[end].tid == c->v[t].tid; end++)
			;
		thread(x, t, end, img);
	}
	fputs("  </process>\n", x->out);
}

/* The thread form's body: the columns are sorted by tgid, then tid. */
static void processes(struct xml *x, uint64_t *img)
{
	struct pp_classes const *c = x->r->classes;

	for (size_t lo = 0, hi; lo < c->n; lo = hi) {
		for (hi = lo; hi < c->n && c->v[hi].tgid == c->v[lo].tgid; hi++)
			;
		process(x, lo, hi, img);
	}
	x->lo = 0;
	x->hi = c->n;
}

static void symbol_table(struct xml *x)
{
	fputs("  <symboltable>\n", x->out);
	for (size_t i = 0; i < x->nr_sym; i++) {
		struct pp_entry const *e = &x->r->profile->v[x->entry_of[i]];

		fprintf(x->out, "    <symboldata id=\"%zu\"", i);
		attr(x->out, "name", e->symbol ? e->symbol : "(no symbols)");
		if (e->has_vma)
			fprintf(x->out, " startingaddr=\"0x%" PRIx64 "\"", e->vma);
		if (e->file) {
			attr(x->out, "file", e->file);
			fprintf(x->out, " line=\"%u\"", e->line);
		}
		fputs("/>\n", x->out);
	}
	fputs("  </symboltable>\n", x->out);
}

/* -d: every shown symbol's addresses, in the order the symbols came
 * (their detaillo..detailhi); vmaoffset is hexBinary: even digits. */
static void detail_table(struct xml *x)
{
	struct pp_profile const *p = x->r->profile;
	size_t id = 0;
	bool open = false;

	for (size_t s = 0; x->o->details && s < x->nr_sym; s++) {
		struct pp_entry const *e = &p->v[x->entry_of[s]];

		if (!e->nr_details || id >= x->nr_details)
			continue;
		if (!open)
			fputs("  <detailtable>\n", x->out);
		open = true;
		fprintf(x->out, "    <symboldetails id=\"%zu\">\n", s);
		for (size_t i = 0; i < e->nr_details; i++, id++) {
			struct pp_detail const *d = &e->details[i];
			char hex[40];
			int len = snprintf(hex, sizeof(hex), "%" PRIx64, d->vma);

			fprintf(x->out, "      <detaildata id=\"%zu\" vmaoffset=\"%s%s\"",
				id, len % 2 ? "0" : "", hex);
			if (d->file) {
				attr(x->out, "file", d->file);
				fprintf(x->out, " line=\"%u\"", d->line);
			}
			fputs(">\n", x->out);
			counts(x, 8, d->counts, true);
			fputs("      </detaildata>\n", x->out);
		}
		fputs("    </symboldetails>\n", x->out);
	}
	if (open)
		fputs("  </detailtable>\n", x->out);
}

int pp_output_xml(FILE *out, struct pp_report const *r,
		  struct pp_output_opts const *o, char *err, size_t errlen)
{
	struct pp_profile const *p = r->profile;
	struct xml x = { .out = out, .r = r, .o = o };
	uint64_t *sum, *img;

	if (o->diff) {
		snprintf(err, errlen, "differential profiles have no XML form");
		return -1;
	}
	x.id_of = op_xcalloc(p->n + 1, sizeof(*x.id_of));
	x.entry_of = op_xcalloc(p->n + 1, sizeof(*x.entry_of));
	x.detail_lo = op_xcalloc(p->n + 1, sizeof(*x.detail_lo));
	for (size_t i = 0; i < p->n; i++)
		x.id_of[i] = x.detail_lo[i] = -1;
	sum = op_xcalloc(p->nr_classes, sizeof(*sum));
	img = op_xcalloc(p->nr_classes, sizeof(*img));
	profile_open(&x);
	options(&x);
	setup(&x);
	publish_classes(&x);
	class_list(&x);
	notes(&x);
	if (x.threads)
		processes(&x, img);
	for (size_t i = 0; !x.threads && i < p->n;)
		i = binary(&x, i, sum, img);
	symbol_table(&x);
	detail_table(&x);
	fputs("</profile>\n", out);
	free(sum);
	free(img);
	free(x.id_of);
	free(x.entry_of);
	free(x.detail_lo);
	free(x.pub);
	free(x.sum_pub);
	return 0;
}
