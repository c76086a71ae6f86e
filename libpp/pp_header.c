/* Report header lines: cpu, events, classes; see pp_header.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_cpu_type.h"
#include "op_events.h"
#include "op_message.h"
#include "pp_header.h"

static char const *um_value_desc(struct op_unit_mask const *um, int value)
{
	for (size_t i = 0; um && i < um->nr_values; i++)
		if ((int)um->values[i].value == value)
			return um->values[i].desc;
	if (um && um->type == OP_UM_BITMASK && value > 0)
		return "multiple flags";
	return NULL;
}

void pp_event_text(struct pp_class const *k, struct pp_event_text *t)
{
	struct op_event_set set;
	struct op_event const *e;
	char const *um;
	char err[512];

	memset(t, 0, sizeof(*t));
	if (!k->has_header ||
	    op_events_load((enum op_cpu)k->header.cpu_type, &set, err,
			   sizeof(err)))
		return;
	e = op_event_find(&set, k->event);
	if (e) {
		t->desc = e->desc ? op_xstrdup(e->desc) : NULL;
		um = um_value_desc(e->unit_mask, k->unit_mask);
		t->um_desc = um ? op_xstrdup(um) : NULL;
	}
	op_events_free(&set);
}

void pp_event_text_free(struct pp_event_text *t)
{
	free(t->desc);
	free(t->um_desc);
	memset(t, 0, sizeof(*t));
}

char *pp_header_cpu_line(struct pp_classes const *c)
{
	char const *pretty = NULL;
	double mhz = 0;
	char *s;

	for (size_t i = 0; i < c->n && !pretty; i++) {
		if (!c->v[i].has_header)
			continue;
		pretty = op_cpu_pretty_name((enum op_cpu)c->v[i].header.cpu_type);
		mhz = c->v[i].header.cpu_speed;
		if (!pretty)
			pretty = "unknown cpu type";
	}
	if (asprintf(&s, "CPU: %s, speed %g MHz (estimated)",
		     pretty ? pretty : "unknown cpu type", mhz) < 0)
		op_die("out of memory");
	return s;
}

char *pp_header_event_line(struct pp_class const *k)
{
	struct pp_event_text t;
	char um[64];
	char *s;
	int rc;

	pp_event_text(k, &t);
	if (k->has_header && k->header.cpu_type == CPU_TIMER_INT) {
		rc = asprintf(&s, "Profiling through timer interrupt / software "
			      "clock%s%s%s, count %d ns",
			      strcmp(k->event, "CPU_CLOCK") ? " (" : "",
			      strcmp(k->event, "CPU_CLOCK") ? k->event : "",
			      strcmp(k->event, "CPU_CLOCK") ? ")" : "",
			      k->count);
	} else {
		if (k->unit_mask < 0)
			snprintf(um, sizeof(um), "any unit mask (merged)");
		else
			snprintf(um, sizeof(um), "a unit mask of 0x%02x",
				 k->unit_mask);
		rc = asprintf(&s, "Counted %s events (%s) with %s (%s) count %d",
			      k->event, t.desc ? t.desc : "no description",
			      um, t.um_desc ? t.um_desc : k->unit_mask < 0 ?
			      "all" : "no description", k->count);
	}
	pp_event_text_free(&t);
	if (rc < 0)
		op_die("out of memory");
	return s;
}

void pp_header_write(FILE *out, struct pp_classes const *c)
{
	struct pp_strlist seen = { 0 };
	char *line = pp_header_cpu_line(c);

	fprintf(out, "%s\n", line);
	free(line);
	for (size_t i = 0; i < c->n; i++) {
		line = pp_header_event_line(&c->v[i]);
		if (!pp_strlist_has(&seen, line)) {
			fprintf(out, "%s\n", line);
			pp_strlist_add(&seen, line);
		}
		free(line);
	}
	pp_strlist_free(&seen);
	for (size_t i = 0; i < c->n; i++) {
		line = pp_class_describe(c, i);
		if (line[0])
			fprintf(out, "%s\n", line);
		free(line);
	}
}
