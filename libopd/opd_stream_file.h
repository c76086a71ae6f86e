/*
 * Recorded stream files: the words of an escape-coded stream
 * (libop/op_stream.h) saved as they were produced, so a session can be
 * replayed through the decoder, dumped, or used as a benchmark input.
 *
 *	OFFSET	SIZE	DESCRIPTION
 *	0	8	magic "OPSTREAM" (no NUL)
 *	8	4	word size in bytes (8 on x86-64), host byte order
 *	12	4	version (STREAM_FILE_VERSION), host byte order
 *	16	...	the stream words, host byte order
 *
 * A file is only readable on a host with the same word size and byte
 * order; a word-size mismatch is refused with a clear error. The length
 * after the header must be a whole number of words.
 */
#ifndef OPD_STREAM_FILE_H
#define OPD_STREAM_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct opd_trans;

#define STREAM_FILE_MAGIC "OPSTREAM"
#define STREAM_FILE_VERSION 1u

struct stream_file_header {
	char magic[8];
	uint32_t word_size;
	uint32_t version;
};

_Static_assert(sizeof(struct stream_file_header) == 16,
	       "stream file header is 16 bytes: see opd_stream_file.h");

struct stream_writer {
	FILE *f;
	char *path;
	uint64_t words;		/* words written so far */
};

/* Create path (truncating it) and write the header. 0 or -1 (reported). */
int opd_stream_writer_open(struct stream_writer *sw, char const *path);
/* Append n words. 0 or -1 (reported). */
int opd_stream_writer_write(struct stream_writer *sw, unsigned long const *w,
			size_t n);
/* Flush and close. 0 or -1 (reported). */
int opd_stream_writer_close(struct stream_writer *sw);

struct stream_reader {
	FILE *f;
	char *path;
	uint64_t words;		/* words read so far */
};

/* Open path and check its header. 0 or -1 (reported). */
int opd_stream_reader_open(struct stream_reader *sr, char const *path);
/* The same from the start of an open file fd (not taken: a copy is read),
 * named name in messages. */
int opd_stream_reader_open_fd(struct stream_reader *sr, int fd, char const *name);
/* Read up to max words into w: the count, 0 at the end, -1 on an error
 * (reported; a partial word at the end is one). */
long opd_stream_reader_read(struct stream_reader *sr, unsigned long *w,
			size_t max);
void opd_stream_reader_close(struct stream_reader *sr);

/*
 * Feed the whole file to dec in chunks of chunk_words (0: a default), then
 * finish dec. Returns 0, or -1 on an I/O or format error or if the stream
 * had decode errors (dec->stats tells which).
 */
int opd_stream_file_replay(char const *path, struct opd_trans *dec,
		       size_t chunk_words);

#endif /* OPD_STREAM_FILE_H */
