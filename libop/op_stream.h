/*
 * The escape-coded event stream: the one contract between the producers
 * (the oprofilefs kernel driver's event buffer and the daemon's perf_events
 * source) and the daemon's decoder. Both producers and the decoder include
 * this header; doc/formats.md describes the same stream in prose.
 *
 * Besides the codes it holds the limits, the stats names of what is lost
 * and counted, the state machine (op_known_after) and the encoders both
 * producers write through (op_put_*: switches only when the value
 * changes, tracked in struct op_stream_state; definitions packed into
 * words), so there is one copy of each.
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
 * Decoder state (libopd/opd_trans.c's transient; producers mirror it in
 * struct op_stream_state and write a switch only when the value changes;
 * op_known_after() below is this paragraph in code):
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
	/* ESC 37 t: samples that follow were taken at CLOCK_MONOTONIC time
	 * t ns or later (until the next TIME). No effect on the decoder
	 * state; it ends a trace. See OP_TIME_GRANULARITY_NS below. */
	OP_CODE_TIME = 37,
	/* ESC 38 cookie: the producer freed cookie (the driver after
	 * OP_COOKIE_IDLE unused; the perf source when it retires one):
	 * the decoder drops its definition, so a long stream's table holds
	 * what is in use, not all it ever defined. The cookie part of the
	 * state (and the task part, if it is the app cookie) becomes
	 * unknown; using the cookie again needs a new definition. */
	OP_CODE_COOKIE_FORGET = 38,
	/* ESC 39 cookie nbytes word...: the GNU build-id of the binary that
	 * cookie names (a COOKIE_DEF earlier in the stream, before the
	 * cookie's first use), as the kernel read it when the file was
	 * mapped (MMAP2 with attr.build_id): nbytes (1 .. OP_MAX_BUILD_ID)
	 * raw bytes packed as a definition's name is. It holds even when
	 * the file is gone or replaced by the time the decoder looks. A
	 * cookie has one build-id in a stream; a cookie without one is read
	 * from its file. */
	OP_CODE_BUILD_ID = 39,

	/* ESC 40 reason: the backtrace in progress ends here, and why
	 * unwinding stopped (enum op_unwind_stop of op_stacks.h, 0: it
	 * reached the root). Ends the trace; the perf source writes it after
	 * every backtrace. Outside a trace it is an error. */
	OP_CODE_UNWIND_STOP = 40,

	/* ESC 41 w: the next sample counts w (1 .. OP_MAX_WEIGHT), not 1,
	 * and so do its arcs and its whole stack. Off-CPU samples carry
	 * their blocked time this way (microseconds, doc/offcpu.md). Only
	 * the next sample: the one after it counts 1 again. 0 or more than
	 * OP_MAX_WEIGHT is an error (the weight is dropped). No effect on
	 * the decoder state otherwise; it ends a trace, so it comes before
	 * TRACE_BEGIN. */
	OP_CODE_WEIGHT = 41,

	OP_CODE_LAST
};

/* The most backtrace frames a producer writes after one sample: the
 * driver's backtrace_depth and oprofiled/opcontrol --callgraph take
 * 0 (no backtraces) .. this. */
#define OP_MAX_BACKTRACE_DEPTH 128

/* The longest name a definition (COOKIE_DEF, ANON_DEF, KERNEL_IMAGE) may
 * carry, in bytes: PATH_MAX. A decoder refuses a longer one. */
#define OP_MAX_NAME 4096
#define OP_NAME_WORDS(nbytes) \
	(((nbytes) + sizeof(unsigned long) - 1) / sizeof(unsigned long))
/* Words of each record (escape and code included). */
#define OP_WORDS_PAIR 2
#define OP_WORDS_ESCAPE 2               /* KERNEL_ENTER, TRACE_BEGIN, ... */
#define OP_WORDS_CPU_SWITCH 3
#define OP_WORDS_CTX_SWITCH 7           /* with its CTX_TGID */
#define OP_WORDS_COOKIE_SWITCH 3
#define OP_WORDS_LOST 4
#define OP_WORDS_COUNT 4
#define OP_WORDS_COOKIE_FORGET 3
#define OP_WORDS_TIME 3
#define OP_WORDS_WEIGHT 3
/* The heaviest sample (WEIGHT): a sample file's count is 32 bits. */
#define OP_MAX_WEIGHT 0xffffffffUL
#define OP_WORDS_DEF(nbytes, anon) (((anon) ? 7 : 4) + OP_NAME_WORDS(nbytes))
#define OP_WORDS_KERNEL_IMAGE(nbytes) (5 + OP_NAME_WORDS(nbytes))
/* BUILD_ID: the longest build-id the kernel gives (BUILD_ID_SIZE_MAX). */
#define OP_MAX_BUILD_ID 20
#define OP_WORDS_BUILD_ID(nbytes) (4 + OP_NAME_WORDS(nbytes))
/* The longest record: an ANON_DEF with the longest name. */
#define OP_MAX_RECORD (OP_WORDS_DEF(OP_MAX_NAME, 1))

/* Cookie values with special meaning, as in OProfile. */
#define OP_NO_COOKIE 0UL
#define OP_INVALID_COOKIE (~0UL)

/*
 * The stats names: X(enumerator, value, name) lists, the one place that
 * names what ESC LOST and ESC COUNT carry. The names are the stats file
 * names of both the daemon (samples/current/stats/) and the driver
 * (/dev/oprofile/stats/).
 */
#define OP_LOST_CATEGORIES(X) \
	X(OP_LOST_OVERFLOW, 1, "sample_lost_overflow")     /* a cpu buffer/ring was full */ \
	X(OP_LOST_NO_MM, 2, "sample_lost_no_mm")           /* user pc with no mm */ \
	X(OP_LOST_NO_MAPPING, 3, "sample_lost_no_mapping") /* user pc in no mapping */ \
	X(OP_LOST_EVENT_OVERFLOW, 4, "event_lost_overflow") /* the event buffer was full */ \
	X(OP_LOST_BT_NO_MAPPING, 5, "bt_lost_no_mapping")  /* a backtrace cut: frame in no mapping */ \
	X(OP_LOST_INVALID_EIP, 6, "sample_invalid_eip")    /* invalid pc */ \
	X(OP_LOST_THROTTLED, 7, "sample_lost_throttled")   /* samples the kernel throttled away */ \
	X(OP_LOST_OFFCPU, 8, "offcpu_lost")                /* off-CPU samples with no room to wait, or whose switch-in was lost */

/* Producer counters (work it did, not samples). maps_reread: the perf
 * source read /proc/PID/maps again to resolve a sample's user pc. */
#define OP_COUNTS(X) \
	X(OP_COUNT_MAPS_REREAD, 1, "maps_reread")           /* maps read again */ \
	X(OP_COUNT_MAPS_REREAD_HIT, 2, "maps_reread_hit")   /* ... and that sample resolved */ \
	X(OP_COUNT_MAPS_REREAD_GONE, 3, "maps_reread_gone") /* ... but the process was gone */ \
	/* the CFI unwinder's bounded caches (libopd/opd_unwind.c) */ \
	X(OP_COUNT_UNWIND_BINARIES_EVICTED, 4, "unwind_binaries_evicted") /* binary closed for another */ \
	X(OP_COUNT_UNWIND_RULES_FLUSHED, 5, "unwind_rules_flushed") /* a binary's full row table emptied */ \
	/* the perf source's process table: processes whose EXIT record was lost */ \
	X(OP_COUNT_PROCS_EXIT_LOST, 6, "procs_exit_lost") /* gone process, its EXIT lost */

#define OP_STREAM_X_ENUM(name, value, file) name = value,
#define OP_STREAM_X_CASE(name, value, file) case value: return file;

/* What OP_CODE_LOST counts. */
enum op_lost_category {
	OP_LOST_CATEGORIES(OP_STREAM_X_ENUM)
	OP_LOST_CATEGORY_MAX
};

/* What OP_CODE_COUNT counts. */
enum op_count {
	OP_COUNTS(OP_STREAM_X_ENUM)
	OP_COUNT_MAX
};

/* The stats name of a lost category, or 0 (NULL) if there is none. */
static inline char const *op_lost_name(unsigned long category)
{
	switch (category) {
	OP_LOST_CATEGORIES(OP_STREAM_X_CASE)
	}
	return 0;
}

/* The stats name of a producer counter, or 0 (NULL) if there is none. */
static inline char const *op_count_name(unsigned long counter)
{
	switch (counter) {
	OP_COUNTS(OP_STREAM_X_CASE)
	}
	return 0;
}

/* ------------------------------------------------ the decoder's state */

/* Which parts of the decoder state the stream has established. */
#define OP_KNOWN_CPU    0x1u    /* cpu: after CPU_SWITCH */
#define OP_KNOWN_TASK   0x2u    /* tid, tgid, app cookie: CTX_SWITCH */
#define OP_KNOWN_MODE   0x4u    /* kernel or user: KERNEL_ENTER/USER_ENTER */
#define OP_KNOWN_COOKIE 0x8u    /* cookie: COOKIE_SWITCH */

/* What the decoder knows after the escape code (see the comment at the
 * top): each switch sets its own part and forgets the parts below it. */
static inline unsigned int op_known_after(unsigned int known, unsigned long code)
{
	switch (code) {
	case OP_CODE_CPU_SWITCH:
		return OP_KNOWN_CPU;
	case OP_CODE_CTX_SWITCH:
		return (known | OP_KNOWN_TASK) & ~OP_KNOWN_COOKIE;
	case OP_CODE_KERNEL_ENTER:
	case OP_CODE_USER_ENTER:
		return known | OP_KNOWN_MODE;
	case OP_CODE_COOKIE_SWITCH:
		return known | OP_KNOWN_COOKIE;
	}
	return known;
}

/* Codes that may appear inside a backtrace without ending it. */
static inline int op_code_keeps_trace(unsigned long code)
{
	return code == OP_CODE_COOKIE_SWITCH || code == OP_CODE_KERNEL_ENTER ||
	       code == OP_CODE_USER_ENTER || code == OP_CODE_COOKIE_DEF ||
	       code == OP_CODE_ANON_DEF ||
	       code == OP_CODE_BUILD_ID;	/* follows its COOKIE_DEF */
}

/* -------------------------------------------------------- the encoders */

/*
 * Where encoders write: w[0..cap). len counts every word written, also
 * those that did not fit (len > cap: the record is incomplete, the
 * caller must not use it). A producer points w at its record buffer.
 */
struct op_stream_out {
	unsigned long *w;
	unsigned long len;
	unsigned long cap;
};

static inline void op_put(struct op_stream_out *o, unsigned long w)
{
	if (o->len < o->cap)
		o->w[o->len] = w;
	o->len++;
}

static inline int op_out_overflowed(struct op_stream_out const *o)
{
	return o->len > o->cap;
}

static inline void op_put_escape(struct op_stream_out *o, unsigned long code)
{
	op_put(o, OP_ESCAPE_CODE);
	op_put(o, code);
}

/* A sample pair, or (event 0) a backtrace frame. */
static inline void op_put_pair(struct op_stream_out *o, unsigned long pc,
			       unsigned long event)
{
	op_put(o, pc);
	op_put(o, event);
}

/* nbytes of s (no NUL) in OP_NAME_WORDS(nbytes) words: first byte in the
 * lowest-addressed byte, the tail padded with zero bytes. */
static inline void op_put_string(struct op_stream_out *o, char const *s,
				 unsigned long nbytes)
{
	unsigned long i, w = 0;
	unsigned char *b = (unsigned char *)&w;

	for (i = 0; i < nbytes; i++) {
		b[i % sizeof(w)] = (unsigned char)s[i];
		if (i % sizeof(w) == sizeof(w) - 1 || i == nbytes - 1) {
			op_put(o, w);
			w = 0;
		}
	}
}

/* A cookie definition: a binary's path, or (anon) a process's region. */
struct op_stream_def {
	unsigned long cookie;
	char const *name;
	unsigned long nbytes;           /* of name, no NUL; 1 .. OP_MAX_NAME */
	int anon;                       /* ANON_DEF: tgid, start, end valid */
	unsigned long tgid, start, end;
};

/* ESC COOKIE_DEF cookie nbytes name... or ESC ANON_DEF cookie tgid start
 * end nbytes name...; no effect on the decoder state. */
static inline void op_put_def(struct op_stream_out *o,
			      struct op_stream_def const *d)
{
	op_put_escape(o, d->anon ? OP_CODE_ANON_DEF : OP_CODE_COOKIE_DEF);
	op_put(o, d->cookie);
	if (d->anon) {
		op_put(o, d->tgid);
		op_put(o, d->start);
		op_put(o, d->end);
	}
	op_put(o, d->nbytes);
	op_put_string(o, d->name, d->nbytes);
}

/* ESC KERNEL_IMAGE start end nbytes name... */
static inline void op_put_kernel_image(struct op_stream_out *o,
				       unsigned long start, unsigned long end,
				       char const *name, unsigned long nbytes)
{
	op_put_escape(o, OP_CODE_KERNEL_IMAGE);
	op_put(o, start);
	op_put(o, end);
	op_put(o, nbytes);
	op_put_string(o, name, nbytes);
}

/* ESC BUILD_ID cookie nbytes id...: right after cookie's COOKIE_DEF; no
 * effect on the decoder state. */
static inline void op_put_build_id(struct op_stream_out *o,
				   unsigned long cookie,
				   unsigned char const *id,
				   unsigned long nbytes)
{
	op_put_escape(o, OP_CODE_BUILD_ID);
	op_put(o, cookie);
	op_put(o, nbytes);
	op_put_string(o, (char const *)id, nbytes);
}

/* ESC LOST category count; no effect on the decoder state. */
static inline void op_put_lost(struct op_stream_out *o, unsigned long category,
			       unsigned long count)
{
	op_put_escape(o, OP_CODE_LOST);
	op_put(o, category);
	op_put(o, count);
}

/* ESC COUNT counter n; no effect on the decoder state. */
static inline void op_put_count(struct op_stream_out *o, unsigned long counter,
				unsigned long n)
{
	op_put_escape(o, OP_CODE_COUNT);
	op_put(o, counter);
	op_put(o, n);
}

/* ---------------------------------------------------- time (code 37) */

/*
 * A producer writes ESC TIME t before a sample when its time has advanced
 * by at least this much since the last TIME it wrote (and before its
 * first sample), not before every sample: a sample is known to
 * OP_TIME_GRANULARITY_NS. Times only grow within one stream. t is a full
 * nanosecond count, so only producers with 64-bit words write TIME; a
 * 32-bit producer writes none (its stream has no time, like the driver's).
 */
#define OP_TIME_GRANULARITY_NS 1000000UL

/* Whether a TIME code is due before a sample taken at time t. */
static inline int op_time_due(unsigned long last, int have_last,
			      unsigned long t)
{
	if (sizeof(unsigned long) < 8)
		return 0;
	return !have_last || (t > last && t - last >= OP_TIME_GRANULARITY_NS);
}

/* ESC WEIGHT w: the next sample counts w. */
static inline void op_put_weight(struct op_stream_out *o, unsigned long w)
{
	op_put_escape(o, OP_CODE_WEIGHT);
	op_put(o, w);
}

/* ESC UNWIND_STOP reason: ends the trace in progress. */
#define OP_WORDS_UNWIND_STOP 3
static inline void op_put_unwind_stop(struct op_stream_out *o,
				      unsigned long reason)
{
	op_put_escape(o, OP_CODE_UNWIND_STOP);
	op_put(o, reason);
}

/*
 * A producer's copy of the decoder state, so that it writes a switch only
 * when the value changes, and forgets exactly what the decoder forgets.
 */
struct op_stream_state {
	unsigned int known;             /* OP_KNOWN_* */
	unsigned int kernel;            /* OP_KNOWN_MODE: 1 kernel, 0 user */
	unsigned long cpu;
	unsigned long tid, tgid, app;   /* OP_KNOWN_TASK; app: the app cookie */
	unsigned long cookie;           /* OP_KNOWN_COOKIE */
	unsigned long time;             /* the last TIME written ... */
	int have_time;                  /* ... if any in this stream */
};

/* A new stream (or a reader that starts over): nothing is known. */
static inline void op_stream_reset(struct op_stream_state *s)
{
	s->known = 0;
	s->have_time = 0;
}

/* ESC TIME t before a sample taken at t, if one is due (op_time_due). */
static inline void op_put_time(struct op_stream_state *s,
			       struct op_stream_out *o, unsigned long t)
{
	if (!op_time_due(s->time, s->have_time, t))
		return;
	op_put_escape(o, OP_CODE_TIME);
	op_put(o, t);
	s->time = t;
	s->have_time = 1;
}

/* Write the next task switch even if the task looks the same. */
static inline void op_stream_forget_task(struct op_stream_state *s)
{
	s->known &= ~OP_KNOWN_TASK;
}

static inline void op_put_cpu(struct op_stream_state *s,
			      struct op_stream_out *o, unsigned long cpu)
{
	if ((s->known & OP_KNOWN_CPU) && s->cpu == cpu)
		return;
	op_put_escape(o, OP_CODE_CPU_SWITCH);
	op_put(o, cpu);
	s->cpu = cpu;
	s->known = op_known_after(s->known, OP_CODE_CPU_SWITCH);
}

/* The decoder has this task already: no CTX_SWITCH needed. */
static inline int op_task_known(struct op_stream_state const *s,
				unsigned long tid, unsigned long tgid,
				unsigned long app)
{
	return (s->known & OP_KNOWN_TASK) && s->tid == tid &&
	       s->tgid == tgid && s->app == app;
}

/* The decoder has this cookie already: no COOKIE_SWITCH needed. */
static inline int op_cookie_known(struct op_stream_state const *s,
				  unsigned long cookie)
{
	return (s->known & OP_KNOWN_COOKIE) && s->cookie == cookie;
}

/* ESC CTX_SWITCH tid app ESC CTX_TGID tgid, when the task changed. */
static inline void op_put_task(struct op_stream_state *s,
			       struct op_stream_out *o, unsigned long tid,
			       unsigned long tgid, unsigned long app)
{
	if (op_task_known(s, tid, tgid, app))
		return;
	op_put_escape(o, OP_CODE_CTX_SWITCH);
	op_put(o, tid);
	op_put(o, app);
	op_put_escape(o, OP_CODE_CTX_TGID);
	op_put(o, tgid);
	s->tid = tid;
	s->tgid = tgid;
	s->app = app;
	s->known = op_known_after(s->known, OP_CODE_CTX_SWITCH);
}

static inline void op_put_mode(struct op_stream_state *s,
			       struct op_stream_out *o, int kernel)
{
	unsigned long code = kernel ? OP_CODE_KERNEL_ENTER : OP_CODE_USER_ENTER;

	if ((s->known & OP_KNOWN_MODE) && s->kernel == !!kernel)
		return;
	op_put_escape(o, code);
	s->kernel = !!kernel;
	s->known = op_known_after(s->known, code);
}

static inline void op_put_cookie(struct op_stream_state *s,
				 struct op_stream_out *o, unsigned long cookie)
{
	if (op_cookie_known(s, cookie))
		return;
	op_put_escape(o, OP_CODE_COOKIE_SWITCH);
	op_put(o, cookie);
	s->cookie = cookie;
	s->known = op_known_after(s->known, OP_CODE_COOKIE_SWITCH);
}

/* ESC COOKIE_FORGET cookie: the decoder drops cookie's definition and
 * forgets the parts of its state that name it, as s does here. */
static inline void op_put_cookie_forget(struct op_stream_state *s,
					struct op_stream_out *o,
					unsigned long cookie)
{
	op_put_escape(o, OP_CODE_COOKIE_FORGET);
	op_put(o, cookie);
	if ((s->known & OP_KNOWN_COOKIE) && s->cookie == cookie)
		s->known &= ~OP_KNOWN_COOKIE;
	if ((s->known & OP_KNOWN_TASK) && s->app == cookie)
		s->known &= ~OP_KNOWN_TASK;
}

#endif /* OP_STREAM_H */
