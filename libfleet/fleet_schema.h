/*
 * The fleet's schema in ClickHouse (doc/fleet.md): database `oprofile`
 * (or another name), tables samples, stacks and sessions (the manifest),
 * plain MergeTree on one server; on a cluster each is NAME_local
 * (MergeTree, on every shard) plus NAME, a Distributed table over them
 * sharded by cityHash64(host). Every statement is one ClickHouse 18.16
 * and current releases both take, and may run again (IF NOT EXISTS).
 */
#ifndef FLEET_SCHEMA_H
#define FLEET_SCHEMA_H

#include <stddef.h>

#define FLEET_DATABASE_DEFAULT "oprofile"

/* The columns every table starts with, in order (as in an INSERT). */
#define FLEET_COMMON_COLUMNS \
	"day, host, labels, session_id, upload_id, start, end, event, event_count"
/* Each table's whole column list, in INSERT order. */
#define FLEET_SAMPLES_COLUMNS FLEET_COMMON_COLUMNS \
	", app, image, build_id, symbol, offset, samples"
#define FLEET_STACKS_COLUMNS FLEET_COMMON_COLUMNS \
	", app, frames, frame_offsets, samples"
#define FLEET_SESSIONS_COLUMNS FLEET_COMMON_COLUMNS \
	", samples_rows, stacks_rows, total, shipped"

/*
 * A database, table or cluster name: a letter or '_', then letters,
 * digits and '_', at most 64 bytes (it is spliced into SQL). 0, or -1
 * with err naming what (e.g. "fleet_database").
 */
int fleet_name_check(char const *what, char const *name, char *err,
		     size_t errlen);

/*
 * The statements that create the schema in database db (NULL: the
 * default) on one server (cluster NULL) or on each shard of cluster:
 * a NULL-ended array of malloc'ed strings (fleet_schema_free), or NULL
 * with err for a bad name.
 */
char **fleet_schema_sql(char const *db, char const *cluster, char *err,
			size_t errlen);
void fleet_schema_free(char **sql);

#endif /* FLEET_SCHEMA_H */
