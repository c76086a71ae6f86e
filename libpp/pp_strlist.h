/*
 * Small string lists: comma-separated option values and spec tag values
 * ("a,b,c"), and glob matching of a name against such a list. Every
 * libpp file that takes a list uses these, so lists behave the same
 * everywhere (empty items are refused, order is kept).
 */
#ifndef PP_STRLIST_H
#define PP_STRLIST_H

#include <stdbool.h>
#include <stddef.h>

struct pp_strlist {
	size_t n;        /* number of strings */
	size_t alloc;    /* room in v */
	char **v;        /* owned strings */
};

/* Append a copy of s. */
void pp_strlist_add(struct pp_strlist *l, char const *s);

/*
 * Append the items of the comma-separated text. Returns 0, or -1 when an
 * item is empty ("a,,b", "a,", "") with a message in err.
 */
int pp_strlist_split(struct pp_strlist *l, char const *text,
		     char *err, size_t errlen);

/* Whether the list holds exactly s. */
bool pp_strlist_has(struct pp_strlist const *l, char const *s);

/* Items joined with ", ", at most max items, then ", ...". Caller frees. */
char *pp_strlist_join(struct pp_strlist const *l, size_t max);

/* Sort the items (strcmp order). */
void pp_strlist_sort(struct pp_strlist *l);

void pp_strlist_free(struct pp_strlist *l);

/* Whether s matches any fnmatch(3) pattern of the list. */
bool pp_strlist_match(struct pp_strlist const *l, char const *s);

#endif /* PP_STRLIST_H */
