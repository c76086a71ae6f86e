/*
 * Report notes: problems that change what a report shows (a sample file
 * skipped, a binary that changed since it was sampled). Each is warned
 * about on stderr when it happens and kept, so the report itself can say
 * it too: a report must never be silently incomplete.
 */
#ifndef PP_NOTES_H
#define PP_NOTES_H

#include "pp_strlist.h"

/* op_warn() the message and append it to notes (notes may be NULL). */
void pp_note(struct pp_strlist *notes, char const *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* PP_NOTES_H */
