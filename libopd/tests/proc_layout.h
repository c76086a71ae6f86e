/* Shared by the process-map unit tests: a mapping by its bounds, and a
 * process's VMAs as text, to check against the expected text. */
#ifndef PROC_LAYOUT_H
#define PROC_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "opd_cookie.h"
#include "op_stream.h"
#include "opd_maps.h"
#include "opd_emit.h"
#include "opd_words.h"

/* opd_maps_map of [start, end) at pgoff of file name (no device/inode). */
static inline void map(struct proc_table *pt, struct cookie_table *ct,
		       struct proc *p, unsigned long start, unsigned long end,
		       unsigned long pgoff, char const *name)
{
	opd_maps_map(pt, ct, p, start, end - start, pgoff, name, strlen(name),
	       (struct ct_file_id){ 0 });
}

/* "start-end:pgoff:name ..." of p's VMAs ("" for no process), for
 * comparisons; the text lives until the next call. */
static inline char const *layout(struct cookie_table *ct, struct proc *p)
{
	static char buf[2048];
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; p && i < p->nr; i++) {
		struct vma *v = &p->vma[i];
		struct cookie_entry *e = opd_cookie_get(ct, v->flags & VMA_ANON ?
						v->name : v->cookie);

		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
					"%s%lx-%lx:%lx:%s", i ? " " : "",
					v->start, v->end, v->pgoff,
					e ? e->name : "?");
	}
	return buf;
}

/* p's layout is expect (both shown when it is not). */
static inline void check_layout(struct cookie_table *ct, struct proc *p,
				char const *expect, char const *what)
{
	check_str(layout(ct, p), expect, "%s", what);
}

/* sweep_cookies of opd_perf.c, without the unwinder: after lost
 * records the processes gone are exited, then the cookies no process
 * maps are forgotten once idle (a 10 ns grace). */
static inline void forget_one(void *arg, unsigned long cookie)
{
	opd_emit_forget(arg, cookie);
}

static inline size_t sweep(struct proc_table *pt, struct cookie_table *ct,
			   struct stream_emit *se, unsigned long round,
			   uint64_t now)
{
	opd_maps_exit_gone(pt, round);
	opd_cookie_sweep_begin(ct);
	opd_maps_mark_cookies(pt, ct);
	return opd_cookie_sweep_idle(ct, now, 10, forget_one, se);
}

/* wb holds ESC COOKIE_FORGET cookie */
static inline bool has_forget(struct word_buffer const *wb,
			      unsigned long cookie)
{
	for (size_t i = 0; i + 2 < wb->len; i++)
		if (wb->w[i] == OP_ESCAPE_CODE &&
		    wb->w[i + 1] == OP_CODE_COOKIE_FORGET && wb->w[i + 2] == cookie)
			return true;
	return false;
}

#endif
