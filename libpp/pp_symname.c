/* Display names of symbols and the -i/-e choice; see pp_symname.h. */
#include "config.h"

#include <stdlib.h>

#include "op_util.h"
#include "pp_populate.h"
#include "pp_strlist.h"
#include "pp_symname.h"

bool pp_symbol_wanted(struct pp_populate_opts const *o, char const *raw,
		      char const *shown)
{
	if (o->include && o->include->n && !(pp_strlist_match(o->include, raw)
	    || pp_strlist_match(o->include, shown)))
		return false;
	return !(o->exclude && (pp_strlist_match(o->exclude, raw) ||
				pp_strlist_match(o->exclude, shown)));
}

char *pp_symbol_display(struct pp_symtab const *t, struct pp_symbol const *s,
			enum pp_demangle d)
{
	char *name = pp_demangle(s->name, d), *next, *out;

	if (!s->is_range)
		return name;
	next = s->next >= 0 ? pp_demangle(t->v[s->next].name, d) :
			      op_xstrdup("(end)");
	out = op_xasprintf("%s->%s", name, next);
	free(name);
	free(next);
	return out;
}
