/*
 * Where the daemon's event stream comes from. oprofiled's main loop knows
 * a source only through these operations, so that the perf_events source
 * (opd_perf.c) and the oprofile driver's buffer file slot in
 * the same way. A source hands its stream words to the sink it was opened
 * with; the sink (oprofiled) records them and feeds the core.
 *
 * Calls come from the daemon's single thread only.
 */
#ifndef OPD_SOURCE_H
#define OPD_SOURCE_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "opd_core.h"

/* Receives stream words; a chunk may end in the middle of a record. */
typedef void (*opd_sink_fn)(unsigned long const *words, size_t n, void *arg);

struct opd_source_config {
	struct opd_config const *core;   /* events (stream index i = events[i]) */
	unsigned buffer_pages;           /* ring size per cpu, pages (0: default) */
	unsigned callgraph_depth;        /* callers per sample, 0: no backtraces */
	int stack_size;                  /* user stack bytes; -1 default, 0 FP only */
	int verbose;
	opd_sink_fn sink;
	void *sink_arg;
};

struct opd_source;

struct opd_source_ops {
	char const *name;                /* "perf", "driver" */
	/* Set up everything, not sampling yet. 0 or -1 (message printed). */
	int (*open)(struct opd_source *src, struct opd_source_config const *cfg);
	/* Start / stop sampling. 0 or -1 (message printed). */
	int (*start)(struct opd_source *src);
	int (*stop)(struct opd_source *src);
	/* The fds to poll for POLLIN; returns how many were filled. */
	size_t (*pollfds)(struct opd_source *src, struct pollfd *fds, size_t max);
	/* Read what is ready and emit what may be emitted now. 0 or -1. */
	int (*read)(struct opd_source *src);
	/*
	 * Emit everything sampled at or before until_ns (CLOCK_MONOTONIC;
	 * UINT64_MAX: everything there is). After it returns, the sink has
	 * seen every such sample. 0 or -1.
	 */
	int (*flush)(struct opd_source *src, uint64_t until_ns);
	/* Release everything; stops sampling first. */
	void (*close)(struct opd_source *src);
};

struct opd_source {
	struct opd_source_ops const *ops;
	void *priv;                      /* the source's own state */
};

/*
 * The source for --source=NAME: "perf", "driver" or "auto" (the driver
 * when DRIVER_DIR/buffer exists (op_driver_dir(), op_session.h), else
 * perf). NULL with a message when NAME is unknown or not available.
 */
struct opd_source_ops const *opd_source_find(char const *name);

/* The driver source (opd_source_driver.c), and whether the driver is
 * loaded and mounted (op_driver_dir() has a buffer file). */
extern struct opd_source_ops const opd_driver_ops;
int opd_driver_present(void);

#endif /* OPD_SOURCE_H */
