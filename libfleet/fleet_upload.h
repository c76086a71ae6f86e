/*
 * One spooled session into the fleet, exactly once (doc/fleet.md, "the
 * manifest"): ask whether the manifest has the session (then nothing is
 * sent); else insert its samples rows, then its stacks rows, each with a
 * new random upload_id, and only after both returned 200 its manifest
 * row with that upload_id. Readers count a session through its manifest
 * row's smallest upload_id, so the rows of an attempt that died half way
 * are never read, and a session sent twice counts once. On a cluster the
 * inserts go with insert_distributed_sync=1: a 200 means the rows are on
 * their shard.
 */
#ifndef FLEET_UPLOAD_H
#define FLEET_UPLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "fleet_http.h"
#include "fleet_spool.h"

struct fleet_target {
	struct fleet_http *http;
	char const *database;
	bool cluster;           /* Distributed tables: synchronous inserts */
};

/*
 * Ship d. 0 when the session is in the fleet (*already: it was before
 * this call), -1 with err (a later attempt starts again from the
 * manifest question).
 */
int fleet_upload(struct fleet_target const *t,
		 struct fleet_spool_data const *d, bool *already,
		 char *err, size_t errlen);

/* Whether the manifest has session_id: 1, 0, or -1 with err. */
int fleet_manifest_has(struct fleet_target const *t, char const *session_id,
		       size_t len, char *err, size_t errlen);

/* A random upload id, never 0 (getrandom). */
uint64_t fleet_upload_id(void);

#endif /* FLEET_UPLOAD_H */
