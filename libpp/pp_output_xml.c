/*
 * XML reports, valid against doc/opreport.xsd. The layout follows
 * OProfile's: per application a <binary> with its counts, its own
 * symbols and a <module> per dependent image; symbol names, addresses
 * and source positions once in a <symboltable>, referenced by id. Every
 * string from a sample file or a binary is escaped, and bytes that are
 * not UTF-8 are replaced, so that hostile names cannot break the XML.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_cpu_type.h"
#include "op_message.h"
#include "pp_header.h"
#include "pp_output.h"

struct xml {
	FILE *out;
	struct pp_report const *r;
	struct pp_output_opts const *o;
	struct pp_entry const **symtab;   /* entries given a symboldata id */
	size_t nr_sym;
};

/* Length of the valid UTF-8 sequence at s, 0 if invalid. */
static size_t utf8_len(unsigned char const *s)
{
	size_t n = s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : s[0] >= 0xe0 ? 3 :
		   s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;

	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

static void put_escaped(FILE *out, char const *s)
{
	for (unsigned char const *p = (unsigned char const *)s; *p; p++) {
		size_t n;

		switch (*p) {
		case '&': fputs("&amp;", out); continue;
		case '<': fputs("&lt;", out); continue;
		case '>': fputs("&gt;", out); continue;
		case '"': fputs("&quot;", out); continue;
		case '\'': fputs("&apos;", out); continue;
		}
		if (*p < 0x80) {
			fputc(*p >= 0x20 || *p == '\t' ? *p : '?', out);
			continue;
		}
		n = utf8_len(p);
		if (!n) {
			fputc('?', out);
			continue;
		}
		fwrite(p, 1, n, out);
		p += n - 1;
	}
}

static void attr(FILE *out, char const *name, char const *value)
{
	fprintf(out, " %s=\"", name);
	put_escaped(out, value);
	fputc('"', out);
}

static void counts(struct xml *x, char const *indent, uint64_t const *n)
{
	for (size_t c = 0; c < x->r->profile->nr_classes; c++)
		fprintf(x->out, "%s<count class=\"c%zu\">%" PRIu64 "</count>\n",
			indent, c, n[c]);
}

static void profile_open(struct xml *x)
{
	struct pp_classes const *c = x->r->classes;
	struct pp_class const *k = &c->v[0];
	char const *cpu = NULL, *pretty = NULL;
	char mhz[64];

	for (size_t i = 0; i < c->n && !cpu; i++) {
		if (!c->v[i].has_header)
			continue;
		k = &c->v[i];
		cpu = op_cpu_name((enum op_cpu)k->header.cpu_type);
		pretty = op_cpu_pretty_name((enum op_cpu)k->header.cpu_type);
	}
	snprintf(mhz, sizeof(mhz), "%.3f", k->has_header ?
		 k->header.cpu_speed : 0.0);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<profile", x->out);
	attr(x->out, "schemaversion", "1.0");
	attr(x->out, "cputype", cpu ? cpu : "unknown");
	attr(x->out, "processor", pretty ? pretty : "unknown");
	attr(x->out, "mhz", mhz);
	attr(x->out, "spec", x->r->spec ? x->r->spec : "");
	fputs(">\n", x->out);
}

static void class_list(struct xml *x)
{
	struct pp_classes const *c = x->r->classes;
	struct pp_events ev = { 0 };

	fputs("  <classes>\n", x->out);
	for (size_t i = 0; i < c->n; i++) {
		struct pp_class const *k = &c->v[i];
		char const *desc, *um_desc;

		pp_event_text(&ev, k, &desc, &um_desc);
		fprintf(x->out, "    <class name=\"c%zu\"", i);
		attr(x->out, "label", k->label);
		attr(x->out, "event", k->event);
		fprintf(x->out, " count=\"%d\"", k->count);
		if (k->unit_mask >= 0)
			fprintf(x->out, " unitmask=\"%d\"", k->unit_mask);
		if (k->tgid >= 0)
			fprintf(x->out, " tgid=\"%d\"", k->tgid);
		if (k->tid >= 0)
			fprintf(x->out, " tid=\"%d\"", k->tid);
		if (k->cpu >= 0)
			fprintf(x->out, " cpu=\"%d\"", k->cpu);
		if (desc)
			attr(x->out, "description", desc);
		fputs("/>\n", x->out);
	}
	pp_events_free(&ev);
	fputs("  </classes>\n  <totals>\n", x->out);
	counts(x, "    ", x->r->profile->totals);
	fputs("  </totals>\n", x->out);
}

static void notes(struct xml *x)
{
	struct pp_strlist const *n = x->r->notes;

	if (!n || !n->n)
		return;
	fputs("  <notes>\n", x->out);
	for (size_t i = 0; i < n->n; i++) {
		fputs("    <note>", x->out);
		put_escaped(x->out, n->v[i]);
		fputs("</note>\n", x->out);
	}
	fputs("  </notes>\n", x->out);
}

static void details(struct xml *x, char const *indent, struct pp_entry const *e)
{
	char deeper[80];

	snprintf(deeper, sizeof(deeper), "%s  ", indent);
	for (size_t i = 0; i < e->nr_details; i++) {
		struct pp_detail const *d = &e->details[i];

		fprintf(x->out, "%s<detaildata %s=\"0x%" PRIx64 "\"", indent,
			e->has_vma ? "vma" : "offset", d->vma);
		if (d->file) {
			attr(x->out, "file", d->file);
			fprintf(x->out, " line=\"%u\"", d->line);
		}
		fputs(">\n", x->out);
		counts(x, deeper, d->counts);
		fprintf(x->out, "%s</detaildata>\n", indent);
	}
}

/* The symbols of one image of one application: entries [first, first+n). */
static void symbols(struct xml *x, char const *indent,
		    struct pp_entry const *first, size_t n)
{
	struct pp_profile const *p = x->r->profile;
	struct pp_entry const **rows = op_xcalloc(n, sizeof(*rows));
	struct pp_sort const by_samples = { .n = 0 };   /* -s, -r: text only */
	char deeper[64];
	size_t nr = 0;

	snprintf(deeper, sizeof(deeper), "%s    ", indent);
	for (size_t i = 0; i < n; i++)
		if (pp_row_shown(first[i].counts, p->totals, p->nr_classes,
				 x->o->threshold))
			rows[nr++] = &first[i];
	pp_sort_rows(rows, nr, &by_samples, 0);
	for (size_t i = 0; i < nr; i++) {
		fprintf(x->out, "%s<symbol idref=\"s%zu\">\n", indent, x->nr_sym);
		x->symtab[x->nr_sym++] = rows[i];
		counts(x, deeper + 2, rows[i]->counts);
		details(x, deeper + 2, rows[i]);
		fprintf(x->out, "%s</symbol>\n", indent);
	}
	free(rows);
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

/* The entries of one image of the application: counts and symbols. */
static void image(struct xml *x, size_t i, size_t next, bool own,
		  uint64_t const *img)
{
	struct pp_profile const *p = x->r->profile;

	if (!own) {
		fputs("    <module", x->out);
		attr(x->out, "name", p->v[i].image);
		fputs(">\n", x->out);
		counts(x, "      ", img);
	}
	if (x->o->symbols)
		symbols(x, own ? "    " : "      ", &p->v[i], next - i);
	if (!own)
		fputs("    </module>\n", x->out);
}

/* An application: its own image's symbols first, then its modules. */
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
	counts(x, "    ", sum);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = first, next; i < end; i = next) {
			bool own = !strcmp(p->v[i].image, app);

			next = image_run(p, i, img);
			if (own == !pass)
				image(x, i, next, own, img);
		}
	}
	fputs("  </binary>\n", x->out);
	return end;
}

static void symbol_table(struct xml *x)
{
	if (!x->nr_sym)
		return;
	fputs("  <symboltable>\n", x->out);
	for (size_t i = 0; i < x->nr_sym; i++) {
		struct pp_entry const *e = x->symtab[i];

		fprintf(x->out, "    <symboldata id=\"s%zu\"", i);
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

int pp_output_xml(FILE *out, struct pp_report const *r,
		  struct pp_output_opts const *o, char *err, size_t errlen)
{
	struct pp_profile const *p = r->profile;
	struct xml x = { out, r, o, NULL, 0 };
	uint64_t *sum, *img;

	if (o->diff) {
		snprintf(err, errlen, "differential profiles have no XML form");
		return -1;
	}
	x.symtab = op_xcalloc(p->n, sizeof(*x.symtab));
	sum = op_xcalloc(p->nr_classes, sizeof(*sum));
	img = op_xcalloc(p->nr_classes, sizeof(*img));
	profile_open(&x);
	class_list(&x);
	notes(&x);
	for (size_t i = 0; i < p->n;)
		i = binary(&x, i, sum, img);
	symbol_table(&x);
	fputs("</profile>\n", out);
	free(sum);
	free(img);
	free(x.symtab);
	return 0;
}
