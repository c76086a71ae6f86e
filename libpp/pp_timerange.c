/* Time ranges of rotated sessions (see pp_timerange.h). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "op_session_rotate.h"
#include "op_session_settings.h"
#include "pp_timerange.h"

bool pp_timerange_is_range(char const *text)
{
	return strstr(text, "..") != NULL;
}

/* One end: a time, or "THH[:MM[:SS]]" on day's date (day NULL: none). */
static int parse_end(char const *text, char const *day, time_t *t,
		     char *err, size_t errlen)
{
	char full[64];

	if (text[0] == 'T' && day && strlen(text) < 16) {
		snprintf(full, sizeof(full), "%.10s%s", day, text);
		text = full;
	}
	if (op_rotate_parse_time(text, false, t))
		return 0;
	snprintf(err, errlen, "'%s' is not a UTC time YYYY-MM-DD[THH[:MM[:SS]]]%s",
		 text, day ? " (or THH[:MM[:SS]] of the first end's day)" : "");
	return -1;
}

int pp_timerange_parse(char const *text, struct pp_timerange *r,
		       char *err, size_t errlen)
{
	char const *dots = strstr(text, "..");
	char a[64];
	char why[256];
	size_t alen = (size_t)(dots - text);

	memset(r, 0, sizeof(*r));
	if (!dots || alen >= sizeof(a)) {
		snprintf(err, errlen, "'%s' is not a time range A..B", text);
		return -1;
	}
	memcpy(a, text, alen);
	a[alen] = '\0';
	if (alen) {
		if (parse_end(a, NULL, &r->since, why, sizeof(why)) < 0)
			goto bad;
		r->has_since = true;
	}
	if (dots[2]) {
		if (parse_end(dots + 2, alen ? a : NULL, &r->until, why, sizeof(why)) < 0)
			goto bad;
		r->has_until = true;
	}
	if (r->has_since && r->has_until && r->until <= r->since) {
		snprintf(why, sizeof(why), "it ends before it begins");
		goto bad;
	}
	return 0;
bad:
	snprintf(err, errlen, "session range '%s': %s", text, why);
	return -1;
}

/* --since/--until's TIME: a time, "now" or "-DURATION". */
static int parse_option(char const *option, char const *text, time_t now,
			time_t *t, char *err, size_t errlen)
{
	char why[256];
	uint64_t ago;

	if (!strcmp(text, "now")) {
		*t = now;
		return 0;
	}
	if (text[0] == '-') {
		if (op_settings_duration(option, text + 1, &ago, err, errlen) < 0)
			return -1;
		*t = now - (time_t)ago;
		return 0;
	}
	if (parse_end(text, NULL, t, why, sizeof(why)) == 0)
		return 0;
	snprintf(err, errlen, "%s: %s, 'now' or -DURATION (e.g. -2h)", option, why);
	return -1;
}

int pp_timerange_options(char const *since, char const *until, time_t now,
			 struct pp_timerange *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	if (since) {
		if (parse_option("--since", since, now, &r->since, err, errlen) < 0)
			return -1;
		r->has_since = true;
	}
	if (until) {
		if (parse_option("--until", until, now, &r->until, err, errlen) < 0)
			return -1;
		r->has_until = true;
	}
	if (r->has_since && r->has_until && r->until <= r->since) {
		snprintf(err, errlen, "--until=%s is not after --since=%s", until, since);
		return -1;
	}
	return 0;
}

bool pp_timerange_match(struct pp_timerange const *r, char const *name)
{
	time_t t;

	return op_rotate_is_name(name, &t) &&
	       (!r->has_since || t >= r->since) &&
	       (!r->has_until || t < r->until);
}
