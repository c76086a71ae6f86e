/*
 * Names that come from files and binaries (sample file names, paths,
 * symbols, event names) may hold control characters; printed raw they
 * would drive the terminal (an escape sequence in a file name can retitle
 * it, clear it, or hide lines). Every tool prints them through here:
 * bytes below 0x20 and 0x7f become \xNN; everything else, UTF-8
 * included, is kept.
 */
#ifndef OP_ESCAPE_H
#define OP_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Whether s holds a byte op_escape would change (newline included). */
bool op_needs_escape(char const *s, size_t len);

/*
 * Write len bytes of s to out with control characters escaped; with
 * keep_newlines, '\n' is written as it is (for multi-line text).
 */
void op_fput_escaped(FILE *out, char const *s, size_t len, bool keep_newlines);

/* s escaped, malloc'ed (dies when out of memory). */
char *op_escape(char const *s);

#endif /* OP_ESCAPE_H */
