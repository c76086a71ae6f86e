/*
 * The one printing rule for names that come from input: file names and
 * paths, symbol, source, event and process names, whatever a sample file,
 * a binary, its debug info or a stream holds. Printed raw, such a name
 * drives the terminal (an escape sequence can retitle it, clear it, hide
 * lines; 0x9b is a one-byte CSI to a terminal that reads C1 controls) or
 * breaks the format it is written in. Every tool and every output format
 * writes them through here. What is escaped, each byte as \xNN:
 *
 *   C0 controls     0x00-0x1f and DEL 0x7f (newline and tab included,
 *                   unless the caller keeps them: OP_ESCAPE_KEEP_*)
 *   C1 controls     0x80-0x9f as raw bytes, and U+0080-U+009F encoded in
 *                   UTF-8 (\xc2\x80-\xc2\x9f): both bytes
 *   invalid UTF-8   every byte that does not start a well-formed sequence
 *                   (Unicode 3.9, table 3-7): lone continuation bytes,
 *                   overlong forms (\xc0\xaf), surrogates (\xed\xa0\x80),
 *                   code points above U+10FFFF, a sequence cut short
 *
 * Everything else is kept as it is: ASCII and valid UTF-8 ("é", CJK).
 * So escaped text is valid UTF-8 with no control character in it, and a
 * name stays on its line. A backslash is kept, so a name that holds the
 * four characters "\x1b" reads like an escaped ESC: the rule protects the
 * terminal and the format, it is not a reversible encoding.
 *
 * XML (opreport -X), JSON (--flame) and protobuf strings (--pprof) apply
 * this rule first and their own quoting after.
 */
#ifndef OP_ESCAPE_H
#define OP_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What op_fput_escaped may leave raw: multi-line text, source lines. */
enum {
	OP_ESCAPE_KEEP_NEWLINE = 1,
	OP_ESCAPE_KEEP_TAB = 2,
};

/* Whether s holds a byte op_escape would change (newline included). */
bool op_needs_escape(char const *s, size_t len);

/*
 * How many bytes at s (of len, len > 0) the rule keeps as they are: the
 * length of a valid UTF-8 sequence that is no control, or 0 when s[0]
 * is to be written as \xNN.
 */
size_t op_escape_kept(char const *s, size_t len);

/* Write len bytes of s to out escaped; keep: OP_ESCAPE_KEEP_* flags. */
void op_fput_escaped(FILE *out, char const *s, size_t len, unsigned keep);

/* The string s escaped to out (newline and tab escaped too). */
void op_fputs_escaped(FILE *out, char const *s);

/* s escaped, malloc'ed (dies when out of memory; op_alloc.c, with the
 * other allocations: the rule above allocates nothing). */
char *op_escape(char const *s);

#endif /* OP_ESCAPE_H */
