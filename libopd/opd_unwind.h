/*
 * User-stack unwinding with the binaries' CFI (x86-64): from the
 * registers and the copy of the user stack that perf_events gives with a
 * sample (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER), the return
 * addresses of the callers, found with each binary's .eh_frame (or
 * .debug_frame, its own or its separate debug file's by build-id).
 *
 * The CFI of a binary is opened once and kept (struct unwind_cache, keyed
 * by the caller's id of the binary: the perf source's cookie), not per
 * process or sample. The CFI row holding a pc is looked up with elfutils'
 * libdw (dwarf_cfi_addrframe) once, compiled and kept for the row's whole
 * address range, so a later step in that range is a binary search; the
 * rules are evaluated on the three registers the sample has: rip, rsp and
 * rbp, which is what compilers' CFI uses for the CFA on x86-64 (a rule
 * needing another register stops the walk: bad_cfa). Both caches are
 * bounded (opd_unwind.c: MAX_BINARIES, MAX_RULES). Why unwinding stopped is
 * enum op_unwind_stop.
 */
#ifndef OPD_UNWIND_H
#define OPD_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a pc is mapped: its binary (path NULL: no file, e.g. JIT). */
struct unwind_map {
	unsigned long key;	/* the binary's id for the cache (cookie) */
	char const *path;
	uint64_t start;		/* the mapping's first address */
	uint64_t pgoff;		/* its file offset */
};

/* The mapping holding pc; false if none. */
typedef bool (*unwind_find_map_fn)(void *arg, uint64_t pc,
				   struct unwind_map *m);

struct unwind_regs {
	uint64_t ip, sp, bp;
};

/* The copy of the user stack: size bytes from address sp up. */
struct unwind_stack {
	uint64_t sp;
	unsigned char const *data;
	size_t size;
};

struct unwind_stats {
	uint64_t binaries;	/* binaries opened */
	uint64_t no_cfi;	/* of which without any CFI */
	uint64_t unreadable;	/* opens or reads that failed (retried) */
	uint64_t frames;	/* steps done */
	uint64_t rule_hits;	/* of which by an already compiled rule */
	uint64_t slow_steps;	/* of which evaluated by libdw (not the
				 * common shape: PLT expressions...) */
	uint64_t rules;		/* CFI rows compiled */
	uint64_t rules_flushed;	/* a binary's full rule table emptied */
	uint64_t binaries_evicted; /* least recently used binaries closed */
	uint64_t no_mapping;	/* walks stopped at a pc in no mapping */
	uint64_t fp_steps;	/* steps by the frame pointer: code with no
				 * file (JIT), so no CFI (opd_unwind.c) */
	/* stacks that reached the root, by the bytes of stack copy they
	 * needed (the root frame's CFA - sp): <= 1, 2, 4, 8, 16, 32, 64 KiB */
	uint64_t root_bytes[7];
};

struct unwind_cache;

struct unwind_cache *opd_unwind_cache_new(void);
/* The same with other bounds than opd_unwind.c's (tests): binaries kept open,
 * compiled CFI rows per binary. */
struct unwind_cache *opd_unwind_cache_new_bounded(size_t binaries, size_t rules);
void opd_unwind_cache_free(struct unwind_cache *uc);
struct unwind_stats const *opd_unwind_cache_stats(struct unwind_cache const *uc);
/*
 * Since the last call, for the stream: cache evictions (its counters), and
 * walks stopped at a pc in no mapping (backtraces cut short, its
 * bt_lost_no_mapping).
 */
struct unwind_taken {
	uint64_t binaries_evicted, rules_flushed, no_mapping;
};
void opd_unwind_cache_take(struct unwind_cache *uc, struct unwind_taken *t);

/* The binary of key is unmapped for good (its cookie forgotten): close
 * it and free its CFI. uc NULL or key not cached: nothing. */
void opd_unwind_cache_forget(struct unwind_cache *uc, unsigned long key);

/*
 * Unwind: pcs[0] = regs->ip, pcs[1..] the return addresses of the
 * callers, at most max in all; *n of them. Returns why it stopped (enum
 * op_unwind_stop; depth_limit when max was reached).
 */
unsigned opd_unwind_user(struct unwind_cache *uc, struct unwind_regs const *regs,
		     struct unwind_stack const *stack,
		     unwind_find_map_fn find_map, void *arg,
		     uint64_t *pcs, unsigned max, unsigned *n);

#endif /* OPD_UNWIND_H */
