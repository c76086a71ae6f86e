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
	bool jit_map;                   /* symbols from a JIT's perf map: no code */
};

/* The bfd holding line info and symbols: the debug file, else the image. */
static inline struct bfd *pp_binary_debug_bfd(struct pp_binary const *b)
{
	return b->debug_abfd ? b->debug_abfd : b->abfd;
}

/* The vma of a sample key; false when it lies in no mapped section. */
bool pp_binary_vma(struct pp_binary const *b, uint64_t key, uint64_t *vma);

void pp_binary_free(struct pp_binary *b);

#endif /* PP_BINARY_H */
