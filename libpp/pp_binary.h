/*
 * A binary image opened for symbolisation: its symbol ranges and how a
 * sample key becomes a vma. User binaries and libraries key samples by
 * file offset (mapped through the section holding that file position);
 * kernel images key them by offset from the image start (vma = key +
 * base). pp_bfd.c and pp_kernel.c fill it; an image with no binary has
 * PP_KEY_NONE and no symbols.
 */
#ifndef PP_BINARY_H
#define PP_BINARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_debuginfo.h"
#include "pp_symtab.h"

struct bfd;
struct bfd_symbol;

enum pp_keymap {
	PP_KEY_NONE,      /* no binary: keys cannot be mapped */
	PP_KEY_FILEPOS,   /* key is a file offset: through secs */
	PP_KEY_BASE,      /* vma = key + base */
};

struct pp_section_map {
	uint64_t filepos;   /* file offset of the section's contents */
	uint64_t size;      /* bytes */
	uint64_t vma;       /* its address */
};

struct pp_binary {
	struct pp_symtab symtab;
	enum pp_keymap keymap;
	uint64_t base;                  /* PP_KEY_BASE */
	struct pp_section_map *secs;    /* PP_KEY_FILEPOS, sorted by filepos */
	size_t nr_secs, alloc_secs;
	struct bfd *abfd;               /* when read with libbfd: the image */
	struct bfd *debug_abfd;         /* its separate debug file, or NULL */
	char *debug_path;               /* that file's path */
	enum pp_debug_how debug_how;    /* how it was found */
	struct pp_build_id build_id;    /* the image's (len 0: none) */
	struct bfd_symbol **bfd_syms;   /* symbols of the line-info bfd */
	bool dynamic;                   /* symbols are dynamic-symbol ranges */
};

/* The bfd holding line info and symbols: the debug file, else the image. */
static inline struct bfd *pp_binary_debug_bfd(struct pp_binary const *b)
{
	return b->debug_abfd ? b->debug_abfd : b->abfd;
}

/* The vma of a sample key; false when it lies in no mapped section. */
bool pp_binary_vma(struct pp_binary const *b, uint64_t key, uint64_t *vma);

void pp_binary_free(struct pp_binary *b);

/*
 * Read path with libbfd: its symbol table, else its dynamic symbols as
 * ranges, plus synthetic "@plt" symbols. A binary without a symbol table
 * or without DWARF of its own takes both from its separate debug file
 * when one is found (pp_debuginfo.h). is_kernel: a vmlinux, keyed from
 * its _text. 0, or -1 with err (b is then empty).
 */
int pp_bfd_open(struct pp_binary *b, char const *path, bool is_kernel,
		char *err, size_t errlen);

/*
 * Source file and line of vma (file malloc'd, NULL when unknown). Only
 * for binaries read with libbfd.
 */
int pp_binary_linenr(struct pp_binary const *b, uint64_t vma, char **file,
		     unsigned *line);

/* One level of the inline chain at an address (pp_binary_lines). */
struct pp_lineinfo {
	char *func;              /* raw name from DWARF, or NULL */
	char *file;              /* NULL: unknown */
	unsigned line;
};

/*
 * The functions at vma, innermost inlined one first, ending with the
 * function the code belongs to (*out malloc'd, each string too); 0 when
 * the binary has no line info there.
 */
size_t pp_binary_lines(struct pp_binary const *b, uint64_t vma,
		       struct pp_lineinfo **out);

/*
 * Opening a sampled image's symbols: the one path for the sample report
 * (pp_populate.c) and the call graph (pp_callgraph.c). A user binary is
 * located (pp_locate.h) and read with libbfd; a kernel image (by its
 * {kern} name, or a binary a sample header calls kernel that cannot be
 * found) takes its symbols from its session's saved kallsyms; an
 * anonymous region has none.
 *
 *	struct pp_image im = { 0 };
 *	pp_image_locate(&im, &ref, locate);	(before reading samples:
 *						 im.mtime tells stale ones)
 *	failure = pp_image_open(&im, &ref, is_kernel, kernels, what, len);
 *	... im.bin ...
 *	pp_image_free(&im);
 */
struct pp_kernels;
struct pp_locate;

/* A sampled image, as its sample files name it. */
struct pp_image_ref {
	char const *name;       /* sampled path, or kernel image name */
	char const *display;    /* as reports name it */
	bool kern;              /* a {kern} image */
	bool anon;              /* an anonymous region */
	size_t session;         /* its session (for kernel symbols) */
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
	PP_IMAGE_OK,            /* symbols, or none to expect (anon, no kallsyms) */
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

#endif /* PP_BINARY_H */
