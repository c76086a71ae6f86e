/*
 * The lines of the events/ description files, shared by the events and
 * unit_masks parsers (op_events_priv.h): reading a file line by line
 * (blank and comment lines skipped), its tokens, hex values and names,
 * include: lines, and "FILE:LINE: what" errors.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_events_priv.h"
#include "op_file.h"

int op_src_error(struct op_loader *l, struct op_src const *src,
		 char const *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(l->err, l->errlen, "%s:%u: ", src->path, src->line);
	if (n >= 0 && (size_t)n < l->errlen) {
		va_start(ap, fmt);
		vsnprintf(l->err + n, l->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int skip_line(char const *line)
{
	while (*line == ' ' || *line == '\t')
		line++;
	return !*line || *line == '#';
}

int op_src_read(struct op_loader *l, struct op_src *src,
		int (*fn)(struct op_loader *, struct op_src *, char *))
{
	/* an events or unit_masks file: tens of kB; 16 MB is not one */
	FILE *f = op_fopen_regular_max(src->path, 16 << 20);
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int ret = 0;

	if (!f) {
		snprintf(l->err, l->errlen, "cannot open '%s': %s", src->path,
			 op_file_strerror(errno));
		return OP_SRC_NO_FILE;
	}
	src->id = l->nr_files++;
	src->line = 0;
	while (!ret && (len = getline(&line, &cap, f)) >= 0) {
		src->line++;
		while (len && isspace((unsigned char)line[len - 1]))
			line[--len] = '\0';
		if (!skip_line(line))
			ret = fn(l, src, line);
	}
	free(line);
	fclose(f);
	return ret;
}

int op_parse_hex(char const *text, uint32_t *out)
{
	unsigned long long v = 0;
	char const *p;

	if (!text || text[0] != '0' || (text[1] != 'x' && text[1] != 'X') || !text[2])
		return -1;
	for (p = text + 2; *p; p++) {
		if (!isxdigit((unsigned char)*p))
			return -1;
		v = v * 16 + (unsigned)(isdigit((unsigned char)*p) ? *p - '0' :
					tolower((unsigned char)*p) - 'a' + 10);
		if (v > 0xffffffffull)
			return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

int op_valid_name(char const *name)
{
	if (!*name)
		return 0;
	for (; *name; name++)
		if (!isalnum((unsigned char)*name) && *name != '_' && *name != '-')
			return 0;
	return 1;
}

char *op_next_token(char **line)
{
	char *p = *line, *start;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p) {
		*line = p;
		return NULL;
	}
	start = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	if (*p)
		*p++ = '\0';
	*line = p;
	return start;
}

char *op_include_dir(struct op_loader *l, struct op_src *src, char *line)
{
	char *rest = line + 8, *dir = op_next_token(&rest);

	if (!dir || op_next_token(&rest)) {
		op_src_error(l, src, "include: must name one directory, alone on its line");
		return NULL;
	}
	if (src->depth + 1 >= OP_MAX_INCLUDE_DEPTH) {
		op_src_error(l, src, "include: nested too deep (a cycle?)");
		return NULL;
	}
	return dir;
}
