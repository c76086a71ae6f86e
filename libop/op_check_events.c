/*
 * Validation of parsed event specs against a cpu's event set, and the
 * choice of a hardware counter for each.
 *
 * Per spec: the name exists, the unit mask (by name, by number or the
 * default) is valid for the event, the count reaches the minimum (x15 with
 * call graphs, whose extra work per sample needs a slower rate). Then: no
 * event twice, no more events than counters, and an assignment where every
 * event gets a distinct counter its counter mask allows. Assignment is a
 * backtracking search, events in the order given, counters lowest first, so
 * the result is stable. When it fails we name a smallest culprit: a group
 * of events that, together, can use fewer counters than there are events
 * (Hall's condition, found with a maximum matching).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "op_events_priv.h"

/* Callgraph sampling needs this many times the plain minimum count. */
#define CALLGRAPH_MIN_FACTOR 15
#define MAX_SPECS 32

static uint32_t cpu_mask(struct op_event_set const *set)
{
	return set->nr_counters >= 32 ? 0xffffffffu :
		(1u << set->nr_counters) - 1;
}

static char const *cpu_label(struct op_event_set const *set)
{
	char const *name = op_cpu_name(set->cpu);

	return name ? name : "unknown";
}

static int um_by_name(struct op_event const *ev, struct op_event_spec *spec,
		      char *err, size_t errlen)
{
	struct op_unit_mask const *um = ev->unit_mask;
	size_t i, used = 0;
	char names[512] = "";

	for (i = 0; i < um->nr_values; i++) {
		if (!um->values[i].name)
			continue;
		if (!strcmp(um->values[i].name, spec->um_name)) {
			spec->unit_mask = um->values[i].value;
			return 0;
		}
		if (used < sizeof(names))
			used += (size_t)snprintf(names + used, sizeof(names) - used,
						 "%s%s", used ? ", " : "", um->values[i].name);
	}
	if (!used)
		snprintf(err, errlen, "no unit mask named '%s' for event %s: its unit mask values have no names",
			 spec->um_name, ev->name);
	else
		snprintf(err, errlen, "no unit mask named '%s' for event %s: valid names are %s",
			 spec->um_name, ev->name, names);
	return -1;
}

static int resolve_um(struct op_event const *ev, struct op_event_spec *spec,
		      char *err, size_t errlen)
{
	struct op_unit_mask const *um = ev->unit_mask;
	char list[512];

	if (!spec->um_given) {
		spec->unit_mask = um->default_value;
		return 0;
	}
	if (spec->um_name[0])
		return um_by_name(ev, spec, err, errlen);
	if (op_unit_mask_valid(um, spec->unit_mask))
		return 0;
	op_unit_mask_list(um, list, sizeof(list));
	snprintf(err, errlen, um->type == OP_UM_BITMASK ?
		 "invalid unit mask 0x%x for event %s: valid values are combinations of %s" :
		 "invalid unit mask 0x%x for event %s: valid values are %s",
		 spec->unit_mask, ev->name, list);
	return -1;
}

static int check_one(struct op_event_set const *set, struct op_event_spec *spec,
		     int callgraph, struct op_event const **out,
		     char *err, size_t errlen)
{
	struct op_event const *ev = op_event_find(set, spec->name);
	uint64_t min;

	if (!ev) {
		snprintf(err, errlen, "no event named '%s' for cpu type '%s'; run ophelp to list events",
			 spec->name, cpu_label(set));
		return -1;
	}
	if (resolve_um(ev, spec, err, errlen))
		return -1;
	if (op_event_is_off_cpu(ev->name))
		callgraph = 0;
	min = (uint64_t)ev->minimum * (callgraph ? CALLGRAPH_MIN_FACTOR : 1);
	if (spec->count < min) {
		if (callgraph)
			snprintf(err, errlen, "count %u for event %s is below the minimum %llu (%d x %u with --callgraph)",
				 spec->count, ev->name, (unsigned long long)min,
				 CALLGRAPH_MIN_FACTOR, ev->minimum);
		else
			snprintf(err, errlen, "count %u for event %s is below the minimum %u",
				 spec->count, ev->name, ev->minimum);
		return -1;
	}
	if (!(ev->counter_mask & cpu_mask(set))) {
		snprintf(err, errlen, "event %s cannot use any counter of cpu type '%s'",
			 ev->name, cpu_label(set));
		return -1;
	}
	*out = ev;
	return 0;
}

static int find_duplicate(struct op_event const **ev,
			  struct op_event_spec const *specs, size_t n,
			  char *err, size_t errlen)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (ev[i] == ev[j] &&
			    specs[i].unit_mask == specs[j].unit_mask &&
			    specs[i].kernel == specs[j].kernel &&
			    specs[i].user == specs[j].user) {
				snprintf(err, errlen, "event %s (unit mask 0x%x) given twice",
					 ev[i]->name, specs[i].unit_mask);
				return -1;
			}
	return 0;
}

/* Backtracking: event i onwards, with the counters in used taken. */
static int assign(uint32_t const *mask, size_t n, size_t i, uint32_t used,
		  int *counter)
{
	int c;

	if (i == n)
		return 1;
	for (c = 0; c < 32; c++) {
		if (!(mask[i] & ~used & (1u << c)))
			continue;
		counter[i] = c;
		if (assign(mask, n, i + 1, used | (1u << c), counter))
			return 1;
	}
	return 0;
}

/* Kuhn's augmenting path from event e; owner[c] is the event on counter c. */
static int augment(uint32_t const *mask, size_t e, int *owner, uint32_t *seen)
{
	int c;

	for (c = 0; c < 32; c++) {
		if (!(mask[e] & (1u << c)) || (*seen & (1u << c)))
			continue;
		*seen |= 1u << c;
		if (owner[c] < 0 || augment(mask, (size_t)owner[c], owner, seen)) {
			owner[c] = (int)e;
			return 1;
		}
	}
	return 0;
}

/*
 * Events that between them have fewer counters than members: from an event
 * a maximum matching leaves out, everything reachable by alternating paths.
 */
static uint32_t hall_violator(uint32_t const *mask, size_t n, uint32_t *counters)
{
	int owner[32];
	uint32_t group = 0, seen, reach = 0;
	size_t e, unmatched = n;
	int c, grew = 1;

	for (c = 0; c < 32; c++)
		owner[c] = -1;
	for (e = 0; e < n; e++) {
		seen = 0;
		if (!augment(mask, e, owner, &seen) && unmatched == n)
			unmatched = e;
	}
	if (unmatched == n)
		return 0;
	group = 1u << unmatched;
	while (grew) {
		grew = 0;
		for (e = 0; e < n; e++)
			if (group & (1u << e))
				reach |= mask[e];
		for (c = 0; c < 32; c++)
			if ((reach & (1u << c)) && owner[c] >= 0 &&
			    !(group & (1u << owner[c]))) {
				group |= 1u << owner[c];
				grew = 1;
			}
	}
	*counters = reach;
	return group;
}

static void join_names(char *buf, size_t len, struct op_event const **ev,
		       size_t n, uint32_t group)
{
	size_t i, used = 0, k = 0, total = (size_t)__builtin_popcount(group);

	buf[0] = '\0';
	for (i = 0; i < n && used < len; i++) {
		if (!(group & (1u << i)))
			continue;
		k++;
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 k == 1 ? "" : k == total ? " and " : ", ",
					 ev[i]->name);
	}
}

static void join_counters(char *buf, size_t len, uint32_t counters)
{
	int c, k = 0, total = __builtin_popcount(counters);
	size_t used = 0;

	buf[0] = '\0';
	for (c = 0; c < 32 && used < len; c++) {
		if (!(counters & (1u << c)))
			continue;
		k++;
		used += (size_t)snprintf(buf + used, len - used, "%s%d",
					 k == 1 ? "" : k == total ? " and " : ", ", c);
	}
}

static int explain_failure(struct op_event const **ev, uint32_t const *mask,
			   size_t n, char *err, size_t errlen)
{
	char names[512], list[256];
	uint32_t counters = 0, group = hall_violator(mask, n, &counters);

	join_names(names, sizeof(names), ev, n, group);
	join_counters(list, sizeof(list), counters);
	snprintf(err, errlen, "events %s cannot be scheduled together: %s can only use counter%s %s",
		 names, __builtin_popcount(group) == 2 ? "both" : "between them they",
		 __builtin_popcount(counters) == 1 ? "" : "s", list);
	return -1;
}

int op_check_events(struct op_event_set const *set,
		    struct op_event_spec *specs, size_t n, int callgraph,
		    int *counter, char *err, size_t errlen)
{
	struct op_event const *ev[MAX_SPECS];
	uint32_t mask[MAX_SPECS];
	size_t i;

	if (!n) {
		snprintf(err, errlen, "no events given");
		return -1;
	}
	for (i = 0; i < n && i < MAX_SPECS; i++)
		if (check_one(set, &specs[i], callgraph, &ev[i], err, errlen))
			return -1;
	if (n <= MAX_SPECS && find_duplicate(ev, specs, n, err, errlen))
		return -1;
	if (n > (size_t)set->nr_counters || n > MAX_SPECS) {
		snprintf(err, errlen, "need %zu counters but cpu type '%s' has only %d",
			 n, cpu_label(set), set->nr_counters);
		return -1;
	}
	for (i = 0; i < n; i++)
		mask[i] = ev[i]->counter_mask & cpu_mask(set);
	if (!assign(mask, n, 0, 0, counter))
		return explain_failure(ev, mask, n, err, errlen);
	return 0;
}
