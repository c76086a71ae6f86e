/* Percentages, thresholds, names and row selection for the formatters; see pp_output.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_escape.h"
#include "op_message.h"
#include "pp_output.h"

double pp_percent(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

bool pp_row_shown(uint64_t const *counts, uint64_t const *totals,
		  size_t nr_classes, double threshold)
{
	if (threshold <= 0)
		return true;
	for (size_t c = 0; c < nr_classes; c++)
		if (pp_percent(counts[c], totals[c]) >= threshold)
			return true;
	return false;
}

void pp_output_line(FILE *out, char const *prefix, char const *text)
{
	fputs(prefix, out);
	op_fputs_escaped(out, text);
	fputc('\n', out);
}

char const *pp_short_name(char const *name, bool long_names)
{
	char const *slash;

	if (long_names || name[0] != '/')
		return name;
	slash = strrchr(name, '/');
	return slash[1] ? slash + 1 : name;
}

static double diff_percent(uint64_t const *counts, uint64_t const *totals,
			   int *sign)
{
	double old = pp_percent(counts[0], totals[0]);
	double now = pp_percent(counts[1], totals[1]);

	*sign = 0;
	if (!counts[0] && !counts[1])
		return 0.0;
	if (!counts[0]) {
		*sign = 1;
		return 0.0;
	}
	if (!counts[1]) {
		*sign = -1;
		return 0.0;
	}
	return (now - old) / old * 100.0;
}

void pp_diff_text(uint64_t const *counts, uint64_t const *totals, char *buf,
		  size_t len)
{
	int sign;
	double d = diff_percent(counts, totals, &sign);

	if (sign)
		snprintf(buf, len, "%s", sign > 0 ? "+++" : "---");
	else
		snprintf(buf, len, "%+.4f", d);
}

struct pp_entry const **pp_select_rows(struct pp_profile const *p,
				       struct pp_output_opts const *o,
				       size_t *n)
{
	struct pp_entry const **rows = op_xcalloc(p->n, sizeof(*rows));

	*n = 0;
	for (size_t i = 0; i < p->n; i++)
		if (pp_row_shown(p->v[i].counts, p->totals, p->nr_classes,
				 o->threshold))
			rows[(*n)++] = &p->v[i];
	pp_sort_rows(rows, *n, &o->sort, o->diff ? 1 : 0);
	return rows;
}
