/*
 * The fleet as a profile source (opreport --fleet): the samples and
 * stacks that machines shipped to ClickHouse (doc/fleet.md has the
 * tables) made into the same in-memory profile (pp_profile.h) and stack
 * set (pp_stacks.h) a local session gives, so every output reads them.
 *
 * The server aggregates (GROUP BY): only the report's rows cross the
 * network. Symbol names come from the rows, the binaries are not here.
 * Rows count only through the manifest: per session, the rows of the
 * smallest upload_id its `sessions` row has (an upload that died half
 * way has no manifest row; one sent twice counts once).
 *
 * libpp does not speak HTTP: the tool hands a query function (libfleet's
 * client in opreport), and this file builds SQL and reads its
 * TabSeparated answers (pp_fleet_sql.h).
 */
#ifndef PP_FLEET_H
#define PP_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "pp_classes.h"
#include "pp_populate.h"
#include "pp_profile.h"
#include "pp_spec.h"
#include "pp_stacks.h"
#include "pp_strlist.h"
#include "pp_timerange.h"

/*
 * Run sql on the server; *body (NUL-terminated, *len bytes without the
 * NUL, caller frees) is its TabSeparated answer. 0, or -1 with err (the
 * server's own message when it gave one).
 */
typedef int (*pp_fleet_query_fn)(void *arg, char const *sql, char **body,
				 size_t *len, char *err, size_t errlen);

/* One label tag of a fleet spec: "service:web,api" is key service, any
 * of the values. */
struct pp_fleet_label {
	char *key;
	struct pp_strlist values;
};

/*
 * A fleet profile specification: the local tags (pp_spec.h) that the
 * rows keep (session:, image:, lib-image:, event:, count:, bare names),
 * host: (globs), and labels: any "key:value" whose key is not a tag.
 */
struct pp_fleet_spec {
	struct pp_spec spec;
	struct pp_strlist hosts;
	struct pp_fleet_label *labels;
	size_t nr_labels;
	struct pp_timerange range;    /* session:A..B and --since/--until */
	struct pp_strlist sessions;   /* session: names (globs) */
};

/* Parse words (spec zeroed by the call); range: --since/--until, merged
 * with a session:A..B. 0, or -1 with err naming the word. */
int pp_fleet_spec_parse(struct pp_fleet_spec *fs, int argc,
			char const *const *argv,
			struct pp_timerange const *range, char *err,
			size_t errlen);
void pp_fleet_spec_free(struct pp_fleet_spec *fs);

/* A shard's address as system.clusters gives it (by name and by IP). */
struct pp_fleet_shard {
	unsigned num;                 /* shard_num */
	char *addr;                   /* "host:port" */
};

struct pp_fleet {
	pp_fleet_query_fn query;
	void *query_arg;
	char const *url;              /* for the header: no credentials */
	char const *database;         /* "oprofile" */
	/* filled by pp_fleet_open */
	char *cluster;                /* Distributed tables' cluster, NULL */
	unsigned nr_shards;
	struct pp_fleet_shard *shard_addrs;
	size_t nr_shard_addrs, alloc_shard_addrs;
};

/* What a report's header says of the fleet it read. */
struct pp_fleet_info {
	uint64_t nr_hosts, nr_sessions;
	time_t first, last;           /* earliest start, latest end */
};

/*
 * Find whether the tables are Distributed (and over which cluster, with
 * its shards). A query that a shard does not answer fails naming the
 * shard: a report is never silently partial (so a user whose settings
 * skip unavailable shards is refused here). 0, or -1 with err.
 */
int pp_fleet_open(struct pp_fleet *f, char *err, size_t errlen);
void pp_fleet_close(struct pp_fleet *f);

/*
 * The profile of fs: classes by (event, count), entries by (app, image,
 * symbol) from the rows, details by offset with opts->details, -i/-e and
 * -x (exclude_dependent) as locally. 0, or -1 with err.
 */
int pp_fleet_profile(struct pp_fleet *f, struct pp_fleet_spec const *fs,
		     struct pp_populate_opts const *opts,
		     bool exclude_dependent, struct pp_profile *p,
		     struct pp_classes *classes, struct pp_fleet_info *info,
		     char *err, size_t errlen);

/* The stacks of fs in one event (the first; a note names the others).
 * 0, or -1 with err. */
int pp_fleet_stacks(struct pp_fleet *f, struct pp_fleet_spec const *fs,
		    bool lines, struct pp_stacks *st,
		    struct pp_fleet_info *info, struct pp_strlist *notes,
		    char *err, size_t errlen);

/*
 * opannotate --fleet: the profile of fs with details (opts: symbols and
 * details set) and, per image whose rows name one build found here (its
 * binary at its path, else its debug file by build-id: opts->locate, the
 * debug directories, debuginfod), its functions in a (pp_annotate.h).
 * Images not annotated are noted. 0, or -1 with err.
 */
struct pp_annotation;
int pp_fleet_annotate(struct pp_fleet *f, struct pp_fleet_spec const *fs,
		      struct pp_populate_opts const *opts,
		      struct pp_annotation *a, struct pp_profile *p,
		      struct pp_classes *classes, struct pp_fleet_info *info,
		      struct pp_strlist *notes, char *err, size_t errlen);

/* The header lines of a fleet report ("Fleet: URL", hosts and sessions,
 * time range, missing shards) into lines. */
void pp_fleet_header(struct pp_fleet const *f,
		     struct pp_fleet_info const *info,
		     struct pp_strlist *lines);

#endif /* PP_FLEET_H */
