/* The fleet's tables (fleet_schema.h); doc/fleet.md says why each is so. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_schema.h"
#include "op_alloc.h"
#include "op_fleet_settings.h"

#define COMMON \
	"day Date, host String, labels Array(String), session_id String, " \
	"upload_id UInt64, start DateTime, end DateTime, event String, " \
	"event_count UInt64"

static struct {
	char const *name, *columns, *order;
} const tables[] = {
	{ "samples",
	  COMMON ", app String, image String, build_id String, symbol String, "
	  "offset UInt64, samples UInt64",
	  "event, host, image, symbol, offset" },
	{ "stacks",
	  COMMON ", app String, frames Array(String), "
	  "frame_offsets Array(UInt64), samples UInt64",
	  "event, host, session_id" },
	{ "sessions",
	  COMMON ", samples_rows UInt64, stacks_rows UInt64, total UInt64, "
	  "shipped DateTime",
	  "host, session_id" },
};

#define NR_TABLES (sizeof(tables) / sizeof(tables[0]))

int fleet_name_check(char const *what, char const *name, char *err,
		     size_t errlen)
{
	return op_fleet_name_check(what, name, err, errlen);
}

char **fleet_schema_sql(char const *db, char const *cluster, char *err,
			size_t errlen)
{
	char **v = op_xcalloc(2 + 2 * NR_TABLES, sizeof(*v));
	size_t i, n = 0;

	if (!db)
		db = FLEET_DATABASE_DEFAULT;
	if (fleet_name_check("database name", db, err, errlen) ||
	    (cluster && fleet_name_check("cluster name", cluster, err, errlen))) {
		free(v);
		return NULL;
	}
	v[n++] = op_xasprintf("CREATE DATABASE IF NOT EXISTS %s", db);
	for (i = 0; i < NR_TABLES; i++) {
		char const *t = tables[i].name;

		v[n++] = op_xasprintf("CREATE TABLE IF NOT EXISTS %s.%s%s (%s) "
				      "ENGINE = MergeTree() PARTITION BY day "
				      "ORDER BY (%s)", db, t,
				      cluster ? "_local" : "",
				      tables[i].columns, tables[i].order);
		if (cluster)
			v[n++] = op_xasprintf("CREATE TABLE IF NOT EXISTS %s.%s "
					      "AS %s.%s_local ENGINE = "
					      "Distributed(%s, %s, %s_local, "
					      "cityHash64(host))", db, t, db,
					      t, cluster, db, t);
	}
	return v;
}

void fleet_schema_free(char **sql)
{
	size_t i;

	for (i = 0; sql && sql[i]; i++)
		free(sql[i]);
	free(sql);
}
