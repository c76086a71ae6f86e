/*
 * Time ranges of rotated sessions (oprofiled --rotate: samples/UTC-TIME,
 * libop/op_session_rotate.h): "session:A..B" and --since/--until select
 * the sessions whose time is in [A, B), which the report merges. Times
 * are UTC, in the sessions' own form cut anywhere after the day:
 * 2026-11-26, 2026-11-26T14, 2026-11-26T14:05, 2026-11-26T14:05:30;
 * B may give the time of A's day only ("T16"); either end may be empty
 * (open). --since/--until also take "now" and "-DURATION" (before now:
 * -2h, -30m, -1d).
 */
#ifndef PP_TIMERANGE_H
#define PP_TIMERANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct pp_timerange {
	bool has_since, has_until;
	time_t since;                /* first second in the range */
	time_t until;                /* first second after it */
};

/* Whether a session: value is a range ("A..B"). */
bool pp_timerange_is_range(char const *text);

/* "A..B" into r. 0, or -1 with err naming the bad end. */
int pp_timerange_parse(char const *text, struct pp_timerange *r,
		       char *err, size_t errlen);

/* --since/--until (either may be NULL), now the current time. 0, or -1
 * with err. */
int pp_timerange_options(char const *since, char const *until, time_t now,
			 struct pp_timerange *r, char *err, size_t errlen);

/* Whether session name is a rotated session's in range r. */
bool pp_timerange_match(struct pp_timerange const *r, char const *name);

#endif /* PP_TIMERANGE_H */
