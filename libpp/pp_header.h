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

#include <stdio.h>

#include "pp_classes.h"

struct pp_event_text {
	char *desc;         /* event description, or NULL */
	char *um_desc;      /* unit mask value description, or NULL */
};

/* Descriptions of class k's event (free with pp_event_text_free). */
void pp_event_text(struct pp_class const *k, struct pp_event_text *t);
void pp_event_text_free(struct pp_event_text *t);

/* "CPU: ..." line (no newline) of the first class with a header. */
char *pp_header_cpu_line(struct pp_classes const *c);

/* "Counted ..." or "Profiling through timer ..." line of class k. */
char *pp_header_event_line(struct pp_class const *k);

/* All header lines: cpu, each distinct event line, class descriptions. */
void pp_header_write(FILE *out, struct pp_classes const *c);

#endif /* PP_HEADER_H */
