/*
 * Source lines of a binary's addresses through libbfd's DWARF reader
 * (pp_linenr.c).
 */
#ifndef PP_LINENR_H
#define PP_LINENR_H

#include <stddef.h>
#include <stdint.h>

#include "pp_binary.h"

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

#endif /* PP_LINENR_H */
