/*
 * Jitdump: the binary file a JIT writes for profilers, jit-PID.dump
 * (Node's --perf-prof, our JVMTI agent's jitdump mode, .NET's
 * DOTNET_PerfMapEnabled=1), as the Linux perf tools lay it out: a header,
 *
 *	u32 magic 0x4A695444 ('JiTD'), u32 version (1), u32 total_size,
 *	u32 elf_mach, u32 pad, u32 pid, u64 timestamp, u64 flags
 *
 * then records, each {u32 id, u32 total_size, u64 timestamp} and a body:
 *
 *	0 CODE_LOAD   u32 pid, u32 tid, u64 vma, u64 code_addr,
 *	              u64 code_size, u64 code_index, name NUL, code bytes
 *	1 CODE_MOVE   u32 pid, u32 tid, u64 vma, u64 old_code_addr,
 *	              u64 new_code_addr, u64 code_size, u64 code_index
 *	2 DEBUG_INFO  u64 code_addr, u64 nr_entry, entries {u64 addr,
 *	              i32 lineno, i32 discrim, file name NUL}
 *	3 CLOSE, 4 UNWINDING_INFO, others: skipped by their total_size.
 *
 * The file comes from an untrusted user: the parser reads it through a
 * bounded window, checks every size against the record and the file,
 * and keeps (struct op_jitdump_limits) at most max_loads code loads that
 * overlap the caller's ranges, with at most max_code bytes of code, and
 * reads at most max_bytes of the file. A dump written on a machine of the
 * other byte order (the magic reversed) is refused.
 *
 * A DEBUG_INFO record's entries go with the load of its code_addr that
 * follows it (at most OP_JITDUMP_MAX_LINES entries and
 * OP_JITDUMP_MAX_FILES bytes of file names kept); an entry outside its
 * load, or of line 0, is not kept.
 *
 * A later load over the addresses of an earlier one wins (the JIT
 * reused the memory): the earlier is dropped and counted (replaced).
 * A CODE_MOVE moves its load (found by code index and old address).
 *
 *	struct op_jitdump d = { 0 };
 *	if (op_jitdump_read_fd(&d, fd, ranges, nr, NULL, err, sizeof(err)))
 *		... err: the file is not a jitdump, nothing kept ...
 *	... d.v[i] sorted by addr, not overlapping; d.problem: the first
 *	    record that was wrong (d.problem_at: its offset) ...
 *	op_jitdump_free(&d);
 */
#ifndef OP_JITDUMP_H
#define OP_JITDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "op_perf_map.h"

#define OP_JITDUMP_MAGIC 0x4A695444u
#define OP_JITDUMP_HEADER_SIZE 40u
#define OP_JITDUMP_RECORD_SIZE 16u   /* a record's header */
#define OP_JITDUMP_LOAD_SIZE 56u     /* CODE_LOAD before its name */
#define OP_JITDUMP_MOVE_SIZE 64u     /* CODE_MOVE, whole */

enum op_jitdump_id {
	OP_JITDUMP_CODE_LOAD = 0,
	OP_JITDUMP_CODE_MOVE = 1,
	OP_JITDUMP_DEBUG_INFO = 2,
	OP_JITDUMP_CLOSE = 3,
	OP_JITDUMP_UNWINDING_INFO = 4,
};

/* The default bounds: what the daemon keeps of one process. */
#define OP_JITDUMP_MAX_BYTES (1ull << 30)   /* of the file read */
#define OP_JITDUMP_MAX_LOADS 65536
#define OP_JITDUMP_MAX_CODE (64u << 20)     /* code bytes kept */
#define OP_JITDUMP_MAX_LINES (1u << 20)     /* line entries kept */
#define OP_JITDUMP_MAX_FILES (16u << 20)    /* bytes of file names kept */

struct op_jitdump_limits {
	uint64_t max_bytes;
	size_t max_loads;
	uint64_t max_code;
};

/* A DEBUG_INFO entry: the code from addr on is from line of file. */
struct op_jitdump_line {
	uint64_t addr;          /* inside its load */
	uint32_t line;          /* > 0 */
	uint32_t file;          /* index in op_jitdump.files */
};

struct op_jitdump_load {
	uint64_t addr;
	uint64_t size;          /* > 0; addr + size does not wrap */
	uint64_t index;         /* the JIT's code index */
	uint64_t seq;           /* its place in the file (later: higher) */
	char *name;             /* not empty, at most OP_PERF_MAP_NAME_MAX */
	unsigned char *code;    /* size bytes */
	struct op_jitdump_line *lines;  /* sorted by addr; NULL: none */
	size_t nr_lines;
};

struct op_jitdump {
	struct op_jitdump_load *v;    /* kept; after a read: sorted by addr,
				       * none overlapping */
	size_t n, alloc;
	uint32_t elf_mach, pid;       /* from the header */
	uint64_t code_bytes;          /* of the loads kept */
	char **files;                 /* the lines' file names, each once */
	size_t nr_files, alloc_files;
	uint64_t file_bytes;
	size_t *file_hash;            /* open addressing: index + 1, 0: free */
	size_t hash_size;
	uint64_t nr_lines;            /* of the loads kept */
	uint64_t lines_cut;           /* entries past the bounds, not kept */
	uint64_t records;             /* records read whole */
	uint64_t loads, moves, debug_info;
	uint64_t replaced;            /* kept loads a later load overwrote */
	uint64_t cut;                 /* loads in the ranges past the bounds */
	uint64_t moves_lost;          /* moves whose load was not kept */
	bool bytes_cut;               /* the file is longer than max_bytes */
	bool truncated;               /* its last record is not whole (a
				       * dump being written, or cut short) */
	char problem[160];            /* the first record that was wrong */
	uint64_t problem_at;          /* its offset in the file */
};

/* Reads len bytes at off into buf: bytes read (fewer at the end), -1. */
typedef ssize_t (*op_jitdump_pread_fn)(void *ctx, void *buf, size_t len,
				       uint64_t off);

/*
 * Read a jitdump of size bytes through rd. Only loads overlapping one of
 * ranges are kept (nr_ranges 0: all); lim NULL: the defaults above.
 * 0, or -1 with err when it is not a jitdump this reads (its header):
 * nothing is kept then. A record that is wrong stops the reading there
 * (problem says what, problem_at where); what came before is kept.
 */
int op_jitdump_read(struct op_jitdump *d, op_jitdump_pread_fn rd, void *ctx,
		    uint64_t size, struct op_perf_map_range const *ranges,
		    size_t nr_ranges, struct op_jitdump_limits const *lim,
		    char *err, size_t errlen);

/* The same over an open file (its size from fstat) or a buffer. */
int op_jitdump_read_fd(struct op_jitdump *d, int fd,
		       struct op_perf_map_range const *ranges, size_t nr_ranges,
		       struct op_jitdump_limits const *lim, char *err,
		       size_t errlen);
int op_jitdump_read_mem(struct op_jitdump *d, void const *buf, size_t len,
			struct op_perf_map_range const *ranges,
			size_t nr_ranges, struct op_jitdump_limits const *lim,
			char *err, size_t errlen);

/* The kept load whose [addr, addr + size) holds addr, or NULL. */
struct op_jitdump_load const *op_jitdump_find(struct op_jitdump const *d,
					      uint64_t addr);

void op_jitdump_free(struct op_jitdump *d);

/*
 * The kept loads as an ELF64 file (the host's byte order, machine
 * d->elf_mach): each run of loads less than OP_JITDUMP_ELF_GAP apart is
 * one .text section at its address (the gaps zero), each load a
 * function symbol; the loads' lines as a DWARF 2 line table
 * (.debug_line, with a compile unit in .debug_info spanning the code),
 * which libbfd reads. At most OP_JITDUMP_ELF_SECTIONS sections: the loads
 * past them are left out, their number in *left_out. malloc'ed, its
 * length in *len.
 */
#define OP_JITDUMP_ELF_GAP 1024u
#define OP_JITDUMP_ELF_SECTIONS 60000u
unsigned char *op_jitdump_elf(struct op_jitdump const *d, size_t *len,
			      size_t *left_out);

#endif /* OP_JITDUMP_H */
