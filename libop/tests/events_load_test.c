/*
 * Every directory under events/ must load without error, and its contents
 * must hold together: a known cpu type named like the directory, ASCII
 * descriptions, counters the cpu has, valid unit mask defaults, and a
 * default event that passes validation. A load error is printed as the
 * loader's "FILE:LINE: what" so the broken line is easy to find. Also a
 * few facts about the shipped files that other code relies on.
 */
#include "events_scratch.h"	/* first: it sets _GNU_SOURCE */
#include "check.h"

#include "op_cpu_type.h"
#include "op_events.h"

static char const *events_root;
static int dirs_seen;

static int ascii_text(char const *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return 0;
	return 1;
}

static void check_default_event(struct op_event_set const *set)
{
	char const *def = op_default_event(set->cpu);
	struct op_event_spec spec;
	char err[512] = "";
	int counter;

	if (!check_that(def != NULL))
		return;
	check_that(op_parse_event_spec(def, &spec, err, sizeof(err)) == 0);
	if (!check_that(op_check_events(set, &spec, 1, 0, &counter, err, sizeof(err)) == 0))
		fprintf(stderr, "  default event %s: %s\n", def, err);
}

static void check_set(struct op_event_set const *set, char const *name)
{
	uint32_t all = set->nr_counters >= 32 ? ~0u : (1u << set->nr_counters) - 1;
	size_t i, j;

	check_that(set->nr_events > 0);
	check_that(set->nr_counters > 0);
	/* every cpu type offers off-CPU time (events/offcpu) */
	if (!check_that(op_event_find(set, OP_EVENT_OFF_CPU) != NULL))
		fprintf(stderr, "  %s: no %s\n", name, OP_EVENT_OFF_CPU);
	for (i = 0; i < set->nr_events; i++) {
		struct op_event const *ev = &set->events[i];
		struct op_unit_mask const *um = ev->unit_mask;

		if (!check_that(*ev->desc && ascii_text(ev->desc)))
			fprintf(stderr, "  %s: event %s description\n", name, ev->name);
		check_that(ev->minimum > 0);
		check_that(ev->counter_mask & all);
		check_that(ev->counter_mask == ~0u || !(ev->counter_mask & ~all));
		if (!check_that(um != NULL))
			continue;
		check_that(um->nr_values > 0);
		for (j = 0; j < um->nr_values; j++)
			check_that(ascii_text(um->values[j].desc));
		for (j = 0; j < i; j++)
			check_that(strcmp(set->events[j].name, ev->name));
	}
	check_default_event(set);
}

static int visit(char const *path, struct stat const *st, int flag,
		 struct FTW *ftw)
{
	char file[4096], err[1024] = "";
	struct op_event_set set;
	char const *name;
	enum op_cpu cpu;

	(void)st;
	(void)ftw;
	snprintf(file, sizeof(file), "%s/events", path);
	if (flag != FTW_D || access(file, F_OK))
		return 0;
	name = path + strlen(events_root) + 1;
	if (!strcmp(name, OP_EVENTS_SOFTWARE))
		return 0;	/* no cpu type: test_events__software */
	if (!strcmp(name, OP_EVENTS_OFF_CPU_DIR))
		return 0;	/* no cpu type: included by each (check_set) */
	dirs_seen++;
	cpu = op_cpu_from_name(name);
	if (!check_that(cpu != CPU_NO_GOOD && !strcmp(op_cpu_name(cpu), name))) {
		fprintf(stderr, "  events/%s is not a cpu type name\n", name);
		return 0;
	}
	check_that(op_cpu_has_events(cpu));
	if (!check_that(op_events_load(cpu, &set, err, sizeof(err)) == 0)) {
		fprintf(stderr, "  %s\n", err);
		return 0;
	}
	check_that(set.cpu == cpu);
	check_set(&set, name);
	op_events_free(&set);
	/* the explicit-directory loader agrees */
	check_that(op_events_load_dir(path, &set, err, sizeof(err)) == 0);
	check_that(set.cpu == cpu);
	op_events_free(&set);
	return 0;
}

static int has_events_count(void)
{
	int i, n = 0;

	for (i = 0; i < MAX_CPU_TYPE; i++)
		n += op_cpu_has_events((enum op_cpu)i);
	return n;
}

static struct op_event const *load_find(enum op_cpu cpu,
					struct op_event_set *set,
					char const *name)
{
	char err[512];

	if (!check_that(op_events_load(cpu, set, err, sizeof(err)) == 0))
		return NULL;
	return op_event_find(set, name);
}

static void test_events__known_facts(void)
{
	struct op_event_set set;
	struct op_event const *ev;

	ev = load_find(CPU_TIMER_INT, &set, "CPU_CLOCK");
	check_that(ev && ev->code == 0 && ev->minimum == 10000 && ev->counter_mask == 0xf);
	check_that(set.nr_counters == 4 && op_event_find(&set, "TASK_CLOCK"));
	op_events_free(&set);

	ev = load_find(CPU_ARCH_PERFMON, &set, "LLC_MISSES");
	check_that(ev && ev->code == 0x2e && ev->unit_mask->default_value == 0x41);
	check_that(set.nr_counters >= 2);
	op_events_free(&set);

	ev = load_find(CPU_HASWELL, &set, "L1D_PEND_MISS");
	check_that(ev && ev->code == 0x48 && ev->counter_mask == 0x4);
	check_that(set.nr_counters == 4);
	/* included from arch_perfmon */
	ev = op_event_find(&set, "CPU_CLK_UNHALTED");
	check_that(ev && ev->code == 0x3c && ev->minimum == 6000);
	/* Haswell's own BR_INST_RETIRED replaces the architectural one */
	ev = op_event_find(&set, "BR_INST_RETIRED");
	check_that(ev && ev->unit_mask->nr_values > 1 &&
	      ev->unit_mask->type == OP_UM_EXCLUSIVE);
	ev = op_event_find(&set, "BR_INST_EXEC");
	check_that(ev && ev->unit_mask->type == OP_UM_BITMASK);
	op_events_free(&set);

	ev = load_find(CPU_FAMILY15H, &set, "DATA_CACHE_REFILLS_FROM_L2_OR_NORTHBRIDGE");
	check_that(ev && ev->code == 0x42 && ev->unit_mask->type == OP_UM_BITMASK);
	check_that(set.nr_counters == 6);
	ev = op_event_find(&set, "CPU_CLK_UNHALTED");
	check_that(ev && ev->code == 0x76 && ev->counter_mask == 0x7);
	op_events_free(&set);
}

/* events/software: perf's software events, code = PERF_COUNT_SW_* id. */
static void test_events__software(void)
{
	static char const *const names[] = {
		"CPU_CLOCK", "TASK_CLOCK", "PAGE_FAULTS", "CONTEXT_SWITCHES",
		"CPU_MIGRATIONS", "MINOR_FAULTS", "MAJOR_FAULTS",
	};
	struct op_event_set set;
	char err[1024] = "";

	if (!check_that(op_events_load_software(&set, err, sizeof(err)) == 0)) {
		fprintf(stderr, "  %s\n", err);
		return;
	}
	check_that(set.cpu == CPU_NO_GOOD && set.nr_events == 7);
	for (uint32_t i = 0; i < 7; i++) {
		struct op_event const *ev = op_event_find(&set, names[i]);

		check_that(ev && ev->code == i && ascii_text(ev->desc));
	}
	op_events_free(&set);
}

int main(void)
{
	events_root = getenv("OPROFILE_EVENTS_DIR");
	if (!events_root || !*events_root) {
		fprintf(stderr, "OPROFILE_EVENTS_DIR is not set\n");
		return 99;
	}
	check_that(!strcmp(op_events_dir(), events_root));
	check_that(nftw(events_root, visit, 16, FTW_PHYS) == 0);
	check_that(dirs_seen == has_events_count());
	test_events__known_facts();
	test_events__software();
	return check_done();
}
