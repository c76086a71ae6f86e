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
#ifndef PROC_MAPS_H
#define PROC_MAPS_H

#include <stdbool.h>
#include <stddef.h>

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
	unsigned long tgid;
	unsigned long app_cookie;	/* main binary, or OP_NO_COOKIE */
	bool exec_pending;	/* exec'ed: the next file VMA is the app */
	struct vma *vma;	/* sorted by start, non-overlapping */
	size_t nr;		/* VMAs in use */
	size_t cap;		/* VMAs allocated */
	size_t last;		/* index of the last hit: samples cluster */
	unsigned long exit_round;	/* 0: alive; else the round it exited */
	struct proc *next;	/* hash chain */
};

/* A process that exited, kept until pm_reap says it is old enough. */
struct pm_dead {
	unsigned long tgid;
	unsigned long round;
};

struct proc_table {
	struct proc **bucket;	/* chains by tgid */
	size_t mask;		/* buckets - 1 (power of two) */
	size_t nr;		/* processes */
	struct proc *cache;	/* last process found */
	struct pm_dead *dead;	/* exited, not yet dropped */
	size_t nr_dead;
	size_t cap_dead;
};

void pm_init(struct proc_table *pt);
void pm_free(struct proc_table *pt);

/* The process tgid, or NULL. */
struct proc *pm_find(struct proc_table *pt, unsigned long tgid);
/* The process tgid, created empty (app OP_NO_COOKIE) if unknown. */
struct proc *pm_get(struct proc_table *pt, unsigned long tgid);
/* Forget tgid and its maps. */
void pm_drop(struct proc_table *pt, unsigned long tgid);
/*
 * tgid exited in round (>= 1). A task still runs kernel code after its
 * EXIT record (exit_notify, the last schedule), so its last samples come
 * later: like the kernel driver's task mortuary, the process is kept
 * until pm_reap() is called with a round two later.
 */
void pm_exit(struct proc_table *pt, unsigned long tgid, unsigned long round);
/* Drop the processes that exited at least two rounds before round. */
void pm_reap(struct proc_table *pt, unsigned long round);
/* child becomes a copy of parent (empty if parent is unknown). Anonymous
 * cookies are not inherited: an anon cookie names its process. */
struct proc *pm_fork(struct proc_table *pt, unsigned long parent,
		     unsigned long child);
/* exec: drop every mapping; the next file mapping names the app. */
void pm_exec(struct proc *p);

/* Map [start, start + len) of the file or region name (length name_len).
 * Anonymous names ("//anon", "[vdso]", "", ...) make an anonymous VMA.
 * id: the file's device and inode when the record gives them (ino 0 if
 * not): a path that names another file than before gets a new cookie. */
void pm_map(struct proc_table *pt, struct cookie_table *ct, struct proc *p,
	    unsigned long start, unsigned long len, unsigned long pgoff,
	    char const *name, size_t name_len, struct ct_file_id id);

/* Is name (length len) an anonymous region rather than a file? */
bool pm_is_anon_name(char const *name, size_t len);

/* The VMA holding pc, or NULL. */
static inline struct vma *pm_lookup(struct proc *p, unsigned long pc)
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
unsigned long pm_vma_cookie(struct cookie_table *ct, struct proc *p,
			    struct vma *v);

/*
 * Seed every process from /proc (its executable mappings and its
 * /proc/PID/exe). Call after enabling the events and before processing
 * their records: seeded state is the base that records then update, so a
 * record always wins over /proc data that it follows in time. Returns the
 * number of processes seeded.
 */
size_t pm_seed_all(struct proc_table *pt, struct cookie_table *ct);
/* Seed one process; 0, or -errno if /proc/PID/maps could not be read. */
int pm_seed(struct proc_table *pt, struct cookie_table *ct, unsigned long pid);

#endif /* PROC_MAPS_H */
