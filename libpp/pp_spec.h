/*
 * Profile specifications: the "tag:value,value" words the report tools
 * take to choose sample files (session:, image:, event:, tid:, ...), and
 * the "{ spec } { spec }" form of differential profiles.
 *
 * A tag may appear once; values are comma lists; image and session values
 * are fnmatch(3) globs. Words without a tag are image-or-lib-image names.
 * Parsing only checks syntax; pp_files.c does the matching.
 */
#ifndef PP_SPEC_H
#define PP_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "pp_strlist.h"

enum pp_tag {
	PP_TAG_SESSION,
	PP_TAG_SESSION_EXCLUDE,
	PP_TAG_IMAGE,              /* the application (A of the file name) */
	PP_TAG_IMAGE_EXCLUDE,
	PP_TAG_LIB_IMAGE,          /* the image the samples fell in (B) */
	PP_TAG_LIB_IMAGE_EXCLUDE,
	PP_TAG_EVENT,
	PP_TAG_COUNT,
	PP_TAG_UNIT_MASK,
	PP_TAG_CPU,
	PP_TAG_TGID,
	PP_TAG_TID,
	PP_TAG_ARCHIVE,
	PP_TAG_BARE,               /* words without a tag: A or B */
	PP_NR_TAGS
};

struct pp_spec {
	bool given[PP_NR_TAGS];
	struct pp_strlist v[PP_NR_TAGS];   /* values, image paths made absolute */
};

/* "image", "lib-image", ... ("" for PP_TAG_BARE). */
char const *pp_tag_name(enum pp_tag tag);

/*
 * Parse words into spec (zeroed by the call). Returns 0, or -1 with err
 * naming the word: unknown tag, tag given twice, empty or bad value.
 */
int pp_spec_parse(struct pp_spec *spec, int argc, char const *const *argv,
		  char *err, size_t errlen);
void pp_spec_free(struct pp_spec *spec);

/* Whether number value is in the numeric list of tag (not given: true). */
bool pp_spec_match_number(struct pp_spec const *spec, enum pp_tag tag,
			  long value);

/* The spec as text for messages and XML ("" when empty). Caller frees. */
char *pp_spec_text(int argc, char const *const *argv);

/*
 * Differential profiles: "{ A... } { B... }" with braces as separate
 * words. Returns 0 when argv has no braces (one spec: all of argv), 1 when
 * it is differential (first[i], count[i]: the words of spec i), -1 with
 * err when the braces are malformed.
 */
int pp_spec_split_diff(int argc, char const *const *argv, int first[2],
		       int count[2], char *err, size_t errlen);

#endif /* PP_SPEC_H */
