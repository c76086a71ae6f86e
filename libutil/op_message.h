/*
 * One error vocabulary for every tool (git's usage.c model):
 *   op_die()   "PROG: fatal: ..." on stderr, exit(1)
 *   op_error() "PROG: error: ..." on stderr, returns -1
 *   op_warn()  "PROG: warning: ..." on stderr
 *   op_info()  "PROG: ..." on stderr (a daemon's log line)
 *   op_hint()  "hint: ..." on stderr: what the user can do about an error
 *   BUG()      "PROG: fatal: BUG: FILE:LINE: ..." on stderr, abort()
 * The _errno variants append ": strerror(errno)" (errno as on entry).
 * Messages: lowercase first word, no full stop, the failure first, the
 * file or value named: op_error_errno("cannot open '%s'", path).
 * A newline is added; do not end the format with one.
 *
 * Every message goes through one sink, so a program can send them all to
 * one place in one form: the daemon installs one that timestamps each
 * line of its log (op_set_message_sink).
 */
#ifndef OP_MESSAGE_H
#define OP_MESSAGE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/*
 * An internal invariant broken: a bug of this program, never something
 * bad input can cause (that is op_error's or op_die's). Says where, then
 * abort()s, so that there is a core to debug.
 */
#define BUG(...) op_bug(__FILE__, __LINE__, __VA_ARGS__)

/* op_xmalloc and the other allocations that die (op_alloc.c) */
#include "op_alloc.h"

/* Program name used as the prefix; defaults to "oprofile". */
void op_set_progname(char const *name);
char const *op_progname(void);

enum op_message_kind {
	OP_MSG_FATAL,
	OP_MSG_ERROR,
	OP_MSG_WARN,
	OP_MSG_INFO,
	OP_MSG_HINT,
};

/* "fatal", "error", "warning", "" (info) or "hint". */
char const *op_message_kind_name(enum op_message_kind kind);

/*
 * Where messages go: sink(ctx, kind, text) with text the formatted message
 * without prefix or newline. NULL restores the default sink, which writes
 * "PROG: KIND: text\n" ("PROG: text" for info, "hint: text" for hints)
 * to stderr. The sink must not call op_die() (op_die exits after it).
 */
typedef void (*op_message_sink)(void *ctx, enum op_message_kind kind,
				char const *text);
void op_set_message_sink(op_message_sink sink, void *ctx);

/* The default sink's line, with an optional stamp after "PROG: ". */
void op_message_write(FILE *out, char const *stamp, enum op_message_kind kind,
		      char const *text);

_Noreturn void op_die(char const *fmt, ...) __attribute__((format(printf, 1, 2)));
int op_error(char const *fmt, ...) __attribute__((format(printf, 1, 2)));
void op_warn(char const *fmt, ...) __attribute__((format(printf, 1, 2)));
void op_info(char const *fmt, ...) __attribute__((format(printf, 1, 2)));
void op_hint(char const *fmt, ...) __attribute__((format(printf, 1, 2)));
/* op_error/op_die/op_warn with ": strerror(errno)" appended ("not a
 * regular file" for OP_ENOTREG, op_file.h). */
int op_error_errno(char const *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void op_die_errno(char const *fmt, ...) __attribute__((format(printf, 1, 2)));
void op_warn_errno(char const *fmt, ...) __attribute__((format(printf, 1, 2)));
/* BUG()'s function: use BUG(), which names the file and line. */
_Noreturn void op_bug(char const *file, int line, char const *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Any kind, from a va_list. */
void op_vmessage(enum op_message_kind kind, char const *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/*
 * A bad command line: "PROG: error: ..." then, when usage is given, the
 * hint "hint: USAGE" (e.g. "opreport --help lists the options"); exits 2.
 */
_Noreturn void op_usage_error(char const *usage, char const *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* OP_MESSAGE_H */
