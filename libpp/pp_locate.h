/*
 * Finding the file of a sampled binary: the sampled path below the root
 * (-R sysroot, or an archive: directory), else a file of the same base
 * name in the --image-path directories (searched recursively, once).
 * A name found twice there is ambiguous and not used: a wrong binary
 * would give wrong symbols, which is worse than none.
 */
#ifndef PP_LOCATE_H
#define PP_LOCATE_H

#include <stdbool.h>
#include <stddef.h>

#include "pp_strlist.h"

struct pp_locate {
	char *root;                  /* prefix of sampled paths, or NULL */
	struct pp_strlist dirs;      /* --image-path directories */
	bool indexed;                /* names/paths below are built */
	struct pp_strlist names;     /* base names of the files in dirs */
	struct pp_strlist paths;     /* their paths, same order */
};

/* root may be NULL; image_path is a comma list or NULL. 0 or -1 with err. */
int pp_locate_init(struct pp_locate *l, char const *root,
		   char const *image_path, char *err, size_t errlen);

/*
 * The file to read for the sampled path image (malloc'd), or NULL with
 * why saying where it was looked for.
 */
char *pp_locate_image(struct pp_locate *l, char const *image,
		      char *why, size_t whylen);

void pp_locate_free(struct pp_locate *l);

#endif /* PP_LOCATE_H */
