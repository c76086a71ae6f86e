/* Report notes: warn now, and keep the text for the report; see pp_notes.h. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "op_message.h"
#include "pp_notes.h"

void pp_note(struct pp_strlist *notes, char const *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		op_die("out of memory formatting a message");
	va_end(ap);
	op_warn("%s", text);
	if (notes)
		pp_strlist_add(notes, text);
	free(text);
}
