/*
 * Report output. A report is a profile (entries with per-class counts),
 * its classes and the notes gathered while building it; the formatters
 * write it as OProfile's text layout (pp_output_text.h) or as XML valid
 * against doc/opreport.xsd (pp_output_xml.h). Percentages, thresholds and
 * short names are decided here once for both.
 */
#ifndef PP_OUTPUT_H
#define PP_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pp_classes.h"
#include "pp_profile.h"
#include "pp_sort.h"

struct pp_output_opts {
	bool symbols;          /* -l: symbol list, else image summary */
	bool details;          /* -d: per-address lines under each symbol */
	bool debug_info;       /* -g: linenr info column */
	bool show_vma;         /* -w: vma column */
	bool long_names;       /* -f: full paths */
	bool accumulated;      /* -a: cumulative columns */
	bool global_percent;   /* -%: percentages of the whole profile */
	bool no_header;        /* -n */
	double threshold;      /* -t: hide rows below this percentage */
	struct pp_sort sort;
	bool diff;             /* classes 0 and 1: old and new; diff % column */
	bool callgraph;        /* -c: callers and callees of each symbol */
	/* XML only: <profile title>, and the <options> OProfile records */
	char const *title;     /* "opreport ARGS" */
	char const *session, *merge, *include_symbols, *exclude_symbols;
	char const *image_path;
	bool exclude_dependent;
};

/* OProfile 1.x's opreport XML schema version (doc/opreport.xsd). */
#define PP_XML_SCHEMA_VERSION "3.1"

struct pp_report {
	struct pp_profile const *profile;
	struct pp_classes const *classes;
	struct pp_strlist const *notes;
	char const *spec;      /* the specification, for XML */
	struct pp_strlist const *fleet;   /* a fleet report's header lines
					   * (pp_fleet.h), else NULL */
};

/* --- shared by the formatters --- */

/* 100 * n / total, 0 when total is 0. */
double pp_percent(uint64_t n, uint64_t total);

/* Whether a row passes the threshold in any class. */
bool pp_row_shown(uint64_t const *counts, uint64_t const *totals,
		  size_t nr_classes, double threshold);

/* The base name of a path unless long_names; other names as they are. */
char const *pp_short_name(char const *name, bool long_names);

/* prefix, then text with its control characters escaped (op_escape.h),
 * then a newline: every line of a report that holds names. */
void pp_output_line(FILE *out, char const *prefix, char const *text);

/*
 * The diff % cell of a row: the change of its share from the old (class
 * 0) to the new profile (class 1), relative to the old share, as
 * "+12.3456"; "+++" when the row is only in the new profile, "---" when
 * only in the old.
 */
void pp_diff_text(uint64_t const *counts, uint64_t const *totals, char *buf,
		  size_t len);

/* The rows of p (as pointers) that pass the threshold, sorted. */
struct pp_entry const **pp_select_rows(struct pp_profile const *p,
				       struct pp_output_opts const *o,
				       size_t *n);

#endif /* PP_OUTPUT_H */
