/*
 * Event specifications as users type them: NAME:count[:um[:kernel[:user]]].
 *
 * Only the syntax is checked here; whether NAME exists, the unit mask is
 * valid and the count is big enough depends on the cpu type and is
 * op_check_events()'s job. count and a numeric unit mask are decimal or
 * 0x-prefixed hex; a unit mask that starts with a letter is a value name,
 * resolved later. An empty field keeps its default (unit mask: the event's
 * default; kernel and user: 1).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_events.h"

#define MAX_FIELDS 5

static int spec_error(char *err, size_t errlen, char const *text,
		      char const *what)
{
	snprintf(err, errlen, "bad event spec '%s': %s", text, what);
	return -1;
}

/* Decimal, or hex with 0x; must fit in 32 bits. 0, -1 (syntax) or -2 (range). */
static int parse_u32(char const *text, uint32_t *out)
{
	int base = 10;
	unsigned long long v;
	char *end;

	if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
		base = 16;
		text += 2;
	}
	if (!isxdigit((unsigned char)text[0]))
		return -1;
	errno = 0;
	v = strtoull(text, &end, base);
	if (*end)
		return -1;
	if (errno || v > 0xffffffffull)
		return -2;
	*out = (uint32_t)v;
	return 0;
}

static int parse_flag(char const *text, int *out)
{
	if (!*text)
		return 0;
	if ((text[0] != '0' && text[0] != '1') || text[1])
		return -1;
	*out = text[0] - '0';
	return 0;
}

static int parse_um(char const *text, struct op_event_spec *spec,
		    char *err, size_t errlen, char const *whole)
{
	char const *p;

	if (!*text)
		return 0;
	spec->um_given = 1;
	if (isdigit((unsigned char)text[0])) {
		if (parse_u32(text, &spec->unit_mask))
			return spec_error(err, errlen, whole,
					  "unit mask is not a number or a unit mask name");
		return 0;
	}
	for (p = text; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
			return spec_error(err, errlen, whole,
					  "unit mask is not a number or a unit mask name");
	if (strlen(text) >= sizeof(spec->um_name))
		return spec_error(err, errlen, whole, "unit mask name too long");
	strcpy(spec->um_name, text);
	return 0;
}

/* Splits text at ':' into at most MAX_FIELDS fields of buf; count or -1. */
static int split_fields(char *buf, char **field)
{
	int n = 0;
	char *p = buf;

	for (;;) {
		if (n == MAX_FIELDS)
			return -1;
		field[n++] = p;
		p = strchr(p, ':');
		if (!p)
			return n;
		*p++ = '\0';
	}
}

int op_parse_event_spec(char const *text, struct op_event_spec *spec,
			char *err, size_t errlen)
{
	char buf[256];
	char *field[MAX_FIELDS];
	int n, ret;

	memset(spec, 0, sizeof(*spec));
	spec->kernel = 1;
	spec->user = 1;
	if (strlen(text) >= sizeof(buf))
		return spec_error(err, errlen, text, "too long");
	strcpy(buf, text);
	n = split_fields(buf, field);
	if (n < 0)
		return spec_error(err, errlen, text,
				  "too many fields (NAME:count[:unitmask[:kernel[:user]]])");
	if (!*field[0])
		return spec_error(err, errlen, text, "empty event name");
	if (strlen(field[0]) >= sizeof(spec->name))
		return spec_error(err, errlen, text, "event name too long");
	strcpy(spec->name, field[0]);
	if (n < 2 || !*field[1])
		return spec_error(err, errlen, text, "missing count");
	ret = parse_u32(field[1], &spec->count);
	if (ret)
		return spec_error(err, errlen, text, ret == -2 ?
				  "count is too large" : "count is not a number");
	if (!spec->count)
		return spec_error(err, errlen, text, "count must be positive");
	if (n > 2 && parse_um(field[2], spec, err, errlen, text))
		return -1;
	if (n > 3 && parse_flag(field[3], &spec->kernel))
		return spec_error(err, errlen, text, "kernel must be 0 or 1");
	if (n > 4 && parse_flag(field[4], &spec->user))
		return spec_error(err, errlen, text, "user must be 0 or 1");
	if (!spec->kernel && !spec->user)
		return spec_error(err, errlen, text,
				  "kernel and user are both 0: the event would count nothing");
	return 0;
}
