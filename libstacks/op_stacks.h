/*
 * Whole stacks of a session (doc/formats.md section 6): an extension that
 * OProfile 1.x tools ignore, kept in samples/NAME/stacks/:
 *
 *   stacks/table            append-only records: images (index -> name as
 *                           the sample files name it, build-id), frames
 *                           (a prefix tree: caller frame, image index,
 *                           offset) and stacks (id -> tgid, app, unwind
 *                           stop reason, leaf frame: frames leaf first)
 *   stacks/EVENT.COUNT.UM   libdb sample files keyed by stack id
 *
 * Each table record carries its length and a checksum; a reader ignores a
 * torn tail (a writer killed in the middle of an append) and the writer
 * cuts it off before appending. A stack's record is written before any
 * count of it, so no count refers to a stack the table does not hold.
 *
 * The writer (the daemon core, op_stacks_write.c) and the reader (report
 * tools, op_stacks_read.c) share the codec (op_stacks_codec.c) and the
 * table in memory (op_stacks_table.c). Link: $(LIBSTACKS_LIBS), libs.am.
 */
#ifndef OP_STACKS_H
#define OP_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "op_session.h"		/* OP_STACKS_DIR */

struct opd_header;

/* The table file in OP_STACKS_DIR. */
#define OP_STACKS_TABLE "table"

/* The most frames a stack keeps (the stream's callgraph depth is less). */
#define OP_STACKS_MAX_FRAMES 1024

/*
 * Why unwinding stopped: X(enum suffix, value, name). The name is the
 * stats/ file "unwind_stop_NAME" and what reports print.
 *   root          the outermost frame: CFI says the return address is
 *                 undefined (_start, thread start), or it is 0; a kernel
 *                 thread's kernel stack
 *   no_cfi        a frame's pc has no CFI in its binary (or the binary
 *                 cannot be read, or is no ELF file: JIT code)
 *   bad_cfa       the CFI rule needs a register the sample does not have,
 *                 an unsupported expression, or the stack did not grow
 *   stack_end     a read beyond the copy of the user stack (--stack-size)
 *   no_mapping    a frame's pc is in no known mapping
 *   depth_limit   the callgraph depth was reached
 *   fp_chain_end  a frame-pointer walk ended (the driver, --stack-size=0):
 *                 whether it reached the root is unknown
 *   no_stack_copy the sample has no user registers or stack copy
 *   bad_frame     the stream's backtrace was malformed
 */
#define OP_UNWIND_STOPS(X) \
	X(ROOT, 0, root) \
	X(NO_CFI, 1, no_cfi) \
	X(BAD_CFA, 2, bad_cfa) \
	X(STACK_END, 3, stack_end) \
	X(NO_MAPPING, 4, no_mapping) \
	X(DEPTH_LIMIT, 5, depth_limit) \
	X(FP_CHAIN_END, 6, fp_chain_end) \
	X(NO_STACK_COPY, 7, no_stack_copy) \
	X(BAD_FRAME, 8, bad_frame)

enum op_unwind_stop {
#define OP_UNWIND_ENUM(e, v, n) OP_UNWIND_##e = v,
	OP_UNWIND_STOPS(OP_UNWIND_ENUM)
#undef OP_UNWIND_ENUM
	OP_UNWIND_NR
};

/* "root", "no_cfi", ...; "unknown" for a value not in the list. */
char const *op_unwind_stop_name(uint32_t reason);

/* The checksum of a table record's payload (doc/formats.md section 6). */
uint32_t op_stacks_checksum(void const *payload, size_t len);

struct op_stack_frame {
	uint32_t image;		/* index in the image table */
	uint64_t offset;	/* as the keys of that image's sample files */
};

struct op_stack {
	uint64_t id;		/* 1, 2, ...: stable within the session */
	uint32_t tgid;
	uint32_t app;		/* image index of the process's binary */
	uint32_t stop;		/* enum op_unwind_stop */
	uint32_t nframes;
	struct op_stack_frame const *frames;	/* leaf first */
};

struct op_stack_image {
	char const *name;	/* "{root}/usr/bin/gzip", "{kern}/ext4", ... */
	char const *build_id;	/* lower-case hex; NULL if unknown */
};

/* ---- reader ---- */

struct op_stacks;

/*
 * Read the stacks of the session at session_samples_dir (samples/NAME).
 * 0; -ENOENT when the session has no stacks; another -errno after printing
 * an error naming the file and what is wrong.
 */
int op_stacks_open(char const *session_samples_dir, struct op_stacks **out);
void op_stacks_close(struct op_stacks *st);

size_t op_stacks_nimages(struct op_stacks const *st);
struct op_stack_image const *op_stacks_image(struct op_stacks const *st,
					     uint32_t i);

/* Events with counts, as "CPU_CLOCK.100000.0" (sorted by name). */
size_t op_stacks_nevents(struct op_stacks const *st);
char const *op_stacks_event(struct op_stacks const *st, size_t i);

/* Stacks in the table, in id order (with or without counts). */
size_t op_stacks_nstacks(struct op_stacks const *st);
struct op_stack const *op_stacks_stack(struct op_stacks const *st, size_t i);
/* The stack with this id, or NULL. */
struct op_stack const *op_stacks_find(struct op_stacks const *st,
				      uint64_t id);

/*
 * Call cb for every (stack, event, count) with a count of event (NULL:
 * every event). Stops at the first non-zero cb result and returns it;
 * else 0, or -errno after an error naming the file (a count file that
 * does not read, or a count of a stack the table does not hold).
 */
int op_stacks_foreach(struct op_stacks const *st, char const *event,
		      int (*cb)(void *arg, struct op_stack const *s,
				char const *event, uint64_t count),
		      void *arg);

/* ---- writer ---- */

struct op_stacks_writer;

/*
 * Open (creating stacks/ and its table) the stacks of the session at
 * session_samples_dir, continuing an existing table: its images and
 * stacks keep their indexes and ids. 0 or -errno after an error.
 */
int op_stacks_writer_open(char const *session_samples_dir,
			  struct op_stacks_writer **out);
void op_stacks_writer_close(struct op_stacks_writer *w);

/* The index of image name (interned; its record appended when new).
 * build_id may be NULL. 0 or -errno after an error. */
int op_stacks_writer_image(struct op_stacks_writer *w, char const *name,
			   char const *build_id, uint32_t *index);

/* The id of this stack (interned; its record appended when new).
 * s->id is ignored. 0 or -errno after an error. */
int op_stacks_writer_stack(struct op_stacks_writer *w,
			   struct op_stack const *s, uint64_t *id);

/*
 * Add n to stack id's count of event ("CPU_CLOCK.100000.0"); the count
 * file is created with header hdr when new. 0, 1 (ODB_SATURATED: the
 * count stopped at UINT32_MAX) or -errno after an error.
 */
int op_stacks_writer_count(struct op_stacks_writer *w, char const *event,
			   struct opd_header const *hdr, uint64_t id,
			   uint32_t n);

/* Push the table and the counts towards the disk (at a flush). 0/-errno. */
int op_stacks_writer_sync(struct op_stacks_writer *w);

size_t op_stacks_writer_nstacks(struct op_stacks_writer const *w);

#endif /* OP_STACKS_H */
