/* Report header lines: cpu, events, classes; see pp_header.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_cpu_type.h"
#include "op_events.h"
#include "op_util.h"
#include "pp_header.h"
#include "pp_output.h"

static char const *um_value_desc(struct op_unit_mask const *um, int value)
{
	for (size_t i = 0; um && i < um->nr_values; i++)
		if ((int)um->values[i].value == value)
			return um->values[i].desc;
	if (um && um->type == OP_UM_BITMASK && value > 0)
		return "multiple flags";
	return NULL;
}

void pp_event_text(struct pp_events *ev, struct pp_class const *k,
		   char const **desc, char const **um_desc)
{
	struct op_event const *e;
	char err[512];

	*desc = *um_desc = NULL;
	if (!k->has_header)
		return;
	if (!ev->tried || ev->cpu != k->header.cpu_type) {
		pp_events_free(ev);
		ev->tried = true;
		ev->cpu = k->header.cpu_type;
		ev->ok = !op_events_load((enum op_cpu)ev->cpu, &ev->set, err,
					 sizeof(err));
	}
	e = ev->ok ? op_event_find(&ev->set, k->event) : NULL;
	if (e) {
		*desc = e->desc;
		*um_desc = um_value_desc(e->unit_mask, k->unit_mask);
	}
}

void pp_events_free(struct pp_events *ev)
{
	if (ev->ok)
		op_events_free(&ev->set);
	memset(ev, 0, sizeof(*ev));
}

char *pp_header_cpu_line(struct pp_classes const *c)
{
	char const *pretty = NULL;
	double mhz = 0;

	for (size_t i = 0; i < c->n && !pretty; i++) {
		if (!c->v[i].has_header)
			continue;
		pretty = op_cpu_pretty_name((enum op_cpu)c->v[i].header.cpu_type);
		mhz = c->v[i].header.cpu_speed;
		if (!pretty)
			pretty = "unknown cpu type";
	}
	return op_xasprintf("CPU: %s, speed %g MHz (estimated)",
			    pretty ? pretty : "unknown cpu type", mhz);
}

char *pp_header_event_line(struct pp_events *ev, struct pp_class const *k)
{
	char const *desc, *um_desc;
	char um[64];

	pp_event_text(ev, k, &desc, &um_desc);
	if (k->has_header && k->header.cpu_type == CPU_TIMER_INT)
		return op_xasprintf("Profiling through timer interrupt / "
				    "software clock%s%s%s, count %d ns",
				    strcmp(k->event, "CPU_CLOCK") ? " (" : "",
				    strcmp(k->event, "CPU_CLOCK") ? k->event : "",
				    strcmp(k->event, "CPU_CLOCK") ? ")" : "",
				    k->count);
	if (k->unit_mask < 0)
		snprintf(um, sizeof(um), "any unit mask (merged)");
	else
		snprintf(um, sizeof(um), "a unit mask of 0x%02x", k->unit_mask);
	return op_xasprintf("Counted %s events (%s) with %s (%s) count %d",
			    k->event, desc ? desc : "no description", um,
			    um_desc ? um_desc : k->unit_mask < 0 ?
			    "all" : "no description", k->count);
}

void pp_header_write(FILE *out, struct pp_classes const *c)
{
	struct pp_strlist seen = { 0 };
	struct pp_events ev = { 0 };
	char *line = pp_header_cpu_line(c);

	pp_output_line(out, "", line);
	free(line);
	for (size_t i = 0; i < c->n; i++) {
		line = pp_header_event_line(&ev, &c->v[i]);
		if (!pp_strlist_has(&seen, line)) {
			pp_output_line(out, "", line);
			pp_strlist_add(&seen, line);
		}
		free(line);
	}
	pp_strlist_free(&seen);
	pp_events_free(&ev);
	for (size_t i = 0; i < c->n; i++) {
		line = pp_class_describe(c, i);
		if (line[0])
			pp_output_line(out, "", line);
		free(line);
	}
}

/* A fleet report has no sample file headers (no cpu type): where the
 * rows came from, then each event as its rows name it. */
static void fleet_header(FILE *out, struct pp_report const *r)
{
	struct pp_strlist seen = { 0 };

	for (size_t i = 0; i < r->fleet->n; i++)
		pp_output_line(out, "Fleet: ", r->fleet->v[i]);
	for (size_t i = 0; i < r->classes->n; i++) {
		char *line = op_xasprintf("Counted %s events, count %d",
					  r->classes->v[i].event,
					  r->classes->v[i].count);

		if (!pp_strlist_has(&seen, line)) {
			pp_output_line(out, "", line);
			pp_strlist_add(&seen, line);
		}
		free(line);
	}
	pp_strlist_free(&seen);
}

/* Header lines and notes: what was counted, and what went wrong. */
void pp_header_text(FILE *out, struct pp_report const *r)
{
	if (r->fleet)
		fleet_header(out, r);
	else
		pp_header_write(out, r->classes);
	for (size_t i = 0; r->notes && i < r->notes->n; i++)
		pp_output_line(out, "Note: ", r->notes->v[i]);
}
