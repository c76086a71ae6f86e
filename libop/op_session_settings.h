/*
 * The settings of a session, as both oprofiled and opcontrol check them:
 * --separate lists, the callgraph depth, the cpu type, event
 * specifications (validated against the cpu type's events/ files) and the
 * privileges live sampling needs. opcontrol checks them before it saves or
 * starts anything, the daemon again before it samples; one implementation
 * keeps the two agreeing. The daemon turns the result into its core's
 * configuration itself: nothing here knows the core.
 */
#ifndef OP_SESSION_SETTINGS_H
#define OP_SESSION_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

#include "op_cpu_type.h"

/* --separate bits */
enum op_separate {
	OP_SEP_LIB = 1 << 0,     /* libraries under their application */
	OP_SEP_KERNEL = 1 << 1,  /* kernel samples under their application */
	OP_SEP_THREAD = 1 << 2,  /* per tgid/tid files */
	OP_SEP_CPU = 1 << 3,     /* per cpu files */
};

/* Events one session samples at most. */
#define OP_SETTINGS_MAX_EVENTS 8

/* One checked event; index i is the stream's event index i. */
struct op_settings_event {
	char name[64];
	uint32_t code;        /* events/ code */
	uint32_t unit_mask;
	uint32_t count;       /* sampling period */
	int kernel, user;
};

struct op_settings_events {
	size_t nr;
	struct op_settings_event v[OP_SETTINGS_MAX_EVENTS];
	char text[1024];      /* normalised NAME:count:um:kernel:user,... */
};

/*
 * "none", or a comma list of lib (or library), kernel, thread, cpu, all
 * into enum op_separate bits; kernel implies lib. 0, or -1 with err.
 */
int op_settings_separate(char const *text, unsigned *bits,
			 char *err, size_t errlen);

/* bits as "lib,kernel,thread,cpu" (the set ones) or "none". */
void op_settings_separate_text(unsigned bits, char *buf, size_t size);

/*
 * A --callgraph depth: a decimal number 0 (no backtraces) ..
 * OP_MAX_BACKTRACE_DEPTH. 0, or -1 with err.
 */
int op_settings_callgraph(char const *text, unsigned *depth,
			  char *err, size_t errlen);

/*
 * The cpu type: name (events/ directory name or number) when not NULL,
 * else this machine's. CPU_NO_GOOD with err when unknown or without
 * events/ files.
 */
enum op_cpu op_settings_cpu(char const *name, char *err, size_t errlen);

/*
 * Check a comma list of NAME:count[:um[:kernel[:user]]] (NULL, "" or
 * "default": the cpu type's default event) for cpu, with callgraph depth
 * callgraph (above 0, every event's minimum count is 15 times higher, as
 * ophelp --callgraph checks). Fills out (the events and their normalised
 * text) and returns 0; else -1 with err.
 */
int op_settings_events(char const *specs, enum op_cpu cpu, unsigned callgraph,
		       struct op_settings_events *out, char *err, size_t errlen);

/*
 * Live system-wide sampling needs root (or CAP_PERFMON / CAP_SYS_ADMIN),
 * or for a plain user kernel.perf_event_paranoid <= 0. 0 when allowed,
 * else -1 after printing why and how to fix it.
 */
int op_settings_check_privilege(void);

/* --- durations, sizes, and the system settings file --- */

/*
 * A duration: a decimal number with an optional unit s (default), m, h
 * or d ("90s", "5m", "2h", "7d"); at least 1 second. 0, or -1 with err
 * naming option (e.g. "--rotate") and the text.
 */
int op_settings_duration(char const *option, char const *text,
			 uint64_t *seconds, char *err, size_t errlen);

/* seconds as the largest unit that divides it: "2h", "90s", "7d". */
void op_settings_duration_text(uint64_t seconds, char *buf, size_t size);

/*
 * A size in bytes: a decimal number with an optional unit K, M, G or T
 * (powers of 1024; "500M"); at least 1. 0, or -1 with err.
 */
int op_settings_size(char const *option, char const *text, uint64_t *bytes,
		     char *err, size_t errlen);

/*
 * --stack-size: 0 (frame pointers only) or OP_SETTINGS_STACK_MIN to
 * OP_SETTINGS_STACK_MAX bytes of user stack copied per sample (the perf
 * source rounds it up to a multiple of 8: the kernel copies 8-byte words;
 * the maximum is the kernel's limit, 8-aligned). Decimal digits only.
 * 0, or -1 with err naming option and the text.
 */
#define OP_SETTINGS_STACK_MIN 8
#define OP_SETTINGS_STACK_MAX 65528
int op_settings_stack_size(char const *option, char const *text, int *bytes,
			   char *err, size_t errlen);

/*
 * --buffer-pages: a power of two of pages, 1 to OP_SETTINGS_RING_PAGES_MAX
 * (perf_event_open takes a ring of 2^n data pages). 0, or -1 with err.
 */
#define OP_SETTINGS_RING_PAGES_MAX (1UL << 20)
int op_settings_ring_pages(char const *option, char const *text,
			   unsigned *pages, char *err, size_t errlen);

/*
 * A count of buffer entries (--buffer-size, --buffer-watershed,
 * --cpu-buffer-size): decimal or 0x hex, 1 to 0x7fffffff. 0, or -1 with err.
 */
int op_settings_entries(char const *option, char const *text,
			unsigned long *n, char *err, size_t errlen);

/*
 * One setting, checked the same way whichever way it comes: an option of
 * the command line, a line of the settings file or of SESSION/daemonrc.
 * key is the file's key (events, separate, callgraph, vmlinux, image,
 * keep_binaries, rotate, keep, keep_size, session_dir, buffer_size,
 * buffer_watershed, cpu_buffer_size, kernel_range); name is how the
 * message calls it (the option, e.g. "--cpu-buffer-size"; NULL: key).
 * Events are checked as far as no cpu type is needed (their syntax,
 * count, kernel and user: op_parse_event_spec); op_settings_events does
 * the rest. 0, or -1 with err.
 */
int op_settings_check(char const *key, char const *name, char const *value,
		      char *err, size_t errlen);

struct op_kv;

/*
 * SESSION/daemonrc (opcontrol's saved settings) into kv, each line checked
 * with op_settings_check (a bad one: "PATH:LINE: ..."). Empty when it does
 * not exist. 0, or -1 after a message.
 */
int op_settings_daemonrc_read(struct op_kv *kv, char const *session_dir);

/*
 * The system's settings file, read by oprofiled (its defaults: the
 * command line wins) and by opcontrol (under SESSION/daemonrc): key=value
 * lines (op_session_kv.h) with the keys
 *   session_dir events separate callgraph vmlinux image keep_binaries
 *   rotate keep keep_size
 * (doc/oprofiled.1). $OPROFILE_CONFIG names another file.
 */
#define OP_CONFIG_FILE_DEFAULT "/etc/oprofile/oprofiled.conf"
#define OP_CONFIG_ENV "OPROFILE_CONFIG"

char const *op_settings_config_path(void);

/*
 * Read the settings file into kv (empty when it does not exist) and check
 * every key and value with op_settings_check (events against the cpu type
 * are their user's, who names the file and the line: op_kv_line). 0, or
 * -1 after a message naming the file, the line and the key.
 */
int op_settings_config_read(struct op_kv *kv);
/* --- the continuous default (doc/continuous.md) ---------------------------
 * The per-cpu sampling rate of an always-on session (the service,
 * --continuous): chosen by measurement (bench/rate_cost.sh) so that the
 * profiled workload loses well under 0.5% on a VM whose cpu-clock sample
 * costs ~8-10 us (timer interrupt and VM exits); 49, not 50, so that it
 * does not beat in step with periodic work. As an event: CPU_CLOCK at
 * OP_CONTINUOUS_PERIOD_NS. */
#define OP_CONTINUOUS_RATE_HZ 49
#define OP_CONTINUOUS_PERIOD_NS (1000000000u / OP_CONTINUOUS_RATE_HZ)

#endif /* OP_SESSION_SETTINGS_H */
