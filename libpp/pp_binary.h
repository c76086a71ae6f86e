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
	size_t nr_secs;
	struct bfd *abfd;               /* when read with libbfd: line info */
	struct bfd_symbol **bfd_syms;   /* its full symbol table (may be empty) */
	bool dynamic;                   /* symbols are dynamic-symbol ranges */
};

/* The vma of a sample key; false when it lies in no mapped section. */
bool pp_binary_vma(struct pp_binary const *b, uint64_t key, uint64_t *vma);

void pp_binary_free(struct pp_binary *b);

/*
 * Read path with libbfd: its symbol table, else its dynamic symbols as
 * ranges, plus synthetic "@plt" symbols. is_kernel: a vmlinux, keyed from
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

#endif /* PP_BINARY_H */
