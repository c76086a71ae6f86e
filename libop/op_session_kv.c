/*
 * key=value files (see op_session_kv.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_file.h"
#include "op_fleet_settings.h"
#include "op_message.h"
#include "op_session.h"
#include "op_session_kv.h"
#include "op_util.h"

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
			 e[-1] == '\r'))
		*--e = '\0';
	return s;
}

int op_kv_read(struct op_kv *kv, char const *path)
{
	return op_kv_read_checked(kv, path, NULL);
}

int op_kv_read_checked(struct op_kv *kv, char const *path, op_kv_check *check)
{
	char err[1024], *text, *line, *next;
	unsigned lineno = 0;
	size_t len;
	int ret = 0;

	memset(kv, 0, sizeof(*kv));
	text = op_read_file(path, OP_KV_MAX_BYTES, &len, err, sizeof(err));
	if (!text) {
		if (errno == ENOENT)
			return 0;
		if (errno == EFBIG)
			return op_error("'%s' is larger than %d KiB: not a settings file",
					path, OP_KV_MAX_BYTES / 1024);
		return op_error("%s", err);
	}
	for (line = text; !ret && line < text + len; line = next) {
		char *nl = memchr(line, '\n', (size_t)(text + len - line));
		char *s, *eq;

		next = nl ? nl + 1 : text + len;
		lineno++;
		if (memchr(line, '\0', (size_t)(next - line))) {
			ret = op_error("%s:%u: a NUL byte in the line", path, lineno);
			break;
		}
		if (nl)
			*nl = '\0';
		s = trim(line);
		if (!*s || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			ret = op_error("%s:%u: expected key=value, found '%s'",
				       path, lineno, s);
			break;
		}
		*eq = '\0';
		s = trim(s);
		eq = trim(eq + 1);
		if (check && check(s, eq, err, sizeof(err)) < 0) {
			ret = op_error("%s:%u: %s", path, lineno, err);
			break;
		}
		if (op_kv_repeats(s))
			op_kv_append(kv, s, eq);
		else
			op_kv_set(kv, s, eq);
		kv->lines[kv->nr - 1] = lineno;
	}
	free(text);
	if (ret)
		op_kv_free(kv);
	return ret;
}

unsigned op_kv_line(struct op_kv const *kv, char const *key)
{
	for (size_t i = 0; i < kv->nr; i++)
		if (!strcmp(kv->keys[i], key))
			return kv->lines[i];
	return 0;
}

char const *op_kv_get(struct op_kv const *kv, char const *key)
{
	size_t i;

	for (i = 0; i < kv->nr; i++)
		if (!strcmp(kv->keys[i], key))
			return kv->values[i];
	return NULL;
}

bool op_kv_repeats(char const *key)
{
	return !strcmp(key, OP_FLEET_LABEL_KEY);
}

void op_kv_set(struct op_kv *kv, char const *key, char const *value)
{
	size_t i;

	for (i = 0; i < kv->nr; i++) {
		if (!strcmp(kv->keys[i], key)) {
			kv->lines[i] = 0;
			free(kv->values[i]);
			kv->values[i] = op_xstrdup(value);
			return;
		}
	}
	op_kv_append(kv, key, value);
}

void op_kv_append(struct op_kv *kv, char const *key, char const *value)
{
	size_t alloc, lines_alloc;

	/* the arrays grow alike, so they share one capacity */
	alloc = kv->alloc;
	OP_ALLOC_GROW(kv->keys, kv->nr + 1, kv->alloc);
	lines_alloc = alloc;
	OP_ALLOC_GROW(kv->values, kv->nr + 1, alloc);
	OP_ALLOC_GROW(kv->lines, kv->nr + 1, lines_alloc);
	kv->keys[kv->nr] = op_xstrdup(key);
	kv->values[kv->nr] = op_xstrdup(value);
	kv->lines[kv->nr] = 0;
	kv->nr++;
}

int op_kv_write(struct op_kv const *kv, char const *path)
{
	size_t i, len = 1;
	char *text, *p;
	int ret;

	for (i = 0; i < kv->nr; i++)
		len += strlen(kv->keys[i]) + strlen(kv->values[i]) + 2;
	p = text = op_xmalloc(len);
	for (i = 0; i < kv->nr; i++)
		p += sprintf(p, "%s=%s\n", kv->keys[i], kv->values[i]);
	*p = '\0';
	ret = op_session_write_text(path, text);
	free(text);
	return ret;
}

void op_kv_free(struct op_kv *kv)
{
	size_t i;

	for (i = 0; i < kv->nr; i++) {
		free(kv->keys[i]);
		free(kv->values[i]);
	}
	free(kv->keys);
	free(kv->values);
	free(kv->lines);
	memset(kv, 0, sizeof(*kv));
}
