/*
 * opwatch --count: per-thread groups (see opwatch.h). For each watched
 * thread and probe one group: the counting events first (the leader is
 * the first), then the probe's entry and return, which sample with
 * PERF_SAMPLE_READ of the whole group, so a sample holds the thread's own
 * counts when the probe fired. The events name the thread (pid = tid,
 * cpu = -1): the kernel counts them only while it runs, on whatever cpu.
 * A thread's groups share one ring (per-task events cannot write into a
 * per-cpu ring).
 */
#include "config.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "op_message.h"
#include "op_util.h"
#include "opwatch.h"
#include "perf_open.h"
#include "perf_ring.h"

static int open_event(struct perf_event_attr *a, pid_t tid, int group)
{
	return perf_open(a, tid, -1, group);
}

static void add_id(struct opwatch_counting *c, uint64_t id, int ev)
{
	OP_ALLOC_GROW(c->ids, c->nr_ids + 1, c->ids_alloc);
	c->ids[c->nr_ids].id = id;
	c->ids[c->nr_ids++].ev = ev;
}

/* The counters of probe's group: fds[0] leads. -1 with errno. */
static int open_counters(struct opwatch_counting const *c, pid_t tid, int *fds)
{
	for (int k = 0; k < c->nr; k++) {
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = c->type[k];
		a.config = c->config[k];
		a.read_format = PERF_FORMAT_GROUP;
		a.exclude_hv = 1;
		/* a group has one clock: the probes' */
		a.use_clockid = 1;
		a.clockid = CLOCK_MONOTONIC;
		fds[k] = open_event(&a, tid, k ? fds[0] : -1);
		if (fds[k] < 0)
			return -1;
	}
	return 0;
}

/* The entry and return of probe in the group led by fds[0]. */
static int open_probe(struct opwatch_counting *c, struct opwatch_events const *e,
		      struct opwatch_task *t, int probe, int *fds, uint32_t index)
{
	for (int r = 0; r < 2; r++) {
		struct perf_event_attr a;
		int fd, *slot = &fds[c->nr + r];
		uint64_t id;

		opwatch_probe_attr(&e->probes[probe], r, false, false, false, &a);
		a.sample_type |= PERF_SAMPLE_READ;
		a.read_format = PERF_FORMAT_GROUP;
		a.disabled = 0;
		fd = *slot = open_event(&a, t->tid, fds[0]);
		if (fd < 0)
			return -1;
		if (!t->ring) {
			int rc;

			t->ring = op_xcalloc(1, sizeof(*t->ring));
			rc = perf_ring_map(t->ring, fd, -1, index,
					   OPWATCH_RING_PAGES);
			if (rc) {
				errno = -rc;
				return -1;
			}
		} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, t->ring->fd) < 0) {
			return -1;
		}
		if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
			return -1;
		add_id(c, id, probe * 2 + r);
	}
	return 0;
}

static void close_task(struct opwatch_task *t)
{
	if (t->ring) {
		perf_ring_unmap(t->ring);
		free(t->ring);
		t->ring = NULL;
	}
	for (size_t i = 0; t->fds && i < t->nfds; i++)
		if (t->fds[i] >= 0)
			close(t->fds[i]);
	free(t->fds);
	t->fds = NULL;
}

int opwatch_count_attached(struct opwatch_counting const *c, pid_t tid)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].tid == tid)
			return 1;
	return 0;
}

int opwatch_count_attach(struct opwatch_counting *c,
			 struct opwatch_events const *e, pid_t tid,
			 uint32_t index)
{
	size_t per = (size_t)c->nr + 2, nfds = per * (size_t)e->nr_probes;
	struct opwatch_task t = { .tid = tid, .nfds = nfds };
	int err;

	if (opwatch_count_attached(c, tid))
		return 0;
	t.fds = op_xmalloc(nfds * sizeof(*t.fds));
	memset(t.fds, -1, nfds * sizeof(*t.fds));
	for (int p = 0; p < e->nr_probes; p++) {
		int *fds = &t.fds[(size_t)p * per];

		if (open_counters(c, tid, fds) < 0 ||
		    open_probe(c, e, &t, p, fds, index) < 0)
			goto fail;
	}
	OP_ALLOC_GROW(c->v, c->n + 1, c->alloc);
	c->v[c->n++] = t;
	return 0;
fail:
	err = errno;
	close_task(&t);
	if (err == ESRCH)
		return 0;	/* it exited before we came: nothing to watch */
	errno = err;
	op_error_errno("cannot count in thread %d", (int)tid);
	if (err == EACCES || err == EPERM)
		op_hint("probes need root (CAP_PERFMON or CAP_SYS_ADMIN)");
	return -1;
}

int opwatch_count_find(struct opwatch_counting const *c, uint64_t id)
{
	for (size_t i = c->nr_ids; i > 0; i--)
		if (c->ids[i - 1].id == id)
			return c->ids[i - 1].ev;
	return -1;
}

void opwatch_count_close(struct opwatch_counting *c)
{
	for (size_t i = 0; i < c->n; i++)
		close_task(&c->v[i]);
	free(c->v);
	free(c->ids);
	memset(c, 0, sizeof(*c));
}
