/*
 * opreport --stream: a recorded event stream (operf/oprofiled
 * --record-stream, libopd/opd_stream_file.h) reported like a session. The
 * stream goes through the daemon's own decoder and core (libopd) into a
 * temporary session directory, optionally only the samples of a time
 * window (ESC TIME, libop/op_stream.h); the report then reads that
 * directory like any other. Nothing here decodes a word itself.
 *
 * Its sample files stay in memory (the core's sample sink, libpp's
 * pp_memtree): on disk a file per image costs a page and a directory per
 * component of its path, hundreds of times what the stream holds. The
 * directory keeps the session's other files (build-ids, the stack table,
 * the kernel symbols). A helper process removes it however opreport
 * ends: a fatal error, SIGTERM, SIGHUP, SIGINT, even SIGKILL.
 *
 * The stream is read twice (its time range, then the replay): a file
 * must be a regular one (a FIFO planted where a stream file is expected
 * is refused, not waited on); "-" is standard input, a pipe, copied into
 * the temporary directory first.
 */
#ifndef OPREPORT_STREAM_H
#define OPREPORT_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include <sys/types.h>

#include "opd_core.h"

struct pp_memtree;

struct opreport_stream {
	char const *file;	/* the stream file ("standard input" for -) */
	int fd;			/* it, open (read from the start each pass) */
	struct opd_config cfg;	/* events, cpu type, --separate */
	uint64_t first, last;	/* its first and last ESC TIME (ns) */
	bool has_time;		/* it has any */
	uint64_t samples;	/* sample pairs in it */
	char *tmp;		/* the temporary directory (made at the first
				 * session or for -, removed at free) */
	unsigned nr_dirs;	/* sessions made in it so far */
	struct pp_memtree *mem;	/* the last session's sample files */
	int guard;		/* the pipe whose end tells the helper */
	pid_t guard_pid;	/* the helper removing tmp (0: none) */
};

/*
 * Open the stream file: check it, read its time range, and settle the
 * core's configuration: events as operf's --events (NULL: the cpu type's
 * default), separate as oprofiled --separate (NULL: none). 0, or -1 after
 * a message naming the file or the bad value.
 */
int opreport_stream_open(struct opreport_stream *s, char const *file,
			 char const *events, char const *separate);
void opreport_stream_free(struct opreport_stream *s);

/*
 * "START,END" (either may be empty: the stream's start or end): seconds
 * from the stream's first TIME (decimal), or absolute CLOCK_MONOTONIC ns
 * with the suffix "ns". Into [*start, *end). 0, or -1 with err.
 */
int opreport_stream_window(struct opreport_stream const *s, char const *text,
			   uint64_t *start, uint64_t *end,
			   char *err, size_t errlen);

/*
 * A new session directory holding the stream's samples in [start, end)
 * (whole: false: every sample, time or not). *written: the samples it
 * holds. The directory (freed by the caller) lives until
 * opreport_stream_free, its sample files (in memory) until the next
 * session; or NULL after a message.
 */
char *opreport_stream_session(struct opreport_stream *s, bool whole,
			      uint64_t start, uint64_t end, uint64_t *written);

#endif /* OPREPORT_STREAM_H */
