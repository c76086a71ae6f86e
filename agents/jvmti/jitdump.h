/**
 * @file jitdump.h
 * The jitdump file (jit-PID.dump, as perf's jitdump specification lays it
 * out) and the perf map (/tmp/perf-PID.map) written by the JVMTI agent.
 * Runs inside the JVM: no exit, no abort; a failure disables the output
 * that failed and warns once on stderr.
 */
#ifndef JITDUMP_H
#define JITDUMP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define JITDUMP_MAGIC 0x4A695444u
#define JITDUMP_VERSION 1u
#define JITDUMP_HEADER_SIZE 40u
#define JITDUMP_RECORD_HEADER_SIZE 16u

enum jitdump_record_id {
	JIT_CODE_LOAD = 0,
	JIT_CODE_MOVE = 1,
	JIT_CODE_DEBUG_INFO = 2,
	JIT_CODE_CLOSE = 3,
};

/** One line of a debug-info record: the code at @c addr is from @c line of @c file. */
struct jd_line {
	uint64_t addr;
	uint32_t line;
	const char *file;
};

struct jd_writer {
	int fd;			/* -1: off (never opened, or failed) */
	uint64_t offset;	/* end of the last whole record */
	uint64_t code_index;
	void *map;		/* the PROT_EXEC mapping perf looks for */
	size_t map_len;
	char path[4096];
};

struct pm_writer {
	int fd;			/* -1: off */
	uint64_t offset;	/* end of the last whole line */
	char path[4096];
};

/** The monotonic clock perf record -k 1 uses, in ns. */
uint64_t jd_timestamp(void);

/**
 * Create DIR/jit-PID.dump (never an existing file, never through a link),
 * write its header and map its first page with PROT_EXEC. Returns 0, or -1
 * after a warning (the writer stays off).
 */
int jd_open(struct jd_writer *w, const char *dir, pid_t pid);
/** A JIT_CODE_DEBUG_INFO record; it must come just before its code's load. */
void jd_debug_info(struct jd_writer *w, uint64_t code_addr,
		   const struct jd_line *lines, size_t nr);
/** A JIT_CODE_LOAD record with the code's bytes, read from @c addr. */
void jd_code_load(struct jd_writer *w, uint32_t pid, uint32_t tid, const char *name,
		  uint64_t addr, uint64_t size);
/** JIT_CODE_CLOSE, then unmap and close. */
void jd_close(struct jd_writer *w);

/** Create (or take over our own stale) /tmp/perf-PID.map; 0 or -1 (warned). */
int pm_open(struct pm_writer *w, const char *dir, pid_t pid);
void pm_write(struct pm_writer *w, uint64_t addr, uint64_t size, const char *name);
void pm_close(struct pm_writer *w);

/** Copy @c src to @c dst (of @c len bytes, NUL-terminated), control bytes as '?'. */
void jd_clean_name(char *dst, size_t len, const char *src);

#endif /* !JITDUMP_H */
