/*
 * Annotation (opannotate): the sampled functions of a profile with their
 * samples by address, each address's source line (the innermost one: code
 * inlined from elsewhere counts at its own line) and, for --assembly,
 * their instructions from libopcodes. Collected while populating the
 * profile (pp_populate_opts.image_done = pp_annotation_image), written by
 * pp_annotate_write() (pp_annotate_output.h) as annotated source or
 * disassembly.
 */
#ifndef PP_ANNOTATE_H
#define PP_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pp_strlist.h"

struct pp_binary;
struct pp_profile;
struct pp_classes;

struct pp_annot_sample {
	uint64_t vma;
	uint64_t *counts;        /* per class */
	char *file;              /* source, NULL: no line info */
	unsigned line;
};

struct pp_annot_insn {
	uint64_t vma;
	char *text;              /* as libopcodes prints it; NULL: code
				  * left out (a range, far from samples) */
	char *file;              /* -s -a: its source line */
	unsigned line;
	uint64_t *counts;        /* per class */
};

struct pp_annot_func {
	char *name;              /* as opreport -l shows it */
	char *image;
	char *file;              /* where it starts; NULL: no line info */
	unsigned line;
	uint64_t start;
	uint64_t *counts;        /* per class: the function's total */
	struct pp_annot_sample *samples;
	size_t nr_samples;
	struct pp_annot_insn *insns;     /* -a */
	size_t nr_insns;
};

struct pp_annotation {
	bool source, assembly;   /* what to collect */
	size_t nr_classes;
	struct pp_annot_func *v;
	size_t n, alloc;
	struct pp_strlist notes; /* what cannot be annotated, said once */
};

void pp_annotation_init(struct pp_annotation *a, bool source,
			bool assembly);

/* pp_populate_opts.image_done: collect the image's functions (arg: a). */
void pp_annotation_image(void *arg, struct pp_binary const *bin,
			 struct pp_profile const *p, size_t from,
			 char const *image);

void pp_annotation_free(struct pp_annotation *a);

#endif /* PP_ANNOTATE_H */
