/*
 * Collecting an annotation while the profile is populated (see
 * pp_annotate.h): for each symbol entry of an image, its samples with
 * their source lines and, for --assembly, its instructions. Kernel images
 * known only by their kallsyms have no code to show: that is noted once
 * per image, not silently left out.
 */
#include "config.h"

#include <bfd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_util.h"
#include "pp_annotate.h"
#include "pp_binary.h"
#include "pp_disasm.h"
#include "pp_kernel.h"
#include "pp_linenr.h"
#include "pp_notes.h"
#include "pp_profile.h"

void pp_annotation_init(struct pp_annotation *a, bool source, bool assembly)
{
	memset(a, 0, sizeof(*a));
	a->source = source;
	a->assembly = assembly;
}

static uint64_t *copy_counts(uint64_t const *c, size_t n)
{
	uint64_t *out = op_xmalloc(n * sizeof(*out));

	memcpy(out, c, n * sizeof(*out));
	return out;
}

/* The source line of vma; file NULL when there is none to show. */
static void source_line(struct pp_binary const *bin, uint64_t vma,
			char **file, unsigned *line)
{
	pp_binary_linenr(bin, vma, file, line);
	if (*file && (!(*file)[0] || !*line)) {
		free(*file);
		*file = NULL;
		*line = 0;
	}
}

static void add_samples(struct pp_annotation *a, struct pp_annot_func *f,
			struct pp_binary const *bin, struct pp_entry const *e)
{
	f->samples = op_xcalloc(e->nr_details ? e->nr_details : 1,
				sizeof(*f->samples));
	for (size_t i = 0; i < e->nr_details; i++) {
		struct pp_annot_sample *s = &f->samples[f->nr_samples++];

		s->vma = e->details[i].vma;
		s->counts = copy_counts(e->details[i].counts, a->nr_classes);
		source_line(bin, s->vma, &s->file, &s->line);
	}
}

/* Sum the samples at [vma, vma + len) into counts. */
static void insn_counts(struct pp_annotation const *a,
			struct pp_annot_func const *f, uint64_t vma,
			unsigned len, uint64_t *counts)
{
	for (size_t i = 0; i < f->nr_samples; i++) {
		struct pp_annot_sample const *s = &f->samples[i];

		if (s->vma < vma || s->vma - vma >= len)
			continue;
		for (size_t c = 0; c < a->nr_classes; c++)
			counts[c] += s->counts[c];
	}
}

/*
 * Bytes of code shown either side of a sample in a dynamic-symbol range:
 * a range spans the static functions between two exported ones (often
 * megabytes of a stripped binary), and all of it would bury the samples.
 */
#define RANGE_CONTEXT 48

static int cmp_u64(void const *a, void const *b)
{
	uint64_t x = *(uint64_t const *)a, y = *(uint64_t const *)b;

	return x < y ? -1 : x > y;
}

/* The sample addresses of f, sorted (malloc'd). */
static uint64_t *sorted_vmas(struct pp_annot_func const *f)
{
	uint64_t *v = op_xmalloc((f->nr_samples + 1) * sizeof(*v));

	for (size_t i = 0; i < f->nr_samples; i++)
		v[i] = f->samples[i].vma;
	qsort(v, f->nr_samples, sizeof(*v), cmp_u64);
	return v;
}

/*
 * Whether an instruction at vma (at most 16 bytes) is within
 * RANGE_CONTEXT of a sample; vma grows from call to call, *at follows.
 */
static bool near_sample(uint64_t const *v, size_t n, size_t *at, uint64_t vma)
{
	while (*at < n && v[*at] + RANGE_CONTEXT < vma)
		(*at)++;
	return *at < n && v[*at] < vma + 16 + RANGE_CONTEXT;
}

static void disassemble(struct pp_annotation *a, struct pp_annot_func *f,
			struct pp_binary const *bin, struct pp_disasm *d)
{
	struct pp_symbol const *sym = pp_symtab_find(&bin->symtab, f->start);
	uint64_t end = sym ? sym->end : f->start + 1;
	bool range = sym && sym->is_range, gap = false;
	uint64_t *vmas = range ? sorted_vmas(f) : NULL;
	size_t alloc = 0, at = 0;
	char text[512];

	for (uint64_t vma = f->start; vma < end;) {
		struct pp_annot_insn *in;
		unsigned len;

		if (range && !near_sample(vmas, f->nr_samples, &at, vma)) {
			/* decoded for its length only, to stay aligned */
			len = pp_disasm_length(d, vma);
			if (!len)
				break;
			gap = true;
			vma += len;
			continue;
		}
		len = pp_disasm_insn(d, vma, text, sizeof(text));
		if (!len)
			break;
		if (gap && f->nr_insns) {
			/* decoded, not shown: a text-less instruction says so */
			OP_ALLOC_GROW(f->insns, f->nr_insns + 1, alloc);
			memset(&f->insns[f->nr_insns++], 0, sizeof(*in));
		}
		gap = false;
		OP_ALLOC_GROW(f->insns, f->nr_insns + 1, alloc);
		in = &f->insns[f->nr_insns++];
		memset(in, 0, sizeof(*in));
		in->vma = vma;
		in->text = op_xstrdup(text);
		in->counts = op_xcalloc(a->nr_classes, sizeof(uint64_t));
		insn_counts(a, f, vma, len, in->counts);
		if (a->source)
			source_line(bin, vma, &in->file, &in->line);
		vma += len;
	}
	free(vmas);
}

static struct pp_disasm *open_disasm(struct pp_annotation *a,
				     struct pp_binary const *bin,
				     char const *image)
{
	struct pp_disasm *d = NULL;
	char err[512];
	char *msg;

	if (!bin->abfd && bin->jit_map)
		snprintf(err, sizeof(err), "no code of JIT-compiled functions "
			 "is kept (their names come from the process's perf "
			 "map, session/jit/)");
	else if (!bin->abfd)
		snprintf(err, sizeof(err), "no binary to read its code from "
			 "(its symbols come from the session's saved kernel "
			 "symbols%s)", pp_kernel_is_proper(image) ?
			 "; --vmlinux FILE gives the kernel's code" : "");
	else
		d = pp_disasm_new(bin->abfd, &bin->symtab, err, sizeof(err));
	if (d)
		return d;
	msg = op_xasprintf("cannot disassemble '%s': %s", image, err);
	if (!pp_strlist_has(&a->notes, msg))
		pp_note(&a->notes, "%s", msg);
	free(msg);
	return NULL;
}

void pp_annotation_image(void *arg, struct pp_binary const *bin,
			 struct pp_profile const *p, size_t from,
			 char const *image)
{
	struct pp_annotation *a = arg;
	struct pp_disasm *d = NULL;
	bool tried = false;

	a->nr_classes = p->nr_classes;
	for (size_t i = from; i < p->n; i++) {
		struct pp_entry const *e = &p->v[i];
		struct pp_annot_func *f;

		if (!e->symbol || !e->has_vma)
			continue;
		OP_ALLOC_GROW(a->v, a->n + 1, a->alloc);
		f = &a->v[a->n++];
		memset(f, 0, sizeof(*f));
		f->name = op_xstrdup(e->symbol);
		f->image = op_xstrdup(image);
		f->start = e->vma;
		f->counts = copy_counts(e->counts, a->nr_classes);
		source_line(bin, e->vma, &f->file, &f->line);
		add_samples(a, f, bin, e);
		if (!a->assembly)
			continue;
		if (!tried) {
			d = open_disasm(a, bin, image);
			tried = true;
		}
		if (d)
			disassemble(a, f, bin, d);
	}
	pp_disasm_free(d);
}

void pp_annotation_free(struct pp_annotation *a)
{
	for (size_t i = 0; i < a->n; i++) {
		struct pp_annot_func *f = &a->v[i];

		for (size_t s = 0; s < f->nr_samples; s++) {
			free(f->samples[s].counts);
			free(f->samples[s].file);
		}
		for (size_t s = 0; s < f->nr_insns; s++) {
			free(f->insns[s].text);
			free(f->insns[s].file);
			free(f->insns[s].counts);
		}
		free(f->samples);
		free(f->insns);
		free(f->name);
		free(f->image);
		free(f->file);
		free(f->counts);
	}
	free(a->v);
	pp_strlist_free(&a->notes);
	memset(a, 0, sizeof(*a));
}
