/*
 * A binary's symbols read with libbfd (pp_bfd.c); pp_binary.h says what
 * a struct pp_binary holds.
 */
#ifndef PP_BFD_H
#define PP_BFD_H

#include <stdbool.h>
#include <stddef.h>

#include "pp_binary.h"

/*
 * Read path with libbfd: its symbol table, else its dynamic symbols as
 * ranges, plus synthetic "@plt" symbols. A binary without a symbol table
 * or without DWARF of its own takes both from its separate debug file
 * when one is found (pp_debuginfo.h). is_kernel: a vmlinux, keyed from
 * its _text. 0, or -1 with err (b is then empty).
 */
int pp_bfd_open(struct pp_binary *b, char const *path, bool is_kernel,
		char *err, size_t errlen);

#endif /* PP_BFD_H */
