/*
 * The core's whole stacks: each sample's resolved trace interned in the
 * session's stack table and counted per event (libstacks/op_stacks.h,
 * doc/formats.md section 6). Opened at the first trace, so a session
 * without callgraphs has no stacks/; closed with the sample files (HUP,
 * reset, save) and reopened lazily.
 */
#ifndef OPD_STACKS_H
#define OPD_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "op_stacks.h"

struct opd_config;
struct opd_images;
struct opd_stats;

struct opd_stacks;

struct opd_stacks *opd_stacks_new(char const *current_dir,
				  struct opd_config const *cfg,
				  struct opd_images const *images);
void opd_stacks_free(struct opd_stacks *st);

/*
 * Count one sample's stack (weight: what it counts, 1 but for off-CPU
 * samples): frames leaf first as (image id, offset) of
 * the core's images, app the process's image id, stop why the trace
 * ended. Counts it in stats (stack_written or stack_dropped, and its
 * stop reason), weight times: the stats count what the files count.
 */
void opd_stacks_add(struct opd_stacks *st, uint32_t tgid, int app,
		    uint32_t stop, int const *images, uint64_t const *offsets,
		    size_t n, unsigned long event, uint32_t weight,
		    struct opd_stats *stats);

/* Close the files (they reopen at the next stack). */
void opd_stacks_close(struct opd_stacks *st);
/* Push the table and counts towards the disk. */
void opd_stacks_sync(struct opd_stacks *st);

#endif /* OPD_STACKS_H */
