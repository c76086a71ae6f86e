/* SPDX-License-Identifier: GPL-2.0 */
/*
 * oprofile-ng's kernel driver for Linux 6.1: the configuration and state
 * its parts share. Each unit owns its own state behind its own header
 * (allocating and resetting it itself); this map says which:
 *
 *   oprof.c           module init/exit, start/stop, buffer setup/teardown,
 *                     this header's configuration and state
 *   oprofilefs.[ch]   the filesystem type and its file/dir helpers
 *   oprofile_files.c  the control and statistics files in /dev/oprofile
 *                     (op_create_files, declared in oprofilefs.h)
 *   event_buffer.[ch] the event buffer and /dev/oprofile/buffer
 *   cpu_buffer.[ch]   per-cpu lock-free rings (interrupt context producer)
 *   timer_int.[ch]    timer mode (timer=1): a per-cpu hrtimer, one counter
 *   perf_int.[ch]     counter mode (default): kernel perf counters, one per
 *                     enabled N/ and cpu (software clocks or raw hw events)
 *   backtrace.[ch]    the callers of a sample (kernel: ORC; user: frame pointers)
 *   buffer_sync.[ch]  the sync: rings -> escape-coded event stream
 *   sync_encode.h     the sync's encode step (pure: unit-tested in user space)
 *   cookies.[ch]      the cookie table (pinned paths) and its listing
 *   module_notify.[ch] modules loaded while profiling
 *   cpu_hotplug.[ch]  cpus going offline and coming back while sampling
 *   compat.h          API differences after 6.1 (version checks)
 *
 * Locking and contexts:
 *  - A sampling interrupt (hrtimer or perf overflow: hard irq, or NMI for
 *    hardware counters) is the only producer of its cpu's ring. It takes
 *    task and mm references (atomic increments) when the context changes;
 *    it never sleeps, never takes mmap_lock. With op_backtrace_depth > 0 it
 *    also walks the stack (backtrace.c: ORC for the kernel, the rbp chain
 *    read with copy_from_user_nofault for user space) into ring entries
 *    after the sample's, published with it, all or nothing.
 *  - Everything else runs under op_mutex in process context: the sync
 *    (delayed work every HZ/10, and on dump/disable), the control files
 *    (killably), open/release of buffer, and read()'s bookkeeping. read()
 *    copies to user space without op_mutex (a fault may take forever):
 *    the words it copies stay put until it frees them. The sync is the
 *    only consumer of the rings; it drops the references (put_task_struct,
 *    mmput) and resolves user pcs with find_vma under mmap_read_lock.
 *  - CPU hotplug callbacks (cpu_hotplug.c) never take op_mutex: start and
 *    stop switch the modes' "sampling" under cpus_read_lock instead.
 *  - Cookies: our own table of pinned struct paths (dcookies are gone);
 *    each is defined in-band (OP_CODE_COOKIE_DEF) before its first use in
 *    a stream, and listed in /dev/oprofile/cookies.
 */
#ifndef OPROF_H
#define OPROF_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include "op_stream.h"

#define OP_NR_COUNTERS 8          /* most N/ dirs of any mode (op_mode.nr_counters) */
#define OP_MIN_PERIOD_NS 10000UL  /* as events/timer/events' minimum */
#define OP_MIN_RAW_COUNT 500UL    /* smallest minimum in events/i386/arch_perfmon */
/* event numbers of cpu_type "timer" (events/timer/events) */
#define OP_EVENT_CPU_CLOCK 0
#define OP_EVENT_TASK_CLOCK 1
#define OP_MAX_DEPTH OP_MAX_BACKTRACE_DEPTH  /* backtrace_depth 0 .. this */
/* The largest buffers (doc/driver.md): buffer_size in words (32 MiB on
 * 64-bit), cpu_buffer_size in ring entries per cpu; both also at most a
 * quarter of the RAM, so that opening the buffer can allocate them. */
#define OP_MAX_BUFFER_SIZE (1UL << 22)
#define OP_MAX_CPU_BUFFER_SIZE (1UL << 18)

/* ------------------------------------------------------------ config */

extern unsigned long op_buffer_size;       /* event buffer, words */
extern unsigned long op_buffer_watershed;  /* wake the reader this close to full */
extern unsigned long op_cpu_buffer_size;   /* per-cpu ring, entries */
extern unsigned long op_backtrace_depth;
extern unsigned long op_pointer_size;

struct op_counter {
	unsigned long enabled, event, count, unit_mask, kernel, user;
};
extern struct op_counter op_counters[OP_NR_COUNTERS];

/* The sampling mode, fixed at module load (parameters timer, hw_counters). */
struct op_mode {
	bool timer;                     /* hrtimer (timer_int.c), else perf_int.c */
	bool raw;                       /* counters are raw hardware events */
	char const *cpu_type;
	unsigned int nr_counters;       /* N/ dirs: 0 .. nr_counters-1 */
	unsigned long event_max, unit_mask_max, count_min, count_max;
};
extern struct op_mode op_mode;

/* ------------------------------------------------------------- state */

extern struct mutex op_mutex;   /* everything but the interrupt path */
extern bool op_setup;           /* buffers allocated (buffer open) */
extern bool op_enabled;         /* sampling */
extern bool op_dump;            /* a dump asked the reader to wake */
extern bool op_stopped;         /* sampling ran and stopped: read() may end */

/*
 * The driver-wide counters of /dev/oprofile/stats/ (the per-cpu ones are
 * in struct op_cpu), reset when the buffer is opened. Written under
 * op_mutex, except module_loads (the module loader's context).
 */
struct op_stats {
	/* samples lost, by op_stream.h's category; OP_LOST_OVERFLOW is
	 * counted per cpu (op_cpu.sample_lost_overflow) instead */
	unsigned long lost[OP_LOST_CATEGORY_MAX];
	unsigned long samples_emitted;  /* written to the event buffer */
	unsigned long syncs;
	unsigned long cookies;          /* cookies created */
	unsigned long cookies_freed;    /* freed unused (op_cookies_expire) */
	unsigned long cookies_live;     /* in the table now (not reset) */
	unsigned long cookies_forgotten; /* freed ones the stream was told of */
	unsigned long cookie_bytes;     /* the table's memory (not reset) */
	atomic_long_t module_loads;     /* modules loaded while sampling */
};
extern struct op_stats op_stats;

int op_start(void);
void op_stop(void);
int op_alloc_buffers(void);
void op_free_buffers(void);

#endif
