/*
 * Profile specification parsing (see pp_spec.h). Syntax is checked here,
 * once, so that a typo ("evnet:") or a repeated tag is refused before any
 * file is read, instead of silently matching nothing.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op_message.h"
#include "pp_spec.h"

static char const *const tag_names[PP_NR_TAGS] = {
	[PP_TAG_SESSION] = "session",
	[PP_TAG_SESSION_EXCLUDE] = "session-exclude",
	[PP_TAG_IMAGE] = "image",
	[PP_TAG_IMAGE_EXCLUDE] = "image-exclude",
	[PP_TAG_LIB_IMAGE] = "lib-image",
	[PP_TAG_LIB_IMAGE_EXCLUDE] = "lib-image-exclude",
	[PP_TAG_EVENT] = "event",
	[PP_TAG_COUNT] = "count",
	[PP_TAG_UNIT_MASK] = "unit-mask",
	[PP_TAG_CPU] = "cpu",
	[PP_TAG_TGID] = "tgid",
	[PP_TAG_TID] = "tid",
	[PP_TAG_ARCHIVE] = "archive",
	[PP_TAG_BARE] = "",
};

char const *pp_tag_name(enum pp_tag tag)
{
	return tag_names[tag];
}

static bool is_numeric_tag(enum pp_tag tag)
{
	return tag == PP_TAG_COUNT || tag == PP_TAG_UNIT_MASK ||
	       tag == PP_TAG_CPU || tag == PP_TAG_TGID || tag == PP_TAG_TID;
}

static bool is_image_tag(enum pp_tag tag)
{
	return tag == PP_TAG_IMAGE || tag == PP_TAG_IMAGE_EXCLUDE ||
	       tag == PP_TAG_LIB_IMAGE || tag == PP_TAG_LIB_IMAGE_EXCLUDE ||
	       tag == PP_TAG_BARE;
}

/* Decimal, or hex with 0x (unit masks are usually given in hex). */
static int parse_number(char const *s, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 0);
	if (errno || end == s || *end || *out < 0)
		return -1;
	return 0;
}

/*
 * A relative path with a '/' ("./foo", "bin/foo") names a file from the
 * current directory: make it absolute, as sample file names are. Globs
 * and plain names ("ls", "*libc*", "vmlinux") are kept as given.
 */
static char *normalise_image(char const *pat)
{
	char resolved[PATH_MAX];
	char cwd[PATH_MAX];
	char *out;

	if (pat[0] == '/' || !strchr(pat, '/') || strpbrk(pat, "*?["))
		return op_xstrdup(pat);
	if (realpath(pat, resolved))
		return op_xstrdup(resolved);
	if (!getcwd(cwd, sizeof(cwd)))
		return op_xstrdup(pat);
	out = op_xmalloc(strlen(cwd) + strlen(pat) + 2);
	sprintf(out, "%s/%s", cwd, pat[0] == '.' && pat[1] == '/' ? pat + 2 : pat);
	return out;
}

static int check_values(struct pp_spec *spec, enum pp_tag tag,
			char const *word, char *err, size_t errlen)
{
	struct pp_strlist *l = &spec->v[tag];

	for (size_t i = 0; i < l->n; i++) {
		long n;

		if (is_numeric_tag(tag) && parse_number(l->v[i], &n)) {
			snprintf(err, errlen, "'%s': '%s' is not a number",
				 word, l->v[i]);
			return -1;
		}
		if (is_image_tag(tag)) {
			char *abs = normalise_image(l->v[i]);
			free(l->v[i]);
			l->v[i] = abs;
		}
	}
	return 0;
}

static int find_tag(char const *word, size_t len, enum pp_tag *tag)
{
	for (int t = 0; t < PP_TAG_BARE; t++) {
		if (strlen(tag_names[t]) == len &&
		    !strncmp(word, tag_names[t], len)) {
			*tag = t;
			return 0;
		}
	}
	return -1;
}

static int parse_word(struct pp_spec *spec, char const *word,
		      char *err, size_t errlen)
{
	char const *colon = strchr(word, ':');
	char const *slash = strchr(word, '/');
	char const *value = word;
	enum pp_tag tag = PP_TAG_BARE;
	char lerr[256];

	if (colon && (!slash || colon < slash)) {
		if (find_tag(word, colon - word, &tag)) {
			snprintf(err, errlen, "unknown tag in '%s' (tags: session, "
				 "session-exclude, image, image-exclude, lib-image, "
				 "lib-image-exclude, event, count, unit-mask, cpu, "
				 "tgid, tid, archive)", word);
			return -1;
		}
		value = colon + 1;
	}
	if (tag != PP_TAG_BARE && spec->given[tag]) {
		snprintf(err, errlen, "tag '%s:' given twice (use one comma "
			 "list: %s:a,b)", tag_names[tag], tag_names[tag]);
		return -1;
	}
	if (pp_strlist_split(&spec->v[tag], value, lerr, sizeof(lerr))) {
		snprintf(err, errlen, "'%s': %s", word, lerr);
		return -1;
	}
	spec->given[tag] = true;
	return check_values(spec, tag, word, err, errlen);
}

int pp_spec_parse(struct pp_spec *spec, int argc, char const *const *argv,
		  char *err, size_t errlen)
{
	memset(spec, 0, sizeof(*spec));
	for (int i = 0; i < argc; i++) {
		if (parse_word(spec, argv[i], err, errlen)) {
			pp_spec_free(spec);
			return -1;
		}
	}
	if (spec->given[PP_TAG_ARCHIVE] && spec->v[PP_TAG_ARCHIVE].n != 1) {
		snprintf(err, errlen, "archive: takes one directory");
		pp_spec_free(spec);
		return -1;
	}
	return 0;
}

void pp_spec_free(struct pp_spec *spec)
{
	for (int t = 0; t < PP_NR_TAGS; t++)
		pp_strlist_free(&spec->v[t]);
	memset(spec, 0, sizeof(*spec));
}

bool pp_spec_match_number(struct pp_spec const *spec, enum pp_tag tag,
			  long value)
{
	struct pp_strlist const *l = &spec->v[tag];

	if (!spec->given[tag])
		return true;
	for (size_t i = 0; i < l->n; i++) {
		long n;

		if (!parse_number(l->v[i], &n) && n == value)
			return true;
	}
	return false;
}

char *pp_spec_text(int argc, char const *const *argv)
{
	size_t len = 1;
	char *out;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	out = op_xmalloc(len);
	out[0] = '\0';
	for (int i = 0; i < argc; i++) {
		if (i)
			strcat(out, " ");
		strcat(out, argv[i]);
	}
	return out;
}

int pp_spec_split_diff(int argc, char const *const *argv, int first[2],
		       int count[2], char *err, size_t errlen)
{
	int nr = 0, open = -1;

	for (int i = 0; i < argc; i++) {
		bool is_open = !strcmp(argv[i], "{");
		bool is_close = !strcmp(argv[i], "}");

		if (is_open && open < 0 && nr < 2) {
			open = i;
		} else if (is_close && open >= 0) {
			first[nr] = open + 1;
			count[nr] = i - open - 1;
			nr++;
			open = -1;
		} else if (is_open || is_close || open < 0) {
			if (!is_open && !is_close && nr == 0 && open < 0)
				continue;   /* no braces seen yet */
			snprintf(err, errlen, "differential profile: expected "
				 "'{ spec } { spec }' (braces as separate words), "
				 "got '%s' at word %d", argv[i], i + 1);
			return -1;
		}
	}
	if (nr == 0 && open < 0)
		return 0;
	if (nr != 2 || open >= 0 || first[0] != 1 ||
	    first[1] != first[0] + count[0] + 2 ||
	    first[1] + count[1] + 1 != argc) {
		snprintf(err, errlen, "differential profile: expected exactly "
			 "'{ spec } { spec }' (braces as separate words)");
		return -1;
	}
	return 1;
}
