/*
 * Inverted profiles: sample files regrouped by the image the samples fell
 * in (B), so that each image - libc, the kernel, a module - is opened and
 * symbolised once, however many applications have samples in it. Under
 * each image, groups of files by (application, class).
 */
#ifndef PP_INVERT_H
#define PP_INVERT_H

#include <stdbool.h>
#include <stddef.h>

#include "pp_files.h"

struct pp_group {
	char *app;               /* the application these samples are shown under */
	int cls;                 /* class (column) */
	size_t *files;           /* indexes into the file list */
	size_t n, alloc;
};

struct pp_inverted {
	size_t first;            /* index of a file naming the image */
	struct pp_group *groups; /* by application, then class */
	size_t n, alloc;
};

struct pp_invlist {
	struct pp_inverted *v;
	size_t n, alloc;
};

/* merge_lib: show dependent images on their own (app = image). */
void pp_invert(struct pp_filelist const *files, bool merge_lib,
	       struct pp_invlist *out);
void pp_invlist_free(struct pp_invlist *l);

/* Hex digits of a build-id shown for a later build of a path. */
#define PP_SHORT_BUILD_ID 12

/*
 * The image (B) of a file as reports name it: a path, a kernel image
 * name, "NAME (PID:APP)" for an anonymous region (pp_anon_display; the
 * regions past the daemon's bound, merged, have no one pid), or for a
 * later build of a path (PATH/{build:ID}, op_mangle.h) "PATH (build
 * 0123456789ab)" (the build-id's first PP_SHORT_BUILD_ID digits), "PATH
 * (build of mtime N)" when it has none. Caller frees.
 */
char *pp_image_display(struct op_parsed_name const *n);
/*
 * An anonymous region as reports name it: "NAME (PID:APP)", NAME as the
 * daemon kept it ("anon" for "//anon", "[anon:NAME]" as /proc/PID/maps
 * shows a region named with PR_SET_VMA_ANON_NAME, "[heap]", ...), PID
 * its process, APP the base name of that process's program ("NAME
 * (PID)" when app is NULL: not known). Caller frees.
 */
char *pp_anon_display(char const *name, int tgid, char const *app);
/* A path (an application's too) as reports name it: the same for a
 * later build. Caller frees. */
char *pp_path_display(char const *name);

#endif /* PP_INVERT_H */
