/*
 * The text both ways of the fleet's queries (pp_fleet.h): values quoted
 * into ClickHouse SQL, fnmatch globs as re2 patterns for match(), and the
 * TabSeparated answer read back into rows of unescaped fields (each by
 * libfleet's fleet_tsv_field, the shipper's own reader).
 */
#ifndef PP_FLEET_SQL_H
#define PP_FLEET_SQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fleet_tsv.h"

/* s as a ClickHouse string literal ('...', backslash escapes). */
void pp_fleet_sql_quote(FILE *out, char const *s);

/* An fnmatch(3) glob (no flags) as an anchored re2 pattern, quoted. */
void pp_fleet_sql_glob(FILE *out, char const *glob);

#define PP_FLEET_MAX_FIELDS 8

/* A TabSeparated answer being read (body is not changed). */
struct pp_fleet_rows {
	char const *p, *end;
	size_t row;                   /* rows read, for messages */
	char const *field[PP_FLEET_MAX_FIELDS];   /* the row's, unescaped */
	struct fleet_buf buf[PP_FLEET_MAX_FIELDS];
};

void pp_fleet_rows_init(struct pp_fleet_rows *r, char const *body,
			size_t len);
void pp_fleet_rows_free(struct pp_fleet_rows *r);

/*
 * The next row into r->field[0 .. nr-1] (nr <= PP_FLEET_MAX_FIELDS),
 * valid until the next call. 1 with a row, 0 at the end, -1 with err when
 * the row has not nr fields, or a field a bad escape or a NUL byte.
 */
int pp_fleet_rows_next(struct pp_fleet_rows *r, size_t nr, char *err,
		       size_t errlen);

/* A field as an unsigned number: 0, or -1 with err. */
int pp_fleet_u64(struct pp_fleet_rows const *r, size_t i, uint64_t *v,
		 char *err, size_t errlen);

#endif /* PP_FLEET_SQL_H */
