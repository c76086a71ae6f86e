/*
 * Loading a cpu type's events/ directory: the events file, the unit_masks
 * file it refers to, and the include: lines that let one cpu build on
 * another (i386/haswell starts from i386/arch_perfmon).
 *
 *   event:0x3c counters:0,1,2,3 um:zero minimum:6000 name:CPU_CLK_UNHALTED : text
 *
 * Tags are event (hex), counters (a list, or "cpuid" for all of them), um
 * (a unit mask name, or "a,b" to merge several), minimum (decimal), name
 * and the optional filter (accepted, unused); unknown and repeated tags are
 * errors. Unit masks are read first so events can be checked against them
 * line by line. Every problem is reported as "FILE:LINE: what" because
 * these files are edited by hand for each new cpu.
 *
 * An event or unit mask defined in the cpu's own file replaces an included
 * one of the same name: Haswell's INST_RETIRED, with its unit masks, wins
 * over the architectural one it includes.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "op_config.h"
#include "op_events_priv.h"
#include "op_message.h"
#include "op_util.h"

/* Counter count when CPUID leaf 0xA shows none (VMs): the v1 minimum. */
#define CPUID_COUNTERS_FALLBACK 2

enum { T_EVENT, T_COUNTERS, T_UM, T_MINIMUM, T_NAME, T_FILTER, NR_TAGS };
static char const *const ev_tags[NR_TAGS] = {
	"event", "counters", "um", "minimum", "name", "filter"
};

char const *op_events_dir(void)
{
	char const *dir = getenv(OP_EVENTS_DIR_ENV);

	return dir && *dir ? dir : OP_EVENTS_DIR;
}

static int parse_decimal(char const *text, uint32_t *out)
{
	unsigned long long v = 0;

	if (!*text)
		return -1;
	for (; *text; text++) {
		if (!isdigit((unsigned char)*text))
			return -1;
		v = v * 10 + (unsigned)(*text - '0');
		if (v > 0xffffffffull)
			return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

static int parse_counters(struct op_loader *l, struct op_src *src,
			  char *text, uint32_t *mask)
{
	char *part, *save = NULL;
	uint32_t c;

	*mask = 0;
	if (!strcmp(text, "cpuid")) {
		*mask = OP_COUNTERS_CPUID;
		return 0;
	}
	for (part = strtok_r(text, ",", &save); part;
	     part = strtok_r(NULL, ",", &save)) {
		if (parse_decimal(part, &c) || c >= 32)
			return op_src_error(l, src, "bad counter '%s' in 'counters:'", part);
		if ((int)c >= l->max_counter)
			return op_src_error(l, src, "counter %u out of range: cpu type '%s' has %d counters",
					    c, op_cpu_name(l->set->cpu), l->max_counter);
		*mask |= 1u << c;
	}
	if (!*mask)
		return op_src_error(l, src, "empty 'counters:' list");
	return 0;
}

/* Splits a line into its tags and description. */
static int split_tags(struct op_loader *l, struct op_src *src, char *line,
		      char **val, char **desc)
{
	char *tok;
	int i;

	*desc = "";
	for (;;) {
		while (*line == ' ' || *line == '\t')
			line++;
		if (*line == ':') {
			for (*desc = line + 1; **desc == ' ' || **desc == '\t'; (*desc)++)
				;
			break;
		}
		tok = op_next_token(&line);
		if (!tok)
			break;
		if (!strchr(tok, ':'))
			return op_src_error(l, src, "bad token '%s': expected TAG:VALUE", tok);
		*strchr(tok, ':') = '\0';
		for (i = 0; i < NR_TAGS && strcmp(tok, ev_tags[i]); i++)
			;
		if (i == NR_TAGS)
			return op_src_error(l, src, "unknown tag '%s:'", tok);
		if (val[i])
			return op_src_error(l, src, "duplicate tag '%s:'", tok);
		val[i] = tok + strlen(tok) + 1;
	}
	for (i = 0; i < NR_TAGS; i++)
		if (i != T_FILTER && (!val[i] || !*val[i]))
			return op_src_error(l, src, "missing tag '%s:'", ev_tags[i]);
	return 0;
}

static long event_find(struct op_event_set const *set, char const *name)
{
	size_t i;

	for (i = 0; i < set->nr_events; i++)
		if (!strcmp(set->events[i].name, name))
			return (long)i;
	return -1;
}

static void event_free(struct op_event *ev)
{
	free(ev->name);
	free(ev->desc);
	memset(ev, 0, sizeof(*ev));
}

/*
 * Where a new event named name goes: *slot is an index, or -1 when a
 * shallower definition shadows it. Returns 0, or -1 for a clash.
 */
static int event_slot(struct op_loader *l, struct op_src *src,
		      char const *name, long *slot)
{
	struct op_event_set *set = l->set;
	long i = event_find(set, name);

	*slot = i;
	if (i >= 0) {
		if (l->ev_depth[i] == src->depth)
			return op_src_error(l, src, l->ev_file[i] == src->id ?
					    "event '%s' defined twice" :
					    "event '%s' also defined by another included file",
					    name);
		if (l->ev_depth[i] < src->depth)
			*slot = -1;
		else
			event_free(&set->events[i]);
		return 0;
	}
	if (set->nr_events == l->ev_cap) {
		/* four parallel arrays: one capacity, grown together */
		l->ev_cap = OP_ALLOC_NR(l->ev_cap);
		set->events = op_xrealloc(set->events, l->ev_cap * sizeof(*set->events));
		l->ev_um = op_xrealloc(l->ev_um, l->ev_cap * sizeof(*l->ev_um));
		l->ev_depth = op_xrealloc(l->ev_depth, l->ev_cap * sizeof(*l->ev_depth));
		l->ev_file = op_xrealloc(l->ev_file, l->ev_cap * sizeof(*l->ev_file));
	}
	memset(&set->events[set->nr_events], 0, sizeof(struct op_event));
	*slot = (long)set->nr_events++;
	return 0;
}

static int parse_event(struct op_loader *l, struct op_src *src, char *line)
{
	char *val[NR_TAGS] = { NULL }, *desc;
	struct op_event ev = { 0 };
	uint32_t filter;
	long um, slot;

	if (split_tags(l, src, line, val, &desc))
		return -1;
	if (op_parse_hex(val[T_EVENT], &ev.code))
		return op_src_error(l, src, "bad hex value '%s' for 'event:'", val[T_EVENT]);
	if (parse_counters(l, src, val[T_COUNTERS], &ev.counter_mask))
		return -1;
	if (parse_decimal(val[T_MINIMUM], &ev.minimum))
		return op_src_error(l, src, "bad number '%s' for 'minimum:'", val[T_MINIMUM]);
	if (val[T_FILTER] && parse_decimal(val[T_FILTER], &filter) &&
	    op_parse_hex(val[T_FILTER], &filter))
		return op_src_error(l, src, "bad number '%s' for 'filter:'", val[T_FILTER]);
	if (!op_valid_name(val[T_NAME]))
		return op_src_error(l, src, "bad event name '%s': use letters, digits, '_' and '-'",
				    val[T_NAME]);
	um = op_unit_mask_lookup(l, src, val[T_UM]);
	if (um < 0)
		return -1;
	if (event_slot(l, src, val[T_NAME], &slot))
		return -1;
	if (slot < 0)
		return 0;
	ev.name = op_xstrdup(val[T_NAME]);
	ev.desc = op_xstrdup(desc);
	l->set->events[slot] = ev;
	l->ev_um[slot] = (size_t)um;
	l->ev_depth[slot] = src->depth;
	l->ev_file[slot] = src->id;
	return 0;
}

static int events_read(struct op_loader *l, char const *path, int depth);

static int parse_events_line(struct op_loader *l, struct op_src *src, char *line)
{
	char path[4096];
	char *dir;

	if (strncmp(line, "include:", 8))
		return parse_event(l, src, line);
	dir = op_include_dir(l, src, line);
	if (!dir)
		return -1;
	snprintf(path, sizeof(path), "%s/%s/events", l->root, dir);
	switch (events_read(l, path, src->depth + 1)) {
	case 0:
		return 0;
	case OP_SRC_NO_FILE:
		return op_src_error(l, src, "cannot include '%s': no events file under '%s'",
				    dir, l->root);
	default:
		return -1;
	}
}

static int events_read(struct op_loader *l, char const *path, int depth)
{
	struct op_src src = { path, 0, 0, depth };

	return op_src_read(l, &src, parse_events_line);
}

/* What "counters:cpuid" means on this machine, for i386/arch_perfmon. */
static int cpuid_counters(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;

	if (__get_cpuid(0, &a, &b, &c, &d) && a >= 0xa &&
	    __get_cpuid(0xa, &a, &b, &c, &d) && (a & 0xff) && ((a >> 8) & 0xff))
		return (int)((a >> 8) & 0xff) > 32 ? 32 : (int)((a >> 8) & 0xff);
#endif
	return CPUID_COUNTERS_FALLBACK;
}

/* Without a known cpu: as many counters as the files name, or CPUID's. */
static int counters_named(struct op_event_set const *set)
{
	uint32_t all = 0;
	size_t i;
	int n = 0;

	for (i = 0; i < set->nr_events; i++)
		if (set->events[i].counter_mask != OP_COUNTERS_CPUID)
			all |= set->events[i].counter_mask;
	while (n < 32 && (all >> n))
		n++;
	return n ? n : cpuid_counters();
}

static void loader_free(struct op_loader *l)
{
	free(l->ev_um);
	free(l->ev_depth);
	free(l->ev_file);
	free(l->um_depth);
	free(l->um_file);
	free(l->um_default);
}

static int load(char const *dir, enum op_cpu cpu, struct op_event_set *set,
		char *err, size_t errlen)
{
	struct op_loader l;
	char path[4096];
	size_t i;
	int ret;

	memset(set, 0, sizeof(*set));
	memset(&l, 0, sizeof(l));
	set->cpu = cpu;
	set->nr_counters = op_cpu_nr_counters(cpu);
	if (cpu != CPU_NO_GOOD && !set->nr_counters)
		set->nr_counters = cpuid_counters();
	l.set = set;
	l.root = op_events_dir();
	l.max_counter = cpu != CPU_NO_GOOD ? set->nr_counters : 32;
	l.um_open = -1;
	l.err = err;
	l.errlen = errlen;
	snprintf(path, sizeof(path), "%s/unit_masks", dir);
	ret = op_unit_masks_read(&l, path, 0);
	if (!ret) {
		snprintf(path, sizeof(path), "%s/events", dir);
		ret = events_read(&l, path, 0);
	}
	if (!ret && !set->nr_events) {
		snprintf(err, errlen, "%s/events: no events defined", dir);
		ret = -1;
	}
	for (i = 0; !ret && i < set->nr_events; i++)
		set->events[i].unit_mask = &set->unit_masks[l.ev_um[i]];
	if (!ret && cpu == CPU_NO_GOOD)
		set->nr_counters = counters_named(set);
	loader_free(&l);
	if (ret)
		op_events_free(set);
	return ret ? -1 : 0;
}

int op_events_load(enum op_cpu cpu, struct op_event_set *set,
		   char *err, size_t errlen)
{
	char dir[4096];

	if (!op_cpu_name(cpu)) {
		memset(set, 0, sizeof(*set));
		snprintf(err, errlen, "invalid cpu type %d", (int)cpu);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s/%s", op_events_dir(), op_cpu_name(cpu));
	return load(dir, cpu, set, err, errlen);
}

/* The cpu whose name the path ends with ("/x/events/i386/haswell"), if any. */
static enum op_cpu cpu_of_dir(char const *dir)
{
	size_t len = strlen(dir);
	int slashes = 0;
	size_t i;

	while (len > 1 && dir[len - 1] == '/')
		len--;
	for (i = len; i-- > 0;) {
		if (dir[i] != '/')
			continue;
		if (++slashes <= 2) {
			char name[256];
			enum op_cpu cpu;

			snprintf(name, sizeof(name), "%.*s", (int)(len - i - 1), dir + i + 1);
			cpu = op_cpu_from_name(name);
			if (cpu != CPU_NO_GOOD && !strcmp(op_cpu_name(cpu), name))
				return cpu;
		}
	}
	return CPU_NO_GOOD;
}

int op_events_load_dir(char const *dir, struct op_event_set *set,
		       char *err, size_t errlen)
{
	return load(dir, cpu_of_dir(dir), set, err, errlen);
}

int op_events_load_software(struct op_event_set *set, char *err,
			    size_t errlen)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/%s", op_events_dir(), OP_EVENTS_SOFTWARE);
	return op_events_load_dir(dir, set, err, errlen);
}

void op_events_free(struct op_event_set *set)
{
	size_t i;

	for (i = 0; i < set->nr_events; i++)
		event_free(&set->events[i]);
	for (i = 0; i < set->nr_unit_masks; i++)
		op_unit_mask_free(&set->unit_masks[i]);
	free(set->events);
	free(set->unit_masks);
	memset(set, 0, sizeof(*set));
	set->cpu = CPU_NO_GOOD;
}

struct op_event const *op_event_find(struct op_event_set const *set,
				     char const *name)
{
	long i = event_find(set, name);

	return i < 0 ? NULL : &set->events[i];
}

char const *op_default_event(enum op_cpu cpu)
{
	switch (cpu) {
	case CPU_TIMER_INT:
		return "CPU_CLOCK:1000000";
	case CPU_ARCH_PERFMON:
	case CPU_HASWELL:
	case CPU_FAMILY15H:
	case CPU_AMD64_GENERIC:
		return "CPU_CLK_UNHALTED:100000";
	default:
		return NULL;
	}
}
