/*
 * Event spec syntax, NAME:count[:um[:kernel[:user]]]: OProfile's own cases
 * (BAR:3000, FOOBAR:3000:1:1:1; its FOO:3000:0:0:0 counts nothing and is
 * refused since issue 21), unit masks by number and by name, defaults,
 * and the malformed specs that must be refused with a message naming the
 * spec.
 */
#include "events_scratch.h"	/* first: it sets _GNU_SOURCE */
#include "check.h"

#include "op_events.h"

struct good_case {
	char const *text;
	char const *name;
	uint32_t count;
	uint32_t um;
	int um_given;
	char const *um_name;
	int kernel, user;
};

static struct good_case const good[] = {
	{ "FOO:3000:0:0:1", "FOO", 3000, 0, 1, "", 0, 1 },
	{ "BAR:3000", "BAR", 3000, 0, 0, "", 1, 1 },
	{ "FOOBAR:3000:1:1:1", "FOOBAR", 3000, 1, 1, "", 1, 1 },
	{ "L2_RQSTS:500:0xff", "L2_RQSTS", 500, 0xff, 1, "", 1, 1 },
	{ "L2_RQSTS:500:0XFF:1:0", "L2_RQSTS", 500, 0xff, 1, "", 1, 0 },
	{ "L2_RQSTS:500:33", "L2_RQSTS", 500, 33, 1, "", 1, 1 },
	{ "L2_RQSTS:500:miss", "L2_RQSTS", 500, 0, 1, "miss", 1, 1 },
	{ "BR_INST_EXEC:600:all_conditional:0:1", "BR_INST_EXEC", 600, 0, 1,
	  "all_conditional", 0, 1 },
	{ "CPU_CLOCK:0x10000", "CPU_CLOCK", 0x10000, 0, 0, "", 1, 1 },
	{ "CPU_CLOCK:4294967295", "CPU_CLOCK", 4294967295u, 0, 0, "", 1, 1 },
	{ "X:10::0", "X", 10, 0, 0, "", 0, 1 },
	{ "X:10:::0", "X", 10, 0, 0, "", 1, 0 },
};

struct bad_case {
	char const *text;
	char const *message;
};

static struct bad_case const bad[] = {
	{ "X:abc", "bad event spec 'X:abc': count is not a number" },
	{ "X:12abc", "count is not a number" },
	{ "X:-5", "count is not a number" },
	{ "X:0x", "count is not a number" },
	{ "X:4294967296", "count is too large" },
	{ "X:0", "count must be positive" },
	{ ":1000", "bad event spec ':1000': empty event name" },
	{ "", "empty event name" },
	{ "X", "bad event spec 'X': missing count" },
	{ "X:", "missing count" },
	{ "X:1000:0:1:1:1", "too many fields" },
	{ "X:1000:0:2", "kernel must be 0 or 1" },
	{ "FOO:3000:0:0:0", "kernel and user are both 0" },
	{ "X:1000:0:1:yes", "user must be 0 or 1" },
	{ "X:1000:0:10", "kernel must be 0 or 1" },
	{ "X:1000:0x1g", "unit mask is not a number or a unit mask name" },
	{ "X:1000:bad.name", "unit mask is not a number or a unit mask name" },
	{ "X:1000:12z", "unit mask is not a number or a unit mask name" },
	{ "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA:1",
	  "event name too long" },
};

static void test_spec__good(void)
{
	struct op_event_spec spec;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct good_case const *g = &good[i];

		err[0] = '\0';
		if (!check_that(op_parse_event_spec(g->text, &spec, err, sizeof(err)) == 0)) {
			fprintf(stderr, "  '%s': %s\n", g->text, err);
			continue;
		}
		check_that(!strcmp(spec.name, g->name));
		check_that(spec.count == g->count);
		check_that(spec.um_given == g->um_given);
		check_that(!strcmp(spec.um_name, g->um_name));
		if (!g->um_name[0])
			check_that(spec.unit_mask == g->um);
		check_that(spec.kernel == g->kernel);
		check_that(spec.user == g->user);
	}
}

static void test_spec__bad(void)
{
	struct op_event_spec spec;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		check_that(op_parse_event_spec(bad[i].text, &spec, err, sizeof(err)) == -1);
		check_contains(err, bad[i].message,
			       "line %d: the message", __LINE__);
	}
}

/* A tiny error buffer truncates the message but never overflows it. */
static void test_spec__small_err_buffer(void)
{
	struct op_event_spec spec;
	char err[8] = "xxxxxxx";

	check_that(op_parse_event_spec("X:abc", &spec, err, sizeof(err)) == -1);
	check_that(strlen(err) == sizeof(err) - 1);
}

int main(void)
{
	test_spec__good();
	test_spec__bad();
	test_spec__small_err_buffer();
	return check_done();
}
