/*
 * The descriptive lines at the top of a report, as OProfile printed them:
 *   CPU: <cpu pretty name>, speed N MHz (estimated)
 *   Counted EVENT events (description) with a unit mask of 0xNN
 *     (unit mask description) count N
 *   Profiling through timer interrupt / software clock, count N ns
 * Event and unit mask descriptions come from events/ for the cpu type
 * recorded in the sample files' headers.
 */
#ifndef PP_HEADER_H
#define PP_HEADER_H

#include <stdbool.h>
#include <stdio.h>

#include "op_events.h"
#include "pp_classes.h"

/* The event descriptions of one cpu type, read once per report. */
struct pp_events {
	bool tried;              /* set was loaded (or failed) for cpu */
	bool ok;
	unsigned cpu;
	struct op_event_set set;
};

/*
 * Descriptions of class k's event and unit mask value, NULL when unknown;
 * they live as long as ev (zeroed before first use).
 */
void pp_event_text(struct pp_events *ev, struct pp_class const *k,
		   char const **desc, char const **um_desc);
void pp_events_free(struct pp_events *ev);

/* "CPU: ..." line (no newline) of the first class with a header. */
char *pp_header_cpu_line(struct pp_classes const *c);

/* "Counted ..." or "Profiling through timer ..." line of class k. */
char *pp_header_event_line(struct pp_events *ev, struct pp_class const *k);

/* All header lines: cpu, each distinct event line, class descriptions. */
void pp_header_write(FILE *out, struct pp_classes const *c);

struct pp_report;

/* The header lines and the notes (text formats):
 * pp_header_write, then each note. */
void pp_header_text(FILE *out, struct pp_report const *r);

#endif /* PP_HEADER_H */
