/*
 * A growable array of stream words (unsigned long), the output side of the
 * perf source and the input side of tests. Producers append escape records
 * and sample pairs; the consumer takes w[0..len) and resets.
 *
 * Invariants: w is NULL only while cap == 0; len <= cap.
 */
#ifndef WORD_BUFFER_H
#define WORD_BUFFER_H

#include <stddef.h>

struct word_buffer {
	unsigned long *w;	/* the words, w[0..len) valid */
	size_t len;		/* words in use */
	size_t cap;		/* words allocated */
};

void wb_init(struct word_buffer *wb);
void wb_free(struct word_buffer *wb);
/* Make room for at least extra more words (dies on out of memory). */
void wb_reserve(struct word_buffer *wb, size_t extra);

static inline void wb_reset(struct word_buffer *wb)
{
	wb->len = 0;
}

static inline void wb_push(struct word_buffer *wb, unsigned long v)
{
	if (wb->len == wb->cap)
		wb_reserve(wb, 1);
	wb->w[wb->len++] = v;
}

static inline void wb_push2(struct word_buffer *wb, unsigned long a,
			    unsigned long b)
{
	if (wb->cap - wb->len < 2)
		wb_reserve(wb, 2);
	wb->w[wb->len++] = a;
	wb->w[wb->len++] = b;
}

/* Words needed to pack nbytes string bytes (see OP_CODE_COOKIE_DEF). */
static inline size_t wb_string_words(size_t nbytes)
{
	return (nbytes + sizeof(unsigned long) - 1) / sizeof(unsigned long);
}

/* Append nbytes of s packed as op_stream.h says: first byte lowest. */
void wb_push_string(struct word_buffer *wb, char const *s, size_t nbytes);

#endif /* WORD_BUFFER_H */
