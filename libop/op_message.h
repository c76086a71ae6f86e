/*
 * One error vocabulary for every tool (git's usage.c model):
 *   op_die()   "PROG: fatal: ..." on stderr, exit(1)
 *   op_error() "PROG: error: ..." on stderr, returns -1
 *   op_warn()  "PROG: warning: ..." on stderr
 * Messages: lowercase first word, no full stop, the failure first, the
 * file or value named: op_error("cannot open '%s': %s", path, strerror(errno)).
 * A newline is added; do not end the format with one.
 */
#ifndef OP_MESSAGE_H
#define OP_MESSAGE_H

#include <stdarg.h>
#include <stddef.h>

/* Program name used as the prefix; defaults to "oprofile". */
void op_set_progname(char const *name);
char const *op_progname(void);

_Noreturn void op_die(char const *fmt, ...) __attribute__((format(printf, 1, 2)));
int op_error(char const *fmt, ...) __attribute__((format(printf, 1, 2)));
void op_warn(char const *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Allocation that dies with a message instead of returning NULL. */
void *op_xmalloc(size_t n);
void *op_xcalloc(size_t n, size_t size);
void *op_xrealloc(void *p, size_t n);
char *op_xstrdup(char const *s);

#endif /* OP_MESSAGE_H */
