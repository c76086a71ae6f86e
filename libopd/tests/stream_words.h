/*
 * Shared by the daemon's stream tests: escape records appended to a word
 * buffer, one helper per record, laid out as op_stream.h says.
 */
#ifndef STREAM_WORDS_H
#define STREAM_WORDS_H

#include <string.h>

#include "op_stream.h"
#include "opd_words.h"

static inline void sw_esc(struct word_buffer *wb, unsigned long code)
{
	opd_words_push2(wb, OP_ESCAPE_CODE, code);
}

static inline void sw_cpu(struct word_buffer *wb, unsigned long cpu)
{
	sw_esc(wb, OP_CODE_CPU_SWITCH);
	opd_words_push(wb, cpu);
}

/* A context switch to thread tid of tgid, running image app. */
static inline void sw_ctx(struct word_buffer *wb, unsigned long tid,
			  unsigned long app, unsigned long tgid)
{
	sw_esc(wb, OP_CODE_CTX_SWITCH);
	opd_words_push2(wb, tid, app);
	sw_esc(wb, OP_CODE_CTX_TGID);
	opd_words_push(wb, tgid);
}

static inline void sw_kernel(struct word_buffer *wb)
{
	sw_esc(wb, OP_CODE_KERNEL_ENTER);
}

static inline void sw_user(struct word_buffer *wb)
{
	sw_esc(wb, OP_CODE_USER_ENTER);
}

static inline void sw_cookie(struct word_buffer *wb, unsigned long cookie)
{
	sw_esc(wb, OP_CODE_COOKIE_SWITCH);
	opd_words_push(wb, cookie);
}

static inline void sw_cookie_def(struct word_buffer *wb, unsigned long cookie,
				 char const *path)
{
	sw_esc(wb, OP_CODE_COOKIE_DEF);
	opd_words_push2(wb, cookie, strlen(path));
	opd_words_push_string(wb, path, strlen(path));
}

/* An anonymous region [start, end) of tgid, named name ("[heap]"...). */
static inline void sw_anon_def(struct word_buffer *wb, unsigned long cookie,
			       unsigned long tgid, unsigned long start,
			       unsigned long end, char const *name)
{
	sw_esc(wb, OP_CODE_ANON_DEF);
	opd_words_push2(wb, cookie, tgid);
	opd_words_push2(wb, start, end);
	opd_words_push(wb, strlen(name));
	opd_words_push_string(wb, name, strlen(name));
}

#endif /* STREAM_WORDS_H */
