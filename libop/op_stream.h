/*
 * The escape-coded event stream: the one contract between the producers
 * (the oprofilefs kernel driver's event buffer and the daemon's perf_events
 * source) and the daemon's decoder. Both producers and the decoder include
 * this header; doc/formats.md describes the same stream in prose.
 *
 * The stream is an array of native machine words (unsigned long: 8 bytes on
 * x86-64). A word that is not OP_ESCAPE_CODE starts a sample pair
 * (pc_or_offset, event_index). OP_ESCAPE_CODE is followed by one code word
 * and that code's argument words. Codes 1..14 keep OProfile's numbers and
 * meanings; 15..31 stay reserved for OProfile compatibility; our own codes
 * start at 32 so that no OProfile code can ever be misread as one of ours.
 *
 * This header must stay valid C for both user space and a kernel module:
 * no libc types, only unsigned long.
 */
#ifndef OP_STREAM_H
#define OP_STREAM_H

/*
 * Decoder state (daemon/opd_trans.c's transient; producers mirror it and
 * write a switch only when the value changes):
 *   cpu, task (tid, tgid, app_cookie), mode (kernel/user), cookie, trace.
 * At the start of a stream all are unknown. Then:
 *   CPU_SWITCH   sets cpu; task, mode and cookie become unknown; ends a trace.
 *   CTX_SWITCH   sets the task; the cookie becomes unknown (mode is kept).
 *   KERNEL_ENTER / USER_ENTER set the mode; the cookie is kept.
 *   COOKIE_SWITCH sets the cookie.
 * A sample needs cpu, task and mode known, and a user sample the cookie
 * too; otherwise it is an error and is dropped. A COOKIE_SWITCH or
 * CTX_SWITCH to a cookie that is not OP_NO_COOKIE/OP_INVALID_COOKIE and
 * was not defined earlier in the stream is an error.
 * Backtraces: after TRACE_BEGIN the first pair is the sample and every
 * following pair (pc, 0) a frame. COOKIE_SWITCH, KERNEL_ENTER, USER_ENTER,
 * COOKIE_DEF and ANON_DEF may appear between frames (a trace crossing
 * from kernel to user or between binaries); any other escape ends the
 * trace. So a producer that writes backtraces begins every sample,
 * even one without frames, with TRACE_BEGIN.
 * A malformed record (unknown code, bad length, a pair whose second word
 * is OP_ESCAPE_CODE) is an error; decoding resumes at the next escape.
 */

#define OP_ESCAPE_CODE (~0UL)

enum op_stream_code {
	/* ESC 1 tid app_cookie ESC 7 tgid: a task switch; the CTX_TGID
	 * escape always follows immediately. */
	OP_CODE_CTX_SWITCH = 1,
	/* ESC 2 cpu: following samples were taken on this cpu. */
	OP_CODE_CPU_SWITCH = 2,
	/* ESC 3 cookie: following user samples are offsets into the binary
	 * named by cookie. OP_NO_COOKIE: anonymous memory with no region
	 * definition (pc kept raw); OP_INVALID_COOKIE: no mapping at all. */
	OP_CODE_COOKIE_SWITCH = 3,
	/* ESC 4: following samples are raw kernel pcs. */
	OP_CODE_KERNEL_ENTER = 4,
	/* ESC 5: following samples are user samples (OProfile's
	 * KERNEL_EXIT_SWITCH / USER_ENTER_SWITCH). */
	OP_CODE_USER_ENTER = 5,
	/* ESC 6: a module was loaded; re-read the kernel image ranges. */
	OP_CODE_MODULE_LOADED = 6,
	/* ESC 7 tgid: only valid right after CTX_SWITCH's two words. */
	OP_CODE_CTX_TGID = 7,
	/* ESC 8: the next pair is a sample, the pairs after it (pc, 0) its
	 * backtrace, caller after callee, until an escape other than a
	 * cookie or mode switch or a definition (see above). */
	OP_CODE_TRACE_BEGIN = 8,
	/* 9 (TRACE_END) is unused, as in OProfile; 10..14 are Xen, SPU and
	 * AMD IBS codes we do not produce; a decoder treats them as errors. */
	OP_CODE_TRACE_END = 9,

	/* ESC 32 cookie nbytes word...: defines cookie as the path of a
	 * binary. The path's nbytes bytes (no NUL) are packed into
	 * ceil(nbytes / sizeof(unsigned long)) words, first byte in the
	 * lowest-addressed byte, the tail padded with zero bytes. A cookie is
	 * defined before its first use and never redefined with another path
	 * within one stream. This replaces dcookies/lookup_dcookie. */
	OP_CODE_COOKIE_DEF = 32,
	/* ESC 33 cookie tgid start end nbytes word...: defines cookie as an
	 * anonymous region [start, end) of process tgid named by the packed
	 * string (anon, [heap], [stack], [vdso], ...). Samples under it are
	 * offsets from start. */
	OP_CODE_ANON_DEF = 33,
	/* ESC 34 category count: count samples (or events) of the given
	 * enum op_lost_category were lost before reaching the stream. */
	OP_CODE_LOST = 34,
	/* ESC 35 start end nbytes word...: a kernel image (the kernel text
	 * or a module) occupies [start, end); the name is the module name or
	 * "vmlinux". Lets a producer say where modules are in-band. */
	OP_CODE_KERNEL_IMAGE = 35,
	/* ESC 36 counter count: the producer counted count more of one of
	 * its own counters (enum op_count: work it did, not samples). A
	 * counter the decoder does not know is skipped, not an error, so a
	 * producer may add counters without breaking older decoders. */
	OP_CODE_COUNT = 36,

	OP_CODE_LAST
};

/* The most backtrace frames a producer writes after one sample: the
 * driver's backtrace_depth and oprofiled/opcontrol --callgraph take
 * 0 (no backtraces) .. this. */
#define OP_MAX_BACKTRACE_DEPTH 128

/* Cookie values with special meaning, as in OProfile. */
#define OP_NO_COOKIE 0UL
#define OP_INVALID_COOKIE (~0UL)

/* What OP_CODE_LOST counts. Keep the names: they are the stats file names. */
enum op_lost_category {
	OP_LOST_OVERFLOW = 1,      /* sample_lost_overflow: a cpu buffer/ring was full */
	OP_LOST_NO_MM = 2,         /* sample_lost_no_mm: user pc with no mm */
	OP_LOST_NO_MAPPING = 3,    /* sample_lost_no_mapping: user pc in no mapping */
	OP_LOST_EVENT_OVERFLOW = 4,/* event_lost_overflow: the event buffer was full */
	OP_LOST_BT_NO_MAPPING = 5, /* bt_lost_no_mapping */
	OP_LOST_INVALID_EIP = 6,   /* sample_invalid_eip */
	OP_LOST_THROTTLED = 7,     /* samples the kernel throttled away */
	OP_LOST_CATEGORY_MAX
};

/* What OP_CODE_COUNT counts. Keep the names: they are the stats file names. */
enum op_count {
	OP_COUNT_MAPS_REREAD = 1,      /* maps_reread: /proc/PID/maps read again to resolve a sample's user pc */
	OP_COUNT_MAPS_REREAD_HIT = 2,  /* maps_reread_hit: ... and that sample resolved */
	OP_COUNT_MAPS_REREAD_GONE = 3, /* maps_reread_gone: ... but the process was gone */
	OP_COUNT_MAX
};

#endif /* OP_STREAM_H */
