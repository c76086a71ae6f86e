/*
 * Every tool's -v/--version line, in OProfile's format (scripts parse
 * it): "TOOL: PACKAGE VERSION compiled on DATE TIME".
 */
#ifndef OP_VERSION_H
#define OP_VERSION_H

#include <stdio.h>

/* Print tool's version line to out. */
void op_print_version(FILE *out, char const *tool);

#endif /* OP_VERSION_H */
