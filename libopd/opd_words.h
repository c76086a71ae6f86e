/*
 * A growable array of stream words (unsigned long), the output side of the
 * perf source and the input side of tests. Producers append escape records
 * and sample pairs; the consumer takes w[0..len) and resets.
 *
 * Invariants: w is NULL only while cap == 0; len <= cap.
 */
#ifndef OPD_WORDS_H
#define OPD_WORDS_H

#include <stddef.h>

struct word_buffer {
	unsigned long *w;	/* the words, w[0..len) valid */
	size_t len;		/* words in use */
	size_t cap;		/* words allocated */
};

void opd_words_init(struct word_buffer *wb);
void opd_words_free(struct word_buffer *wb);
/* Make room for at least extra more words (dies on out of memory). */
void opd_words_reserve(struct word_buffer *wb, size_t extra);

static inline void opd_words_reset(struct word_buffer *wb)
{
	wb->len = 0;
}

static inline void opd_words_push(struct word_buffer *wb, unsigned long v)
{
	if (wb->len == wb->cap)
		opd_words_reserve(wb, 1);
	wb->w[wb->len++] = v;
}

static inline void opd_words_push2(struct word_buffer *wb, unsigned long a,
			    unsigned long b)
{
	if (wb->cap - wb->len < 2)
		opd_words_reserve(wb, 2);
	wb->w[wb->len++] = a;
	wb->w[wb->len++] = b;
}

/* Words needed to pack nbytes string bytes (see OP_CODE_COOKIE_DEF). */
static inline size_t opd_words_string_words(size_t nbytes)
{
	return (nbytes + sizeof(unsigned long) - 1) / sizeof(unsigned long);
}

/* Append nbytes of s packed as op_stream.h says: first byte lowest. */
void opd_words_push_string(struct word_buffer *wb, char const *s, size_t nbytes);

#endif /* OPD_WORDS_H */
