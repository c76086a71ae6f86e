/*
 * The text both ways of the fleet's queries (pp_fleet.h): values quoted
 * into ClickHouse SQL, fnmatch globs as re2 patterns for match(), and the
 * TabSeparated answer read back into rows of unescaped fields.
 */
#ifndef PP_FLEET_SQL_H
#define PP_FLEET_SQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* s as a ClickHouse string literal ('...', backslash escapes). */
void pp_fleet_sql_quote(FILE *out, char const *s);

/* An fnmatch(3) glob (no flags) as an anchored re2 pattern, quoted. */
void pp_fleet_sql_glob(FILE *out, char const *glob);

/* A TabSeparated answer being read; body is unescaped in place. */
struct pp_fleet_rows {
	char *p, *end;
	size_t row;                   /* rows read, for messages */
	char *field[16];
	size_t nr_fields;
};

void pp_fleet_rows_init(struct pp_fleet_rows *r, char *body, size_t len);

/*
 * The next row into r->field[0 .. nr-1]. 1 with a row, 0 at the end, -1
 * with err when the row has not nr fields or a field a bad escape or a
 * NUL byte.
 */
int pp_fleet_rows_next(struct pp_fleet_rows *r, size_t nr, char *err,
		       size_t errlen);

/* A field as an unsigned number: 0, or -1 with err. */
int pp_fleet_u64(struct pp_fleet_rows const *r, size_t i, uint64_t *v,
		 char *err, size_t errlen);

#endif /* PP_FLEET_SQL_H */
