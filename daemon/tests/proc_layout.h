/* Shared by the process-map unit tests: a mapping by its bounds, and a
 * process's VMAs as text, to check against the expected text. */
#ifndef PROC_LAYOUT_H
#define PROC_LAYOUT_H

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cookie_table.h"
#include "proc_maps.h"

/* pm_map of [start, end) at pgoff of file name (no device/inode). */
static inline void map(struct proc_table *pt, struct cookie_table *ct,
		       struct proc *p, unsigned long start, unsigned long end,
		       unsigned long pgoff, char const *name)
{
	pm_map(pt, ct, p, start, end - start, pgoff, name, strlen(name),
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
		struct cookie_entry *e = ct_get(ct, v->flags & VMA_ANON ?
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

#endif
