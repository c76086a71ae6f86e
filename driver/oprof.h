/* SPDX-License-Identifier: GPL-2.0 */
/*
 * oprofile-ng's kernel driver for Linux 6.1: what its parts share.
 *
 *   oprof.c           module init/exit, start/stop, buffer setup/teardown
 *   oprofilefs.c      the filesystem type and its file/dir helpers
 *   oprofile_files.c  the control and statistics files in /dev/oprofile
 *   event_buffer.c    the event buffer and /dev/oprofile/buffer
 *   cpu_buffer.c      per-cpu lock-free rings (interrupt context producer)
 *   timer_int.c       timer mode (timer=1): a per-cpu hrtimer, one counter
 *   perf_int.c        counter mode (default): kernel perf counters, one per
 *                     enabled N/ and cpu (software clocks or raw hw events)
 *   backtrace.c       the callers of a sample (kernel: ORC; user: frame pointers)
 *   buffer_sync.c     the sync: rings -> escape-coded event stream
 *   cookies.c         the cookie table (pinned paths) and its listing
 *   module_notify.c   modules loaded while profiling
 *   compat.h          API differences after 6.1 (version checks)
 *
 * Locking and contexts:
 *  - A sampling interrupt (hrtimer or perf overflow: hard irq, or NMI for
 *    hardware counters) is the only producer of its cpu's ring. It takes
 *    task and mm references (atomic increments) when the context changes;
 *    it never sleeps, never takes mmap_lock. With backtrace_depth > 0 it
 *    also walks the stack (backtrace.c: ORC for the kernel, the rbp chain
 *    read with copy_from_user_nofault for user space) into ring entries
 *    after the sample's, published with it, all or nothing.
 *  - Everything else runs under op_mutex in process context: the sync
 *    (delayed work every HZ/10, and on dump/disable), read(), the control
 *    files, open/release of buffer. The sync is the only consumer of the
 *    rings; it drops the references (put_task_struct, mmput) and resolves
 *    user pcs with find_vma under mmap_read_lock.
 *  - Cookies: our own table of pinned struct paths (dcookies are gone);
 *    each is defined in-band (OP_CODE_COOKIE_DEF) before its first use in
 *    a stream, and listed in /dev/oprofile/cookies.
 */
#ifndef OPROF_H
#define OPROF_H

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/path.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "op_stream.h"

#define OP_NR_COUNTERS 8          /* most N/ dirs of any mode (op_mode.nr_counters) */
#define OP_MIN_PERIOD_NS 10000UL  /* as events/timer/events' minimum */
#define OP_MIN_RAW_COUNT 500UL    /* smallest minimum in events/i386/arch_perfmon */
/* event numbers of cpu_type "timer" (events/timer/events) */
#define OP_EVENT_CPU_CLOCK 0
#define OP_EVENT_TASK_CLOCK 1
#define OP_MAX_PATH_WORDS (PATH_MAX / sizeof(unsigned long) + 1)
#define OP_MAX_DEPTH OP_MAX_BACKTRACE_DEPTH  /* backtrace_depth 0 .. this */

/* ------------------------------------------------------ config (oprof.c) */

extern unsigned long buffer_size;       /* event buffer, words */
extern unsigned long buffer_watershed;  /* wake the reader this close to full */
extern unsigned long cpu_buffer_size;   /* per-cpu ring, entries */
extern unsigned long backtrace_depth;
extern unsigned long pointer_size;

struct op_counter {
	unsigned long enabled, event, count, unit_mask, kernel, user;
};
extern struct op_counter counters[OP_NR_COUNTERS];

/* The sampling mode, fixed at module load (parameters timer, hw_counters). */
struct op_mode {
	bool timer;                     /* hrtimer (timer_int.c), else perf_int.c */
	bool raw;                       /* counters are raw hardware events */
	char const *cpu_type;
	unsigned int nr_counters;       /* N/ dirs: 0 .. nr_counters-1 */
	unsigned long event_max, unit_mask_max, count_min, count_max;
};
extern struct op_mode op_mode;

/* ------------------------------------------------------- state (oprof.c) */

extern struct mutex op_mutex;   /* everything but the interrupt path */
extern bool op_setup;           /* buffers allocated (buffer open) */
extern bool op_enabled;         /* sampling */
extern bool op_dump;            /* a dump asked the reader to wake */
extern bool op_stopped;         /* sampling ran and stopped: read() may end */

int op_start(void);
void op_stop(void);
int op_alloc_buffers(void);
void op_free_buffers(void);

/* --------------------------------------------------- per-cpu rings */

/*
 * One ring entry, written by the cpu's sampling interrupt: a sample, or
 * (OPE_FRAME) one caller pc of the sample before it. A sample taken with
 * backtrace_depth > 0 has OPE_TRACE and is followed by its frames, nearest
 * caller first; they are published together with it.
 */
enum { OPE_KERNEL = 1, OPE_CTX = 2, OPE_TRACE = 4, OPE_FRAME = 8, OPE_VMA = 16 };
struct op_entry {
	unsigned long pc;
	unsigned int event;
	unsigned int flags;
	struct task_struct *task;       /* OPE_CTX: a reference */
	struct mm_struct *mm;           /* OPE_CTX: a reference, or NULL */
	/*
	 * OPE_VMA: a user sample resolved in the interrupt (cpu_buffer.c), so
	 * an munmap before the sync cannot lose or misattribute it: file is
	 * a reference to the mapped file and start the pc's file offset, or
	 * (file NULL) [start, end) is the anonymous region the pc was in.
	 */
	struct file *file;
	unsigned long start, end;
};

struct op_stat_file {
	unsigned long (*fn)(long cpu);
	long cpu;                       /* -1: the sum over cpus */
};

struct op_cpu {
	/* ring: producer = this cpu's sampling interrupt, consumer = the sync */
	struct op_entry *ring;
	unsigned long head;             /* next to write (producer) */
	unsigned long tail;             /* next to read (consumer) */
	unsigned long mask;
	struct hrtimer timer;           /* timer mode */
	bool running;                   /* the sampling interrupt may sample */
	/* producer's view of the context (pointers only, no references) */
	struct task_struct *last_task;
	struct mm_struct *last_mm;
	/* statistics, written on this cpu only */
	unsigned long sample_received;
	unsigned long sample_lost_overflow;
	unsigned long sample_lost_no_regs;
	unsigned long timer_overrun;    /* clock periods that passed without a tick */
	u64 last_tick_ns[OP_NR_COUNTERS]; /* counter mode: CPU_CLOCK's last tick */
	/* consumer: the newest context, holding its references */
	struct task_struct *cur_task;
	struct mm_struct *cur_mm;
	unsigned long cur_app_cookie;
	struct op_stat_file st[4];
};
DECLARE_PER_CPU(struct op_cpu, op_cpus);

extern atomic_long_t op_refs_held;

void op_add_sample(struct op_cpu *cb, struct pt_regs *regs, unsigned int event);
void op_ctx_put(struct task_struct *task, struct mm_struct *mm);
void op_file_put(struct file *file);

/* ------------------------------------------------------- backtrace.c */

int op_backtrace(struct op_cpu *cb, struct pt_regs *regs, bool kernel,
		 unsigned long at, unsigned long room, unsigned int depth);

/* ------------------------------------------------------- timer_int.c */

void op_timer_init(void);
void op_timer_start(void);
void op_timer_stop(void);

/* -------------------------------------------------------- perf_int.c */

int op_perf_detect(void);
int op_perf_init(void);
void op_perf_exit(void);
int op_perf_start(void);
void op_perf_stop(void);

/* ----------------------------------------------------- event_buffer.c */

extern const struct file_operations buffer_fops;
extern wait_queue_head_t buffer_wait;
extern unsigned long *ebuf;
extern unsigned long ebuf_size, ebuf_head, ebuf_tail;

bool ebuf_add(unsigned long const *w, unsigned long n);

/* ------------------------------------------------------ buffer_sync.c */

extern struct delayed_work sync_work;
extern unsigned long *rec;
extern unsigned long st_lost_no_mm, st_lost_no_mapping, st_event_lost_overflow;
extern unsigned long st_bt_lost_no_mapping;
extern unsigned long st_samples_emitted, st_syncs;
extern unsigned long lost_reported[OP_LOST_CATEGORY_MAX]; /* sent in-band */
/*
 * The longest record: CPU_SWITCH (3), two COOKIE_DEFs (app and sample:
 * 4 + path words each), CTX_SWITCH + CTX_TGID (7), TRACE_BEGIN (2), a mode
 * (2) and a cookie switch (3), the pair (2), and per frame at most a mode
 * switch, a cookie switch and its pair (7). The frames' own cookie
 * definitions go into the buffer as records of their own, before it.
 */
#define REC_MAX (2 * (4 + OP_MAX_PATH_WORDS) + 19 + 7 * OP_MAX_DEPTH)

void op_sync(void);
void sync_work_fn(struct work_struct *w);
void stream_reset(void);

/* ---------------------------------------------------------- cookies.c */

struct op_cookie {
	struct list_head list;
	struct hlist_node hash;
	struct path path;
	unsigned long id;
	char *name;
	size_t len;
	bool defined;                   /* defined in the current stream */
	/* an anonymous region (ANON_DEF; path unused): tgid's [start, end) */
	bool anon;
	pid_t tgid;
	unsigned long start, end;
};
extern char *path_page;
extern unsigned long st_cookies;
extern const struct file_operations cookies_fops;

struct op_cookie *cookie_get(const struct path *p);
struct op_cookie *anon_cookie_get(pid_t tgid, unsigned long start,
				  unsigned long end, char const *name);
void cookies_free(void);

/* ---------------------------------------------------- module_notify.c */

struct op_modload {
	struct list_head list;
	unsigned long start, end;
	char name[MODULE_NAME_LEN];
};
extern atomic_long_t st_module_loads;

int op_module_notify_init(void);
void op_module_notify_exit(void);
void op_modloads_take(struct list_head *todo);

/* ------------------------------------------- oprofilefs.c, oprofile_files.c */

int oprofilefs_register(void);
void oprofilefs_unregister(void);
struct dentry *opfs_mkdir(struct dentry *parent, char const *name);
int opfs_file(struct dentry *dir, char const *name, umode_t perm,
	      const struct file_operations *fops, void *priv);
int op_create_files(struct dentry *root);

#endif
