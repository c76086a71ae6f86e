/*
 * String lists for option and profile specification values; see
 * pp_strlist.h. Kept apart so that list syntax (commas, no empty items)
 * is decided in one place.
 */
#include "config.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_message.h"
#include "op_util.h"
#include "pp_strlist.h"

void pp_strlist_add(struct pp_strlist *l, char const *s)
{
	OP_ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = op_xstrdup(s);
}

int pp_strlist_split(struct pp_strlist *l, char const *text,
		     char *err, size_t errlen)
{
	char const *p = text;

	for (;;) {
		size_t len = strcspn(p, ",");
		char *item;

		if (len == 0) {
			snprintf(err, errlen, "empty item in list '%s'", text);
			return -1;
		}
		item = op_xmalloc(len + 1);
		memcpy(item, p, len);
		item[len] = '\0';
		pp_strlist_add(l, item);
		free(item);
		if (p[len] == '\0')
			return 0;
		p += len + 1;
	}
}

bool pp_strlist_has(struct pp_strlist const *l, char const *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

char *pp_strlist_join(struct pp_strlist const *l, size_t max)
{
	size_t len = 1;
	char *out;

	for (size_t i = 0; i < l->n && i < max; i++)
		len += strlen(l->v[i]) + 2;
	len += 5;
	out = op_xmalloc(len);
	out[0] = '\0';
	for (size_t i = 0; i < l->n && i < max; i++) {
		if (i)
			strcat(out, ", ");
		strcat(out, l->v[i]);
	}
	if (l->n > max)
		strcat(out, ", ...");
	return out;
}

static int cmp_item(void const *a, void const *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void pp_strlist_sort(struct pp_strlist *l)
{
	if (l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), cmp_item);
}

void pp_strlist_free(struct pp_strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
	l->alloc = 0;
}

bool pp_strlist_match(struct pp_strlist const *l, char const *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!fnmatch(l->v[i], s, 0))
			return true;
	return false;
}
