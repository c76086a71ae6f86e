/*
 * Broken events/ files, written to a scratch directory: each must be
 * refused with "FILE:LINE: what", naming the right file and line. Also the
 * include: rules (a cpu's own definition wins over an included one, cycles
 * and missing directories are caught) and unit mask merging.
 */
#include "events_scratch.h"	/* first: it sets _GNU_SOURCE */
#include "check.h"

#include "op_events.h"

static char const *root;

#define UM_ZERO "name:zero type:mandatory default:0x0\n\t0x0 No unit mask\n"
#define EV_OK "event:0x1 counters:0,1 um:zero minimum:10 name:OK : fine\n"

#define DIR_LEN 1024

/* Write the cpu type directory root/name, its path into dir (DIR_LEN
 * bytes): an events file and, unless NULL, a unit_masks file. */
static void write_cpu_dir(char *dir, char const *name, char const *events,
			  char const *unit_masks)
{
	snprintf(dir, DIR_LEN, "%s/%s", root, name);
	if (unit_masks)
		test_write(dir, "unit_masks", unit_masks);
	test_write(dir, "events", events);
}

struct err_case {
	char const *title;
	char const *events;
	char const *unit_masks;
	char const *where;	/* "events:3" or "unit_masks:2" */
	char const *message;
};

static struct err_case const cases[] = {
	{ "unknown tag", EV_OK "event:0x2 counters:0 um:zero minimum:1 name:B foo:1 : d\n",
	  UM_ZERO, "events:2", "unknown tag 'foo:'" },
	{ "duplicate tag", "event:0x2 event:0x3 counters:0 um:zero minimum:1 name:B : d\n",
	  UM_ZERO, "events:1", "duplicate tag 'event:'" },
	{ "bad hex", "# comment\n\nevent:0xZZ counters:0 um:zero minimum:1 name:B : d\n",
	  UM_ZERO, "events:3", "bad hex value '0xZZ' for 'event:'" },
	{ "hex without 0x", "event:3c counters:0 um:zero minimum:1 name:B : d\n",
	  UM_ZERO, "events:1", "bad hex value '3c'" },
	{ "code over 32 bits", "event:0x100000000 counters:0 um:zero minimum:1 name:B : d\n",
	  UM_ZERO, "events:1", "bad hex value" },
	{ "name with a dot", "event:0x2 counters:0 um:zero minimum:1 name:A.B : d\n",
	  UM_ZERO, "events:1", "bad event name 'A.B'" },
	{ "name with a slash", "event:0x2 counters:0 um:zero minimum:1 name:A/B : d\n",
	  UM_ZERO, "events:1", "bad event name 'A/B'" },
	{ "missing um reference", EV_OK "event:0x2 counters:0 um:nope minimum:1 name:B : d\n",
	  UM_ZERO, "events:2", "unknown unit mask 'nope'" },
	{ "missing tag", "event:0x2 counters:0 um:zero name:B : d\n",
	  UM_ZERO, "events:1", "missing tag 'minimum:'" },
	{ "token without a tag", "event:0x2 counters:0 um:zero minimum:1 name:B oops : d\n",
	  UM_ZERO, "events:1", "bad token 'oops'" },
	{ "bad minimum", "event:0x2 counters:0 um:zero minimum:1k name:B : d\n",
	  UM_ZERO, "events:1", "bad number '1k' for 'minimum:'" },
	{ "bad counter", "event:0x2 counters:0,x um:zero minimum:1 name:B : d\n",
	  UM_ZERO, "events:1", "bad counter 'x'" },
	{ "counter 32", "event:0x2 counters:32 um:zero minimum:1 name:B : d\n",
	  UM_ZERO, "events:1", "bad counter '32'" },
	{ "same event twice", EV_OK "\n" EV_OK, UM_ZERO, "events:3",
	  "event 'OK' defined twice" },
	{ "include not alone", "include:a b\n", UM_ZERO, "events:1",
	  "include: must name one directory" },
	{ "include of nothing", EV_OK "include:\n", UM_ZERO, "events:2",
	  "include: must name one directory" },
	{ "unit_masks include of a missing dir", EV_OK, UM_ZERO "include:no/such\n",
	  "unit_masks:3", "cannot include 'no/such': no unit_masks file under" },
	{ "include of a missing dir", EV_OK "include:no/such\n", UM_ZERO,
	  "events:2", "cannot include 'no/such'" },
	{ "no events", "# nothing\n", UM_ZERO, "events", "no events defined" },
	{ "bad unit mask value line", EV_OK,
	  UM_ZERO "name:two type:exclusive default:0x1\n\tzz desc\n",
	  "unit_masks:4", "bad hex value 'zz' in unit mask 'two'" },
	{ "value line indented with spaces", EV_OK,
	  "name:zero type:mandatory default:0x0\n    0x0 No unit mask\n",
	  "unit_masks:2", "must start with a TAB" },
	{ "value outside a block", EV_OK, "\t0x0 stray\n" UM_ZERO,
	  "unit_masks:1", "value line outside a 'name:' block" },
	{ "unknown unit mask type", EV_OK,
	  UM_ZERO "name:t type:sometimes default:0x1\n\t0x1 d\n",
	  "unit_masks:3", "bad type 'sometimes'" },
	{ "unit mask tag unknown", EV_OK, UM_ZERO "name:t type:bitmask default:0x1 x:1\n",
	  "unit_masks:3", "unknown tag 'x:'" },
	{ "unit mask tag twice", EV_OK,
	  UM_ZERO "name:t name:u type:bitmask default:0x1\n\t0x1 d\n",
	  "unit_masks:3", "duplicate tag 'name:'" },
	{ "unit mask without default", EV_OK, UM_ZERO "name:t type:bitmask\n\t0x1 d\n",
	  "unit_masks:3", "missing tag 'default:'" },
	{ "unit mask without values", EV_OK, UM_ZERO "name:t type:bitmask default:0x1\n",
	  "unit_masks:3", "unit mask 't' has no values" },
	{ "default not a value", EV_OK,
	  UM_ZERO "name:t type:exclusive default:0x3\n\t0x1 a\n\t0x2 b\n",
	  "unit_masks:3", "default 0x3 of unit mask 't' is not one of its values" },
	{ "bitmask default outside the bits", EV_OK,
	  UM_ZERO "name:t type:bitmask default:0x5\n\t0x1 a\n\t0x2 b\n",
	  "unit_masks:3", "default 0x5" },
	{ "named default unknown", EV_OK,
	  UM_ZERO "name:t type:exclusive default:zz\n\t0x1 extra: a A\n",
	  "unit_masks:3", "default 'zz' of unit mask 't' names no value" },
	{ "value twice", EV_OK, UM_ZERO "name:t type:exclusive default:0x1\n\t0x1 a\n\t0x1 b\n",
	  "unit_masks:5", "value 0x1 listed twice in unit mask 't'" },
	{ "value name twice", EV_OK,
	  UM_ZERO "name:t type:exclusive default:0x1\n\t0x1 extra: a A\n\t0x2 extra: a B\n",
	  "unit_masks:5", "value name 'a' used twice" },
	{ "extra bits", EV_OK,
	  UM_ZERO "name:t type:exclusive default:0x1\n\t0x1 extra:cmask=1 a A\n",
	  "unit_masks:4", "extra bits 'cmask=1' are not supported" },
	{ "missing value description", EV_OK, UM_ZERO "name:t type:exclusive default:0x1\n\t0x1\n",
	  "unit_masks:4", "missing description for value 0x1" },
	{ "unit mask name with a dot", EV_OK, "name:a.b type:mandatory default:0x0\n\t0x0 d\n",
	  "unit_masks:1", "bad unit mask name 'a.b'" },
	{ "unit mask twice", EV_OK, UM_ZERO UM_ZERO, "unit_masks:3",
	  "unit mask 'zero' defined twice" },
};

static void test_errors__cases(void)
{
	char dir[DIR_LEN], err[1024], where[2048], name[32];
	struct op_event_set set;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(name, sizeof(name), "case%zu", i);
		write_cpu_dir(dir, name, cases[i].events, cases[i].unit_masks);
		err[0] = '\0';
		if (!check_that(op_events_load_dir(dir, &set, err, sizeof(err)) == -1)) {
			fprintf(stderr, "  case '%s' loaded\n", cases[i].title);
			op_events_free(&set);
			continue;
		}
		snprintf(where, sizeof(where), "%s/%s", dir, cases[i].where);
		if (!check_that(strncmp(err, where, strlen(where)) == 0))
			fprintf(stderr, "  case '%s': '%s' does not start with '%s'\n",
				cases[i].title, err, where);
		check_contains(err, cases[i].message,
			       "line %d: the message", __LINE__);
		check_that(set.nr_events == 0 && set.events == NULL);
	}
}

static void test_errors__missing_files(void)
{
	char dir[DIR_LEN], err[1024];
	struct op_event_set set;

	write_cpu_dir(dir, "only_events", EV_OK, NULL);
	check_that(op_events_load_dir(dir, &set, err, sizeof(err)) == -1);
	check_contains(err, "cannot open '",
		       "line %d: the message", __LINE__);
	check_contains(err, "only_events/unit_masks'",
		       "line %d: the message", __LINE__);
}

/* A cpu type directory bounds the counters to what that cpu has. */
static void test_errors__counter_out_of_range(void)
{
	char dir[DIR_LEN], err[1024];
	struct op_event_set set;

	write_cpu_dir(dir, "timer",
		      EV_OK "event:0x2 counters:1,5 um:zero minimum:1 name:B : d\n",
		      UM_ZERO);
	check_that(op_events_load_dir(dir, &set, err, sizeof(err)) == -1);
	check_contains(err, "timer/events:2: counter 5 out of range: cpu type 'timer' has 4 counters",
		       "line %d: the message", __LINE__);
}

static struct op_event const *find(struct op_event_set const *set,
				   char const *name)
{
	struct op_event const *ev = op_event_find(set, name);

	check_that(ev != NULL);
	return ev;
}

/* base defines A and B; top includes base and redefines A, before or after. */
static void test_include__own_definition_wins(void)
{
	char dir[DIR_LEN], err[1024];
	struct op_event_set set;
	struct op_event const *ev;
	int order;

	snprintf(dir, sizeof(dir), "%s/vendor/base", root);
	mkdir(root, 0700);
	snprintf(err, sizeof(err), "%s/vendor", root);
	mkdir(err, 0700);
	test_write(dir, "unit_masks", UM_ZERO "name:two type:exclusive default:0x1\n"
		   "\t0x1 extra: one base one\n\t0x2 extra: two base two\n");
	test_write(dir, "events",
		   "event:0x1 counters:0,1 um:zero minimum:10 name:A : base A\n"
		   "event:0x2 counters:0,1 um:two minimum:10 name:B : base B\n");
	for (order = 0; order < 2; order++) {
		snprintf(dir, sizeof(dir), "%s/top%d", root, order);
		test_write(dir, "unit_masks", order ?
			   "name:two type:exclusive default:0x4\n\t0x4 extra: four top four\ninclude:vendor/base\n" :
			   "include:vendor/base\nname:two type:exclusive default:0x4\n\t0x4 extra: four top four\n");
		test_write(dir, "events", order ?
			   "event:0x9 counters:1 um:two minimum:20 name:A : top A\ninclude:vendor/base\n" :
			   "include:vendor/base\nevent:0x9 counters:1 um:two minimum:20 name:A : top A\n");
		err[0] = '\0';
		if (!check_that(op_events_load_dir(dir, &set, err, sizeof(err)) == 0)) {
			fprintf(stderr, "  %s\n", err);
			continue;
		}
		check_that(set.nr_events == 2);
		ev = find(&set, "A");
		check_that(ev && ev->code == 0x9 && !strcmp(ev->desc, "top A") &&
		      ev->counter_mask == 0x2 && ev->minimum == 20);
		/* the included B uses the top file's 'two' as well */
		ev = find(&set, "B");
		check_that(ev && ev->unit_mask->default_value == 0x4 &&
		      ev->unit_mask->nr_values == 1);
		check_that(set.nr_counters == 2);
		check_that(set.cpu == CPU_NO_GOOD);
		op_events_free(&set);
	}
}

static void test_include__cycle_and_clash(void)
{
	char dir[DIR_LEN], err[1024];
	struct op_event_set set;

	write_cpu_dir(dir, "loop2", "include:loop1\n", UM_ZERO);
	write_cpu_dir(dir, "loop1", EV_OK "include:loop2\n", UM_ZERO);
	check_that(op_events_load_dir(dir, &set, err, sizeof(err)) == -1);
	check_contains(err, "nested too deep",
		       "line %d: the message", __LINE__);

	/* two includes at the same depth may not both define OK */
	write_cpu_dir(dir, "loop2x", EV_OK, UM_ZERO);
	write_cpu_dir(dir, "base0", EV_OK, UM_ZERO);
	write_cpu_dir(dir, "clash", "include:base0\ninclude:loop2x\n", UM_ZERO);
	check_that(op_events_load_dir(dir, &set, err, sizeof(err)) == -1);
	check_contains(err, "loop2x/events:1: event 'OK' also defined by another included file",
		       "line %d: the message", __LINE__);
}

static void test_unit_masks__merge_and_names(void)
{
	char dir[DIR_LEN], err[1024];
	struct op_event_set set;
	struct op_event const *ev;

	snprintf(dir, sizeof(dir), "%s/merge", root);
	test_write(dir, "unit_masks",
		   "name:a type:bitmask default:lo\n\t0x1 extra: lo low bit\n\t0x2 extra: hi high bit\n"
		   "name:b type:bitmask default:0x4\n\t0x4 third bit\n\t0x2 high again\n");
	test_write(dir, "events",
		   "event:0x1 counters:0 um:a,b minimum:10 name:M : merged\n"
		   "event:0x2 counters:0 um:a,b minimum:10 name:N : merged again\n"
		   "event:0x3 counters:0 um:a filter:2 minimum:10 name:P :\n");
	err[0] = '\0';
	if (!check_that(op_events_load_dir(dir, &set, err, sizeof(err)) == 0)) {
		fprintf(stderr, "  %s\n", err);
		return;
	}
	ev = find(&set, "M");
	check_that(ev && ev->unit_mask->nr_values == 3 &&
	      ev->unit_mask->type == OP_UM_BITMASK &&
	      ev->unit_mask->default_value == 0x1);
	check_that(ev && find(&set, "N")->unit_mask == ev->unit_mask);
	check_that(set.nr_unit_masks == 3);
	ev = find(&set, "P");
	check_that(ev && !strcmp(ev->desc, "") && ev->unit_mask->default_value == 1);
	op_events_free(&set);

	test_write(dir, "events", "event:0x1 counters:0 um:a,zz minimum:10 name:M : d\n");
	check_that(op_events_load_dir(dir, &set, err, sizeof(err)) == -1);
	check_contains(err, "merge/events:1: unknown unit mask 'zz'",
		       "line %d: the message", __LINE__);
}

int main(void)
{
	root = check_tmpdir();
	setenv("OPROFILE_EVENTS_DIR", root, 1);
	test_errors__cases();
	test_errors__missing_files();
	test_errors__counter_out_of_range();
	test_include__own_definition_wins();
	test_include__cycle_and_clash();
	test_unit_masks__merge_and_names();
	check_rmtree(root);
	return check_done();
}
