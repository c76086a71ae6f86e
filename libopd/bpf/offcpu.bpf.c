/*
 * The OFF_CPU eBPF program (doc/offcpu.md): at each switch, a recorded
 * thread coming in gets its switch-in record; a thread leaving blocked is
 * recorded with probability 1/period. Unrecorded switches cost a state
 * check and one hash lookup. Built with clang -target bpf; CO-RE: the few
 * kernel fields used are declared here, relocated against the kernel's
 * BTF at load.
 */
#define OCB_BPF_SIDE
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "../opd_offcpu_bpf.h"

struct pt_regs {
	unsigned long bp;
	unsigned long sp;
	unsigned long ip;
	unsigned long cs;
} __attribute__((preserve_access_index));

struct task_struct {
	int pid;
	int tgid;
	struct task_struct *real_parent;
} __attribute__((preserve_access_index));

/* set before load (.rodata, its only variable) */
const volatile struct ocb_conf conf = { .period = 1 };
/* set and read by userspace while loaded (.bss, its only variable) */
volatile struct ocb_state state;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 32 << 20);
} rb SEC(".maps");

/* recorded threads waiting to come back: tid -> switch-out time. LRU:
 * a thread that dies off the cpu never comes back, and its entry must
 * not fill the map (userspace counts its sample lost at its EXIT) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, unsigned int);
	__type(value, unsigned long long);
} waits SEC(".maps");

/* the processes followed (operf CMD): tgid -> OCB_FOLLOW, or
 * OCB_FOLLOW_AT_EXEC until it execs */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, unsigned int);
	__type(value, unsigned char);
} tgids SEC(".maps");

/* Raw task states: S D T t P (TASK_IDLE has D's bit). Not a dying
 * thread's last switch (TASK_DEAD 0x80, EXIT_*), not preemption. */
#define BLOCKED_STATES 0x4f

static __always_inline void switch_in(struct task_struct *next,
				      unsigned long long now)
{
	unsigned int tid = next->pid;
	struct ocb_head *r;

	if (!tid || !bpf_map_lookup_elem(&waits, &tid))
		return;
	bpf_map_delete_elem(&waits, &tid);
	r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		__sync_fetch_and_add(&state.lost, 1);
		return;
	}
	r->type = OCB_IN;
	r->cpu = bpf_get_smp_processor_id();
	r->pid = next->tgid;
	r->tid = tid;
	r->time = now;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

static __always_inline void copy_pages(struct ocb_out *r, unsigned int n)
{
	unsigned int off = 0, chunk = 4096 - (r->sp & 4095);

	for (int i = 0; i < OCB_STACK_MAX / 4096 + 1; i++) {
		if (chunk > n - off)
			chunk = n - off;
		if (off > OCB_STACK_MAX - 4096 || chunk > 4096 || !chunk)
			break;
		if (bpf_probe_read_user(r->stack + off, chunk,
					(void *)(r->sp + off)))
			break;
		off += chunk;
		r->stack_len = off;
		chunk = 4096;
	}
}

SEC("tp_btf/sched_switch")
int BPF_PROG(ocb_switch, _Bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	unsigned long long now;
	unsigned int tid, tgid, n;
	struct ocb_out *r;
	struct pt_regs *regs;
	long got;

	if (!state.enabled)
		return 0;
	now = bpf_ktime_get_ns();
	switch_in(next, now);
	if (preempt || !(prev_state & BLOCKED_STATES))
		return 0;
	tid = prev->pid;
	tgid = prev->tgid;
	if (!tid)
		return 0;
	if (conf.follow) {
		unsigned char *f = bpf_map_lookup_elem(&tgids, &tgid);

		if (!f || *f != OCB_FOLLOW)
			return 0;
	}
	if (conf.period > 1 && bpf_get_prandom_u32() % conf.period)
		return 0;
	r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		__sync_fetch_and_add(&state.lost, 1);
		return 0;
	}
	r->h.type = OCB_OUT;
	r->h.cpu = bpf_get_smp_processor_id();
	r->h.pid = tgid;
	r->h.tid = tid;
	r->h.time = now;
	/* skip this program and bpf_trace_run4: the leaf is __schedule,
	 * as in the perf tracepoint's callchain */
	got = bpf_get_stack(ctx, r->kstack, sizeof(r->kstack),
			    2 & BPF_F_SKIP_FIELD_MASK);
	r->kstack_len = got > 0 ? (unsigned int)got : 0;
	r->user = 0;
	r->stack_len = 0;
	r->bp = r->sp = r->ip = 0;
	/* prev is current here: its user registers and stack */
	regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	if (regs && (regs->cs & 3) == 3) {
		r->user = 1;
		r->bp = regs->bp;
		r->sp = regs->sp;
		r->ip = regs->ip;
		n = conf.stack_size;
		if (n > OCB_STACK_MAX)
			n = OCB_STACK_MAX;
		if (n && bpf_probe_read_user(r->stack, n, (void *)r->sp) == 0) {
			r->stack_len = n;
		} else if (n) {
			/* the copy passed the stack's end, or a page is not
			 * present: page by page, as far as it goes */
			copy_pages(r, n);
		}
	}
	/* wake the reader only when a quarter of the buffer is used */
	bpf_ringbuf_submit(r, bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) >
			      (8 << 20) ? 0 : BPF_RB_NO_WAKEUP);
	bpf_map_update_elem(&waits, &tid, &now, BPF_ANY);
	return 0;
}

/* operf CMD: the followed processes' children are followed too */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(ocb_fork, struct task_struct *parent, struct task_struct *child)
{
	unsigned int ptgid = parent->tgid, ctgid = child->tgid;
	unsigned char one = OCB_FOLLOW;

	unsigned char *f;

	if (!conf.follow || ptgid == ctgid)
		return 0;
	f = bpf_map_lookup_elem(&tgids, &ptgid);
	if (f && *f == OCB_FOLLOW)
		bpf_map_update_elem(&tgids, &ctgid, &one, BPF_ANY);
	return 0;
}

/* operf CMD: its child is followed from its exec of CMD on, as perf's
 * enable_on_exec (before, it is operf waiting to exec) */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(ocb_exec, struct task_struct *p)
{
	unsigned int tgid = p->tgid;
	unsigned char one = OCB_FOLLOW, *f;

	if (!conf.follow)
		return 0;
	f = bpf_map_lookup_elem(&tgids, &tgid);
	if (f && *f == OCB_FOLLOW_AT_EXEC)
		bpf_map_update_elem(&tgids, &tgid, &one, BPF_ANY);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
