/*
 * The oprofile driver source: the stream comes from the oprofilefs kernel
 * module (driver/), read from DRIVER_DIR/buffer (op_op_driver_dir():
 * $OPROFILE_DRIVER_DIR, default /dev/oprofile). open() writes the
 * events into the counter directories N/ and the callgraph depth into
 * backtrace_depth, and opens the buffer (which makes the driver allocate
 * its buffers); start/stop write enable; flush
 * writes dump, which makes the driver sync its cpu buffers into the event
 * buffer at once, and then reads the buffer empty. The driver already
 * writes the escape-coded stream of libop/op_stream.h (cookies defined
 * in-band), so the words go to the sink as they are read.
 *
 * The buffer is read non-blocking: the daemon polls it and reads it at
 * least every 100 ms while sampling anyway.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_message.h"
#include "op_session.h"
#include "opd_source.h"

struct driver_priv {
	int fd;                          /* DRIVER_DIR/buffer */
	unsigned long *buf;
	size_t buf_words;
	int running;
	int verbose;
	opd_sink_fn sink;
	void *sink_arg;
};

/* Write "value\n" to DIR/name. 0 or -1 (message printed). */
static int write_file(char const *name, unsigned long value)
{
	char path[512], text[32];
	int fd, n, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", op_driver_dir(), name);
	n = snprintf(text, sizeof(text), "%lu\n", value);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return op_error_errno("cannot open '%s'", path);
	if (write(fd, text, n) != n)
		ret = op_error_errno("cannot write %lu to '%s'", value, path);
	close(fd);
	return ret;
}

static int read_file(char const *name, unsigned long *value)
{
	char path[512], text[64];

	snprintf(path, sizeof(path), "%s/%s", op_driver_dir(), name);
	if (op_session_read_small(path, text, sizeof(text)) <= 0)
		return -1;
	*value = strtoul(text, NULL, 10);
	return 0;
}

/* The counter directories: N/{enabled,event,count,unit_mask,kernel,user}. */
static int write_counters(struct opd_config const *core)
{
	char name[64];
	struct stat st;
	size_t i;

	for (i = 0; i < core->nr_events; i++) {
		struct opd_event const *e = &core->events[i];

		snprintf(name, sizeof(name), "%s/%zu", op_driver_dir(), i);
		if (stat(name, &st) < 0)
			return op_error("the driver has no counter %zu for event %s (too many events)",
					i, e->name);
#define W(f, v) (snprintf(name, sizeof(name), "%zu/" f, i), write_file(name, (v)))
		if (W("enabled", 0) < 0 || W("event", e->code) < 0 ||
		    W("count", e->count) < 0 || W("unit_mask", e->unit_mask) < 0 ||
		    W("kernel", e->kernel != 0) < 0 || W("user", e->user != 0) < 0 ||
		    W("enabled", 1) < 0)
			return op_error("the driver refused event %s:%u (see above)",
					e->name, e->count);
#undef W
	}
	/* counters beyond ours are switched off */
	for (; i < 64; i++) {
		snprintf(name, sizeof(name), "%s/%zu", op_driver_dir(), i);
		if (stat(name, &st) < 0)
			break;
		snprintf(name, sizeof(name), "%zu/enabled", i);
		write_file(name, 0);
	}
	return 0;
}

static int driver_open(struct opd_source *src, struct opd_source_config const *cfg)
{
	struct driver_priv *p;
	unsigned long words = 0;
	char path[512];

	/* a leftover session of a killed daemon */
	write_file("enable", 0);
	if (write_counters(cfg->core) < 0)
		return -1;
	if (write_file("backtrace_depth", cfg->callgraph_depth) < 0)
		return op_error("the driver refused backtrace_depth %u (see above)",
				cfg->callgraph_depth);
	if (read_file("buffer_size", &words) < 0 || words == 0)
		return op_error("cannot read %s/buffer_size", op_driver_dir());
	p = op_xcalloc(1, sizeof(*p));
	p->buf_words = words;
	p->buf = op_xcalloc(words, sizeof(unsigned long));
	p->sink = cfg->sink;
	p->sink_arg = cfg->sink_arg;
	p->verbose = cfg->verbose;
	snprintf(path, sizeof(path), "%s/buffer", op_driver_dir());
	p->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (p->fd < 0) {
		op_error("cannot open '%s': %s%s", path, strerror(errno),
			 errno == EBUSY ? " (another daemon reads it)" : "");
		free(p->buf);
		free(p);
		return -1;
	}
	src->priv = p;
	return 0;
}

/* Read until the buffer is empty (or, after a stop, ends). 0 or -1. */
static int drain(struct driver_priv *p)
{
	for (;;) {
		ssize_t n = read(p->fd, p->buf, p->buf_words * sizeof(unsigned long));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0)
			return op_error_errno("cannot read %s/buffer", op_driver_dir());
		if (n == 0)
			return 0;
		if (n % sizeof(unsigned long))
			return op_error("%s/buffer returned %zd bytes: not whole words",
					op_driver_dir(), n);
		p->sink(p->buf, (size_t)n / sizeof(unsigned long), p->sink_arg);
	}
}

static int driver_start(struct opd_source *src)
{
	struct driver_priv *p = src->priv;

	if (write_file("enable", 1) < 0)
		return -1;
	p->running = 1;
	return 0;
}

static int driver_stop(struct opd_source *src)
{
	struct driver_priv *p = src->priv;
	int ret = write_file("enable", 0);

	p->running = 0;
	/* disabling syncs everything into the buffer: take it all */
	if (drain(p) < 0)
		ret = -1;
	return ret;
}

static size_t driver_pollfds(struct opd_source *src, struct pollfd *fds, size_t max)
{
	struct driver_priv *p = src->priv;

	/* stopped, the buffer polls readable for end of file: no busy loop */
	if (!max || !p->running)
		return 0;
	fds[0] = (struct pollfd){ .fd = p->fd, .events = POLLIN };
	return 1;
}

static int driver_read(struct opd_source *src)
{
	return drain(src->priv);
}

/* The driver has no timestamps: a dump moves everything sampled so far
 * into the event buffer, which is then read empty. */
static int driver_flush(struct opd_source *src, uint64_t until_ns)
{
	struct driver_priv *p = src->priv;

	(void)until_ns;
	if (p->running && write_file("dump", 1) < 0)
		return -1;
	return drain(p);
}

static void driver_close(struct opd_source *src)
{
	struct driver_priv *p = src->priv;

	if (!p)
		return;
	if (p->running)
		driver_stop(src);
	if (p->verbose) {
		unsigned long recv = 0, emitted = 0;

		read_file("stats/sample_received", &recv);
		read_file("stats/sample_emitted", &emitted);
		op_info("driver source: %lu samples taken, %lu written to the stream",
			recv, emitted);
	}
	close(p->fd);
	free(p->buf);
	free(p);
	src->priv = NULL;
}

struct opd_source_ops const opd_driver_ops = {
	.name = "driver",
	.open = driver_open,
	.start = driver_start,
	.stop = driver_stop,
	.pollfds = driver_pollfds,
	.read = driver_read,
	.flush = driver_flush,
	.close = driver_close,
};

int opd_driver_present(void)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/buffer", op_driver_dir());
	return access(path, F_OK) == 0;
}
