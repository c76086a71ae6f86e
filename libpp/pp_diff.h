/*
 * Differential profiles ("opreport { old } { new }"): two profiles of one
 * class each become one profile of two classes, old (0) and new (1),
 * whose entries are matched by what a report shows of them - application,
 * image and symbol names - not by addresses, since comparing two builds
 * of a program is the point.
 */
#ifndef PP_DIFF_H
#define PP_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "pp_classes.h"
#include "pp_profile.h"

/*
 * Two classes from each side's one. 0, or -1 with err when a side has
 * several classes (a differential report has one column per side).
 */
int pp_diff_classes(struct pp_classes *out, struct pp_classes const *old,
		    struct pp_classes const *new, char *err, size_t errlen);

/* out: the matched entries (long_names: match full paths). */
void pp_diff_profiles(struct pp_profile *out, struct pp_profile const *old,
		      struct pp_profile const *new, bool long_names);

#endif /* PP_DIFF_H */
