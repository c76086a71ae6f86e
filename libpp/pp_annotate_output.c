/*
 * Writing an annotation (see pp_annotate_output.h) in OProfile's opannotate
 * layout: every line starts with one "count percent" column per class
 * (blank when nothing was sampled there) and a ':'; what follows is the
 * source line or the instruction. A function's total is written at the
 * line where it starts. A source file that cannot be found is named, and
 * its functions' totals are still written.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_escape.h"
#include "op_file.h"
#include "op_message.h"
#include "op_util.h"
#include "pp_annotate.h"
#include "pp_annotate_output.h"
#include "pp_classes.h"
#include "pp_header.h"

#define MAX_SOURCE (64u << 20)

/* Samples of one source line. */
struct line_count {
	char const *file;
	unsigned line;
	uint64_t const *counts;
};

/* One source file of the annotation. */
struct src_file {
	char const *name;
	uint64_t *totals;
	struct line_count *lines;   /* sorted by line, not folded */
	size_t nr_lines;
	size_t *funcs;              /* functions starting in it, by line */
	size_t nr_funcs;
};

struct writer {
	FILE *out;
	struct pp_annotation const *a;
	uint64_t const *totals;
	struct pp_annotate_opts const *o;
	size_t nc;
	bool *shown;                /* per function: above the threshold */
	struct src_file *files;
	size_t nr_files;
	struct line_count *all;     /* every sampled line, by file then line */
	size_t nr_all;
};

static double percent(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

static bool any(uint64_t const *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (c[i])
			return true;
	return false;
}

/* The columns of a line: counts and percentages, or blanks. */
static void put_columns(struct writer *w, FILE *out, uint64_t const *c)
{
	for (size_t i = 0; i < w->nc; i++) {
		if (c && any(c, w->nc))
			fprintf(out, "%7" PRIu64 " %8.4f ", c[i],
				percent(c[i], w->totals[i]));
		else
			fprintf(out, "%17s", "");
	}
	fputc(':', out);
}

/* "N P[ N P...]" for comments. */
static void put_total(struct writer *w, FILE *out, uint64_t const *c)
{
	for (size_t i = 0; i < w->nc; i++)
		fprintf(out, "%s%7" PRIu64 " %8.4f", i ? " " : "", c[i],
			percent(c[i], w->totals[i]));
}

static bool above_threshold(struct writer *w, uint64_t const *c)
{
	for (size_t i = 0; i < w->nc; i++)
		if (percent(c[i], w->totals[i]) >= w->o->threshold)
			return true;
	return false;
}

static bool file_wanted(struct pp_annotate_opts const *o, char const *f)
{
	if (o->include_files && o->include_files->n &&
	    !pp_strlist_match(o->include_files, f))
		return false;
	return !(o->exclude_files && pp_strlist_match(o->exclude_files, f));
}

static int cmp_line(void const *pa, void const *pb)
{
	struct line_count const *a = pa, *b = pb;
	int c = strcmp(a->file, b->file);

	if (c)
		return c;
	return a->line < b->line ? -1 : a->line > b->line;
}

static void collect_lines(struct writer *w)
{
	size_t alloc = 0;

	for (size_t i = 0; i < w->a->n; i++) {
		struct pp_annot_func const *f = &w->a->v[i];

		for (size_t s = 0; w->shown[i] && s < f->nr_samples; s++) {
			if (!f->samples[s].file ||
			    !file_wanted(w->o, f->samples[s].file))
				continue;
			OP_ALLOC_GROW(w->all, w->nr_all + 1, alloc);
			w->all[w->nr_all++] = (struct line_count){
				f->samples[s].file, f->samples[s].line,
				f->samples[s].counts,
			};
		}
	}
	if (w->nr_all)
		qsort(w->all, w->nr_all, sizeof(*w->all), cmp_line);
}

static struct src_file *file_named(struct writer *w, char const *name,
				   size_t *alloc)
{
	for (size_t i = 0; i < w->nr_files; i++)
		if (!strcmp(w->files[i].name, name))
			return &w->files[i];
	OP_ALLOC_GROW(w->files, w->nr_files + 1, *alloc);
	w->files[w->nr_files] = (struct src_file){
		.name = name, .totals = op_xcalloc(w->nc, sizeof(uint64_t)),
	};
	return &w->files[w->nr_files++];
}

static void collect_files(struct writer *w)
{
	size_t alloc = 0;

	for (size_t i = 0; i < w->nr_all;) {
		struct src_file *f = file_named(w, w->all[i].file, &alloc);
		size_t j = i;

		f->lines = &w->all[i];
		while (j < w->nr_all && !strcmp(w->all[j].file, f->name)) {
			for (size_t c = 0; c < w->nc; c++)
				f->totals[c] += w->all[j].counts[c];
			j++;
		}
		f->nr_lines = j - i;
		i = j;
	}
	/* functions are written in their start file, even one of no samples */
	for (size_t i = 0; i < w->a->n; i++) {
		struct pp_annot_func const *fn = &w->a->v[i];
		struct src_file *f;

		if (!w->shown[i] || !fn->file || !file_wanted(w->o, fn->file))
			continue;
		f = file_named(w, fn->file, &alloc);
		f->funcs = op_xrealloc(f->funcs,
				       (f->nr_funcs + 1) * sizeof(*f->funcs));
		f->funcs[f->nr_funcs++] = i;
	}
}

/* Files by total samples (first class), then by name. */
static int cmp_file(void const *pa, void const *pb)
{
	struct src_file const *a = pa, *b = pb;

	if (a->totals[0] != b->totals[0])
		return a->totals[0] > b->totals[0] ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The source file to read for name, or NULL. */
static char *find_source(struct pp_annotate_opts const *o, char const *name)
{
	struct pp_strlist const *sd = o->search_dirs, *bd = o->base_dirs;
	char const *base = strrchr(name, '/');
	struct stat st;

	if (!stat(name, &st) && S_ISREG(st.st_mode) &&
	    !(bd && bd->n && sd && sd->n))
		return op_xstrdup(name);
	for (size_t b = 0; bd && b < bd->n; b++) {
		size_t len = strlen(bd->v[b]);

		if (strncmp(name, bd->v[b], len))
			continue;
		for (size_t s = 0; sd && s < sd->n; s++) {
			char *p = op_xasprintf("%s/%s", sd->v[s],
					       name + len + (name[len] == '/'));

			if (!stat(p, &st) && S_ISREG(st.st_mode))
				return p;
			free(p);
		}
	}
	for (size_t s = 0; sd && s < sd->n; s++) {
		char *p = op_xasprintf("%s%s%s", sd->v[s],
				       name[0] == '/' ? "" : "/", name);

		if (!stat(p, &st) && S_ISREG(st.st_mode))
			return p;
		free(p);
		if (!base)
			continue;
		p = op_xasprintf("%s%s", sd->v[s], base);
		if (!stat(p, &st) && S_ISREG(st.st_mode))
			return p;
		free(p);
	}
	if (!stat(name, &st) && S_ISREG(st.st_mode))
		return op_xstrdup(name);
	return NULL;
}

/* A source file split in lines (lines[i] is line i + 1). */
struct text {
	char *buf;
	char **lines;
	size_t n;
};

static int text_read(struct text *t, char const *path)
{
	size_t len, alloc = 0;
	char err[512];

	memset(t, 0, sizeof(*t));
	t->buf = op_read_file(path, MAX_SOURCE, &len, err, sizeof(err));
	if (!t->buf) {
		op_warn("%s", err);
		return -1;
	}
	for (char *p = t->buf; *p;) {
		char *nl = strchr(p, '\n');

		OP_ALLOC_GROW(t->lines, t->n + 1, alloc);
		t->lines[t->n++] = p;
		if (!nl)
			break;
		*nl = '\0';
		if (nl > p && nl[-1] == '\r')
			nl[-1] = '\0';	/* CRLF: the line ends before it */
		p = nl + 1;
	}
	return 0;
}

static void text_free(struct text *t)
{
	free(t->buf);
	free(t->lines);
}

/* A line of source or disassembly: text from input, so under the
 * printing rule (op_escape.h), with its tabs kept. */
static void put_text(FILE *out, char const *text)
{
	op_fput_escaped(out, text, strlen(text), OP_ESCAPE_KEEP_TAB);
}

/* " [IMAGE]" and the comment end, after a function's total. */
static void put_image(FILE *out, char const *image)
{
	fputs(" [", out);
	op_fputs_escaped(out, image);
	fputs("] */\n", out);
}

static void put_func_totals(struct writer *w, FILE *out,
			    struct src_file const *f, size_t *next,
			    unsigned line)
{
	while (*next < f->nr_funcs &&
	       (line == 0 || w->a->v[f->funcs[*next]].line <= line)) {
		struct pp_annot_func const *fn = &w->a->v[f->funcs[(*next)++]];

		fputs(" /* ", out);
		op_fputs_escaped(out, fn->name);
		fputs(" total: ", out);
		put_total(w, out, fn->counts);
		fputs(" */", out);
	}
}

static int cmp_func_line(void const *pa, void const *pb, void *arg)
{
	struct pp_annotation const *a = arg;
	unsigned la = a->v[*(size_t const *)pa].line;
	unsigned lb = a->v[*(size_t const *)pb].line;

	return la < lb ? -1 : la > lb;
}

static void put_file_header(struct writer *w, FILE *out,
			    struct src_file const *f)
{
	fputs("/* \n * Total samples for file : \"", out);
	op_fputs_escaped(out, f->name);
	fputs("\"\n * \n * ", out);
	put_total(w, out, f->totals);
	fputs("\n */\n\n", out);
}

/* The file's lines with their counts; one past the last sampled line is
 * a file that is not the one the binary was built from: said. */
static void put_source(struct writer *w, FILE *out, struct src_file const *f,
		       struct text const *t)
{
	size_t li = 0, fi = 0;
	uint64_t *c = op_xcalloc(w->nc, sizeof(uint64_t));

	for (size_t n = 1; n <= t->n; n++) {
		memset(c, 0, w->nc * sizeof(*c));
		while (li < f->nr_lines && f->lines[li].line <= n) {
			if (f->lines[li].line == n)
				for (size_t k = 0; k < w->nc; k++)
					c[k] += f->lines[li].counts[k];
			li++;
		}
		put_columns(w, out, c);
		put_text(out, t->lines[n - 1]);
		put_func_totals(w, out, f, &fi, (unsigned)n);
		fputc('\n', out);
	}
	free(c);
	if (li < f->nr_lines)
		op_warn("source file '%s' has %zu lines but samples are on "
			"line %u: it is not the file the binary was built from",
			f->name, t->n, f->lines[f->nr_lines - 1].line);
}

static void put_missing(struct writer *w, FILE *out, struct src_file const *f)
{
	size_t fi = 0;

	op_warn("cannot find source file '%s'%s: its functions' totals are "
		"shown without its lines", f->name,
		w->o->search_dirs && w->o->search_dirs->n ?
		" (nor in --search-dirs)" : "");
	fputs("/* opannotate: source file '", out);
	op_fputs_escaped(out, f->name);
	fputs("' not found */\n", out);
	while (fi < f->nr_funcs) {
		put_func_totals(w, out, f, &fi, 0);
		fputc('\n', out);
	}
	fputc('\n', out);
}

/*
 * --output-dir: DIR + the source path (less a --base-dirs prefix), opened
 * beneath DIR (op_open_beneath): the source path comes from the binary's
 * DWARF, which whoever built it chose, so a '..' in it, or a link in an
 * existing DIR, must not send root's write elsewhere. A path that would
 * leave DIR is not written: warned about, *skipped set.
 */
static FILE *open_copy(struct writer *w, char const *name, char **path,
		       bool *skipped)
{
	char const *rel = name, *dir = w->o->output_dir;
	struct pp_strlist const *bd = w->o->base_dirs;
	FILE *f = NULL;
	int fd, rc;

	for (size_t b = 0; bd && b < bd->n; b++)
		if (!strncmp(name, bd->v[b], strlen(bd->v[b])))
			rel = name + strlen(bd->v[b]);
	rel += strspn(rel, "/");
	*path = op_xasprintf("%s/%s", dir, rel);
	if (op_path_escapes(rel)) {
		op_warn("source file '%s' not annotated into '%s': its path "
			"has a '..' component, the copy would be outside it",
			name, dir);
		*skipped = true;
		return NULL;
	}
	rc = op_mkdir_p(dir);
	if (rc) {
		op_error("cannot create '%s': %s", dir, op_file_strerror(-rc));
		return NULL;
	}
	fd = op_open_beneath(dir, rel, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0 && !(f = fdopen(fd, "w")))
		close(fd);
	if (!f)
		op_error("cannot write '%s': %s", *path, op_file_strerror(errno));
	return f;
}

static int put_file(struct writer *w, struct src_file *f)
{
	char *src = find_source(w->o, f->name), *copy = NULL;
	FILE *out = w->out;
	struct text t;
	bool skip = false;
	int rc = 0;

	if (f->nr_funcs > 1)
		qsort_r(f->funcs, f->nr_funcs, sizeof(*f->funcs), cmp_func_line,
			(void *)w->a);
	if (w->o->output_dir && !(out = open_copy(w, f->name, &copy, &skip))) {
		free(copy);
		free(src);
		return skip ? 0 : -1;
	}
	put_file_header(w, out, f);
	if (src && !text_read(&t, src)) {
		put_source(w, out, f, &t);
		text_free(&t);
	} else {
		put_missing(w, out, f);
	}
	if (out != w->out && fclose(out))
		rc = op_error_errno("cannot write '%s'", copy);
	free(copy);
	free(src);
	return rc;
}

static void put_header(struct writer *w, struct pp_classes const *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	pp_header_write(mem, c);
	fclose(mem);
	fputs("/* \n", w->out);
	/* lines pp_header_write has escaped */
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n"))
		fprintf(w->out, " * %s\n", l);
	free(text);
	if (w->a->source && !w->a->assembly) {
		fputs(" * \n * Source files with samples:\n", w->out);
		for (size_t i = 0; i < w->nr_files; i++) {
			fputs(" * ", w->out);
			put_total(w, w->out, w->files[i].totals);
			fputs("  ", w->out);
			op_fputs_escaped(w->out, w->files[i].name);
			fputc('\n', w->out);
		}
	}
	for (size_t i = 0; i < w->a->notes.n; i++) {
		fputs(" * Note: ", w->out);
		op_fputs_escaped(w->out, w->a->notes.v[i]);
		fputc('\n', w->out);
	}
	fputs(" */\n\n", w->out);
}

/* Functions of images without line info: their totals, said so. */
static void put_no_lines(struct writer *w)
{
	bool said = false;

	for (size_t i = 0; i < w->a->n; i++) {
		struct pp_annot_func const *fn = &w->a->v[i];

		if (!w->shown[i] || fn->file)
			continue;
		if (!said)
			fputs("/* \n * Functions without source line "
			      "information (no debug info found):\n */\n",
			      w->out);
		said = true;
		fputs(" /* ", w->out);
		op_fputs_escaped(w->out, fn->name);
		fputs(" total: ", w->out);
		put_total(w, w->out, fn->counts);
		put_image(w->out, fn->image);
	}
	if (said)
		fputc('\n', w->out);
}

/* A source line of -s -a, from a small cache of read files. */
struct src_cache {
	struct pp_strlist names;
	struct text *texts;         /* buf NULL: not found */
};

static char const *cached_line(struct writer *w, struct src_cache *sc,
			       char const *file, unsigned line)
{
	size_t i;

	for (i = 0; i < sc->names.n; i++)
		if (!strcmp(sc->names.v[i], file))
			break;
	if (i == sc->names.n) {
		char *src = find_source(w->o, file);

		pp_strlist_add(&sc->names, file);
		sc->texts = op_xrealloc(sc->texts, sc->names.n *
					sizeof(*sc->texts));
		memset(&sc->texts[i], 0, sizeof(*sc->texts));
		if (src && text_read(&sc->texts[i], src))
			memset(&sc->texts[i], 0, sizeof(*sc->texts));
		free(src);
	}
	if (!sc->texts[i].buf || !line || line > sc->texts[i].n)
		return NULL;
	return sc->texts[i].lines[line - 1];
}

static void put_function_asm(struct writer *w, struct pp_annot_func const *f,
			     struct src_cache *sc)
{
	char const *pfile = NULL;
	unsigned pline = 0;

	put_columns(w, w->out, NULL);
	fprintf(w->out, "%016" PRIx64 " <", f->start);
	op_fputs_escaped(w->out, f->name);
	fputs(">: /* ", w->out);
	op_fputs_escaped(w->out, f->name);
	fputs(" total: ", w->out);
	put_total(w, w->out, f->counts);
	put_image(w->out, f->image);
	for (size_t i = 0; i < f->nr_insns; i++) {
		struct pp_annot_insn const *in = &f->insns[i];

		if (!in->text) {
			/* code of a range far from its samples, left out */
			put_columns(w, w->out, NULL);
			fputs("\t...\n", w->out);
			continue;
		}
		if (w->a->source && in->file && (in->line != pline ||
		    !pfile || strcmp(pfile, in->file))) {
			char const *text = cached_line(w, sc, in->file,
						       in->line);
			char const *b = strrchr(in->file, '/');

			put_columns(w, w->out, NULL);
			fputs("/* ", w->out);
			op_fputs_escaped(w->out, b ? b + 1 : in->file);
			fprintf(w->out, ":%u */ ", in->line);
			put_text(w->out, text ? text : "");
			fputc('\n', w->out);
			pfile = in->file;
			pline = in->line;
		}
		put_columns(w, w->out, in->counts);
		fprintf(w->out, "%8" PRIx64 ":\t", in->vma);
		put_text(w->out, in->text);
		fputc('\n', w->out);
	}
	fputc('\n', w->out);
}

static void put_assembly(struct writer *w)
{
	struct src_cache sc = { 0 };

	for (size_t i = 0; i < w->a->n; i++)
		if (w->shown[i] && w->a->v[i].nr_insns)
			put_function_asm(w, &w->a->v[i], &sc);
	for (size_t i = 0; i < sc.names.n; i++)
		text_free(&sc.texts[i]);
	free(sc.texts);
	pp_strlist_free(&sc.names);
}

int pp_annotate_write(FILE *out, struct pp_annotation const *a,
		      uint64_t const *totals, struct pp_classes const *c,
		      struct pp_annotate_opts const *o)
{
	struct writer w = { out, a, totals, o, a->nr_classes ? a->nr_classes :
			    c->n, NULL, NULL, 0, NULL, 0 };
	int rc = 0;

	w.shown = op_xcalloc(a->n + 1, sizeof(bool));
	for (size_t i = 0; i < a->n; i++)
		w.shown[i] = above_threshold(&w, a->v[i].counts);
	if (a->source && !a->assembly) {
		collect_lines(&w);
		collect_files(&w);
		if (w.nr_files > 1)
			qsort(w.files, w.nr_files, sizeof(*w.files), cmp_file);
	}
	if (!o->output_dir)
		put_header(&w, c);
	if (a->assembly) {
		put_assembly(&w);
	} else {
		for (size_t i = 0; i < w.nr_files; i++)
			if (put_file(&w, &w.files[i]))
				rc = -1;
		if (!o->output_dir)
			put_no_lines(&w);
	}
	for (size_t i = 0; i < w.nr_files; i++) {
		free(w.files[i].totals);
		free(w.files[i].funcs);
	}
	free(w.files);
	free(w.all);
	free(w.shown);
	return rc;
}
