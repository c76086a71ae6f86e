/* Shared error/warning output and allocation helpers; see op_message.h. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_message.h"

static char const *progname = "oprofile";

void op_set_progname(char const *name)
{
	char const *slash = strrchr(name, '/');
	progname = slash ? slash + 1 : name;
}

char const *op_progname(void)
{
	return progname;
}

static void report(char const *kind, char const *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s: ", progname, kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void op_die(char const *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("fatal", fmt, ap);
	va_end(ap);
	exit(1);
}

int op_error(char const *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("error", fmt, ap);
	va_end(ap);
	return -1;
}

void op_warn(char const *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("warning", fmt, ap);
	va_end(ap);
}

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
