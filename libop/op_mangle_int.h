/*
 * Rules shared by op_mangle.c (which builds names) and op_parse_filename.c
 * (which reads them). They live in one place so that the two sides cannot
 * drift: every name the mangler writes must parse back to the same values,
 * and every name the parser accepts must be one the mangler can write.
 * Not part of the libop API; only those two files include this.
 */
#ifndef OP_MANGLE_INT_H
#define OP_MANGLE_INT_H

#include <stddef.h>

/* Longest piece of a name quoted in an error message, in bytes. */
#define OP_MANGLE_QUOTE_MAX 64

/*
 * Why the path component s[0..len) cannot appear in a name, as a phrase
 * ("empty path component", "'..' path component", ...), or NULL if it can.
 * Names are canonical: no empty, "." or ".." components, and no component
 * that is exactly "{dep}" or "{cg}", which would make the name ambiguous.
 */
char const *op_mangle_bad_component(char const *s, size_t len);

/*
 * The same for a component of a {root} path: a build tag ("{build:ID}",
 * op_mangle.h) is allowed when tag_ok, which the callers set for the
 * last component of a path of two or more (a tag names a build of the
 * path before it).
 */
char const *op_mangle_bad_path_component(char const *s, size_t len,
					 int tag_ok);

/* Whether s[0..len) is a well-formed build tag "{build:ID}". */
int op_mangle_is_build_tag(char const *s, size_t len);

/* Same for the NAME of "{anon:NAME}": non-empty, no '/' and no '}'. */
char const *op_mangle_bad_anon_name(char const *s, size_t len);

/* Format an error into err (if err and errlen are non-zero); returns -1. */
int op_mangle_err(char *err, size_t errlen, char const *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* OP_MANGLE_INT_H */
