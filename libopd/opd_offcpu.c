/*
 * Off-CPU sampling: the event and the samples waiting for their
 * switch-in; see opd_offcpu.h and doc/offcpu.md.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op_alloc.h"
#include "op_events.h"
#include "op_message.h"
#include "op_stream.h"
#include "opd_offcpu.h"
#include "opd_offcpu_bpf.h"
#include "opd_perf.h"
#include "perf_tracefs.h"

int opd_offcpu_event(struct perf_source_event *pe, uint64_t n)
{
	char dir[256], err[512];
	struct perf_tp_field f;
	uint64_t id;
	/* $OPROFILE_TRACEFS: tracefs mounted elsewhere (and for tests) */
	char const *env = getenv("OPROFILE_TRACEFS");
	enum ocb_mode mode;
	int rc = 0;

	if (opd_offcpu_bpf_mode(&mode)) {
		op_error("$OPROFILE_OFFCPU is \"%s\": it must be auto, bpf or perf",
			 getenv("OPROFILE_OFFCPU"));
		return -EINVAL;
	}
	if (!opd_offcpu_bpf_built()) {
		if (mode == OCB_BPF) {
			op_error("event %s: this build has no eBPF mechanism "
				 "(libbpf-dev and clang were missing at configure) "
				 "($OPROFILE_OFFCPU=bpf)", OP_EVENT_OFF_CPU);
			return -ENOTSUP;
		}
		mode = OCB_PERF;
	}
	if (mode == OCB_BPF) {
		/* no tracefs needed: the program attaches by BTF */
		memset(pe, 0, sizeof(*pe));
		pe->type = PERF_TYPE_SOFTWARE;
		pe->config = PERF_COUNT_SW_DUMMY;
		goto fill;
	}
	if (env && *env)
		snprintf(dir, sizeof(dir), "%s", env);
	else
		rc = perf_tracefs_dir(dir, sizeof(dir), geteuid() == 0);
	if (rc) {
		op_error("event %s needs tracefs, which is not mounted: run '%s'",
			 OP_EVENT_OFF_CPU, PERF_TRACEFS_HINT);
		return rc;
	}
	rc = perf_tracepoint(dir, "sched", "sched_switch", "prev_state", &id,
			     &f, err, sizeof(err));
	if (rc) {
		op_error("event %s needs the tracepoint sched:sched_switch "
			 "with its prev_state: %s", OP_EVENT_OFF_CPU, err);
		return rc;
	}
	memset(pe, 0, sizeof(*pe));
	pe->type = PERF_TYPE_TRACEPOINT;
	pe->config = id;
	pe->filter = OPD_OFFCPU_FILTER;
fill:
	pe->offcpu_mode = mode;
	pe->period = n;
	/* the tracepoint fires in the kernel; the user part of the stack
	 * is the callgraph's, as for any kernel sample */
	pe->kernel = true;
	pe->user = true;
	pe->off_cpu = true;
	pe->name = OP_EVENT_OFF_CPU;
	return 0;
}

static int wait_cmp(void const *data, struct op_hashmap_entry const *a,
		    struct op_hashmap_entry const *b, void const *key)
{
	(void)data;
	(void)key;
	return OP_HASHMAP_ENTRY(a, struct offcpu_wait, ent)->tid !=
	       OP_HASHMAP_ENTRY(b, struct offcpu_wait, ent)->tid;
}

void opd_offcpu_init(struct opd_offcpu *oc, size_t max_bytes)
{
	memset(oc, 0, sizeof(*oc));
	op_hashmap_init(&oc->waits, wait_cmp, NULL, 0);
	oc->max_bytes = max_bytes;
}

static void wait_free(struct op_hashmap_entry *e)
{
	free(OP_HASHMAP_ENTRY(e, struct offcpu_wait, ent));
}

void opd_offcpu_free(struct opd_offcpu *oc)
{
	op_hashmap_clear(&oc->waits, wait_free);
	oc->bytes = 0;
}

struct offcpu_wait *opd_offcpu_take(struct opd_offcpu *oc, uint32_t tid)
{
	struct offcpu_wait key = { .tid = tid };
	struct op_hashmap_entry *e;
	struct offcpu_wait *w;

	op_hashmap_entry_init(&key.ent, op_hash_u64(tid));
	e = op_hashmap_remove(&oc->waits, &key.ent, NULL);
	if (!e)
		return NULL;
	w = OP_HASHMAP_ENTRY(e, struct offcpu_wait, ent);
	oc->bytes -= w->size;
	return w;
}

struct offcpu_wait *opd_offcpu_take_any(struct opd_offcpu *oc)
{
	struct op_hashmap_iter it;
	struct op_hashmap_entry *e = op_hashmap_iter_first(&oc->waits, &it);

	return e ? opd_offcpu_take(oc, OP_HASHMAP_ENTRY(e, struct offcpu_wait,
							 ent)->tid) : NULL;
}

void opd_offcpu_out(struct opd_offcpu *oc, uint32_t tid, uint64_t time,
		    void const *rec, size_t size)
{
	struct offcpu_wait *w = opd_offcpu_take(oc, tid);

	if (w) {
		free(w);
		oc->dropped++;
	}
	if (size > oc->max_bytes - oc->bytes) {
		oc->dropped++;
		return;
	}
	w = op_xmalloc(sizeof(*w) + size);
	w->tid = tid;
	w->time = time;
	w->size = size;
	memcpy(w->rec, rec, size);
	op_hashmap_entry_init(&w->ent, op_hash_u64(tid));
	op_hashmap_add(&oc->waits, &w->ent);
	oc->bytes += size;
}

unsigned long opd_offcpu_weight(uint64_t out, uint64_t in, uint64_t period,
				uint64_t *carry_ns)
{
	uint64_t ns, us;

	if (in <= out || !period)
		return 0;
	ns = in - out;
	if (ns > UINT64_MAX / 2 / period)	/* years: saturates below */
		return OP_MAX_WEIGHT;
	ns = ns * period + *carry_ns;
	us = ns / 1000;
	*carry_ns = ns % 1000;
	return us > OP_MAX_WEIGHT ? OP_MAX_WEIGHT : (unsigned long)us;
}
