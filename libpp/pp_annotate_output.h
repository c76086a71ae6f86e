/* The annotation written (pp_annotate_output.c); see pp_annotate.h. */
#ifndef PP_ANNOTATE_OUTPUT_H
#define PP_ANNOTATE_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pp_annotate.h"
#include "pp_classes.h"
#include "pp_strlist.h"

struct pp_annotate_opts {
	bool source, assembly;
	double threshold;                      /* -t: percent */
	struct pp_strlist const *search_dirs;  /* where sources moved to */
	struct pp_strlist const *base_dirs;    /* prefixes to strip first */
	struct pp_strlist const *include_files, *exclude_files;
	char const *output_dir;                /* annotated copies there */
};

/*
 * Write the annotation: header (cpu, events, the files and their
 * totals), then each source file line by line, or each function's
 * instructions, or both interleaved. Percentages are of totals (per
 * class). 0, or -1 when an --output-dir file cannot be written (said).
 */
int pp_annotate_write(FILE *out, struct pp_annotation const *a,
		      uint64_t const *totals, struct pp_classes const *c,
		      struct pp_annotate_opts const *o);

#endif /* PP_ANNOTATE_OUTPUT_H */
