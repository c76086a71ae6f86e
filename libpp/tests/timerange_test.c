/*
 * Time ranges of rotated sessions: session:A..B (with "THH" ends, open
 * ends), --since/--until (now, -DURATION) and which names fall in [A, B).
 */
#include <string.h>

#include "check.h"
#include "op_message.h"
#include "pp_timerange.h"

static void test_timerange__parse(void)
{
	struct pp_timerange r;
	char err[512];

	check_that(pp_timerange_is_range("2026-11-26T14..2026-11-26T16"));
	check_that(!pp_timerange_is_range("2026-11-26T14"));
	check_that(pp_timerange_parse("2026-11-26T14..2026-11-26T16", &r, err, sizeof(err)) == 0);
	check_int(r.until - r.since, 7200, "14..16 is two hours");
	check_that(pp_timerange_parse("2026-11-26T14..T16", &r, err, sizeof(err)) == 0);
	check_int(r.until - r.since, 7200, "T16 takes the first end's day");
	check_that(pp_timerange_parse("2026-11-26T14:05..T14:06:30", &r, err, sizeof(err)) == 0);
	check_int(r.until - r.since, 90, "minutes and seconds");
	check_that(pp_timerange_parse("..2026-11-26", &r, err, sizeof(err)) == 0 &&
		   !r.has_since && r.has_until);
	check_that(pp_timerange_parse("2026-11-26..", &r, err, sizeof(err)) == 0 &&
		   r.has_since && !r.has_until);
	check_that(pp_timerange_parse("2026-11-26T16..T14", &r, err, sizeof(err)) < 0);
	check_contains(err, "ends before it begins", "a backwards range");
	check_that(pp_timerange_parse("yesterday..2026-11-26", &r, err, sizeof(err)) < 0);
	check_contains(err, "'yesterday' is not a UTC time", "a bad end is named");
	check_that(pp_timerange_parse("..T14", &r, err, sizeof(err)) < 0);
}

static void test_timerange__options_match(void)
{
	struct pp_timerange r;
	char err[512];
	time_t now;

	check_that(pp_timerange_parse("2026-11-26T14..T16", &r, err, sizeof(err)) == 0);
	check_that(pp_timerange_match(&r, "2026-11-26T14"));
	check_that(pp_timerange_match(&r, "2026-11-26T15:59:59"));
	check_that(pp_timerange_match(&r, "2026-11-26T15:00:00.2"));
	check_that(!pp_timerange_match(&r, "2026-11-26T16"));          /* [A, B) */
	check_that(!pp_timerange_match(&r, "2026-11-26T13:59:59"));
	check_that(!pp_timerange_match(&r, "current"));
	check_that(!pp_timerange_match(&r, "mysave"));
	check_that(pp_timerange_options("2026-11-26T14", "2026-11-26T16", 0, &r, err, sizeof(err)) == 0);
	check_int(r.until - r.since, 7200, "--since/--until as the range");
	now = 1795701600;
	check_that(pp_timerange_options("-2h", "now", now, &r, err, sizeof(err)) == 0);
	check_that(r.since == now - 7200 && r.until == now);
	check_that(pp_timerange_options("-2x", NULL, now, &r, err, sizeof(err)) < 0);
	check_contains(err, "--since", "the option is named");
	check_that(pp_timerange_options("now", "-1h", now, &r, err, sizeof(err)) < 0);
	check_contains(err, "is not after", "--until before --since");
	check_that(pp_timerange_options("2026-13-01", NULL, now, &r, err, sizeof(err)) < 0);
}

int main(void)
{
	op_set_progname("timerange_test");
	test_timerange__parse();
	test_timerange__options_match();
	return check_done();
}
