/*
 * The profile container: every reported entry - an (application, image)
 * pair for an image summary, an (application, image, symbol) triple for
 * a symbol list - with its sample count in each class, and for -d the
 * count at each address inside it. Populating it (pp_populate.h) reads the
 * sample files of each inverted profile and symbolises them with the
 * image's binary (libbfd) or the session's kallsyms.
 *
 * Samples that cannot be symbolised are never dropped: a missing or
 * changed binary, an anonymous region or an offset outside any symbol
 * keeps its samples in an entry without a symbol ("(no symbols)").
 *
 * With a callgraph (opreport -c) the profile also holds arcs between its
 * entries, read from the {cg} files: an entry may then have no samples of
 * its own (a caller whose own code was never sampled).
 */
#ifndef PP_PROFILE_H
#define PP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_classes.h"
#include "pp_demangle.h"
#include "pp_files.h"
#include "pp_invert.h"
#include "pp_locate.h"
#include "pp_symtab.h"

struct pp_detail {
	uint64_t vma;            /* address; a file offset when has_vma is false */
	uint64_t *counts;        /* per class */
	char *file;              /* -g: source file or NULL */
	unsigned line;
};

struct pp_entry {
	char *app;               /* application */
	char *image;             /* image the samples fell in, full name */
	char *symbol;            /* display name, NULL: no symbol */
	bool has_vma;            /* vma and the details' vmas are addresses */
	uint64_t vma;            /* start of the symbol */
	char *file;              /* -g: source of the symbol start, or NULL */
	unsigned line;
	uint64_t *counts;        /* per class */
	struct pp_detail *details;   /* -d: by address */
	size_t nr_details, alloc_details;
	struct pp_raw_detail *raw;   /* while populating: unsorted details */
	size_t nr_raw, alloc_raw;
	bool hidden;             /* -c: an arc's end that -i/-e leave out:
				  * a caller or callee, never a block */
};

/* A call-graph arc: calls from one entry into another (or itself). */
struct pp_arc {
	size_t caller, callee;   /* entries */
	uint64_t *counts;        /* per class: arc samples */
};

struct pp_raw_detail {
	uint64_t vma;
	int cls;
	uint64_t count;
};

struct pp_profile {
	size_t nr_classes;
	struct pp_entry *v;
	size_t n, alloc;
	uint64_t *totals;        /* per class: sum over all entries */
	size_t nr_bad_files;     /* sample files skipped */
	struct pp_arc *arcs;     /* -c: sorted by caller, then callee */
	size_t nr_arcs, alloc_arcs;
	size_t *arcs_in;         /* -c: arc indexes by callee, then caller */
};

void pp_profile_free(struct pp_profile *p);

/* For pp_populate.c: a new entry (symbol is taken over), its index. */
size_t pp_profile_add(struct pp_profile *p, char const *app,
		      char const *image, char *symbol, bool has_vma,
		      uint64_t vma);
/* For pp_populate.c: record count samples of class cls at vma. */
void pp_entry_add_detail(struct pp_entry *e, uint64_t vma, int cls,
			 uint64_t count);
/* For pp_populate.c: sort and fold the details of entries [from, n). */
void pp_profile_fold_details(struct pp_profile *p, size_t from);
/* Merge entries that name the same thing (one kernel, two sessions). */
void pp_profile_finish(struct pp_profile *p);

/* For pp_callgraph.c: the entry named so in a finished profile, or -1. */
long pp_profile_find(struct pp_profile const *p, char const *app,
		     char const *image, char const *symbol, bool has_vma,
		     uint64_t vma);
/* Whether a finished profile has an entry of image under app. */
bool pp_profile_has_image(struct pp_profile const *p, char const *app,
			  char const *image);

/* -c: the arcs out of entry i (arcs[*first ..]) and into it
 * (arcs_in[*first ..]); their number. */
size_t pp_arcs_out(struct pp_profile const *p, size_t i, size_t *first);
size_t pp_arcs_in(struct pp_profile const *p, size_t i, size_t *first);

/* Whether any entry's image is not its application (--separate=lib). */
bool pp_profile_has_dependents(struct pp_profile const *p);

#endif /* PP_PROFILE_H */
