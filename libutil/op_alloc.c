/*
 * Allocation that dies instead of returning NULL (op_alloc.h), and the
 * escaped copy of a string (op_escape, op_escape.h): allocations live
 * here, above the messages they die with, so that the messages (which
 * escape what they print) and the printing rule allocate nothing.
 */
#define _GNU_SOURCE	/* vasprintf, open_memstream */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_alloc.h"
#include "op_escape.h"
#include "op_message.h"

void *op_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		op_die("out of memory allocating %zu bytes", n);
	return p;
}

void *op_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		op_die("out of memory allocating %zu x %zu bytes", n, size);
	return p;
}

void *op_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		op_die("out of memory allocating %zu bytes", n);
	return q;
}

char *op_xstrdup(char const *s)
{
	char *p = strdup(s);
	if (!p)
		op_die("out of memory copying a string");
	return p;
}

char *op_xasprintf(char const *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		op_die("out of memory formatting a string");
	return s;
}

char *op_escape(char const *s)
{
	size_t len = strlen(s), n = 0;
	char *buf = NULL;
	FILE *m;

	if (!op_needs_escape(s, len))
		return op_xstrdup(s);
	m = open_memstream(&buf, &n);
	if (!m)
		op_die("out of memory");
	op_fput_escaped(m, s, len, 0);
	if (fclose(m))
		op_die("out of memory");
	return buf;
}
