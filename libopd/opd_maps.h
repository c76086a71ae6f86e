/*
 * Per-process memory maps for the perf source: what the kernel driver's
 * buffer sync got from the task's mm (find_vma) we rebuild from MMAP2,
 * COMM(exec), FORK and EXIT records and from /proc/PID/maps at start.
 *
 * A process (keyed by tgid; its threads share it) holds its executable
 * mappings as a sorted array of non-overlapping VMAs, so a sample's pc is
 * resolved by binary search. A new mapping replaces whatever part of older
 * mappings it overlaps, as mmap(MAP_FIXED) does in the kernel.
 *
 * A VMA resolves pc to (cookie, pc - start + pgoff). File VMAs carry the
 * file's cookie from the start. Anonymous VMAs ([vdso], //anon JIT code...)
 * get their anon cookie only when a first sample lands in them, so
 * regions nobody samples cost no cookie; their pgoff is the distance from
 * the region start, so the same formula gives the offset into the region.
 */
#ifndef OPD_MAPS_H
#define OPD_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "op_hashmap.h"

struct stream_emit;

struct cookie_table;

#define VMA_ANON 0x1u

struct vma {
	unsigned long start;	/* first byte */
	unsigned long end;	/* one past the last byte */
	unsigned long pgoff;	/* file offset (anon: offset in region) of start */
	unsigned long cookie;	/* file or anon cookie; 0: anon, none yet */
	unsigned name;		/* VMA_ANON: cookie of the interned name */
	unsigned flags;		/* VMA_* */
};

struct proc {
	struct op_hashmap_entry ent;	/* in proc_table.procs, by tgid */
	unsigned long tgid;
	unsigned long app_cookie;	/* main binary, or OP_NO_COOKIE */
	bool exec_pending;	/* exec'ed: the next file VMA is the app */
	struct vma *vma;	/* sorted by start, non-overlapping */
	size_t nr;		/* VMAs in use */
	size_t cap;		/* VMAs allocated */
	size_t last;		/* index of the last hit: samples cluster */
	unsigned long exit_round;	/* 0: alive; else the round it exited */
	uint64_t reread_ns;	/* last /proc/PID/maps re-read; 0: never */
	uint64_t start_ticks;	/* /proc/PID/stat starttime; 0: unknown */
};

/* A process that exited, kept until opd_maps_reap says it is old enough. */
struct pm_dead {
	unsigned long tgid;
	unsigned long round;
};

struct proc_table {
	struct op_hashmap procs;	/* struct proc by tgid */
	size_t nr;		/* processes (the map's size) */
	struct proc *cache;	/* last process found */
	struct pm_dead *dead;	/* exited, not yet dropped */
	size_t nr_dead;
	size_t cap_dead;
	char const *proc_root;	/* "/proc"; unit tests point it elsewhere */
	bool records_lost;	/* since the last opd_maps_exit_gone */
};

void opd_maps_init(struct proc_table *pt);
void opd_maps_free(struct proc_table *pt);

/* The process tgid, or NULL. */
struct proc *opd_maps_find(struct proc_table *pt, unsigned long tgid);
/* The process tgid, created empty (app OP_NO_COOKIE) if unknown. */
struct proc *opd_maps_get(struct proc_table *pt, unsigned long tgid);
/* Forget tgid and its maps. */
void opd_maps_drop(struct proc_table *pt, unsigned long tgid);
/*
 * tgid exited in round (>= 1). A task still runs kernel code after its
 * EXIT record (exit_notify, the last schedule), so its last samples come
 * later: like the kernel driver's task mortuary, the process is kept
 * until opd_maps_reap() is called with a round two later.
 */
void opd_maps_exit(struct proc_table *pt, unsigned long tgid, unsigned long round);
/* The same for p itself (opd_maps_exit_gone, which has it at hand). */
void opd_maps_mark_exit(struct proc_table *pt, struct proc *p,
			unsigned long round);
/* Drop the processes that exited at least two rounds before round. */
/* se (NULL: none): the anonymous region cookies of each dropped process
 * are forgotten in its stream (opd_emit_forget). */
void opd_maps_reap(struct proc_table *pt, unsigned long round,
	     struct stream_emit *se);
/* Mark (opd_cookie_mark) every cookie the processes use: their apps, their
 * mappings' cookies and anonymous mappings' names; processes that
 * exited but are not reaped yet included (their samples may still come). */
void opd_maps_mark_cookies(struct proc_table *pt, struct cookie_table *ct);
/* child becomes a copy of parent (empty if parent is unknown). Anonymous
 * cookies are not inherited: an anon cookie names its process. */
struct proc *opd_maps_fork(struct proc_table *pt, unsigned long parent,
		     unsigned long child);
/* exec: drop every mapping; the next file mapping names the app. */
void opd_maps_exec(struct proc *p);

/*
 * Lost EXIT records. A process leaves the table only through
 * opd_maps_exit, and its mappings keep their cookies marked until then; when a
 * ring overflows its EXIT may be lost with the other records, and the
 * process would stay for the daemon's life. So the source says when
 * records were lost (opd_maps_records_lost), and the next opd_maps_exit_gone checks
 * each live process in /proc: one that is gone, a zombie (its EXIT was
 * written already) or another process under a reused pid (a later start
 * time than recorded) is treated as if its EXIT had come in round. Only
 * after losses: a loss-free run pays nothing. Returns the processes so
 * exited. pids are the daemon's pid namespace's (perf gives those), so
 * its own /proc is the right one.
 */
void opd_maps_records_lost(struct proc_table *pt);
size_t opd_maps_exit_gone(struct proc_table *pt, unsigned long round);
/* pid's start time in clock ticks since boot (/proc/PID/stat field 22):
 * 0, -ESRCH if the process has exited (a zombie too), or -errno. */
int opd_maps_start_ticks(struct proc_table const *pt, unsigned long pid,
		   uint64_t *ticks);
/* The start time /proc would show for a process started at mono_ns
 * (CLOCK_MONOTONIC, the perf records' clock), to record a FORK. */
uint64_t opd_maps_ticks_at(uint64_t mono_ns);
/* A start time later than recorded by more than this: another process. */
#define PM_START_SLACK_TICKS 2

/* Map [start, start + len) of the file or region name (length name_len).
 * Anonymous names ("//anon", "[vdso]", "", ...) make an anonymous VMA.
 * id: the file's device and inode when the record gives them (ino 0 if
 * not): a path that names another file than before gets a new cookie. */
void opd_maps_map(struct proc_table *pt, struct cookie_table *ct, struct proc *p,
	    unsigned long start, unsigned long len, unsigned long pgoff,
	    char const *name, size_t name_len, struct ct_file_id id);

/* Is name (length len) an anonymous region rather than a file? */
bool opd_maps_is_anon_name(char const *name, size_t len);

/* The VMA holding pc, or NULL. */
static inline struct vma *opd_maps_lookup(struct proc *p, unsigned long pc)
{
	size_t lo = 0, hi = p->nr;
	struct vma *v;

	if (p->last < p->nr) {
		v = &p->vma[p->last];
		if (pc >= v->start && pc < v->end)
			return v;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		v = &p->vma[mid];
		if (pc < v->start)
			hi = mid;
		else if (pc >= v->end)
			lo = mid + 1;
		else {
			p->last = mid;
			return v;
		}
	}
	return NULL;
}

/* The cookie of v, allocating v's anon cookie for process p if needed. */
unsigned long opd_maps_vma_cookie(struct cookie_table *ct, struct proc *p,
			    struct vma *v);

/*
 * Seed every process from /proc (its executable mappings and its
 * /proc/PID/exe). Call after enabling the events and before processing
 * their records: seeded state is the base that records then update, so a
 * record always wins over /proc data that it follows in time. Returns the
 * number of processes seeded.
 */
size_t opd_maps_seed_all(struct proc_table *pt, struct cookie_table *ct);
/* Seed one process; 0, or -errno if /proc/PID/maps could not be read. */
int opd_maps_seed(struct proc_table *pt, struct cookie_table *ct, unsigned long pid);

/*
 * Re-reading a process's maps to resolve a user pc that the records left
 * unresolved (their MMAP2, COMM(exec) or FORK record was lost when a ring
 * overflowed). /proc shows the present, which may be newer than the
 * sample being resolved, so opd_maps_refresh() never lets it replace what the
 * records said, except where the records are provably stale:
 *
 *  - unknown process, or one whose EXIT was applied (a user pc after it
 *    means the pid is a new process whose FORK was lost): seeded from
 *    /proc, as at start;
 *  - known process whose /proc/PID/exe is not its app (the exec record
 *    was lost; the caller has checked that no exec, fork or exit of pid
 *    is still queued after the sample): its maps are dropped and seeded
 *    from /proc (an exec, as opd_maps_exec);
 *  - otherwise (same app, or app unknown / exec'ed with the binary's
 *    MMAP2 lost, which then takes the app from /proc/PID/exe): /proc's
 *    executable mappings fill only the address ranges no known VMA
 *    covers. Known VMAs stay: they came from records in time order with
 *    the samples; records still queued are applied on top later.
 *
 * Returns PM_REFRESH_* (>= 0), or -errno if /proc/PID/maps could not be
 * read (the process is gone). The process may be a new struct proc
 * afterwards: look it up again. Its reread_ns is the caller's to stamp.
 */
enum pm_refresh_how {
	PM_REFRESH_NEW = 0,	/* the process was unknown */
	PM_REFRESH_FILLED = 1,	/* gaps filled */
	PM_REFRESH_REPLACED = 2, /* lost exec: maps replaced */
};
int opd_maps_refresh(struct proc_table *pt, struct cookie_table *ct,
	       unsigned long pid);

/* Map what [start, start + len) adds to p where no VMA is yet (opd_maps_map
 * arguments); the pieces keep their file offsets. */
void opd_maps_map_gaps(struct proc_table *pt, struct cookie_table *ct,
		 struct proc *p, unsigned long start, unsigned long len,
		 unsigned long pgoff, char const *name, size_t name_len,
		 struct ct_file_id id);

/*
 * The bounds on re-reads, so that a process that really runs outside any
 * known mapping, or samples of a process that is gone, cannot make the
 * reader re-read /proc at every sample: at most one re-read per process
 * per interval_ns (the stamp is proc->reread_ns; pids that turned out to
 * be gone are remembered in a small cache for as long), and at most
 * max_per_s re-reads in any one-second window over all processes. Times
 * are CLOCK_MONOTONIC ns (> 0), the reader's "now" of the round.
 */
#define PM_REREAD_GONE_SLOTS 64

struct pm_reread {
	uint64_t interval_ns;	/* per process; 0: never re-read */
	unsigned max_per_s;	/* over all processes */
	uint64_t window_ns;	/* start of the current one-second window */
	unsigned in_window;	/* re-reads allowed in it */
	struct {
		unsigned long pid;
		uint64_t ns;
	} gone[PM_REREAD_GONE_SLOTS];
};

void opd_maps_reread_init(struct pm_reread *rr, uint64_t interval_ns,
		    unsigned max_per_s);
/* May pid's maps be re-read at now? p: its process, NULL if unknown. A
 * yes is counted against the limits (and stamps p->reread_ns). */
bool opd_maps_reread_may(struct pm_reread *rr, struct proc *p, unsigned long pid,
		   uint64_t now);
/* The re-read found no pid: no re-read of it for interval_ns. */
void opd_maps_reread_gone(struct pm_reread *rr, unsigned long pid, uint64_t now);

#endif /* OPD_MAPS_H */
