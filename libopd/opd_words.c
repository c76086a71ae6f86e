/* Growable stream-word array; see opd_words.h. */
#include <stdlib.h>
#include <string.h>

#include "op_message.h"
#include "opd_words.h"

void opd_words_init(struct word_buffer *wb)
{
	wb->w = NULL;
	wb->len = 0;
	wb->cap = 0;
}

void opd_words_free(struct word_buffer *wb)
{
	free(wb->w);
	opd_words_init(wb);
}

void opd_words_reserve(struct word_buffer *wb, size_t extra)
{
	size_t cap = wb->cap ? wb->cap : 1024;

	if (wb->cap - wb->len >= extra)
		return;
	while (cap - wb->len < extra)
		cap *= 2;
	wb->w = op_xrealloc(wb->w, cap * sizeof(*wb->w));
	wb->cap = cap;
}

void opd_words_push_string(struct word_buffer *wb, char const *s, size_t nbytes)
{
	size_t n = opd_words_string_words(nbytes);

	opd_words_reserve(wb, n);
	if (n)
		wb->w[wb->len + n - 1] = 0;	/* zero the tail padding */
	/* memcpy puts the first byte in the lowest-addressed byte of the
	 * first word on any host, which is what the contract asks. */
	memcpy(wb->w + wb->len, s, nbytes);
	wb->len += n;
}
