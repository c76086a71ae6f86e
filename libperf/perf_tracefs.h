/*
 * Kernel tracepoints for perf_event_open (PERF_TYPE_TRACEPOINT): where
 * tracefs is, a tracepoint's id and the fields of its record, as the
 * kernel describes them in tracefs (events/SYS/NAME/id and .../format).
 * Field offsets are read from the format, never assumed: they change
 * between kernels.
 *
 * Many hosts boot without tracefs mounted. perf_tracefs_dir mounts it
 * at /sys/kernel/tracing when asked to and allowed (root); otherwise
 * the caller says in one line what to run (PERF_TRACEFS_HINT).
 */
#ifndef PERF_TRACEFS_H
#define PERF_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PERF_TRACEFS_DIR "/sys/kernel/tracing"
#define PERF_TRACEFS_HINT "mount -t tracefs nodev " PERF_TRACEFS_DIR " (as root)"

/*
 * The tracefs directory in buf: /sys/kernel/tracing, or the older
 * /sys/kernel/debug/tracing. Neither mounted and may_mount: mount
 * tracefs at /sys/kernel/tracing (needs CAP_SYS_ADMIN). 0, or -errno
 * (-ENOENT: not mounted and not mountable here).
 */
int perf_tracefs_dir(char *buf, size_t len, bool may_mount);

/* One field of a tracepoint's record (PERF_SAMPLE_RAW data). */
struct perf_tp_field {
	unsigned offset;	/* bytes from the start of the record */
	unsigned size;		/* bytes */
	bool is_signed;
};

/*
 * Tracepoint sys:name under tracefs dir: its id (the attr's config) and,
 * when field is not NULL, where that field is (*f). 0, or -errno with
 * err naming the file and what is wrong (-ENOENT: no such tracepoint or
 * field; -EINVAL: a file that does not read as the kernel writes it).
 */
int perf_tracepoint(char const *dir, char const *sys, char const *name,
		    char const *field, uint64_t *id, struct perf_tp_field *f,
		    char *err, size_t errlen);

/*
 * Parse a tracepoint format file's text for field (the format's
 * "field:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" lines). 0, or
 * -ENOENT (no such field), -EINVAL (its line is malformed).
 */
int perf_tp_format_field(char const *format, char const *field,
			 struct perf_tp_field *f);

#endif /* PERF_TRACEFS_H */
