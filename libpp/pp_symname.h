/*
 * Naming sampled symbols the same way in every report (pp_symname.c): the
 * flat profile, the call graph and whole stacks.
 */
#ifndef PP_SYMNAME_H
#define PP_SYMNAME_H

#include <stdbool.h>

#include "pp_demangle.h"
#include "pp_symtab.h"

struct pp_populate_opts;

/* A symbol's display name (demangled; a range reads "sym->next"). */
char *pp_symbol_display(struct pp_symtab const *t, struct pp_symbol const *s,
			enum pp_demangle d);

/* Whether -i/-e keep a symbol, by its raw or its shown name. */
bool pp_symbol_wanted(struct pp_populate_opts const *o, char const *raw,
		      char const *shown);

#endif /* PP_SYMNAME_H */
