/*
 * Profile specification parsing: accepted and refused words, comma lists,
 * numbers, image paths made absolute, and the "{ } { }" split of
 * differential profiles.
 */
#include "config.h"

#include <stdlib.h>
#include <unistd.h>

#include "pp_spec.h"
#include "check.h"

static void test_spec__refused(void)
{
	static struct { char const *word, *err; } const cases[] = {
		{ "evnet:X", "unknown tag in 'evnet:X'" },
		{ "image:", "empty item in list ''" },
		{ "image:a,,b", "empty item in list 'a,,b'" },
		{ "count:12x", "'count:12x': '12x' is not a number" },
		{ "tid:-3", "'tid:-3': '-3' is not a number" },
		{ "unit-mask:0xzz", "'unit-mask:0xzz': '0xzz' is not a number" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char const *argv[] = { cases[i].word };
		struct pp_spec spec;
		char err[512] = "";
		int rc = pp_spec_parse(&spec, 1, argv, err, sizeof(err));

		check(rc == -1 && strstr(err, cases[i].err),
		      "'%s' refused: %s", cases[i].word, err);
	}
}

static void test_spec__twice(void)
{
	char const *argv[] = { "event:A", "tid:1", "event:B" };
	struct pp_spec spec;
	char err[512];

	check(pp_spec_parse(&spec, 3, argv, err, sizeof(err)) == -1 &&
	      strstr(err, "tag 'event:' given twice"),
	      "a tag given twice is refused: %s", err);
}

static void test_spec__values(void)
{
	char const *argv[] = { "session:cur*,old", "event:CPU_CLOCK",
			       "unit-mask:0x12", "tid:4,5", "ls", "/bin/cat",
			       "lib-image:*libc*", "image:./rel/prog" };
	char cwd[4096], want[4200];
	struct pp_spec spec;
	char err[512];

	if (!check(!pp_spec_parse(&spec, 8, argv, err, sizeof(err)),
		   "a full specification parses (%s)", err))
		return;
	check(spec.v[PP_TAG_SESSION].n == 2 &&
	      !strcmp(spec.v[PP_TAG_SESSION].v[1], "old"), "session: comma list");
	check(pp_spec_match_number(&spec, PP_TAG_UNIT_MASK, 0x12) &&
	      !pp_spec_match_number(&spec, PP_TAG_UNIT_MASK, 12),
	      "unit-mask:0x12 is hex 0x12, not 12");
	check(pp_spec_match_number(&spec, PP_TAG_TID, 5) &&
	      !pp_spec_match_number(&spec, PP_TAG_TID, 6), "tid:4,5 matches 5, not 6");
	check(pp_spec_match_number(&spec, PP_TAG_CPU, 3), "cpu not given matches any");
	check(spec.v[PP_TAG_BARE].n == 2 &&
	      !strcmp(spec.v[PP_TAG_BARE].v[0], "ls"), "bare words are image names, kept as given");
	check_str(spec.v[PP_TAG_LIB_IMAGE].v[0], "*libc*", "globs are kept as given");
	if (getcwd(cwd, sizeof(cwd))) {
		snprintf(want, sizeof(want), "%s/rel/prog", cwd);
		check_str(spec.v[PP_TAG_IMAGE].v[0], want, "./rel/prog is made absolute");
	}
	pp_spec_free(&spec);
}

static void test_spec__diff(void)
{
	static struct { int argc; char const *argv[8]; int rc, f0, c0, f1, c1; } const cases[] = {
		{ 2, { "image:a", "tid:3" }, 0, 0, 0, 0, 0 },
		{ 4, { "{", "}", "{", "}" }, 1, 1, 0, 3, 0 },
		{ 6, { "{", "session:a", "}", "{", "session:b", "}" }, 1, 1, 1, 4, 1 },
		{ 5, { "{", "a", "}", "b", "}" }, -1, 0, 0, 0, 0 },
		{ 4, { "x", "{", "}", "{" }, -1, 0, 0, 0, 0 },
		{ 7, { "{", "a", "}", "{", "b", "}", "c" }, -1, 0, 0, 0, 0 },
		{ 3, { "{", "{", "}" }, -1, 0, 0, 0, 0 },
		{ 2, { "{", "a" }, -1, 0, 0, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int first[2] = { 0 }, count[2] = { 0 };
		char err[256];
		int rc = pp_spec_split_diff(cases[i].argc, cases[i].argv, first,
					    count, err, sizeof(err));
		bool good = rc == cases[i].rc;

		if (good && rc == 1)
			good = first[0] == cases[i].f0 && count[0] == cases[i].c0 &&
			       first[1] == cases[i].f1 && count[1] == cases[i].c1;
		check(good, "differential split case %zu: rc %d", i, rc);
	}
}

int main(void)
{
	test_spec__refused();
	test_spec__twice();
	test_spec__values();
	test_spec__diff();
	return check_done();
}
