/*
 * Ordering report rows: --sort=sample,image,app-name,symbol,debug,vma
 * (keys in priority order; sample is descending, the others ascending)
 * and --reverse-sort. Ties end in image, symbol, address order so that
 * reports are reproducible.
 */
#ifndef PP_SORT_H
#define PP_SORT_H

#include <stdbool.h>
#include <stddef.h>

#include "pp_profile.h"

enum pp_sort_key {
	PP_SORT_SAMPLE,
	PP_SORT_IMAGE,
	PP_SORT_APP,
	PP_SORT_SYMBOL,
	PP_SORT_DEBUG,
	PP_SORT_VMA,
};

#define PP_SORT_MAX_KEYS 6

struct pp_sort {
	enum pp_sort_key keys[PP_SORT_MAX_KEYS];
	size_t n;                 /* 0: by samples */
	bool reverse;
	bool long_names;          /* -f: image and app compare as full paths,
				   * else by base name (OProfile's rule) */
};

/* Parse a --sort list. 0, or -1 with err. */
int pp_sort_parse(char const *text, struct pp_sort *s, char *err,
		  size_t errlen);

/* Sort rows; "sample" compares the counts of class cls. */
void pp_sort_rows(struct pp_entry const **rows, size_t n,
		  struct pp_sort const *s, size_t cls);

#endif /* PP_SORT_H */
