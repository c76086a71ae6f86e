/* Stream file writer and reader; see opd_stream_file.h for the layout. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op_file.h"
#include "op_message.h"
#include "opd_trans.h"
#include "opd_stream_file.h"

#define W sizeof(unsigned long)

int opd_stream_writer_open(struct stream_writer *sw, char const *path)
{
	struct stream_file_header h = {
		.word_size = W,
		.version = STREAM_FILE_VERSION,
	};

	memcpy(h.magic, STREAM_FILE_MAGIC, sizeof(h.magic));
	sw->words = 0;
	sw->f = op_fopen_output(path);
	if (!sw->f)
		return op_error("cannot create stream file '%s': %s", path,
				op_file_strerror(errno));
	sw->path = op_xstrdup(path);
	if (fwrite(&h, sizeof(h), 1, sw->f) != 1) {
		op_error_errno("cannot write stream file '%s'", path);
		fclose(sw->f);
		free(sw->path);
		return -1;
	}
	return 0;
}

int opd_stream_writer_write(struct stream_writer *sw, unsigned long const *w,
			size_t n)
{
	if (n && fwrite(w, W, n, sw->f) != n)
		return op_error_errno("cannot write stream file '%s'", sw->path);
	sw->words += n;
	return 0;
}

int opd_stream_writer_close(struct stream_writer *sw)
{
	int err = 0;

	if (fclose(sw->f))
		err = op_error_errno("cannot write stream file '%s'", sw->path);
	free(sw->path);
	sw->f = NULL;
	sw->path = NULL;
	return err;
}

static int check_header(struct stream_reader *sr)
{
	struct stream_file_header h;

	if (fread(&h, sizeof(h), 1, sr->f) != 1)
		return op_error("stream file '%s' is too short for its header",
				sr->path);
	if (memcmp(h.magic, STREAM_FILE_MAGIC, sizeof(h.magic)))
		return op_error("'%s' is not a stream file: bad magic",
				sr->path);
	if (h.word_size != W)
		return op_error("stream file '%s' has %u-byte words, this host %zu",
				sr->path, h.word_size, W);
	if (h.version != STREAM_FILE_VERSION)
		return op_error("stream file '%s' has version %u, expected %u",
				sr->path, h.version, STREAM_FILE_VERSION);
	return 0;
}

int opd_stream_reader_open(struct stream_reader *sr, char const *path)
{
	sr->words = 0;
	/* a recorded stream is a regular file: a FIFO is refused, not
	 * waited on (the size is not bounded: it is read as it goes) */
	sr->f = op_fopen_regular(path);
	if (!sr->f)
		return op_error_errno("cannot open stream file '%s'", path);
	sr->path = op_xstrdup(path);
	if (check_header(sr)) {
		opd_stream_reader_close(sr);
		return -1;
	}
	return 0;
}

int opd_stream_reader_open_fd(struct stream_reader *sr, int fd, char const *name)
{
	int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);

	sr->words = 0;
	sr->f = NULL;
	if (copy < 0 || lseek(copy, 0, SEEK_SET) < 0 ||
	    !(sr->f = fdopen(copy, "r"))) {
		op_error_errno("cannot read stream file '%s'", name);
		if (copy >= 0)
			close(copy);
		return -1;
	}
	sr->path = op_xstrdup(name);
	if (check_header(sr)) {
		opd_stream_reader_close(sr);
		return -1;
	}
	return 0;
}

long opd_stream_reader_read(struct stream_reader *sr, unsigned long *w, size_t max)
{
	size_t got = fread(w, 1, max * W, sr->f);

	if (ferror(sr->f))
		return op_error_errno("cannot read stream file '%s'", sr->path);
	/* fread fills the request unless the file ends */
	if (got % W)
		return op_error("stream file '%s' ends with a partial word at byte %llu",
				sr->path, (unsigned long long)
				(sizeof(struct stream_file_header) +
				 (sr->words * W) + got - got % W));
	sr->words += got / W;
	return (long)(got / W);
}

void opd_stream_reader_close(struct stream_reader *sr)
{
	if (sr->f)
		fclose(sr->f);
	free(sr->path);
	sr->f = NULL;
	sr->path = NULL;
}

int opd_stream_file_replay(char const *path, struct opd_trans *dec,
		       size_t chunk_words)
{
	struct stream_reader sr;
	unsigned long *buf;
	long n;
	int err;

	if (!chunk_words)
		chunk_words = 64 * 1024;
	if (opd_stream_reader_open(&sr, path))
		return -1;
	buf = op_xmalloc(chunk_words * W);
	while ((n = opd_stream_reader_read(&sr, buf, chunk_words)) > 0)
		opd_trans_feed(dec, buf, (size_t)n);
	free(buf);
	opd_stream_reader_close(&sr);
	err = opd_trans_finish(dec);
	return n < 0 ? -1 : err;
}
