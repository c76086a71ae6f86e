/*
 * Fleet profile specifications (see pp_fleet.h): the local tags, plus
 * host: and labels. A label is any "key:value" whose key is not a tag,
 * so "service:web" needs no new syntax; a tag the rows do not keep
 * (tid:, cpu:, ...) is refused by name rather than silently ignored.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_util.h"
#include "pp_fleet.h"

/* Local tags that have no column in the fleet's tables. */
static bool not_kept(char const *key, size_t len)
{
	static char const *const tags[] = {
		"unit-mask", "cpu", "tgid", "tid", "archive",
		"session-exclude",
	};

	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (strlen(tags[i]) == len && !strncmp(key, tags[i], len))
			return true;
	return false;
}

static bool is_tag(char const *key, size_t len)
{
	for (int t = 0; t < PP_TAG_BARE; t++)
		if (strlen(pp_tag_name(t)) == len &&
		    !strncmp(key, pp_tag_name(t), len))
			return true;
	return false;
}

static int add_label(struct pp_fleet_spec *fs, char const *word,
		     size_t klen, char *err, size_t errlen)
{
	struct pp_fleet_label *l;
	char lerr[256];

	for (size_t i = 0; i < fs->nr_labels; i++) {
		if (strlen(fs->labels[i].key) == klen &&
		    !strncmp(fs->labels[i].key, word, klen)) {
			snprintf(err, errlen, "label '%.*s:' given twice (use "
				 "one comma list: %.*s:a,b)", (int)klen, word,
				 (int)klen, word);
			return -1;
		}
	}
	fs->labels = op_xrealloc(fs->labels,
				 (fs->nr_labels + 1) * sizeof(*fs->labels));
	l = &fs->labels[fs->nr_labels++];
	memset(l, 0, sizeof(*l));
	l->key = op_xasprintf("%.*s", (int)klen, word);
	if (pp_strlist_split(&l->values, word + klen + 1, lerr, sizeof(lerr))) {
		snprintf(err, errlen, "'%s': %s", word, lerr);
		return -1;
	}
	return 0;
}

static int take_session(struct pp_fleet_spec *fs, char const *word,
			char const *value, char *err, size_t errlen)
{
	struct pp_timerange r;
	char lerr[256];

	if (fs->sessions.n || fs->range.has_since || fs->range.has_until) {
		snprintf(err, errlen, "tag 'session:' given twice (use one "
			 "comma list: session:a,b)");
		return -1;
	}
	if (!pp_timerange_is_range(value)) {
		if (!pp_strlist_split(&fs->sessions, value, lerr, sizeof(lerr)))
			return 0;
		snprintf(err, errlen, "'%s': %s", word, lerr);
		return -1;
	}
	if (pp_timerange_parse(value, &r, lerr, sizeof(lerr))) {
		snprintf(err, errlen, "'%s': %s", word, lerr);
		return -1;
	}
	fs->range = r;
	return 0;
}

/* One word: host:, a label or session: here, the rest into rest. */
static int take_word(struct pp_fleet_spec *fs, char const *word,
		     char const **rest, int *nr_rest, char *err,
		     size_t errlen)
{
	char const *colon = strchr(word, ':');
	char const *slash = strchr(word, '/');
	size_t klen = colon ? (size_t)(colon - word) : 0;
	char lerr[256];

	if (!colon || (slash && slash < colon) || !klen) {
		rest[(*nr_rest)++] = word;
		return 0;
	}
	if (klen == 4 && !strncmp(word, "host", 4)) {
		if (fs->hosts.n) {
			snprintf(err, errlen, "tag 'host:' given twice (use one "
				 "comma list: host:a,b)");
			return -1;
		}
		if (!pp_strlist_split(&fs->hosts, colon + 1, lerr, sizeof(lerr)))
			return 0;
		snprintf(err, errlen, "'%s': %s", word, lerr);
		return -1;
	}
	if (not_kept(word, klen)) {
		snprintf(err, errlen, "'%s': the fleet's rows do not keep "
			 "'%.*s:' (fleet tags: host, session, image, "
			 "image-exclude, lib-image, lib-image-exclude, event, "
			 "count, and labels key:value)", word, (int)klen, word);
		return -1;
	}
	if (klen == 7 && !strncmp(word, "session", 7))
		return take_session(fs, word, colon + 1, err, errlen);
	if (is_tag(word, klen))
		rest[(*nr_rest)++] = word;
	else
		return add_label(fs, word, klen, err, errlen);
	return 0;
}

/* --since/--until with a session:A..B: the sessions in both. */
static void intersect(struct pp_timerange *r, struct pp_timerange const *o)
{
	if (o->has_since && (!r->has_since || o->since > r->since)) {
		r->since = o->since;
		r->has_since = true;
	}
	if (o->has_until && (!r->has_until || o->until < r->until)) {
		r->until = o->until;
		r->has_until = true;
	}
}

int pp_fleet_spec_parse(struct pp_fleet_spec *fs, int argc,
			char const *const *argv,
			struct pp_timerange const *range, char *err,
			size_t errlen)
{
	char const **rest = op_xcalloc(argc + 1, sizeof(*rest));
	int nr_rest = 0, rc = 0;

	memset(fs, 0, sizeof(*fs));
	for (int i = 0; !rc && i < argc; i++)
		rc = take_word(fs, argv[i], rest, &nr_rest, err, errlen);
	if (!rc)
		rc = pp_spec_parse(&fs->spec, nr_rest, rest, err, errlen);
	free(rest);
	if (rc) {
		pp_fleet_spec_free(fs);
		return -1;
	}
	if (range)
		intersect(&fs->range, range);
	return 0;
}

void pp_fleet_spec_free(struct pp_fleet_spec *fs)
{
	pp_spec_free(&fs->spec);
	pp_strlist_free(&fs->hosts);
	pp_strlist_free(&fs->sessions);
	for (size_t i = 0; i < fs->nr_labels; i++) {
		free(fs->labels[i].key);
		pp_strlist_free(&fs->labels[i].values);
	}
	free(fs->labels);
	memset(fs, 0, sizeof(*fs));
}
