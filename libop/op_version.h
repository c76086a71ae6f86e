/*
 * Every tool's -v/--version line, in OProfile's format (scripts parse
 * it): "TOOL: oprofile OPVERSION compiled on DATE TIME (PACKAGE VERSION)".
 * OPVERSION is the OProfile release whose interface the tools implement:
 * scripts and OProfile's own test suite take the first dotted number of
 * the line as the version and choose the options they pass by it.
 */
#ifndef OP_VERSION_H
#define OP_VERSION_H

#include <stdio.h>

/* The OProfile release whose options and files we implement. */
#define OP_COMPAT_VERSION "1.4.0"

/* Print tool's version line to out. */
void op_print_version(FILE *out, char const *tool);

#endif /* OP_VERSION_H */
