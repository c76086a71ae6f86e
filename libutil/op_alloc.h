/*
 * Allocation that dies with a message instead of returning NULL (git's
 * xmalloc), and array growth (git's ALLOC_GROW). Out of memory is
 * "PROG: fatal: out of memory ..." and exit 1 (op_die, op_message.h).
 * op_message.h and op_util.h include this header.
 */
#ifndef OP_ALLOC_H
#define OP_ALLOC_H

#include <stddef.h>

void *op_xmalloc(size_t n);
void *op_xcalloc(size_t n, size_t size);
void *op_xrealloc(void *p, size_t n);
char *op_xstrdup(char const *s);

/* A malloc'ed formatted string. */
char *op_xasprintf(char const *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Next capacity when nr elements are needed: at least nr, and 3/2 of
 * the current one plus 16, so n appends cost O(n) copies. */
#define OP_ALLOC_NR(alloc) (((alloc) + 16) * 3 / 2)

/*
 * Make room for nr elements in array, which holds alloc of them now:
 *	OP_ALLOC_GROW(v, n + 1, cap); v[n++] = x;
 * array and alloc are updated (alloc: an integer lvalue); dies when out
 * of memory. New elements are not initialised.
 */
#define OP_ALLOC_GROW(array, nr, alloc) \
	do { \
		if ((size_t)(nr) > (size_t)(alloc)) { \
			size_t op_ag_n = OP_ALLOC_NR((size_t)(alloc)); \
			if (op_ag_n < (size_t)(nr)) \
				op_ag_n = (size_t)(nr); \
			(array) = op_xrealloc((array), \
					      op_ag_n * sizeof(*(array))); \
			(alloc) = op_ag_n; \
		} \
	} while (0)

#endif /* OP_ALLOC_H */
