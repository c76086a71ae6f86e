/*
 * The shipper's spool (doc/fleet.md): one file per closed session, its
 * rows ready to insert, in SESSION/fleet/spool/ named by a sequence
 * number (20 digits), so the oldest is first. A file is written whole
 * under a temporary name and renamed: a crash leaves either the entry or
 * nothing (a leftover temporary is removed at the next open). The spool
 * is bounded: when an entry does not fit, the oldest are dropped (and
 * counted) until it does; an entry larger than the whole bound is dropped
 * itself.
 *
 * An entry's file: the line "oprofile-fleet-spool 1", the session_id
 * (TabSeparated-escaped), the byte sizes of its three blocks, then the
 * blocks: samples rows, stacks rows and the manifest row, each row in
 * its table's column order without upload_id (and the manifest without
 * shipped): fleet_upload adds them per attempt.
 */
#ifndef FLEET_SPOOL_H
#define FLEET_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "fleet_tsv.h"

struct fleet_spool_entry {
	uint64_t seq;
	uint64_t bytes;
};

struct fleet_spool {
	char *dir;
	uint64_t max_bytes;
	struct fleet_spool_entry *v;    /* oldest first */
	size_t n;
	uint64_t bytes;                 /* of all entries */
};

/* An entry read back: pointers into text. */
struct fleet_spool_data {
	char *text;
	size_t len;
	struct fleet_buf session_id;
	char const *block[3];           /* samples, stacks, manifest */
	size_t block_len[3];
};

/* Open (create, 0700) dir as a spool of at most max_bytes. 0, or -1 with err. */
int fleet_spool_open(struct fleet_spool *sp, char const *dir,
		     uint64_t max_bytes, char *err, size_t errlen);
void fleet_spool_close(struct fleet_spool *sp);

/* Told of each session dropped: its id (escaped for a message), its
 * bytes, and whether it was the new one, alone larger than the bound. */
typedef void fleet_spool_drop_fn(void *arg, char const *session_id,
				 uint64_t bytes, int too_big);

/*
 * Add a session's rows as the newest entry; entries dropped to make room
 * are added to *dropped, and told to drop (when not NULL). 0, or -1 with
 * err (nothing added).
 */
int fleet_spool_add(struct fleet_spool *sp, char const *session_id,
		    struct fleet_buf const *samples,
		    struct fleet_buf const *stacks,
		    struct fleet_buf const *manifest, uint64_t *dropped,
		    fleet_spool_drop_fn *drop, void *drop_arg,
		    char *err, size_t errlen);

/* Read entry i (0: the oldest). 0, or -1 with err (a damaged entry). */
int fleet_spool_read(struct fleet_spool const *sp, size_t i,
		     struct fleet_spool_data *d, char *err, size_t errlen);
void fleet_spool_data_free(struct fleet_spool_data *d);

/* Remove entry i. */
void fleet_spool_remove(struct fleet_spool *sp, size_t i);

#endif /* FLEET_SPOOL_H */
