/*
 * Text reports in OProfile's layout (pp_output_text.c).
 */
#ifndef PP_OUTPUT_TEXT_H
#define PP_OUTPUT_TEXT_H

#include <stdio.h>

#include "pp_output.h"

/* Image summary, symbol list (-l) or call graph (-c, see pp_output_text.c). */
void pp_output_text(FILE *out, struct pp_report const *r,
		    struct pp_output_opts const *o);

#endif /* PP_OUTPUT_TEXT_H */
