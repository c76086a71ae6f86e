/*
 * opreport --flame=FILE.html: the paths as one self-contained flame graph
 * page. The page (pp_flame.html, a C string made at build time) holds the
 * script and the style; the tree goes into it as JSON where it says
 * "/\*@DATA@*\/": {title, event, diff, baseTotal, tree}, a node being
 * {n: name, v: samples, b: samples before (differential only), c: [...]}.
 * The root is "all", its children the processes, then root to leaf.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_escape.h"
#include "op_file.h"
#include "op_util.h"
#include "pp_flame.h"
#include "pp_stacks_output.h"

extern char const pp_flame_html[];

#define DATA_MARK "/*@DATA@*/"

struct fnode {
	char const *name;        /* borrowed */
	uint64_t v, b;
	size_t *kids;
	size_t nr_kids, alloc_kids;
};

struct ftree {
	struct fnode *v;
	size_t n, alloc;
};

static size_t new_node(struct ftree *t, char const *name)
{
	OP_ALLOC_GROW(t->v, t->n + 1, t->alloc);
	t->v[t->n] = (struct fnode){ .name = name };
	return t->n++;
}

static size_t child(struct ftree *t, size_t parent, char const *name)
{
	size_t k;

	for (size_t i = 0; i < t->v[parent].nr_kids; i++)
		if (!strcmp(t->v[t->v[parent].kids[i]].name, name))
			return t->v[parent].kids[i];
	k = new_node(t, name);
	OP_ALLOC_GROW(t->v[parent].kids, t->v[parent].nr_kids + 1,
		      t->v[parent].alloc_kids);
	t->v[parent].kids[t->v[parent].nr_kids++] = k;
	return k;
}

/* Add the paths along the tree: to v (now) or b (before). */
static void add_paths(struct ftree *t, struct pp_stacks const *st,
		      struct pp_spaths const *p, bool before)
{
	for (size_t i = 0; i < p->n; i++) {
		size_t at = 0;
		uint64_t c = p->v[i].count;

		*(before ? &t->v[0].b : &t->v[0].v) += c;
		at = child(t, 0, p->v[i].proc);
		*(before ? &t->v[at].b : &t->v[at].v) += c;
		for (size_t k = 0; k < p->v[i].nr_funcs; k++) {
			at = child(t, at, st->funcs[p->v[i].funcs[k]].name);
			*(before ? &t->v[at].b : &t->v[at].v) += c;
		}
	}
}

/* A JSON string that is also safe inside a <script> element, of a name
 * escaped by the printing rule (op_escape.h): valid UTF-8, no controls,
 * shown as the text reports show it. */
static void json_str(FILE *out, char const *name)
{
	char *e = op_escape(name);

	fputc('"', out);
	for (char const *s = e; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
	free(e);
}

static int cmp_kid(void const *a, void const *b, void *arg)
{
	struct ftree const *t = arg;

	return strcmp(t->v[*(size_t const *)a].name,
		      t->v[*(size_t const *)b].name);
}

/* Node i and its children with samples now, names in order. */
static void json_node(FILE *out, struct ftree *t, size_t i, bool diff)
{
	struct fnode *n = &t->v[i];
	bool first = true;

	fputs("{\"n\":", out);
	json_str(out, n->name);
	fprintf(out, ",\"v\":%" PRIu64, n->v);
	if (diff)
		fprintf(out, ",\"b\":%" PRIu64, n->b);
	if (n->nr_kids > 1)
		qsort_r(n->kids, n->nr_kids, sizeof(*n->kids), cmp_kid, t);
	fputs(",\"c\":[", out);
	for (size_t k = 0; k < n->nr_kids; k++) {
		if (!t->v[n->kids[k]].v)
			continue;
		if (!first)
			fputc(',', out);
		first = false;
		json_node(out, t, n->kids[k], diff);
	}
	fputs("]}", out);
}

static void write_page(FILE *out, char const *title,
		       struct pp_stacks const *st, struct ftree *t,
		       struct pp_stacks const *base_st)
{
	char const *mark = strstr(pp_flame_html, DATA_MARK);

	fwrite(pp_flame_html, 1, (size_t)(mark - pp_flame_html), out);
	fputs("{\"title\":", out);
	json_str(out, title);
	fputs(",\"event\":", out);
	json_str(out, st->event);
	fprintf(out, ",\"diff\":%s,\"baseTotal\":%" PRIu64 ",\"tree\":",
		base_st ? "true" : "false", base_st ? base_st->total : 0);
	json_node(out, t, 0, base_st != NULL);
	fputs("}", out);
	fputs(mark + strlen(DATA_MARK), out);
}

int pp_flame_write(char const *path, char const *title,
		   struct pp_stacks const *st, struct pp_spaths const *p,
		   struct pp_stacks const *base_st,
		   struct pp_spaths const *base, char *err, size_t errlen)
{
	struct ftree t = { 0 };
	FILE *out;
	int rc = 0;

	new_node(&t, "all");
	add_paths(&t, st, p, false);
	if (base)
		add_paths(&t, base_st, base, true);
	out = op_fopen_output(path);
	if (!out) {
		snprintf(err, errlen, "cannot write '%s': %s", path,
			 op_file_strerror(errno));
		rc = -1;
	} else {
		write_page(out, title, st, &t, base ? base_st : NULL);
		if (ferror(out) | fclose(out)) {
			snprintf(err, errlen, "writing '%s' failed: %s", path,
				 strerror(errno));
			rc = -1;
		}
	}
	for (size_t i = 0; i < t.n; i++)
		free(t.v[i].kids);
	free(t.v);
	return rc;
}
