/*
 * JIT-compiled code by name: what a process's perf map (/tmp/perf-PID.map,
 * op_perf_map.h) says about its sampled anonymous regions is kept in the
 * session, SESSION/samples/current/session/jit/TGID.map, so that reports
 * name the functions after the process and its map are gone
 * (doc/formats.md, doc/jit.md). The core tells which regions were
 * sampled and when a process is gone; the map is read then, and at every
 * dump, bounded:
 *
 *   - OPD_JIT_MAP_BYTES of a map are read (its first lines);
 *   - OPD_JIT_PER_PROC entries kept per process, OPD_JIT_TOTAL in all;
 *   - a map is a regular file owned by the process's user (as perf asks),
 *     last written after the process started (not an earlier process's
 *     of the same pid), opened without following a link and without
 *     blocking.
 *
 * What is cut or refused is counted (struct opd_stats jit_*) and said
 * once per process in the log.
 *
 * A process's jitdump (jit-TGID.dump, op_jitdump.h), found through its
 * mapping in /proc/TGID/maps when its first region is sampled (else in
 * map_dir), is read at the same times with the same checks; its code
 * loads over the sampled regions become an ELF image,
 * SESSION/samples/current/session/jit/TGID.so (at most
 * OPD_JIT_DUMP_TOTAL bytes of them in a session).
 */
#ifndef OPD_JIT_H
#define OPD_JIT_H

#include <stdbool.h>
#include <stdint.h>

#define OPD_JIT_MAP_BYTES (64u << 20)
#define OPD_JIT_PER_PROC 65536
#define OPD_JIT_TOTAL (1u << 20)
/* the bytes of the ELF images written of jitdumps in a session */
#define OPD_JIT_DUMP_TOTAL (512u << 20)

struct opd_jit;
struct opd_stats;

/* map_dir: where perf maps are (NULL: /tmp). */
struct opd_jit *opd_jit_new(char const *map_dir);
void opd_jit_free(struct opd_jit *j);

/* A sampled anonymous region [start, end) of process tgid (its user is
 * taken now, while it lives). */
void opd_jit_region(struct opd_jit *j, unsigned long tgid, uint64_t start,
		    uint64_t end);

/* Process tgid is gone: its map is read at the next opd_jit_save. */
void opd_jit_gone(struct opd_jit *j, unsigned long tgid);

/* Whether a gone process waits for its map to be read. */
bool opd_jit_pending(struct opd_jit const *j);

/*
 * Read the maps of the processes gone (all: of every process known) and
 * write what they say about the sampled regions into meta_dir/jit/; the
 * gone ones are forgotten.
 */
void opd_jit_save(struct opd_jit *j, char const *meta_dir, bool all,
		  struct opd_stats *st);

/* A new session: its entries are counted from 0 again. */
void opd_jit_new_session(struct opd_jit *j);

#endif /* OPD_JIT_H */
