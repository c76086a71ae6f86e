/*
 * OFF_CPU by eBPF (doc/offcpu.md, "The eBPF mechanism"): a BPF program on
 * tp_btf/sched_switch records 1 in N blocking switches (chosen at random)
 * into a BPF ring buffer, with the kernel stack, the user registers and a
 * copy of the user stack, and for a recorded thread its switch-in. This
 * header is the record layout both sides share (the BPF side compiles it
 * without libc: plain C types only), and the userspace decoding, which
 * turns each record into the perf record the perf mechanism would have
 * queued, so that pairing, weights and unwinding are the same code.
 */
#ifndef OPD_OFFCPU_BPF_H
#define OPD_OFFCPU_BPF_H

#define OCB_OUT 1		/* a recorded blocking switch out */
#define OCB_IN 2		/* a recorded thread switched back in */
#define OCB_KSTACK_MAX 127	/* kernel frames kept */
#define OCB_STACK_MAX 16384	/* user stack bytes copied at most */
#define OCB_FOLLOW 1		/* a followed process (the tgids map) */
#define OCB_FOLLOW_AT_EXEC 2	/* ... from its next exec on */

/* The program's settings, fixed at load. */
struct ocb_conf {
	unsigned int period;		/* record 1 in period blocking switches */
	unsigned int stack_size;	/* user stack bytes to copy */
	unsigned int follow;		/* only the tgids of its map */
	unsigned int pad;
};

/* What userspace sets and reads while it runs. */
struct ocb_state {
	unsigned int enabled;
	unsigned int pad;
	unsigned long long lost;	/* records the ring buffer had no room for */
};

/* Both records start with this. */
struct ocb_head {
	unsigned int type;
	unsigned int cpu;
	unsigned int pid;	/* tgid */
	unsigned int tid;
	unsigned long long time;	/* CLOCK_MONOTONIC ns */
};

struct ocb_out {
	struct ocb_head h;
	unsigned int kstack_len;	/* bytes of kstack filled */
	unsigned int stack_len;		/* bytes of stack copied */
	unsigned int user;		/* regs are user-mode registers */
	unsigned int pad;
	unsigned long long bp, sp, ip;	/* user registers */
	unsigned long long kstack[OCB_KSTACK_MAX];
	unsigned char stack[OCB_STACK_MAX];
};

#ifndef OCB_BPF_SIDE
#include <stddef.h>
#include <stdint.h>

struct perf_source;

/*
 * Decode ringbuf record data (size bytes) into the perf record of the
 * perf mechanism's layout (opd_perf.c fill_attr: identifier id, ip,
 * pid/tid, time, cpu, callchain, regs, stack; or a SWITCH record whose
 * trailer names the thread coming in) at out (out_cap bytes, 8-aligned),
 * callchain cut to max_stack frames and the user stack to stack_size
 * bytes (0: no stack part, no callchain when !callchain). Returns the
 * record's length, 0 for a record that is short, of an unknown type or
 * whose lengths pass its end, or when it does not fit out_cap.
 */
size_t opd_offcpu_bpf_decode(void const *data, size_t size, uint64_t id,
			     int callchain, unsigned max_stack,
			     unsigned stack_size, void *out, size_t out_cap,
			     uint64_t *time, uint32_t *cpu);

/* The largest record opd_offcpu_bpf_decode writes. */
#define OCB_PERF_MAX (8 + 40 + 8 + 8 * (OCB_KSTACK_MAX + 1) + 8 + 24 + \
		      8 + OCB_STACK_MAX + 8)

/* The mechanism OFF_CPU uses: $OPROFILE_OFFCPU "bpf", "perf", or unset /
 * "auto" (eBPF where it loads). */
enum ocb_mode { OCB_AUTO, OCB_BPF, OCB_PERF };
int opd_offcpu_bpf_mode(enum ocb_mode *mode);

/* Was the eBPF loader built in (libbpf and clang at configure)? */
int opd_offcpu_bpf_built(void);

struct ocb_loader;
/*
 * Load and attach the program: period N, stack bytes to copy (0: none),
 * kernel frames; tgids (nr of them) the processes followed with their
 * children (at_exec: from their next exec on), or every process when nr
 * is 0. NULL with why in err.
 */
struct ocb_loader *opd_offcpu_bpf_open(unsigned period, unsigned stack_size,
				       int const *tgids, unsigned nr,
				       int at_exec,
				       char *err, size_t err_len);
/* Start and stop recording. */
void opd_offcpu_bpf_enable(struct ocb_loader *l, int on);
/* The ring buffer's fd to poll, or -1. */
int opd_offcpu_bpf_fd(struct ocb_loader *l);
/* Hand every record in the ring buffer to fn; returns how many, or
 * -errno. */
int opd_offcpu_bpf_consume(struct ocb_loader *l,
			   int (*fn)(void *arg, void *data, size_t size),
			   void *arg);
/* Records the BPF side could not reserve (ring buffer full). */
uint64_t opd_offcpu_bpf_lost(struct ocb_loader *l);
void opd_offcpu_bpf_close(struct ocb_loader *l);
#endif

#endif /* OPD_OFFCPU_BPF_H */
