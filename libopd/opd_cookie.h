/*
 * The producer-side cookie table: it replaces the kernel's dcookies. A
 * binary's path is interned to a small integer cookie (1, 2, ...: never
 * OP_NO_COOKIE nor OP_INVALID_COOKIE), and anonymous executable regions get
 * cookies of their own. The stream carries a cookie's definition (ESC
 * COOKIE_DEF or ESC ANON_DEF) before its first use; the table remembers
 * which cookies were defined in the current stream so that starting a new
 * stream (a new file, a new reader) defines them again.
 *
 * Cookies are never reused: the decoder may not see a cookie redefined.
 *
 * A cookie lives while something maps it. The perf source marks the
 * cookies its processes' mappings use (opd_cookie_sweep_begin, opd_cookie_mark) and
 * forgets those unused for a grace period (opd_cookie_sweep_idle); a forgotten
 * cookie's entry is freed (its slot in ent[] stays, NULL: 8 bytes per
 * cookie ever handed out) and its path, mapped again, gets a new cookie.
 *
 * A file path is one cookie while it names one file. When a mapping shows
 * the path now names another file (another device or inode: a rebuilt
 * binary moved into place), the path gets a new cookie, so the consumer
 * sees a new definition and looks at the file again (its mtime, for the
 * sample file header); the old cookie stays valid for the old mappings.
 * A mapping whose record carries the file's build-id (MMAP2 with
 * attr.build_id: then without device and inode) is told apart by it
 * instead: the path's cookie with that build-id (an older one too), else
 * a new cookie; the build-id goes to the consumer with the definition
 * (ESC BUILD_ID), so it holds even after the file is gone or replaced.
 */
#ifndef OPD_COOKIE_H
#define OPD_COOKIE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "op_hashmap.h"
#include "op_stream.h"

struct word_buffer;

enum ct_kind {
	CT_FILE = 0,	/* a file path: ESC COOKIE_DEF */
	CT_ANON = 1,	/* an anonymous region: ESC ANON_DEF */
};

struct cookie_entry {
	char *name;		/* path or region name, NUL-terminated */
	size_t len;		/* strlen(name) */
	enum ct_kind kind;
	unsigned long tgid;	/* CT_ANON: owning process */
	unsigned long start;	/* CT_ANON: region start (offsets are from it) */
	unsigned long end;	/* CT_ANON: region end, exclusive */
	unsigned stream_gen;	/* == table gen: defined in this stream */
	uint64_t dev, ino;	/* CT_FILE: the file, once known (ino != 0) */
	unsigned long prev;	/* CT_FILE: the path's cookie before, or 0 */
	uint8_t build_id_len;	/* CT_FILE: build_id known (0: not) */
	unsigned char build_id[OP_MAX_BUILD_ID];
	unsigned mark;		/* == table sweep: in use at the last sweep */
	uint64_t idle_since;	/* first sweep that found it unused; 0: used */
};

/* A mapped file's identity: dev is major << 32 | minor; ino 0: unknown.
 * Or, from an MMAP2 record that has it, the file's build-id. */
struct ct_file_id {
	uint64_t dev, ino;
	uint8_t build_id_len;	/* 0: none */
	unsigned char build_id[OP_MAX_BUILD_ID];
};

struct cookie_table {
	struct cookie_entry **ent;	/* ent[cookie - 1]; NULL: forgotten */
	size_t nr;			/* cookies handed out */
	size_t cap;			/* entries allocated */
	size_t live;			/* entries held (not forgotten) */
	size_t first_live;		/* ent[0..first_live) are all NULL */
	struct op_hashmap paths;	/* path -> its current file cookie */
	unsigned gen;			/* current stream generation, >= 1 */
	unsigned sweep;			/* current sweep (opd_cookie_sweep_begin) */
};

/* ct must not move after opd_cookie_init: its path map refers to it. */
void opd_cookie_init(struct cookie_table *ct);
void opd_cookie_free(struct cookie_table *ct);

/* The cookie of path[0..len) (no NUL needed), interning it if new. */
unsigned long opd_cookie_intern(struct cookie_table *ct, char const *path, size_t len);
/* The same, for a mapping of the file id: a new cookie if path's cookie
 * was a different file. An unknown id (ino 0, no build-id) takes path's
 * current one. */
unsigned long opd_cookie_intern_file(struct cookie_table *ct, char const *path,
			     size_t len, struct ct_file_id id);

/* A new cookie for the anonymous region [start, end) of tgid. */
unsigned long opd_cookie_new_anon(struct cookie_table *ct, unsigned long tgid,
			  unsigned long start, unsigned long end,
			  char const *name);

/* The entry of cookie, or NULL if the table never handed it out or
 * forgot it. */
struct cookie_entry *opd_cookie_get(struct cookie_table *ct, unsigned long cookie);

/* Forget what was defined: the next stream defines every cookie again. */
void opd_cookie_new_stream(struct cookie_table *ct);
/* Free cookie's entry (nothing maps it any more): the number is never
 * handed out again; a file's path, mapped again, gets a new cookie. */
void opd_cookie_forget(struct cookie_table *ct, unsigned long cookie);

/* A sweep: opd_cookie_sweep_begin, opd_cookie_mark of every cookie in use, then
 * opd_cookie_sweep_idle. */
void opd_cookie_sweep_begin(struct cookie_table *ct);
static inline void opd_cookie_mark(struct cookie_table *ct, unsigned long cookie)
{
	if (cookie && cookie <= ct->nr && ct->ent[cookie - 1])
		ct->ent[cookie - 1]->mark = ct->sweep;
}
/* Call forget(arg, cookie) for each cookie left unmarked by every sweep
 * since at least grace_ns before now (> 0); it must opd_cookie_forget it. The
 * number of cookies passed to forget. */
size_t opd_cookie_sweep_idle(struct cookie_table *ct, uint64_t now, uint64_t grace_ns,
		     void (*forget)(void *arg, unsigned long cookie),
		     void *arg);

/* Append cookie's definition to wb unless this stream already has it.
 * OP_NO_COOKIE and OP_INVALID_COOKIE need no definition. */
void opd_cookie_define(struct cookie_table *ct, unsigned long cookie,
	       struct word_buffer *wb);

#endif /* OPD_COOKIE_H */
