/* ophelp's event listings (ophelp_list.c), plain and XML. */
#ifndef OPHELP_H
#define OPHELP_H

#include <stdio.h>

#include "op_events.h"

/* Minimum counts are multiplied by this with --callgraph (as op_check_events). */
#define OPHELP_CALLGRAPH_FACTOR 15

/* Every event of set with counters, minimum, unit masks and description. */
void ophelp_list(FILE *out, struct op_event_set const *set, int callgraph);
/* The same as an XML document (root element help_events). */
void ophelp_list_xml(FILE *out, struct op_event_set const *set, int callgraph);

#endif /* OPHELP_H */
