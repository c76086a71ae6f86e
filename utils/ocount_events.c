/*
 * The events ocount counts. The software events come from events/software
 * (libop's op_events.h reads it; ophelp --software lists it), named as
 * there (TASK_CLOCK), as perf names them (task-clock: lower case, '-' for
 * '_') or by perf's short aliases (cs, migrations, faults). The generic
 * hardware events are perf's (PERF_TYPE_HARDWARE) and need a PMU.
 */
#include <ctype.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "op_events.h"
#include "op_message.h"
#include "op_util.h"
#include "ocount.h"

#define PMU_DIR "/sys/bus/event_source/devices/cpu"

/* perf's short names of software events. */
static struct { char const *alias, *name; } const sw_aliases[] = {
	{ "cs", "CONTEXT_SWITCHES" },
	{ "migrations", "CPU_MIGRATIONS" },
	{ "faults", "PAGE_FAULTS" },
};

struct named_event {
	char const *name, *alias;
	uint64_t config;
	char const *help;
};

/* perf's generic hardware events (PERF_TYPE_HARDWARE). */
static struct named_event const hw_table[] = {
	{ "cycles", "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES, "cpu cycles (PMU)" },
	{ "instructions", NULL, PERF_COUNT_HW_INSTRUCTIONS,
	  "instructions retired (PMU)" },
	{ "cache-references", NULL, PERF_COUNT_HW_CACHE_REFERENCES,
	  "last level cache accesses (PMU)" },
	{ "cache-misses", NULL, PERF_COUNT_HW_CACHE_MISSES,
	  "last level cache misses (PMU)" },
	{ "branches", "branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	  "branches retired (PMU)" },
	{ "branch-misses", NULL, PERF_COUNT_HW_BRANCH_MISSES,
	  "mispredicted branches (PMU)" },
};

/* events/software, loaded once, with each event's perf-style name. */
static struct op_event_set sw;
static char (*sw_names)[64];
static bool sw_loaded;

bool ocount_have_pmu(void)
{
	return access(PMU_DIR, F_OK) == 0;
}

/* "TASK_CLOCK" -> "task-clock" */
static void perf_name(char const *in, char *out, size_t size)
{
	size_t i;

	for (i = 0; in[i] && i + 1 < size; i++)
		out[i] = in[i] == '_' ? '-' : (char)tolower((unsigned char)in[i]);
	out[i] = '\0';
}

int ocount_software_load(char *err, size_t errlen)
{
	if (sw_loaded)
		return 0;
	if (op_events_load_software(&sw, err, errlen))
		return -1;
	sw_names = op_xcalloc(sw.nr_events ? sw.nr_events : 1, sizeof(*sw_names));
	for (size_t i = 0; i < sw.nr_events; i++)
		perf_name(sw.events[i].name, sw_names[i], sizeof(sw_names[i]));
	sw_loaded = true;
	return 0;
}

/* The software event called name in any of its spellings, or -1. */
static long find_software(char const *name)
{
	char upper[64];
	size_t i;

	for (i = 0; i < OP_ARRAY_SIZE(sw_aliases); i++)
		if (!strcasecmp(name, sw_aliases[i].alias))
			name = sw_aliases[i].name;
	for (i = 0; name[i] && i + 1 < sizeof(upper); i++)
		upper[i] = name[i] == '-' ? '_' : (char)toupper((unsigned char)name[i]);
	upper[i] = '\0';
	for (i = 0; i < sw.nr_events; i++)
		if (!strcmp(sw.events[i].name, upper))
			return (long)i;
	return -1;
}

static struct named_event const *find_hardware(char const *name)
{
	for (size_t i = 0; i < OP_ARRAY_SIZE(hw_table); i++)
		if (!strcmp(hw_table[i].name, name) ||
		    (hw_table[i].alias && !strcasecmp(hw_table[i].alias, name)))
			return &hw_table[i];
	return NULL;
}

/* The clocks count nanoseconds (events/software says so in words). */
static char const *sw_unit(struct op_event const *e)
{
	size_t n = strlen(e->name);

	return n > 6 && !strcmp(e->name + n - 6, "_CLOCK") ? "ns" : NULL;
}

/* A 0 or 1 of NAME:um:kernel:user into *off (true for 0); 0, or -1 with err. */
static int parse_mode(char const *spec, char const *field, char const *what,
		      bool *off, char *err, size_t errlen)
{
	if (!field || !*field)
		return 0;
	if (strcmp(field, "0") && strcmp(field, "1")) {
		snprintf(err, errlen, "event '%s': the %s field is '%s', not 0 or 1",
			 spec, what, field);
		return -1;
	}
	*off = field[0] == '0';
	return 0;
}

/*
 * NAME[:UM[:KERNEL[:USER]]] into name (cut at the first ':') and ev's
 * modes; 0, or -1 with err.
 */
static int parse_fields(char const *spec, char *name, struct ocount_event *ev,
			char *err, size_t errlen)
{
	char *field[4] = { NULL }, *p;
	int n = 0;

	field[n++] = name;
	for (p = name; (p = strchr(p, ':')); ) {
		*p++ = '\0';
		if (n == 4) {
			snprintf(err, errlen, "event '%s' is not "
				 "NAME[:UNIT_MASK[:KERNEL[:USER]]]", spec);
			return -1;
		}
		field[n++] = p;
	}
	if (!*name) {
		snprintf(err, errlen, "event '%s' has no name", spec);
		return -1;
	}
	/* software and generic hardware events have no unit masks */
	if (field[1] && *field[1] && strtoul(field[1], &p, 0) != 0) {
		snprintf(err, errlen, "event '%s': unit mask '%s': this event "
			 "has none (give 0)", spec, field[1]);
		return -1;
	}
	if (field[1] && *field[1] && *p) {
		snprintf(err, errlen, "event '%s': unit mask '%s' is not a number",
			 spec, field[1]);
		return -1;
	}
	if (parse_mode(spec, field[2], "kernel", &ev->no_kernel, err, errlen) < 0 ||
	    parse_mode(spec, field[3], "user", &ev->no_user, err, errlen) < 0)
		return -1;
	if (ev->no_kernel && ev->no_user) {
		snprintf(err, errlen, "event '%s' counts neither kernel nor user "
			 "mode", spec);
		return -1;
	}
	return 0;
}

/*
 * The name shown for an event counted in one mode, NAME:user or
 * NAME:kernel; kept for the run (at most OCOUNT_MAX_EVENTS of them in one
 * list, and a tool parses one list).
 */
static char const *mode_name(char const *name, struct ocount_event const *ev)
{
	static char names[2 * OCOUNT_MAX_EVENTS][96];
	static size_t used;

	if (!ev->no_kernel && !ev->no_user)
		return name;
	if (used == OP_ARRAY_SIZE(names))
		return name;
	snprintf(names[used], sizeof(names[used]), "%s:%s", name,
		 ev->no_kernel ? "user" : "kernel");
	return names[used++];
}

/* One event of the list into ev; 0, or -1 with err. */
static int parse_one(char const *spec, struct ocount_event *ev,
		     char *err, size_t errlen)
{
	char name[256];
	long i;
	struct named_event const *n;
	struct ocount_event modes = { 0 };

	if (strlen(spec) >= sizeof(name)) {
		snprintf(err, errlen, "event '%.64s...' is too long", spec);
		return -1;
	}
	strcpy(name, spec);
	if (parse_fields(spec, name, &modes, err, errlen) < 0)
		return -1;
	i = find_software(name);
	if (i >= 0 && sw_unit(&sw.events[i]) && (modes.no_kernel || modes.no_user)) {
		/* the kernel counts a clock's time whatever the mode bits say */
		snprintf(err, errlen, "event '%s': a clock counts time in both "
			 "kernel and user mode (perf_events ignores the mode for "
			 "clocks); counting one mode needs a hardware event",
			 spec);
		return -1;
	}
	if (i >= 0) {
		/* reported as named: the events file's name (OProfile's, as
		 * ophelp lists it), else perf's */
		*ev = (struct ocount_event){ strcmp(name, sw.events[i].name) ?
					     sw_names[i] : sw.events[i].name,
					     PERF_TYPE_SOFTWARE,
					     sw.events[i].code,
					     sw_unit(&sw.events[i]),
					     modes.no_kernel, modes.no_user };
		ev->name = mode_name(ev->name, ev);
		return 0;
	}
	n = find_hardware(name);
	if (!n) {
		snprintf(err, errlen, "unknown event '%s' (ocount --list-events "
			 "lists them)", name);
		return -1;
	}
	if (!ocount_have_pmu()) {
		snprintf(err, errlen, "event '%s' needs a hardware PMU, and this "
			 "host has none (no %s: a virtual machine without PMU "
			 "passthrough); count software events instead", name,
			 PMU_DIR);
		return -1;
	}
	*ev = (struct ocount_event){ n->name, PERF_TYPE_HARDWARE, n->config,
				     NULL, modes.no_kernel, modes.no_user };
	ev->name = mode_name(ev->name, ev);
	return 0;
}

int ocount_events_parse(char const *list, struct ocount_event *ev, int max,
			char *err, size_t errlen)
{
	char buf[1024], *save = NULL, *tok;
	int n = 0;

	if (strlen(list) >= sizeof(buf)) {
		snprintf(err, errlen, "the event list is too long");
		return -1;
	}
	if (ocount_software_load(err, errlen) < 0)
		return -1;
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == max) {
			snprintf(err, errlen, "more than %d events", max);
			return -1;
		}
		if (parse_one(tok, &ev[n], err, errlen) < 0)
			return -1;
		for (int i = 0; i < n; i++)
			if (ev[i].config == ev[n].config && ev[i].type == ev[n].type &&
			    ev[i].no_kernel == ev[n].no_kernel &&
			    ev[i].no_user == ev[n].no_user) {
				snprintf(err, errlen, "event '%s' is given twice", tok);
				return -1;
			}
		n++;
	}
	if (!n) {
		snprintf(err, errlen, "no events given");
		return -1;
	}
	return n;
}

void ocount_events_list(void)
{
	bool pmu = ocount_have_pmu();
	char err[512];

	if (ocount_software_load(err, sizeof(err)) < 0)
		op_warn("no software events: %s", err);
	for (size_t i = 0; i < sw.nr_events; i++)
		printf("%-18s %-20s %s\n", sw_names[i], sw.events[i].name,
		       sw.events[i].desc);
	for (size_t i = 0; i < OP_ARRAY_SIZE(hw_table); i++)
		printf("%-18s %-20s %s%s\n", hw_table[i].name,
		       hw_table[i].alias ? hw_table[i].alias : "", hw_table[i].help,
		       !pmu ? " - not on this host: no hardware PMU" : "");
}
