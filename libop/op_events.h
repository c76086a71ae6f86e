/*
 * The events/ description files and event specifications.
 *
 * events/<cpu name>/events     one event per line:
 *   event:0x3c counters:0,1,2,3 um:zero minimum:6000 name:CPU_CLK_UNHALTED : description
 * events/<cpu name>/unit_masks unit mask sets:
 *   name:zero type:mandatory default:0x0
 *   \t0x0 No unit mask
 * "include:DIR" pulls in another cpu's file; a cpu's own definitions
 * replace included ones of the same name. Errors are reported as
 * FILE:LINE: what is wrong.
 */
#ifndef OP_EVENTS_H
#define OP_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "op_cpu_type.h"

enum op_um_type { OP_UM_MANDATORY, OP_UM_BITMASK, OP_UM_EXCLUSIVE };

struct op_unit_mask_value {
	uint32_t value;
	char *name;          /* optional symbolic name, may be NULL */
	char *desc;
};

struct op_unit_mask {
	char *name;
	enum op_um_type type;
	uint32_t default_value;
	size_t nr_values;
	struct op_unit_mask_value *values;
	size_t alloc_values;	/* room in values (OP_ALLOC_GROW) */
};

struct op_event {
	char *name;
	uint32_t code;
	uint32_t counter_mask;   /* bit i: usable on counter i; all ones: "cpuid" */
	uint32_t minimum;
	struct op_unit_mask *unit_mask;
	char *desc;
};

struct op_event_set {
	enum op_cpu cpu;
	int nr_counters;
	size_t nr_events;
	struct op_event *events;
	size_t nr_unit_masks;
	struct op_unit_mask *unit_masks;
};

/* Directory holding events/: $OPROFILE_EVENTS_DIR or the installed one. */
char const *op_events_dir(void);

/* Load a cpu's events. 0, or -1 with err "FILE:LINE: ..." */
int op_events_load(enum op_cpu cpu, struct op_event_set *set,
		   char *err, size_t errlen);
/*
 * Load from explicit files (used by tests over every events/ directory).
 * The cpu is the one the path ends with ("./events/i386/haswell"), else
 * CPU_NO_GOOD with as many counters as the files name.
 */
int op_events_load_dir(char const *dir, struct op_event_set *set,
		       char *err, size_t errlen);
/*
 * events/software: the kernel's software events, the same on every cpu
 * type (what ocount and opwatch --count count, ophelp --software lists);
 * an event's code is its perf id (PERF_COUNT_SW_*). Not a cpu type: its
 * set's cpu is CPU_NO_GOOD. 0, or -1 with err.
 */
#define OP_EVENTS_SOFTWARE "software"
int op_events_load_software(struct op_event_set *set, char *err,
			    size_t errlen);
void op_events_free(struct op_event_set *set);

struct op_event const *op_event_find(struct op_event_set const *set,
				     char const *name);
/*
 * Off-CPU time (events/offcpu/events, doc/offcpu.md): not a counter but
 * the scheduler's blocking switches, every COUNTth one recorded and
 * weighted by its time off the cpu in microseconds. Every cpu type
 * includes it. Its count is a sampling ratio, not a rate, so it keeps its
 * minimum with --callgraph.
 */
#define OP_EVENT_OFF_CPU "OFF_CPU"
/* What its counts are, in report columns and lines (ASCII: columns
 * are aligned by bytes) */
#define OP_OFF_CPU_UNIT "us"
/* its directory under events/ (not a cpu type) */
#define OP_EVENTS_OFF_CPU_DIR "offcpu"
static inline int op_event_is_off_cpu(char const *name)
{
	return name && !__builtin_strcmp(name, OP_EVENT_OFF_CPU);
}

/* The same for an event as sample files and stacks name it
 * ("OFF_CPU.1.0"). */
static inline int op_event_key_is_off_cpu(char const *key)
{
	return key && !__builtin_strncmp(key, OP_EVENT_OFF_CPU ".",
					 sizeof(OP_EVENT_OFF_CPU));
}

/* What a report calls the counts of event name or key: "samples", or
 * the off-CPU unit. */
static inline char const *op_event_count_word(char const *name)
{
	return op_event_is_off_cpu(name) || op_event_key_is_off_cpu(name) ?
		OP_OFF_CPU_UNIT : "samples";
}

/* The default event spec of a cpu type, e.g. "CPU_CLOCK:1000000". */
char const *op_default_event(enum op_cpu cpu);

/* NAME:count[:um[:kernel[:user]]]; um may be a number or a unit mask name. */
struct op_event_spec {
	char name[64];
	uint32_t count;
	uint32_t unit_mask;
	int um_given;
	int kernel;   /* default 1 */
	int user;     /* default 1 */
	char um_name[64];  /* when the um was given by name */
};

int op_parse_event_spec(char const *text, struct op_event_spec *spec,
			char *err, size_t errlen);

/*
 * Validate specs against a cpu's event set: known name, valid unit mask
 * (resolving names and defaults into spec->unit_mask), count >= minimum
 * (x15 when callgraph), no duplicates, enough counters. On success fills
 * counter[i] with the counter allocated to spec i and returns 0; else -1
 * with err.
 */
int op_check_events(struct op_event_set const *set,
		    struct op_event_spec *specs, size_t n, int callgraph,
		    int *counter, char *err, size_t errlen);

#endif /* OP_EVENTS_H */
