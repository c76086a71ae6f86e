/* What the fleet's files share (pp_fleet.c, pp_fleet_stacks.c). */
#ifndef PP_FLEET_INT_H
#define PP_FLEET_INT_H

#include <stdio.h>

#include "pp_fleet.h"
#include "pp_fleet_sql.h"

/* Run sql; *body holds the answer that rows reads (caller frees). A
 * failure that names a shard of the cluster says which. 0 or -1. */
int pp_fleet_ask(struct pp_fleet *f, char const *sql, char **body,
		 struct pp_fleet_rows *rows, char *err, size_t errlen);

/*
 * A query being written:
 *	struct pp_fleet_sql q;
 *	FILE *out = pp_fleet_sql_begin(&q);
 *	fprintf(out, "SELECT ...");
 *	rc = pp_fleet_ask_sql(f, &q, &body, &r, err, errlen);
 */
struct pp_fleet_sql {
	FILE *out;
	char *text;
	size_t len;
};

/* The stream to write the query to (dies when out of memory). */
FILE *pp_fleet_sql_begin(struct pp_fleet_sql *q);
/* The stream closed: the query's text, which the caller frees. */
char *pp_fleet_sql_end(struct pp_fleet_sql *q);
/* pp_fleet_ask with the query written to q, whose text it frees. */
int pp_fleet_ask_sql(struct pp_fleet *f, struct pp_fleet_sql *q,
		     char **body, struct pp_fleet_rows *rows, char *err,
		     size_t errlen);

/* " WHERE ...": the sessions of fs through the manifest, its events. */
void pp_fleet_where(FILE *out, struct pp_fleet const *f,
		    struct pp_fleet_spec const *fs);

/* " AND (...)": the samples rows of fs's build-id: prefixes (only the
 * samples table has build_id). */
void pp_fleet_where_builds(FILE *out, struct pp_fleet_spec const *fs);

/* Hosts, sessions and time range of fs: -1 with err when none. */
int pp_fleet_info_read(struct pp_fleet *f, struct pp_fleet_spec const *fs,
		       struct pp_fleet_info *info, char *err, size_t errlen);

#endif /* PP_FLEET_INT_H */
