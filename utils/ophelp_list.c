/*
 * ophelp's listing of a cpu type's events, in OProfile's layout: a short
 * header on how to write an event spec, then per event its counters,
 * description, minimum count and unit mask values. The XML form carries
 * the same facts for front ends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_cpu_type.h"
#include "op_escape.h"
#include "op_events.h"

#include "ophelp.h"

static uint32_t all_counters(struct op_event_set const *set)
{
	return set->nr_counters >= 32 ? 0xffffffffu : (1u << set->nr_counters) - 1;
}

static unsigned long long min_count(struct op_event const *ev, int callgraph)
{
	if (op_event_is_off_cpu(ev->name))
		callgraph = 0;
	return (unsigned long long)ev->minimum * (callgraph ? OPHELP_CALLGRAPH_FACTOR : 1);
}

static void print_counters(FILE *out, struct op_event_set const *set,
			   uint32_t mask)
{
	int c, first = 1;

	mask &= all_counters(set);
	if (mask == all_counters(set)) {
		fputs("all", out);
		return;
	}
	for (c = 0; c < 32; c++) {
		if (!(mask & (1u << c)))
			continue;
		fprintf(out, "%s%d", first ? "" : ", ", c);
		first = 0;
	}
}

/* A single "0x0" value is no unit mask at all: not worth listing. */
static int um_worth_listing(struct op_unit_mask const *um)
{
	return um->nr_values > 1 || um->values[0].value != 0;
}

static void print_unit_mask(FILE *out, struct op_unit_mask const *um)
{
	static char const *const how[] = {
		[OP_UM_MANDATORY] = "",
		[OP_UM_BITMASK] = "; bitmask: OR any of these together",
		[OP_UM_EXCLUSIVE] = "; choose one",
	};
	size_t i;

	fprintf(out, "\tUnit masks (default 0x%x%s)\n\t----------\n",
		um->default_value, how[um->type]);
	for (i = 0; i < um->nr_values; i++) {
		struct op_unit_mask_value const *v = &um->values[i];

		fprintf(out, "\t0x%02x: ", v->value);
		if (v->name) {
			fputs("(name=", out);
			op_fputs_escaped(out, v->name);
			fputs(") ", out);
		}
		op_fputs_escaped(out, v->desc);
		fputc('\n', out);
	}
}

void ophelp_list(FILE *out, struct op_event_set const *set, int callgraph)
{
	size_t i;

	fprintf(out, "oprofile-ng: available events for cpu type \"%s\" (%s)\n\n",
		op_cpu_pretty_name(set->cpu), op_cpu_name(set->cpu));
	fprintf(out, "Event specs are NAME:count[:unitmask[:kernel[:user]]]; kernel and user\n"
		"are 0 or 1 and default to 1. A unit mask is a number or a value name.\n");
	fprintf(out, "This cpu type has %d counters; the count is the sampling period, in %s.\n",
		set->nr_counters, set->cpu == CPU_TIMER_INT ?
		"nanoseconds of the clock" : "occurrences of the event");
	if (callgraph)
		fprintf(out, "Minimum counts below are for --callgraph (%d times the usual).\n",
			OPHELP_CALLGRAPH_FACTOR);
	fputc('\n', out);
	for (i = 0; i < set->nr_events; i++) {
		struct op_event const *ev = &set->events[i];

		/* the events files are input (OPROFILE_EVENTS_DIR) */
		op_fputs_escaped(out, ev->name);
		fputs(": (counter: ", out);
		print_counters(out, set, ev->counter_mask);
		fputs(")\n\t", out);
		op_fputs_escaped(out, ev->desc);
		fprintf(out, " (min count: %llu)\n", min_count(ev, callgraph));
		if (um_worth_listing(ev->unit_mask))
			print_unit_mask(out, ev->unit_mask);
	}
}

static void xml_attr(FILE *out, char const *name, char const *value)
{
	char *e = op_escape(value);	/* no controls, valid UTF-8 */

	fprintf(out, " %s=\"", name);
	for (char const *text = e; *text; text++) {
		switch (*text) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*text, out);
		}
	}
	fputc('"', out);
	free(e);
}

/* OProfile's ophelp XML schema version (doc/ophelp.xsd). */
#define OPHELP_XML_SCHEMA_VERSION "2.0"

static void xml_unit_mask(FILE *out, struct op_unit_mask const *um)
{
	static char const *const type[] = {
		[OP_UM_MANDATORY] = "mandatory",
		[OP_UM_BITMASK] = "bitmask",
		[OP_UM_EXCLUSIVE] = "exclusive",
	};
	size_t i;

	if (!um->nr_values)
		return;  /* the format wants one unit_mask at least */
	fprintf(out, "  <unit_masks default=\"%u\" category=\"%s\">\n",
		um->default_value, type[um->type]);
	for (i = 0; i < um->nr_values; i++) {
		fputs("   <unit_mask", out);
		if (um->values[i].name)
			xml_attr(out, "name", um->values[i].name);
		fprintf(out, " mask=\"%u\"", um->values[i].value);
		xml_attr(out, "desc", um->values[i].desc);
		fputs("/>\n", out);
	}
	fputs("  </unit_masks>\n", out);
}

/*
 * OProfile 1.x's ophelp XML (doc/ophelp.xsd): the header's title names
 * the cpu (its type, pretty name and counters, which the format has no
 * attributes for), then each event with its counters, minimum count,
 * description and unit masks. The event code is not part of the format.
 */
void ophelp_list_xml(FILE *out, struct op_event_set const *set, int callgraph)
{
	char title[512];
	size_t i;

	snprintf(title, sizeof(title),
		 "oprofile-ng: available events for cpu type \"%s\" (%s), %d counters",
		 op_cpu_pretty_name(set->cpu), op_cpu_name(set->cpu),
		 set->nr_counters);
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<help_events schemaversion=\"%s\">\n <header",
		OPHELP_XML_SCHEMA_VERSION);
	xml_attr(out, "title", title);
	fputs("/>\n", out);
	for (i = 0; i < set->nr_events; i++) {
		struct op_event const *ev = &set->events[i];

		fputs(" <event", out);
		xml_attr(out, "event_name", ev->name);
		fprintf(out, " counter_mask=\"%u\" min_count=\"%llu\"",
			ev->counter_mask & all_counters(set),
			min_count(ev, callgraph));
		xml_attr(out, "desc", ev->desc);
		fputs(">\n", out);
		xml_unit_mask(out, ev->unit_mask);
		fputs(" </event>\n", out);
	}
	fputs("</help_events>\n", out);
}
