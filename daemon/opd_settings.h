/*
 * The profiling settings both oprofiled and opcontrol check: --separate
 * lists, the cpu type, event specifications (validated against the cpu
 * type's events/ files through libop) and the privileges live sampling
 * needs. opcontrol checks them before it saves or starts anything, the
 * daemon again before it samples; one implementation keeps the two
 * agreeing.
 */
#ifndef OPD_SETTINGS_H
#define OPD_SETTINGS_H

#include <stddef.h>

#include "op_cpu_type.h"
#include "opd_core.h"

/*
 * "none", or a comma list of lib (or library), kernel, thread, cpu, all
 * into enum opd_separate bits; kernel implies lib. 0, or -1 with err.
 */
int opd_parse_separate(char const *text, unsigned *bits,
		       char *err, size_t errlen);

/* bits as "lib,kernel,thread,cpu" (the set ones) or "none". */
void opd_separate_text(unsigned bits, char *buf, size_t size);

/*
 * A --callgraph depth: a decimal number 0 (no backtraces) ..
 * OP_MAX_BACKTRACE_DEPTH. 0, or -1 with err.
 */
int opd_parse_callgraph(char const *text, unsigned *depth,
			char *err, size_t errlen);

/*
 * The cpu type: name (events/ directory name or number) when not NULL,
 * else this machine's. CPU_NO_GOOD with err when unknown or without
 * events/ files.
 */
enum op_cpu opd_settings_cpu(char const *name, char *err, size_t errlen);

/*
 * Validate a comma list of NAME:count[:um[:kernel[:user]]] (NULL, "" or
 * "default": the cpu type's default event) for cpu, with callgraph depth
 * callgraph (above 0, every event's minimum count is 15 times higher, as
 * ophelp --callgraph checks). On success fills cfg (when not NULL:
 * nr_events and events[]) and text with the normalised list
 * NAME:count:um:kernel:user,... and returns 0; else -1 with err.
 */
int opd_settings_events(char const *specs, enum op_cpu cpu, unsigned callgraph,
			struct opd_config *cfg, char *text, size_t textlen,
			char *err, size_t errlen);

/*
 * Live system-wide sampling needs root (or CAP_PERFMON / CAP_SYS_ADMIN),
 * or for a plain user kernel.perf_event_paranoid <= 0. 0 when allowed,
 * else -1 after printing why and how to fix it.
 */
int opd_check_privilege(void);

#endif /* OPD_SETTINGS_H */
