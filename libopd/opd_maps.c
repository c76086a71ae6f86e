/*
 * Process table and VMA arrays for the perf source; see opd_maps.h.
 * Mapping changes are rare next to samples, so opd_maps_map() may copy the
 * array; lookups (opd_maps_lookup) are the hot path and stay a binary search.
 * Nothing here reads /proc: opd_maps_seed.c does, on top of this file (it
 * seeds, re-reads and finds the processes gone), so the two never call
 * each other both ways.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "opd_cookie.h"
#include "op_stream.h"
#include "op_util.h"
#include "opd_vdso.h"
#include "opd_maps.h"
#include "opd_emit.h"

static int proc_cmp(void const *data, struct op_hashmap_entry const *a,
		    struct op_hashmap_entry const *b, void const *keydata)
{
	(void)data;
	(void)keydata;
	return OP_HASHMAP_ENTRY(a, struct proc, ent)->tgid !=
	       OP_HASHMAP_ENTRY(b, struct proc, ent)->tgid;
}

void opd_maps_init(struct proc_table *pt)
{
	op_hashmap_init(&pt->procs, proc_cmp, NULL, 256);
	pt->nr = 0;
	pt->cache = NULL;
	pt->dead = NULL;
	pt->nr_dead = 0;
	pt->cap_dead = 0;
	pt->proc_root = "/proc";
	pt->records_lost = false;
}

static void proc_free(struct proc *p)
{
	free(p->vma);
	free(p);
}

static void free_entry(struct op_hashmap_entry *e)
{
	proc_free(OP_HASHMAP_ENTRY(e, struct proc, ent));
}

void opd_maps_free(struct proc_table *pt)
{
	op_hashmap_clear(&pt->procs, free_entry);
	free(pt->dead);
	memset(pt, 0, sizeof(*pt));
}

struct proc *opd_maps_find(struct proc_table *pt, unsigned long tgid)
{
	struct proc key;
	struct op_hashmap_entry *e;

	if (pt->cache && pt->cache->tgid == tgid)
		return pt->cache;
	key.tgid = tgid;
	op_hashmap_entry_init(&key.ent, op_hash_u64(tgid));
	e = op_hashmap_get(&pt->procs, &key.ent, NULL);
	if (!e)
		return NULL;
	return pt->cache = OP_HASHMAP_ENTRY(e, struct proc, ent);
}

struct proc *opd_maps_get(struct proc_table *pt, unsigned long tgid)
{
	struct proc *p = opd_maps_find(pt, tgid);

	if (p)
		return p;
	p = op_xcalloc(1, sizeof(*p));
	p->tgid = tgid;
	p->app_cookie = OP_NO_COOKIE;
	op_hashmap_entry_init(&p->ent, op_hash_u64(tgid));
	op_hashmap_add(&pt->procs, &p->ent);
	pt->nr++;
	pt->cache = p;
	return p;
}

void opd_maps_drop(struct proc_table *pt, unsigned long tgid)
{
	struct proc *p = opd_maps_find(pt, tgid);

	if (!p)
		return;
	op_hashmap_remove(&pt->procs, &p->ent, NULL);
	if (pt->cache == p)
		pt->cache = NULL;
	proc_free(p);
	pt->nr--;
}

struct proc *opd_maps_fork(struct proc_table *pt, unsigned long parent,
		     unsigned long child)
{
	struct proc *c = opd_maps_get(pt, child);
	struct proc *p = opd_maps_find(pt, parent);

	c->nr = 0;
	c->last = 0;
	c->exec_pending = false;
	c->exit_round = 0;	/* a reused pid is a new process */
	c->reread_ns = 0;
	c->start_ticks = 0;	/* the FORK's handler records it */
	c->app_cookie = OP_NO_COOKIE;
	pt->cache = c;
	if (!p)
		return c;
	c->app_cookie = p->app_cookie;
	c->exec_pending = p->exec_pending;
	OP_ALLOC_GROW(c->vma, p->nr, c->cap);
	for (size_t i = 0; i < p->nr; i++) {
		c->vma[i] = p->vma[i];
		if (c->vma[i].flags & VMA_ANON)
			c->vma[i].cookie = OP_NO_COOKIE;
	}
	c->nr = p->nr;
	return c;
}

void opd_maps_exec(struct proc *p)
{
	p->nr = 0;
	p->last = 0;
	p->exec_pending = true;
}

void opd_maps_mark_exit(struct proc_table *pt, struct proc *p,
			unsigned long round)
{
	p->exit_round = round;
	OP_ALLOC_GROW(pt->dead, pt->nr_dead + 1, pt->cap_dead);
	pt->dead[pt->nr_dead].tgid = p->tgid;
	pt->dead[pt->nr_dead].round = round;
	pt->nr_dead++;
}

void opd_maps_exit(struct proc_table *pt, unsigned long tgid, unsigned long round)
{
	struct proc *p = opd_maps_find(pt, tgid);

	if (p)
		opd_maps_mark_exit(pt, p, round);
}

void opd_maps_records_lost(struct proc_table *pt)
{
	pt->records_lost = true;
}

/* p is gone: its sampled anonymous regions' cookies are never used again. */
static void forget_regions(struct proc const *p, struct stream_emit *se)
{
	for (size_t i = 0; i < p->nr; i++)
		if ((p->vma[i].flags & VMA_ANON) &&
		    p->vma[i].cookie != OP_NO_COOKIE)
			opd_emit_forget(se, p->vma[i].cookie);
}

void opd_maps_reap(struct proc_table *pt, unsigned long round,
	     struct stream_emit *se)
{
	size_t i, kept = 0;

	for (i = 0; i < pt->nr_dead; i++) {
		struct pm_dead d = pt->dead[i];
		struct proc *p;

		if (d.round + 2 > round) {
			pt->dead[kept++] = d;
			continue;
		}
		p = opd_maps_find(pt, d.tgid);
		/* not if the pid came back as a new process meanwhile */
		if (p && p->exit_round == d.round) {
			if (se)
				forget_regions(p, se);
			opd_maps_drop(pt, d.tgid);
		}
	}
	pt->nr_dead = kept;
}

void opd_maps_mark_cookies(struct proc_table *pt, struct cookie_table *ct)
{
	struct op_hashmap_iter it;
	struct op_hashmap_entry *e;

	for (e = op_hashmap_iter_first(&pt->procs, &it); e;
	     e = op_hashmap_iter_next(&it)) {
		struct proc const *p = OP_HASHMAP_ENTRY(e, struct proc, ent);

		opd_cookie_mark(ct, p->app_cookie);
		for (size_t i = 0; i < p->nr; i++) {
			opd_cookie_mark(ct, p->vma[i].cookie);
			if (p->vma[i].flags & VMA_ANON)
				opd_cookie_mark(ct, p->vma[i].name);
		}
	}
}

/* Paths of shared memory with no file behind it: sampled as anon regions. */
static bool is_pseudo_file(char const *name, size_t len)
{
	static char const *const prefixes[] = {
		"/memfd:", "/SYSV", "/dev/zero", "/anon_hugepage", "/dev/shm/",
	};
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t n = strlen(prefixes[i]);
		if (len >= n && !memcmp(name, prefixes[i], n))
			return true;
	}
	return false;
}

bool opd_maps_is_anon_name(char const *name, size_t len)
{
	return len == 0 || name[0] == '[' ||
	       (len >= 6 && !memcmp(name, "//anon", 6)) ||
	       is_pseudo_file(name, len);
}

/* Room for n more VMAs. */
static void reserve(struct proc *p, size_t n)
{
	OP_ALLOC_GROW(p->vma, p->nr + n, p->cap);
}

/*
 * Put v in p's array, cutting away the parts of older VMAs it overlaps.
 * The common cases (appending, no overlap) just move memory; only a real
 * overlap rebuilds the array.
 */
static void insert_vma(struct proc *p, struct vma const *v)
{
	size_t i, first, n = p->nr;
	struct vma *old;

	for (first = 0; first < n && p->vma[first].end <= v->start; first++)
		;
	if (first == n || p->vma[first].start >= v->end) {
		reserve(p, 1);
		memmove(&p->vma[first + 1], &p->vma[first],
			(n - first) * sizeof(*v));
		p->vma[first] = *v;
		p->nr++;
		return;
	}
	old = op_xmalloc(n * sizeof(*old));
	memcpy(old, p->vma, n * sizeof(*old));
	p->nr = first;
	reserve(p, n - first + 2);
	for (i = first; i < n && old[i].start < v->end; i++) {
		if (old[i].start < v->start) {
			struct vma left = old[i];

			left.end = v->start;
			p->vma[p->nr++] = left;
		}
	}
	p->vma[p->nr++] = *v;
	/* the last overlapped VMA may stick out past v's end */
	if (i > first && old[i - 1].end > v->end) {
		struct vma right = old[i - 1];

		right.pgoff += v->end - right.start;
		right.start = v->end;
		p->vma[p->nr++] = right;
	}
	for (; i < n; i++)
		p->vma[p->nr++] = old[i];
	free(old);
	p->last = 0;
}

void opd_maps_map(struct proc_table *pt, struct cookie_table *ct, struct proc *p,
	    unsigned long start, unsigned long len, unsigned long pgoff,
	    char const *name, size_t name_len, struct ct_file_id id)
{
	struct vma v = { .start = start, .end = start + len };

	(void)pt;
	if (!len || v.end < start)
		return;
	if (name_len == strlen(OPD_VDSO_REGION) &&
	    !memcmp(name, OPD_VDSO_REGION, name_len) &&
	    opd_vdso_is(OPD_VDSO_REGION, v.start, v.end)) {
		/* this boot's vDSO: one cookie for all processes, as the
		 * core makes it one image (opd_vdso.h) */
		v.cookie = opd_cookie_intern(ct, name, name_len);
		insert_vma(p, &v);
		return;
	}
	if (opd_maps_is_anon_name(name, name_len)) {
		if (!name_len) {
			name = "//anon";
			name_len = 6;
		}
		v.flags = VMA_ANON;
		v.name = opd_cookie_intern(ct, name, name_len);
		v.pgoff = 0;
		v.cookie = OP_NO_COOKIE;
	} else {
		v.pgoff = pgoff;
		v.cookie = opd_cookie_intern_file(ct, name, name_len, id);
		if (p->exec_pending) {
			p->app_cookie = v.cookie;
			p->exec_pending = false;
		}
	}
	insert_vma(p, &v);
}

unsigned long opd_maps_vma_cookie(struct cookie_table *ct, struct proc *p,
			    struct vma *v)
{
	struct cookie_entry *name;

	if (v->cookie != OP_NO_COOKIE)
		return v->cookie;
	name = opd_cookie_get(ct, v->name);
	/* The region's definition spans the whole VMA as first seen;
	 * pgoff keeps offsets relative to that start after splits. */
	v->cookie = opd_cookie_new_anon(ct, p->tgid, v->start - v->pgoff, v->end,
				name ? name->name : "//anon");
	return v->cookie;
}

static int vma_ends_by(void const *vma, void const *addr)
{
	return ((struct vma const *)vma)->end <= *(unsigned long const *)addr;
}

/* Index of the first VMA of p that ends after addr (p->nr if none). */
static size_t first_ending_after(struct proc const *p, unsigned long addr)
{
	return op_partition_point(p->vma, p->nr, sizeof(p->vma[0]),
				  vma_ends_by, &addr);
}

void opd_maps_map_gaps(struct proc_table *pt, struct cookie_table *ct,
		 struct proc *p, unsigned long start, unsigned long len,
		 unsigned long pgoff, char const *name, size_t name_len,
		 struct ct_file_id id)
{
	unsigned long at = start, end = start + len;

	if (!len || end < start)
		return;
	while (at < end) {
		size_t i = first_ending_after(p, at);
		unsigned long stop = end;

		if (i < p->nr && p->vma[i].start <= at) {
			at = p->vma[i].end;	/* covered: skip it */
			continue;
		}
		if (i < p->nr && p->vma[i].start < end)
			stop = p->vma[i].start;
		/* opd_maps_map inserts before vma[i]: look again from stop */
		opd_maps_map(pt, ct, p, at, stop - at, pgoff + (at - start), name,
		       name_len, id);
		at = stop;
	}
}
