/*
 * Turning perf records into the stream: samples become cookie/offset (or
 * raw kernel pc) pairs behind the switches they need; MMAP2, COMM(exec),
 * FORK and EXIT keep the process maps current; LOST becomes lost counts.
 * Records arrive here in time order (see opd_perf.c).
 *
 * Lost side-band records: when a ring overflows, perf drops whatever
 * records do not fit, MMAP2, COMM(exec) and FORK included, and every
 * later sample of that process in the missing mapping would be lost
 * (sample_lost_no_mapping, or sample_lost_no_mm for a process we never
 * saw) for the rest of its life. So a sample's user pc that resolves in
 * no known mapping makes us re-read /proc/PID/maps once (opd_maps_refresh) and
 * try again. A frame-pointer walk's frames do not ask for re-reads: a
 * walk through code built without frame pointers yields junk return
 * addresses in no mapping all the time. A CFI-unwound frame does (once
 * per walk, find_map): its return address is sure, and a lost mapping
 * of callers only (libc's __libc_start_call_main under a program's own
 * loop) would get no sample to recover it. /proc shows the
 * present, which is newer than the sample (by the ordering slack and
 * whatever is still queued), so:
 *  - a re-read is skipped when a record queued after the sample changes
 *    the process's identity or image (exec, exit, a fork creating the
 *    pid): /proc would describe the later image, not the sample's;
 *  - a re-read only fills address ranges that no known VMA covers, and
 *    replaces known VMAs only when /proc/PID/exe shows that the process
 *    runs another image than the records say (its exec record was
 *    lost): records win over /proc wherever they say something, and
 *    records still queued are applied on top of it in order;
 *  - what remains wrong is a mapping both lost and replaced (unmapped,
 *    another file mapped at its address) between the sample and the
 *    re-read, or an exec recorded in a ring but not drained yet: the
 *    sample is then attributed to the present mapping.
 * Re-reads are not limited to runs that saw LOST records: each cpu's
 * ring loses records on its own and reports it (PERF_RECORD_LOST) only
 * once it has room again, so a sample on another cpu can need a lost
 * mapping before any loss is known. Instead struct pm_reread bounds them:
 * one per process per PERF_SOURCE_REREAD_MS, PERF_SOURCE_REREAD_MAX_PER_S
 * in all, none for pids known to be gone. A sample that resolves needs
 * none of this: the fast path is unchanged. Re-reads are counted in-band
 * (ESC COUNT: maps_reread, maps_reread_hit, maps_reread_gone).
 *
 * Layouts follow from the attributes opd_perf.c sets: sample_type
 * IDENTIFIER|IP|TID|TIME|CPU[|CALLCHAIN] and sample_id_all, so
 *	sample:   header, id, ip, pid/tid, time, cpu/res[, nr, ips[nr]]
 *	others:   header, body..., pid/tid, time, cpu/res, id   (trailer)
 */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "op_bytes.h"
#include "op_stacks.h"
#include "op_stream.h"
#include "op_util.h"
#include "opd_perf_int.h"

#define HDR sizeof(struct perf_event_header)
#define TRAILER 32	/* pid/tid, time, cpu/res, identifier */

/* a record's field at byte offset off (records are copied unaligned) */
static inline uint64_t rd64(void const *rec, size_t off)
{
	return op_get64((unsigned char const *)rec + off);
}

static inline uint32_t rd32(void const *rec, size_t off)
{
	return op_get32((unsigned char const *)rec + off);
}

static inline struct perf_event_header hdr(void const *rec)
{
	struct perf_event_header h;

	memcpy(&h, rec, sizeof(h));
	return h;
}

uint64_t opd_perf_record_time(void const *rec)
{
	struct perf_event_header h = hdr(rec);

	if (h.type == PERF_RECORD_SAMPLE)
		return h.size >= HDR + 32 ? rd64(rec, HDR + 24) : 0;
	/* a record too short for its trailer is processed at once (as bad) */
	return h.size >= HDR + TRAILER ? rd64(rec, h.size - 24) : 0;
}

/*
 * perf_ring's stack_of for our samples (see emit_unwound for the layout):
 * read from the ring in place, only the words that locate the stack copy.
 * A sample the layout does not fit is copied whole and judged later.
 */
bool opd_perf_stack_of(struct perf_ring const *r, uint64_t pos, size_t size,
		 struct perf_ring_stack *s)
{
	struct perf_event_header h;
	uint64_t nr, abi, off;

	perf_ring_read(r, pos, &h, sizeof(h));
	if (h.type != PERF_RECORD_SAMPLE || size < HDR + 48)
		return false;
	perf_ring_read(r, pos + HDR + 40, &nr, 8);
	if (nr > (size - HDR - 48) / 8)
		return false;
	off = HDR + 48 + nr * 8;
	if (size - off < 8)
		return false;
	perf_ring_read(r, pos + off, &abi, 8);
	if (abi == PERF_SAMPLE_REGS_ABI_NONE)
		return false;
	off += 8 + PS_NR_REGS_USER * 8;
	if (size < off + 8)
		return false;
	perf_ring_read(r, pos + off, &s->len, 8);
	off += 8;
	/* the dyn_size word must end the record: nothing follows it */
	if (size - off < 8 || !s->len || s->len != size - off - 8)
		return false;
	perf_ring_read(r, pos + off + s->len, &s->dyn, 8);
	s->data_off = off;
	return true;
}

static bool find_event(struct perf_source *ps, uint64_t id,
		       unsigned long *event)
{
	size_t lo = 0, hi = ps->nr_ids;

	if (ps->last_id < ps->nr_ids && ps->ids[ps->last_id].id == id) {
		*event = ps->ids[ps->last_id].event;
		return true;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ps->ids[mid].id < id)
			lo = mid + 1;
		else if (ps->ids[mid].id > id)
			hi = mid;
		else {
			ps->last_id = mid;
			*event = ps->ids[mid].event;
			return true;
		}
	}
	return false;
}

static bool is_kernel_mode(uint16_t misc)
{
	switch (misc & PERF_RECORD_MISC_CPUMODE_MASK) {
	case PERF_RECORD_MISC_KERNEL:
	case PERF_RECORD_MISC_HYPERVISOR:
	case PERF_RECORD_MISC_GUEST_KERNEL:
		return true;
	default:
		return false;
	}
}

/* Resolve a user pc of p: its cookie and offset; false if unmapped. */
static bool resolve_user(struct perf_source *ps, struct proc *p,
			 uint64_t pc, unsigned long *cookie,
			 unsigned long *offset)
{
	struct vma *v = p ? opd_maps_lookup(p, pc) : NULL;

	if (!v)
		return false;
	*cookie = opd_maps_vma_cookie(&ps->cookies, p, v);
	*offset = pc - v->start + v->pgoff;
	return true;
}

bool opd_perf_image_changes(struct perf_queue const *q, uint32_t pid,
		      uint64_t time)
{
	for (size_t i = 0; i < q->nr; i++) {
		void const *rec;
		struct perf_event_header h;

		if (q->ent[i].time <= time)
			continue;
		rec = perf_queue_record(q, i);
		h = hdr(rec);
		if (h.size < HDR + TRAILER || rd32(rec, HDR) != pid)
			continue;
		switch (h.type) {
		case PERF_RECORD_COMM:	/* pid, tid: an exec of the leader */
			if ((h.misc & PERF_RECORD_MISC_COMM_EXEC) &&
			    rd32(rec, HDR + 4) == pid)
				return true;
			break;
		case PERF_RECORD_FORK:	/* pid, ppid, tid, ptid */
			if (rd32(rec, HDR + 4) != pid)
				return true;	/* a new process */
			break;
		case PERF_RECORD_EXIT:
			if (rd32(rec, HDR + 8) == pid)
				return true;	/* the whole process */
			break;
		default:
			break;
		}
	}
	return false;
}

/*
 * A user pc of pid at time resolved in no mapping (*p: its process, NULL
 * if unknown): re-read its maps if the limits allow and it can help (see
 * the top of this file). True if re-read; *p is then its process.
 */
static bool reread_maps(struct perf_source *ps, uint32_t pid, uint64_t time,
			struct proc **p)
{
	int how;

	if (!pid || !opd_maps_reread_may(&ps->reread, *p, pid, ps->now))
		return false;
	if (opd_perf_image_changes(&ps->q, pid, time))
		return false;
	how = opd_maps_refresh(&ps->procs, &ps->cookies, pid);
	if (how < 0) {
		opd_maps_reread_gone(&ps->reread, pid, ps->now);
		ps->count[OP_COUNT_MAPS_REREAD_GONE]++;
		return false;
	}
	ps->count[OP_COUNT_MAPS_REREAD]++;
	*p = opd_maps_find(&ps->procs, pid);
	(*p)->reread_ns = ps->now;
	return true;
}

/*
 * resolve_user failed for pc of pid at time (p: its process or NULL):
 * re-read the maps if allowed and try once more. Out of line and cold:
 * the sample path calls it only after a miss. The process may be
 * another struct proc afterwards: callers look it up again.
 */
static __attribute__((noinline, cold)) bool
reread_resolve(struct perf_source *ps, uint32_t pid, uint64_t time,
	       struct proc *p, uint64_t pc, unsigned long *cookie,
	       unsigned long *offset)
{
	if (!reread_maps(ps, pid, time, &p) ||
	    !resolve_user(ps, p, pc, cookie, offset))
		return false;
	ps->count[OP_COUNT_MAPS_REREAD_HIT]++;
	return true;
}

/*
 * The backtrace after the sample pair: (pc, 0) per frame, caller after
 * callee, switching mode at the PERF_CONTEXT_* markers and cookie as
 * frames move between binaries. The first frame repeats the sample's ip.
 */
static unsigned emit_callchain(struct perf_source *ps, struct proc *p,
			       uint64_t ip, void const *rec, size_t size)
{
	struct stream_emit *se = &ps->em;
	uint64_t nr = rd64(rec, HDR + 40);
	bool kernel = true, skipped_ip = false;
	unsigned frames = 0;
	uint64_t i;

	if (nr > (size - HDR - 48) / 8)
		nr = (size - HDR - 48) / 8;
	for (i = 0; i < nr && frames < ps->depth; i++) {
		uint64_t pc = rd64(rec, HDR + 48 + i * 8);
		unsigned long cookie, offset;

		if (pc >= (uint64_t)PERF_CONTEXT_MAX) {
			if (pc == (uint64_t)PERF_CONTEXT_KERNEL)
				kernel = true;
			else if (pc == (uint64_t)PERF_CONTEXT_USER)
				kernel = false;
			else	/* guest or hv frames: not ours */
				return OP_UNWIND_FP_CHAIN_END;
			continue;
		}
		if (!skipped_ip) {
			skipped_ip = true;
			if (pc == ip)
				continue;
		}
		if (kernel) {
			opd_emit_mode(se, true);
			opd_emit_pair(se, pc, 0);
		} else if (resolve_user(ps, p, pc, &cookie, &offset)) {
			opd_emit_mode(se, false);
			opd_emit_cookie(se, cookie);
			opd_emit_pair(se, offset, 0);
		} else {
			ps->lost[OP_LOST_BT_NO_MAPPING]++;
			return OP_UNWIND_NO_MAPPING;
		}
		frames++;
	}
	return i < nr ? OP_UNWIND_DEPTH_LIMIT : OP_UNWIND_FP_CHAIN_END;
}

/* ESC UNWIND_STOP: the trace ends, and why. */
static void emit_unwind_stop(struct perf_source *ps, unsigned reason)
{
	struct op_stream_out o = opd_emit_out(&ps->em, OP_WORDS_UNWIND_STOP);

	op_put_unwind_stop(&o, reason);
	opd_emit_commit(&ps->em, &o);
}

/* --- user stacks unwound with CFI (opd_unwind.h) --- */

struct map_ctx {
	struct perf_source *ps;
	struct proc *p;
	uint32_t pid;
	uint64_t time;
	bool reread;		/* this walk asked for a re-read already */
};

/*
 * The mapping of a CFI-unwound frame. Unlike a frame-pointer walk's, its
 * return address is no guess: a miss is a mapping whose record was lost
 * (libc's, say, while the program's own arrived), and no sample may ever
 * land in it to recover it (a program that never leaves its own code),
 * so every stack would stop there (no_mapping). One re-read per walk,
 * under the same limits as a sample's.
 */
static bool find_map(void *arg, uint64_t pc, struct unwind_map *m)
{
	struct map_ctx *c = arg;
	struct vma *v = c->p ? opd_maps_lookup(c->p, pc) : NULL;
	struct cookie_entry *e;

	if (!v && !c->reread) {
		c->reread = true;
		if (reread_maps(c->ps, c->pid, c->time, &c->p)) {
			v = opd_maps_lookup(c->p, pc);
			if (v)
				c->ps->count[OP_COUNT_MAPS_REREAD_HIT]++;
		}
	}
	if (!v)
		return false;
	m->start = v->start;
	m->pgoff = v->pgoff;
	m->key = 0;		/* every anonymous region: no CFI */
	m->path = NULL;
	if (!(v->flags & VMA_ANON) && (e = opd_cookie_get(&c->ps->cookies, v->cookie)) &&
	    e->kind == CT_FILE) {
		m->key = v->cookie;
		m->path = e->name;
	}
	return true;
}

/* The kernel part of the callchain (the user part is not asked for);
 * the number of frames written. */
static unsigned emit_kernel_chain(struct perf_source *ps, uint64_t ip,
				  void const *rec, uint64_t nr)
{
	unsigned frames = 0;
	bool first = true;

	for (uint64_t i = 0; i < nr && frames < ps->depth; i++) {
		uint64_t pc = rd64(rec, HDR + 48 + i * 8);

		if (pc >= (uint64_t)PERF_CONTEXT_MAX) {
			if (pc != (uint64_t)PERF_CONTEXT_KERNEL)
				break;
			continue;
		}
		if (first) {
			first = false;
			if (pc == ip)
				continue;
		}
		opd_emit_mode(&ps->em, true);
		opd_emit_pair(&ps->em, pc, 0);
		frames++;
	}
	return frames;
}

/*
 * The backtrace of a sample with a user stack copy: the kernel frames of
 * the callchain, then the user frames unwound with CFI from the user
 * registers (for a kernel sample, its first user frame is where the task
 * entered the kernel). Returns why it stopped.
 */
static unsigned emit_unwound(struct perf_source *ps, struct proc *p,
			     uint64_t ip, bool kernel, void const *rec,
			     size_t size)
{
	uint64_t nr = rd64(rec, HDR + 40), off, abi, len;
	struct unwind_regs regs;
	struct unwind_stack stk;
	struct map_ctx ctx = {
		.ps = ps, .p = p, .pid = rd32(rec, HDR + 16),
		.time = rd64(rec, HDR + 24),
	};
	unsigned frames, n, first, reason;

	if (nr > (size - HDR - 48) / 8)
		return OP_UNWIND_BAD_FRAME;
	frames = emit_kernel_chain(ps, ip, rec, nr);
	if (frames >= ps->depth)
		return OP_UNWIND_DEPTH_LIMIT;
	off = HDR + 48 + nr * 8;
	if (size - off < 8)
		return OP_UNWIND_BAD_FRAME;
	abi = rd64(rec, off);
	off += 8;
	if (abi == PERF_SAMPLE_REGS_ABI_NONE)	/* a kernel thread */
		return kernel ? OP_UNWIND_ROOT : OP_UNWIND_NO_STACK_COPY;
	if (size - off < PS_NR_REGS_USER * 8 + 8)
		return OP_UNWIND_BAD_FRAME;
	regs.bp = rd64(rec, off);
	regs.sp = rd64(rec, off + 8);
	regs.ip = rd64(rec, off + 16);
	off += PS_NR_REGS_USER * 8;
	len = rd64(rec, off);
	off += 8;
	if (!len || len > size - off || size - off - len < 8)
		return OP_UNWIND_NO_STACK_COPY;
	stk.sp = regs.sp;
	stk.data = (unsigned char const *)rec + off;
	stk.size = rd64(rec, off + len);	/* dyn_size: what was copied */
	if (stk.size > len)
		stk.size = len;
	if (!p)
		return OP_UNWIND_NO_MAPPING;
	/* a user sample's first pc is the sample itself */
	first = kernel ? 0 : 1;
	reason = opd_unwind_user(ps->unw, &regs, &stk, find_map, &ctx, ps->pcs,
			     ps->depth - frames + first, &n);
	p = ctx.p;		/* a re-read may have made it another */
	for (unsigned i = first; i < n; i++) {
		unsigned long cookie, offset;

		if (!resolve_user(ps, p, ps->pcs[i], &cookie, &offset)) {
			ps->lost[OP_LOST_BT_NO_MAPPING]++;
			return OP_UNWIND_NO_MAPPING;
		}
		opd_emit_mode(&ps->em, false);
		opd_emit_cookie(&ps->em, cookie);
		opd_emit_pair(&ps->em, offset, 0);
	}
	return reason;
}

/* The backtrace words and why it ends (timed for doc/perf_source.md when
 * $OPROFILE_UNWIND_STATS is set). */
static void emit_backtrace(struct perf_source *ps, struct proc *p,
			   uint64_t ip, bool kernel, void const *rec,
			   size_t size)
{
	uint64_t t0 = ps->time_unwind ? op_monotonic_ns() : 0;
	size_t len = ps->out.len;
	unsigned reason = ps->stack_size ?
		emit_unwound(ps, p, ip, kernel, rec, size) :
		emit_callchain(ps, p, ip, rec, size);

	if (ps->time_unwind) {
		ps->unwind_ns += op_monotonic_ns() - t0;
		ps->unwind_samples++;
		ps->unwind_frames += (ps->out.len - len) / 2;
	}
	emit_unwind_stop(ps, reason);
}

/* Write a sample of event to the stream, counting weight (0: no ESC
 * WEIGHT, it counts 1). */
static void write_sample(struct perf_source *ps, void const *rec,
			 struct perf_event_header h, unsigned long event,
			 unsigned long weight, uint64_t time)
{
	uint64_t ip = rd64(rec, HDR + 8);
	uint32_t pid = rd32(rec, HDR + 16), tid = rd32(rec, HDR + 20);
	uint32_t cpu = rd32(rec, HDR + 32);
	bool kernel = is_kernel_mode(h.misc);
	unsigned long cookie = OP_NO_COOKIE, pc = ip;
	struct proc *p;

	p = opd_maps_find(&ps->procs, pid);
	if (!kernel && !resolve_user(ps, p, ip, &cookie, &pc)) {
		bool ok = reread_resolve(ps, pid, time, p, ip, &cookie, &pc);

		p = opd_maps_find(&ps->procs, pid);
		if (!ok) {
			ps->lost[p ? OP_LOST_NO_MAPPING : OP_LOST_NO_MM]++;
			return;
		}
	}
	/* ESC TIME (CLOCK_MONOTONIC: opd_perf.c's clockid), when due */
	opd_emit_time(&ps->em, (unsigned long)time);
	opd_emit_cpu(&ps->em, cpu);
	opd_emit_task(&ps->em, tid, pid, p ? p->app_cookie : OP_NO_COOKIE);
	if (weight)
		opd_emit_weight(&ps->em, weight);
	if (ps->depth)
		opd_emit_escape(&ps->em, OP_CODE_TRACE_BEGIN);
	opd_emit_mode(&ps->em, kernel);
	if (!kernel)
		opd_emit_cookie(&ps->em, cookie);
	opd_emit_pair(&ps->em, pc, event);
	if (ps->depth)
		emit_backtrace(ps, p, ip, kernel, rec, h.size);
	ps->stats.samples++;
	if (kernel)
		ps->stats.kernel_samples++;
	else
		ps->stats.user_samples++;
}

static void handle_sample(struct perf_source *ps, void const *rec,
			  struct perf_event_header h)
{
	unsigned long event;

	if (h.size < HDR + 40 || (ps->depth && h.size < HDR + 48) ||
	    !find_event(ps, rd64(rec, HDR), &event)) {
		ps->stats.bad++;
		return;
	}
	if (event < ps->nr_events && ps->events[event].off_cpu) {
		/* written at the thread's switch-in, weighted by the wait */
		uint64_t dropped = ps->offcpu.dropped;

		ps->stats.offcpu_out++;
		opd_offcpu_out(&ps->offcpu, rd32(rec, HDR + 20),
			       rd64(rec, HDR + 24), rec, h.size);
		ps->lost[OP_LOST_OFFCPU] += ps->offcpu.dropped - dropped;
		ps->stats.offcpu_dropped += ps->offcpu.dropped - dropped;
		return;
	}
	write_sample(ps, rec, h, event, 0, rd64(rec, HDR + 24));
}

/* An off-CPU sample whose thread came back at time in: written now,
 * weighted by its time off (opd_offcpu.h). */
static void write_offcpu(struct perf_source *ps, struct offcpu_wait *w,
			 uint64_t in)
{
	struct perf_event_header h = hdr(w->rec);
	unsigned long event;
	unsigned long weight;

	if (!find_event(ps, rd64(w->rec, HDR), &event))
		return;
	weight = opd_offcpu_weight(w->time, in, ps->events[event].period,
				   &ps->offcpu_carry_ns);
	if (weight)
		write_sample(ps, w->rec, h, event, weight, in);
}

/*
 * SWITCH (per task) and SWITCH_CPU_WIDE: the trailer's tid is the thread
 * that ran when it was written, which for a switch-in is the thread
 * coming in. Its waiting off-CPU sample, if any, is complete.
 */
static void handle_switch(struct perf_source *ps, void const *rec,
			  struct perf_event_header h)
{
	struct offcpu_wait *w;

	if (h.misc & PERF_RECORD_MISC_SWITCH_OUT)
		return;
	w = opd_offcpu_take(&ps->offcpu, rd32(rec, h.size - TRAILER + 4));
	if (!w)
		return;
	ps->stats.offcpu_in++;
	write_offcpu(ps, w, opd_perf_record_time(rec));
	free(w);
}

void opd_perf_offcpu_end(struct perf_source *ps, uint64_t now)
{
	struct offcpu_wait *w;

	while ((w = opd_offcpu_take_any(&ps->offcpu))) {
		ps->stats.offcpu_open++;
		write_offcpu(ps, w, now > w->time ? now : w->time);
		free(w);
	}
}

/* MMAP (filename at 40) and MMAP2 (at 72): pid, tid, addr, len, pgoff;
 * MMAP2 then maj, min, ino, or with PERF_RECORD_MISC_MMAP_BUILD_ID
 * (attr.build_id, Linux 5.12) build_id_size (u8), 3 bytes of padding and
 * 20 bytes of build-id: the file's identity either way (opd_cookie.h). */
static void handle_mmap(struct perf_source *ps, void const *rec,
			struct perf_event_header h)
{
	size_t name_at = h.type == PERF_RECORD_MMAP2 ? HDR + 64 : HDR + 32;
	uint32_t pid = rd32(rec, HDR);
	char const *name = (char const *)rec + name_at;
	struct ct_file_id id = { 0 };
	size_t len;

	if (h.size < name_at + TRAILER) {
		ps->stats.bad++;
		return;
	}
	ps->stats.mmaps++;
	if (pid == (uint32_t)-1)
		return;		/* kernel maps: the daemon uses kallsyms */
	len = strnlen(name, h.size - TRAILER - name_at);
	if (h.type == PERF_RECORD_MMAP2 &&
	    (h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
		uint8_t n = *((uint8_t const *)rec + HDR + 32);

		if (n > OP_MAX_BUILD_ID) {
			ps->stats.bad++;
			return;
		}
		id.build_id_len = n;
		memcpy(id.build_id, (uint8_t const *)rec + HDR + 36, n);
	} else if (h.type == PERF_RECORD_MMAP2) {
		id.dev = (uint64_t)rd32(rec, HDR + 32) << 32 | rd32(rec, HDR + 36);
		id.ino = rd64(rec, HDR + 40);
	}
	opd_maps_map(&ps->procs, &ps->cookies, opd_maps_get(&ps->procs, pid),
	       rd64(rec, HDR + 8), rd64(rec, HDR + 16), rd64(rec, HDR + 24),
	       name, len, id);
}

static void handle_comm(struct perf_source *ps, void const *rec,
			struct perf_event_header h)
{
	uint32_t pid = rd32(rec, HDR), tid = rd32(rec, HDR + 4);

	ps->stats.comms++;
	/* an exec replaces the whole process image; the thread that
	 * exec'ed has become the leader, so pid == tid */
	if (!(h.misc & PERF_RECORD_MISC_COMM_EXEC) || pid != tid)
		return;
	ps->stats.execs++;
	opd_maps_exec(opd_maps_get(&ps->procs, pid));
}

/* FORK and EXIT: pid, ppid, tid, ptid. Threads share their process. */
static void handle_task(struct perf_source *ps, void const *rec,
			struct perf_event_header h)
{
	uint32_t pid = rd32(rec, HDR), ppid = rd32(rec, HDR + 4);
	uint32_t tid = rd32(rec, HDR + 8);

	if (h.type == PERF_RECORD_FORK) {
		if (pid == ppid)
			return;
		ps->stats.forks++;
		/* its start time, as /proc will show it: the pid-reuse
		 * guard of opd_maps_exit_gone, without reading /proc per fork */
		opd_maps_fork(&ps->procs, ppid, pid)->start_ticks =
			opd_maps_ticks_at(opd_perf_record_time(rec));
	} else {
		/* a thread that exits while its off-CPU sample waits: its
		 * switch-in record was lost */
		struct offcpu_wait *w = opd_offcpu_take(&ps->offcpu, tid);

		if (w) {
			ps->lost[OP_LOST_OFFCPU]++;
			free(w);
		}
		if (pid != tid)
			return;
		ps->stats.exits++;
		opd_maps_exit(&ps->procs, pid, (unsigned long)ps->stats.rounds + 1);
	}
}

void opd_perf_handle_record(struct perf_source *ps, void const *rec)
{
	struct perf_event_header h = hdr(rec);

	if (h.type != PERF_RECORD_SAMPLE && h.size < HDR + TRAILER) {
		ps->stats.bad++;
		return;
	}
	switch (h.type) {
	case PERF_RECORD_SAMPLE:
		handle_sample(ps, rec, h);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		handle_mmap(ps, rec, h);
		break;
	case PERF_RECORD_COMM:
		handle_comm(ps, rec, h);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		handle_task(ps, rec, h);
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		handle_switch(ps, rec, h);
		break;
	case PERF_RECORD_LOST:
		ps->lost[OP_LOST_OVERFLOW] += rd64(rec, HDR + 8);
		/* EXIT records may be among them: the next sweep looks */
		opd_maps_records_lost(&ps->procs);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		ps->lost[OP_LOST_OVERFLOW] += rd64(rec, HDR);
		break;
	case PERF_RECORD_THROTTLE:
		ps->stats.throttles++;
		break;
	case PERF_RECORD_UNTHROTTLE:
		ps->stats.unthrottles++;
		break;
	default:
		ps->stats.ignored++;
		break;
	}
}

void opd_perf_emit_counts(struct perf_source *ps)
{
	/* what the unwinder counted (opd_unwind.h) */
	if (ps->unw) {
		struct unwind_taken t;

		opd_unwind_cache_take(ps->unw, &t);
		ps->count[OP_COUNT_UNWIND_BINARIES_EVICTED] += t.binaries_evicted;
		ps->count[OP_COUNT_UNWIND_RULES_FLUSHED] += t.rules_flushed;
		/* the unwinder's own no_mapping stops cut backtraces too */
		ps->lost[OP_LOST_BT_NO_MAPPING] += t.no_mapping;
	}
	for (unsigned c = 1; c < OP_LOST_CATEGORY_MAX; c++) {
		if (!ps->lost[c])
			continue;
		opd_emit_lost(&ps->em, c, ps->lost[c]);
		ps->stats.lost[c] += ps->lost[c];
		ps->lost[c] = 0;
	}
	for (unsigned c = 1; c < OP_COUNT_MAX; c++) {
		if (!ps->count[c])
			continue;
		opd_emit_count(&ps->em, c, ps->count[c]);
		ps->stats.count[c] += ps->count[c];
		ps->count[c] = 0;
	}
}
