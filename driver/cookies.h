/* SPDX-License-Identifier: GPL-2.0 */
/* The cookie table (cookies.c): pinned paths and anonymous regions. */
#ifndef OP_COOKIES_H
#define OP_COOKIES_H

#include <linux/fs.h>
#include <linux/list.h>
#include <linux/path.h>
#include <linux/types.h>

#include "op_stream.h"

struct op_cookie {
	struct list_head list;
	struct hlist_node hash;
	struct path path;
	unsigned long id;
	char *name;
	size_t len;
	bool defined;                   /* defined in the current stream */
	unsigned long last_used;        /* jiffies of the last lookup */
	/* an anonymous region (ANON_DEF; path unused): tgid's [start, end) */
	bool anon;
	pid_t tgid;
	unsigned long start, end;
};

extern const struct file_operations op_cookies_fops;

/* Room to compute paths in; an empty table. */
int op_cookies_alloc(void);
/* Unpin and free every cookie. */
void op_cookies_free(void);
/* A cookie unused this long is freed by the sync (op_cookies_expire).
 * forget(c) is called first for each one defined in the stream, to tell
 * the daemon (ESC COOKIE_FORGET); false (no room in the event buffer)
 * keeps it and the rest for a later sync. */
#define OP_COOKIE_IDLE (10 * HZ)
void op_cookies_expire(bool (*forget)(struct op_cookie const *c));

struct op_cookie *op_cookie_get(const struct path *p);
struct op_cookie *op_anon_cookie_get(pid_t tgid, unsigned long start,
				     unsigned long end, char const *name);

/* c's definition, for op_stream.h's encoders. */
static inline struct op_stream_def op_cookie_def(struct op_cookie const *c)
{
	return (struct op_stream_def){
		.cookie = c->id, .name = c->name, .nbytes = c->len,
		.anon = c->anon, .tgid = c->tgid, .start = c->start, .end = c->end,
	};
}

#endif
