/*
 * Opening a sampled image's symbols: the one path for the sample report
 * (pp_populate.c) and the call graph (pp_callgraph.c). A user binary is
 * located (pp_locate.h) and read with libbfd; a kernel image (by its
 * {kern} name, or a binary a sample header calls kernel that cannot be
 * found) takes its symbols from its session's saved kallsyms; an
 * anonymous region takes them from what its process's perf map said, as
 * the daemon kept it in its session (session/jit/TGID.map, op_perf_map.h:
 * JIT-compiled code), else has none.
 *
 *	struct pp_image im = { 0 };
 *	pp_image_locate(&im, &ref, locate);	(before reading samples:
 *						 im.mtime tells stale ones)
 *	failure = pp_image_open(&im, &ref, is_kernel, kernels, what, len);
 *	... im.bin ...
 *	pp_image_free(&im);
 */
#ifndef PP_IMAGE_H
#define PP_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_binary.h"

struct pp_kernels;
struct pp_locate;

/* A sampled image, as its sample files name it. */
struct pp_image_ref {
	char const *name;       /* sampled path, or kernel image name */
	char const *display;    /* as reports name it */
	bool kern;              /* a {kern} image */
	bool anon;              /* an anonymous region */
	int anon_tgid;          /* its process (0: the merged regions) */
	uint64_t anon_start, anon_end;  /* its range */
	size_t session;         /* its session (kernel symbols, JIT maps) */
};

struct pp_image {
	char *path;             /* the located binary, or NULL */
	char why[1024];         /* why path is NULL */
	bool have_mtime;
	uint64_t mtime;         /* of path */
	struct pp_binary bin;   /* its symbols; empty when it has none */
	/* set: path is the debug file of the sampled build (the binary is
	 * another build or gone) and its keys map through these segments */
	struct op_segment *segs;
	size_t nr_segs;
	bool quiet;             /* finding it notes nothing (said before) */
};

/* Why an image has no symbols; the caller says what that costs. */
enum pp_image_failure {
	PP_IMAGE_OK,            /* symbols, or none to expect (anon without
				 * a JIT map, no kallsyms) */
	PP_IMAGE_NO_KERNEL_SYMBOLS,
	PP_IMAGE_NOT_FOUND,
	PP_IMAGE_UNREADABLE,
};

/* Locate a user binary (not kernel, not anon) and take its mtime. */
void pp_image_locate(struct pp_image *im, struct pp_image_ref const *ref,
		     struct pp_locate *locate);

/*
 * Open the symbols of a located image. is_kernel: a sample header calls
 * the image kernel. On failure what gets "no symbols for kernel image
 * 'X': ERR", "cannot find binary 'X' (WHY)" or "cannot read symbols of
 * 'PATH': ERR".
 */
enum pp_image_failure pp_image_open(struct pp_image *im,
				    struct pp_image_ref const *ref,
				    bool is_kernel, struct pp_kernels *kernels,
				    char *what, size_t whatlen);

/*
 * Check a located user binary against the build-id (hex) its session
 * recorded for the sampled build. Another build is replaced by the copy
 * the daemon kept (--keep-binaries), else by the sampled build's debug
 * file found by build-id (keys mapped through the session's segments);
 * when neither is found, true: the binary is another build and must not
 * name the samples. Notes say which. Before pp_image_open.
 */
struct pp_strlist;
bool pp_image_check_build(struct pp_image *im,
			  struct pp_image_ref const *ref,
			  char const *session_dir, char const *want,
			  struct pp_strlist *notes);

/*
 * The one lookup of a sampled user binary's bytes, for every tool:
 * locate it (a later build of a path, PATH/{build:ID} in op_mangle.h, at
 * PATH) and check it against the sampled build (pp_image_check_build):
 * the tag's build-id, else want (a build-id known otherwise, or NULL),
 * else the one session_dir's build-ids recorded for the path. true when
 * the binary found is another build and nothing of the sampled one was:
 * its samples must stay without symbols (the notes say so). Kernel
 * images and anonymous regions: false, nothing located.
 */
bool pp_image_find(struct pp_image *im, struct pp_image_ref const *ref,
		   struct pp_locate *locate, char const *session_dir,
		   char const *want, struct pp_strlist *notes);

/* Close the binary and forget the path; im can be located again. */
void pp_image_free(struct pp_image *im);

#endif /* PP_IMAGE_H */
