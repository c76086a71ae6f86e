/*
 * The image summary in OProfile's layout (pp_output_summary.c).
 */
#ifndef PP_OUTPUT_SUMMARY_H
#define PP_OUTPUT_SUMMARY_H

#include <stdio.h>

#include "pp_output.h"

/* The image summary (pp_output_text() without -l). */
void pp_output_summary(FILE *out, struct pp_report const *r,
		       struct pp_output_opts const *o);

#endif /* PP_OUTPUT_SUMMARY_H */
