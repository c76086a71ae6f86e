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

/* " WHERE ...": the sessions of fs through the manifest, its events. */
void pp_fleet_where(FILE *out, struct pp_fleet const *f,
		    struct pp_fleet_spec const *fs);

/* Hosts, sessions and time range of fs: -1 with err when none. */
int pp_fleet_info_read(struct pp_fleet *f, struct pp_fleet_spec const *fs,
		       struct pp_fleet_info *info, char *err, size_t errlen);

#endif /* PP_FLEET_INT_H */
