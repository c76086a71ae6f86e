/*
 * Demangling for display (see pp_demangle.h). The smart form walks the
 * demangled text once: every template argument list is split at its
 * top-level commas, and arguments after the first that are a standard
 * default (allocator, char_traits, less, hash, equal_to, default_delete)
 * are dropped; then std::basic_X<char> reads std::X. Last come OProfile's
 * own final rules (its libregex/stl.pat): "std::" at the start of a word
 * and anonymous namespaces go, and "> >" closes as ">>".
 */
#include "config.h"

#include <ctype.h>
#include <libiberty/demangle.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "op_message.h"
#include "pp_demangle.h"

int pp_demangle_parse(char const *text, enum pp_demangle *d)
{
	if (!strcmp(text, "none"))
		*d = PP_DEMANGLE_NONE;
	else if (!strcmp(text, "normal"))
		*d = PP_DEMANGLE_NORMAL;
	else if (!strcmp(text, "smart"))
		*d = PP_DEMANGLE_SMART;
	else
		return -1;
	return 0;
}

struct buf {
	char *p;
	size_t n, alloc;
};

static void put(struct buf *b, char const *s, size_t len)
{
	if (b->n + len + 1 > b->alloc) {
		b->alloc = 2 * (b->n + len + 1);
		b->p = op_xrealloc(b->p, b->alloc);
	}
	memcpy(b->p + b->n, s, len);
	b->n += len;
	b->p[b->n] = '\0';
}

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Length of "operator" plus its symbol at s, or 0 when s is not one. */
static size_t operator_len(char const *s, size_t len, bool at_start)
{
	size_t n = 8;

	if (len < 8 || strncmp(s, "operator", 8) || !at_start)
		return 0;
	if (n < len && is_ident(s[n]))
		return 0;
	if (n + 1 < len && (s[n] == '(' || s[n] == '[')) {
		return n + 2;
	}
	while (n < len && strchr("<>=!+-*/%&|^~", s[n]))
		n++;
	return n;
}

/* Length of "<...>" at s (matching bracket included), 0 if unbalanced. */
static size_t angle_len(char const *s, size_t len)
{
	int depth = 0;

	for (size_t i = 0; i < len; i++) {
		size_t op = operator_len(s + i, len - i,
					 !i || !is_ident(s[i - 1]));
		if (op) {
			i += op - 1;
			continue;
		}
		if (s[i] == '<')
			depth++;
		else if (s[i] == '>' && --depth == 0)
			return i + 1;
	}
	return 0;
}

static bool is_default_arg(char const *a)
{
	static char const *const defaults[] = {
		"std::allocator<", "std::char_traits<", "std::less<",
		"std::hash<", "std::equal_to<", "std::default_delete<",
	};

	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		if (!strncmp(a, defaults[i], strlen(defaults[i])))
			return true;
	return false;
}

static void shorten_into(struct buf *out, char const *s, size_t len);

/* The arguments between '<' and '>' (exclusive), defaults dropped. */
static void shorten_args(struct buf *out, char const *s, size_t len)
{
	size_t start = 0, nr = 0;
	int depth = 0;
	bool last_angle = false;

	put(out, "<", 1);
	for (size_t i = 0; i <= len; i++) {
		struct buf arg = { 0 };

		if (i < len) {
			if (strchr("<([", s[i]))
				depth++;
			else if (strchr(">)]", s[i]))
				depth--;
			if (s[i] != ',' || depth)
				continue;
		}
		while (start < i && s[start] == ' ')
			start++;
		shorten_into(&arg, s + start, i - start);
		if (arg.p && (!nr || !is_default_arg(arg.p))) {
			if (nr)
				put(out, ", ", 2);
			put(out, arg.p, arg.n);
			last_angle = arg.n && arg.p[arg.n - 1] == '>';
			nr++;
		}
		free(arg.p);
		start = i + 1;
	}
	put(out, last_angle ? " >" : ">", last_angle ? 2 : 1);
}

static void shorten_into(struct buf *out, char const *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t n = operator_len(s + i, len - i,
					!i || !is_ident(s[i - 1]));

		if (n) {
			put(out, s + i, n);
		} else if (s[i] == '<' && (n = angle_len(s + i, len - i))) {
			shorten_args(out, s + i + 1, n - 2);
		} else {
			n = 1;
			put(out, s + i, 1);
		}
		i += n;
	}
}

/* In place: drop every occurrence of cut. */
static void remove_all(char *s, char const *cut)
{
	size_t len = strlen(cut);
	char *p;

	while ((p = strstr(s, cut)))
		memmove(p, p + len, strlen(p + len) + 1);
}

/* "std::basic_X<char>" -> "std::X", "<wchar_t>" -> "std::wX". */
static void rename_basic(struct buf *b)
{
	char *p = b->p;

	while ((p = strstr(p, "std::basic_"))) {
		char *id = p + 11, *e = id;
		bool wide;
		size_t cut;

		while (is_ident(*e))
			e++;
		wide = !strncmp(e, "<wchar_t>", 9);
		if (strncmp(e, "<char>", 6) && !wide) {
			p = e;
			continue;
		}
		cut = wide ? 9 : 6;
		memmove(e, e + cut, strlen(e + cut) + 1);
		memmove(p + 5 + wide, id, strlen(id) + 1);
		if (wide)
			p[5] = 'w';
		p += 5;
	}
}

/* After renaming, "std::vector<std::string >" loses its space. */
static void fix_closing_spaces(char *s)
{
	char *p = s;

	while ((p = strstr(p, " >"))) {
		if (p > s && p[-1] != '>')
			memmove(p, p + 1, strlen(p + 1) + 1);
		else
			p += 2;
	}
}

char *pp_demangle_shorten(char const *demangled)
{
	char *copy = op_xstrdup(demangled);
	struct buf out = { 0 };

	remove_all(copy, "__cxx11::");
	shorten_into(&out, copy, strlen(copy));
	free(copy);
	if (!out.p)
		return op_xstrdup("");
	rename_basic(&out);
	fix_closing_spaces(out.p);
	return out.p;
}

/* In place: drop cut wherever it starts a word. */
static void remove_word_prefix(char *s, char const *cut)
{
	size_t len = strlen(cut);
	char *p = s;

	while ((p = strstr(p, cut))) {
		if (p > s && is_ident(p[-1])) {
			p += len;
			continue;
		}
		memmove(p, p + len, strlen(p + len) + 1);
	}
}

void pp_demangle_oprofile_rules(char *s)
{
	remove_word_prefix(s, "std::");
	remove_all(s, "(anonymous namespace)::");
	remove_all(s, "{anonymous}::");
	for (char *p = s; (p = strstr(p, " >"));)
		memmove(p, p + 1, strlen(p + 1) + 1);
}

/* Demangle name, keeping a version or "@plt" suffix as it is. */
static char *demangle_with_suffix(char const *name)
{
	char const *at = strchr(name, '@');
	size_t len = at ? (size_t)(at - name) : strlen(name);
	char *base = op_xmalloc(len + 1), *d, *out;

	memcpy(base, name, len);
	base[len] = '\0';
	d = cplus_demangle(base, DMGL_PARAMS | DMGL_ANSI);
	free(base);
	if (!d)
		return NULL;
	out = op_xmalloc(strlen(d) + (at ? strlen(at) : 0) + 1);
	strcpy(out, d);
	if (at)
		strcat(out, at);
	free(d);
	return out;
}

char *pp_demangle(char const *name, enum pp_demangle d)
{
	char *normal, *smart;

	if (d == PP_DEMANGLE_NONE)
		return op_xstrdup(name);
	normal = demangle_with_suffix(name);
	if (!normal)
		return op_xstrdup(name);
	if (d == PP_DEMANGLE_NORMAL)
		return normal;
	smart = pp_demangle_shorten(normal);
	free(normal);
	pp_demangle_oprofile_rules(smart);
	return smart;
}
