/*
 * The events ocount counts, by the names perf and OProfile give them.
 * Software events always exist; the generic hardware events need a PMU.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "ocount.h"

#define PMU_DIR "/sys/bus/event_source/devices/cpu"

struct named_event {
	char const *name, *alias;
	uint32_t type;
	uint64_t config;
	char const *unit, *help;
};

static struct named_event const table[] = {
	{ "task-clock", "TASK_CLOCK", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_TASK_CLOCK, "ns", "time the tasks ran" },
	{ "cpu-clock", "CPU_CLOCK", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CPU_CLOCK, "ns", "time on the cpu clock" },
	{ "context-switches", "cs", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CONTEXT_SWITCHES, NULL, "context switches" },
	{ "cpu-migrations", "migrations", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CPU_MIGRATIONS, NULL, "moves to another cpu" },
	{ "page-faults", "faults", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS, NULL, "page faults" },
	{ "minor-faults", NULL, PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS_MIN, NULL, "faults without I/O" },
	{ "major-faults", NULL, PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS_MAJ, NULL, "faults with I/O" },
	{ "cycles", "cpu-cycles", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CPU_CYCLES, NULL, "cpu cycles (PMU)" },
	{ "instructions", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_INSTRUCTIONS, NULL, "instructions retired (PMU)" },
	{ "cache-references", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_REFERENCES, NULL, "last level cache accesses (PMU)" },
	{ "cache-misses", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_MISSES, NULL, "last level cache misses (PMU)" },
	{ "branches", "branch-instructions", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS, NULL, "branches retired (PMU)" },
	{ "branch-misses", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_MISSES, NULL, "mispredicted branches (PMU)" },
};

#define NR_TABLE (sizeof(table) / sizeof(table[0]))

bool ocount_have_pmu(void)
{
	return access(PMU_DIR, F_OK) == 0;
}

static struct named_event const *find(char const *name)
{
	for (size_t i = 0; i < NR_TABLE; i++)
		if (!strcmp(table[i].name, name) ||
		    (table[i].alias && !strcasecmp(table[i].alias, name)))
			return &table[i];
	return NULL;
}

/* One name of the list into ev; 0, or -1 with err. */
static int parse_one(char const *name, struct ocount_event *ev,
		     char *err, size_t errlen)
{
	struct named_event const *n = find(name);

	if (!n) {
		snprintf(err, errlen, "unknown event '%s' (ocount --list-events "
			 "lists them)", name);
		return -1;
	}
	if (n->type == PERF_TYPE_HARDWARE && !ocount_have_pmu()) {
		snprintf(err, errlen, "event '%s' needs a hardware PMU, and this "
			 "host has none (no %s: a virtual machine without PMU "
			 "passthrough); count software events instead", name,
			 PMU_DIR);
		return -1;
	}
	*ev = (struct ocount_event){ n->name, n->type, n->config, n->unit };
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
			if (ev[i].config == ev[n].config && ev[i].type == ev[n].type) {
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

	for (size_t i = 0; i < NR_TABLE; i++)
		printf("%-18s %-20s %s%s\n", table[i].name,
		       table[i].alias ? table[i].alias : "", table[i].help,
		       table[i].type == PERF_TYPE_HARDWARE && !pmu ?
		       " - not on this host: no hardware PMU" : "");
}
