/*
 * The perf source's setup and read loop; see opd_perf.h. Record
 * decoding lives in opd_perf_records.c.
 *
 * Why merge rings by time: MMAP2/COMM/FORK/EXIT records of one process are
 * written on whichever cpu it ran, while its samples arrive on every cpu.
 * Each round notes "now" before draining; a record is written to its ring
 * within microseconds of its timestamp, so every record older than
 * now - slack is already in our queue and can be applied in order.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "op_events.h"
#include "op_message.h"
#include "op_util.h"
#include "opd_perf_int.h"
#include "perf_open.h"

uint64_t opd_perf_now(void)
{
	return op_monotonic_ns();
}

/* The online cpus from "0-3,5,7-8"; the count, or -errno. */
static int online_cpus(int **cpus)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	char line[4096], *p = line, *end;
	size_t n = 0, cap = 0;

	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	*cpus = NULL;
	for (;;) {
		long a = strtol(p, &end, 10), b = a;

		if (end == p || a < 0)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (; a <= b; a++) {
			OP_ALLOC_GROW(*cpus, n + 1, cap);
			(*cpus)[n++] = (int)a;
		}
		if (*end != ',')
			break;
		p = end + 1;
	}
	return n ? (int)n : -ENOENT;
}

static void fill_attr(struct perf_source const *ps,
		      struct perf_source_event const *ev, bool side_band,
		      struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = ev->type;
	a->config = ev->config;
	a->sample_period = ev->period;
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			 PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	if (ps->depth) {
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->sample_max_stack = (uint16_t)ps->max_stack;
	}
	if (ps->depth && ps->stack_size) {
		/* user frames from the stack copy and CFI, kernel frames
		 * from the kernel's callchain */
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = PS_REGS_USER;
		a->sample_stack_user = ps->stack_size;
		a->exclude_callchain_user = 1;
	}
	if (ev->off_cpu && ps->ocb) {
		/* eBPF records its samples: the event only names them */
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_DUMMY;
	} else if (ev->off_cpu) {
		/* the switch-in ends a sample's time off */
		a->context_switch = 1;
	}
	a->disabled = 1;
	a->exclude_kernel = !ev->kernel;
	a->exclude_user = !ev->user;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	/* the reader polls with a timeout; wake it early only when a
	 * quarter of the ring is used */
	a->watermark = 1;
	a->wakeup_watermark = ps->ring_pages / 4 *
			      (uint32_t)sysconf(_SC_PAGESIZE);
	if (ps->tasks) {
		/* follow the threads and processes the tasks create */
		a->inherit = 1;
		a->enable_on_exec = ps->enable_on_exec;
	}
	if (side_band) {
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		/* MMAP2 with the file's build-id (Linux 5.12): see open_event */
		a->build_id = !ps->no_build_id;
	}
}

/* The index in fds of event e of task index t on cpu index ci. */
static unsigned fd_index(struct perf_source const *ps, unsigned ci,
			 unsigned t, unsigned e)
{
	return (ci * ps->nr_targets + t) * ps->nr_events + e;
}

static void open_hint(struct perf_source const *ps, int err)
{
	if (err != -EACCES && err != -EPERM)
		return;
	if (ps->tasks)
		op_hint("a user may sample only their own processes, and "
			"kernel mode only when kernel.perf_event_paranoid <= 1");
	else
		op_hint("run as root, or lower "
			"/proc/sys/kernel/perf_event_paranoid");
}

static int open_event(struct perf_source *ps, unsigned ci, unsigned t,
		      unsigned e)
{
	struct perf_source_event const *ev = &ps->events[e];
	struct perf_event_attr attr;
	pid_t pid = ps->tasks ? ps->tasks[t] : -1;
	int fd, err;

	fill_attr(ps, ev, e == 0, &attr);
	fd = perf_open(&attr, pid, ps->cpus[ci], -1);
	if (fd < 0 && errno == EINVAL && attr.build_id) {
		/* a kernel before 5.12: build-ids are read from the files */
		op_info("this kernel gives no build-ids in mmap records "
			"(attr.build_id: EINVAL); they are read from the files");
		ps->no_build_id = true;
		fill_attr(ps, ev, e == 0, &attr);
		fd = perf_open(&attr, pid, ps->cpus[ci], -1);
	}
	if (fd < 0) {
		err = -errno;
		if (ps->tasks)
			op_error_errno("cannot open perf event '%s' for task %d on cpu %d",
				       ev->name ? ev->name : "?", (int)pid,
				       ps->cpus[ci]);
		else
			op_error_errno("cannot open perf event '%s' on cpu %d",
				       ev->name ? ev->name : "?", ps->cpus[ci]);
		open_hint(ps, err);
		return err;
	}
	ps->fds[fd_index(ps, ci, t, e)] = fd;
	if (ev->filter && !(ev->off_cpu && ps->ocb) && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, ev->filter)) {
		err = -errno;
		op_error_errno("cannot filter perf event '%s' with \"%s\"",
			       ev->name ? ev->name : "?", ev->filter);
		return err;
	}
	return 0;
}

static int compare_ids(void const *a, void const *b)
{
	struct ps_id const *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * The default ring size shrunk to the locked memory this user may give
 * the rings (perf_event_mlock_kb, ulimit -l): unprivileged operf -g wants
 * 2048 pages a cpu, which no default limit allows. Said once, with the
 * limits, since a smaller ring loses samples sooner when busy.
 */
static void fit_rings(struct perf_source *ps)
{
	unsigned long lockable = perf_ring_lockable_pages(ps->nr_cpus);
	unsigned fit = perf_ring_fit(ps->ring_pages, ps->nr_cpus, lockable);

	if (fit == ps->ring_pages || !fit)
		return;
	op_warn("perf rings of %u pages a cpu instead of %u: the locked memory "
		"this user may give them is %lu pages (kernel.perf_event_mlock_kb "
		"per cpu and ulimit -l); raise either, or run as root, to lose "
		"fewer samples when busy", fit, ps->ring_pages, lockable);
	ps->ring_pages = fit;
}

/* Map the ring of cpu index ci's first event: the others write into it. */
static int map_ring(struct perf_source *ps, unsigned ci)
{
	int lead = ps->fds[fd_index(ps, ci, 0, 0)];
	int err = perf_ring_map(&ps->rings[ci], lead, ps->cpus[ci], ci,
				ps->ring_pages);

	if (err == -EPERM)
		return op_error("cannot map the perf ring of cpu %d (%u pages): %s "
				"(more than kernel.perf_event_mlock_kb and ulimit -l "
				"allow this user: %lu pages in all)",
				ps->cpus[ci], ps->ring_pages, strerror(-err),
				perf_ring_lockable_pages(ps->nr_cpus)),
		       err;
	if (err)
		return op_error("cannot map the perf ring of cpu %d (%u pages): %s",
				ps->cpus[ci], ps->ring_pages, strerror(-err)),
		       err;
	if (ps->stack_size)
		ps->rings[ci].stack_of = opd_perf_stack_of;
	ps->pfd[ci].fd = lead;
	ps->pfd[ci].events = POLLIN;
	return 0;
}

/* Redirect event e of task index t's records into cpu index ci's ring
 * (the kernel wants that ring mapped first), and note its id. */
static int attach_event(struct perf_source *ps, unsigned ci, unsigned t,
			unsigned e)
{
	int fd = ps->fds[fd_index(ps, ci, t, e)];
	int lead = ps->fds[fd_index(ps, ci, 0, 0)];
	uint64_t id;
	int err;

	if ((t || e) && ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, lead)) {
		err = -errno;
		return op_error_errno("cannot share cpu %d's ring with event '%s'",
				      ps->cpus[ci], ps->events[e].name ?
				      ps->events[e].name : "?"), err;
	}
	if (ioctl(fd, PERF_EVENT_IOC_ID, &id)) {
		err = -errno;
		return op_error_errno("cannot get the id of a perf event"), err;
	}
	ps->ids[ps->nr_ids].id = id;
	ps->ids[ps->nr_ids].event = e;
	ps->nr_ids++;
	return 0;
}

/* Open every event of every task on cpu index ci, sharing one ring. */
static int open_cpu(struct perf_source *ps, unsigned ci)
{
	int err;

	for (unsigned t = 0; t < ps->nr_targets; t++) {
		for (unsigned e = 0; e < ps->nr_events; e++) {
			err = open_event(ps, ci, t, e);
			if (!err && t == 0 && e == 0)
				err = map_ring(ps, ci);
			if (!err)
				err = attach_event(ps, ci, t, e);
			if (err)
				return err;
		}
	}
	return 0;
}

static int check_config(struct perf_source_config const *cfg)
{
	unsigned pages = cfg->ring_pages;

	if (!cfg->nr_events || !cfg->events)
		return op_error("no events to sample"), -EINVAL;
	if (pages & (pages - 1))
		return op_error("ring size %u pages is not a power of two",
				pages), -EINVAL;
	if (cfg->stack_size > PERF_SOURCE_STACK_MAX)
		return op_error("stack size %u bytes: at most %u", cfg->stack_size,
				PERF_SOURCE_STACK_MAX), -EINVAL;
	for (unsigned e = 0; e < cfg->nr_events; e++)
		if (!cfg->events[e].period)
			return op_error("event '%s' has a zero sample period",
					cfg->events[e].name ?
					cfg->events[e].name : "?"), -EINVAL;
	return 0;
}

/*
 * The callchain entries to ask for: depth + 1 (the first entry repeats the
 * sample ip), but no more than kernel.perf_event_max_stack (127 by
 * default), which perf_event_open refuses to exceed (EOVERFLOW).
 */
static unsigned max_stack_for(unsigned depth)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "r");
	unsigned limit = 0, want = depth + 1;

	if (f) {
		if (fscanf(f, "%u", &limit) != 1)
			limit = 0;
		fclose(f);
	}
	if (limit && want > limit) {
		op_warn("callgraph depth %u: the kernel gives at most %u callchain entries "
			"(kernel.perf_event_max_stack), so at most %u frames",
			depth, limit, limit - 1);
		want = limit;
	}
	return want;
}

void opd_perf_state_init(struct perf_source *ps)
{
	perf_queue_init(&ps->q);
	opd_maps_init(&ps->procs);
	opd_cookie_init(&ps->cookies);
	opd_words_init(&ps->out);
	opd_emit_init(&ps->em, &ps->out, &ps->cookies);
	opd_offcpu_init(&ps->offcpu, OPD_OFFCPU_PENDING_MAX);
}

void opd_perf_state_free(struct perf_source *ps)
{
	perf_queue_free(&ps->q);
	opd_offcpu_free(&ps->offcpu);
	opd_maps_free(&ps->procs);
	opd_cookie_free(&ps->cookies);
	opd_words_free(&ps->out);
}

static struct perf_source *alloc_source(struct perf_source_config const *cfg)
{
	struct perf_source *ps = op_xcalloc(1, sizeof(*ps));

	ps->nr_events = cfg->nr_events;
	ps->events = op_xmalloc(cfg->nr_events * sizeof(*ps->events));
	memcpy(ps->events, cfg->events, cfg->nr_events * sizeof(*ps->events));
	ps->depth = cfg->callgraph_depth;
	ps->max_stack = ps->depth ? max_stack_for(ps->depth) : 0;
	if (ps->depth && !cfg->fp_only) {
		ps->stack_size = cfg->stack_size ? (cfg->stack_size + 7) & ~7u
						 : PERF_SOURCE_STACK_SIZE;
		ps->unw = opd_unwind_cache_new();
		ps->pcs = op_xmalloc((ps->depth + 1) * sizeof(*ps->pcs));
	}
	ps->time_unwind = getenv("OPROFILE_UNWIND_STATS") != NULL;
	ps->ring_pages = cfg->ring_pages ? cfg->ring_pages :
			 ps->stack_size ? PERF_SOURCE_STACK_RING_PAGES :
			 PERF_SOURCE_RING_PAGES;
	ps->slack_ns = (uint64_t)(cfg->slack_ms ? cfg->slack_ms
				  : PERF_SOURCE_SLACK_MS) * 1000000;
	opd_maps_reread_init(&ps->reread, cfg->no_reread ? 0 :
		       (uint64_t)(cfg->reread_ms ? cfg->reread_ms
				  : PERF_SOURCE_REREAD_MS) * 1000000,
		       cfg->reread_max_per_s ? cfg->reread_max_per_s
					     : PERF_SOURCE_REREAD_MAX_PER_S);
	ps->forget_ns = (uint64_t)(cfg->forget_ms ? cfg->forget_ms
				   : PERF_SOURCE_FORGET_MS) * 1000000;
	ps->nr_targets = cfg->nr_tasks ? cfg->nr_tasks : 1;
	if (cfg->nr_tasks) {
		ps->tasks = op_xmalloc(cfg->nr_tasks * sizeof(*ps->tasks));
		memcpy(ps->tasks, cfg->tasks,
		       cfg->nr_tasks * sizeof(*ps->tasks));
	}
	ps->enable_on_exec = cfg->enable_on_exec;
	opd_perf_state_init(ps);
	return ps;
}

/*
 * OFF_CPU by eBPF (opd_offcpu_bpf.h) where asked and it loads; else the
 * perf tracepoint, unless eBPF was forced. One line says which and why.
 */
static int open_bpf(struct perf_source *ps)
{
	char why[256] = "";
	unsigned e;
	int *tgids = NULL;

	for (e = 0; e < ps->nr_events && !ps->events[e].off_cpu; e++)
		;
	if (e == ps->nr_events)
		return 0;
	if (ps->events[e].offcpu_mode == OCB_PERF) {
		op_info("event %s: the perf tracepoint (%s)", OP_EVENT_OFF_CPU,
			opd_offcpu_bpf_built() ? "$OPROFILE_OFFCPU=perf" :
			"built without libbpf");
		return 0;
	}
	if (ps->depth && !ps->stack_size) {
		snprintf(why, sizeof(why), "eBPF copies user stacks for CFI, "
			 "not frame-pointer walks (stack size 0)");
	} else {
		if (ps->tasks) {
			tgids = op_xmalloc(ps->nr_targets * sizeof(*tgids));
			for (unsigned t = 0; t < ps->nr_targets; t++)
				tgids[t] = ps->tasks[t];
		}
		ps->ocb = opd_offcpu_bpf_open((unsigned)ps->events[e].period,
					      ps->depth ? ps->stack_size : 0,
					      tgids, ps->tasks ? ps->nr_targets : 0,
					      ps->enable_on_exec, why, sizeof(why));
		free(tgids);
	}
	if (ps->ocb) {
		ps->ocb_event = e;
		ps->pfd[ps->nr_cpus].fd = opd_offcpu_bpf_fd(ps->ocb);
		ps->pfd[ps->nr_cpus].events = POLLIN;
		op_info("event %s: eBPF on sched_switch (%s)", OP_EVENT_OFF_CPU,
			ps->events[e].offcpu_mode == OCB_BPF ?
			"$OPROFILE_OFFCPU=bpf" : "it loads here");
		return 0;
	}
	if (ps->events[e].offcpu_mode == OCB_BPF)
		return op_error("event %s: %s ($OPROFILE_OFFCPU=bpf)",
				OP_EVENT_OFF_CPU, why), -ENOTSUP;
	op_info("event %s: the perf tracepoint (eBPF: %s)", OP_EVENT_OFF_CPU,
		why);
	return 0;
}

/* A ring buffer record: into the queue as the perf record it stands
 * for, in its cpu's group. */
static int queue_bpf(void *arg, void *data, size_t size)
{
	struct perf_source *ps = arg;
	void *rec = perf_queue_reserve(&ps->q, OCB_PERF_MAX);
	uint64_t time;
	uint32_t cpu, src = 0;
	size_t len;


	len = opd_offcpu_bpf_decode(data, size, ps->ocb_id, ps->depth != 0,
				    ps->max_stack, ps->stack_size, rec,
				    OCB_PERF_MAX, &time, &cpu);
	ps->stats.records++;
	if (!len) {
		ps->stats.bad++;
		return 0;
	}
	for (unsigned ci = 0; ci < ps->nr_cpus; ci++)
		if ((uint32_t)ps->cpus[ci] == cpu)
			src = ci;
	perf_queue_commit(&ps->q, (len + 7) & ~(size_t)7, time, src);
	return 0;
}

int opd_perf_open(struct perf_source **out,
		     struct perf_source_config const *cfg)
{
	struct perf_source *ps;
	size_t nr_fds;
	int n, err;

	*out = NULL;
	err = check_config(cfg);
	if (err)
		return err;
	ps = alloc_source(cfg);
	n = online_cpus(&ps->cpus);
	if (n < 0) {
		op_error("cannot read the online cpus from "
			 "'/sys/devices/system/cpu/online': %s", strerror(-n));
		opd_perf_close(ps);
		return n;
	}
	ps->nr_cpus = (unsigned)n;
	if (!cfg->ring_pages)
		fit_rings(ps);
	nr_fds = ps->nr_cpus * ps->nr_targets * ps->nr_events;
	ps->fds = op_xmalloc(nr_fds * sizeof(*ps->fds));
	memset(ps->fds, -1, nr_fds * sizeof(*ps->fds));
	ps->rings = op_xcalloc(ps->nr_cpus, sizeof(*ps->rings));
	/* one more: the eBPF ring buffer's */
	ps->pfd = op_xcalloc(ps->nr_cpus + 1, sizeof(*ps->pfd));
	err = open_bpf(ps);
	if (err) {
		opd_perf_close(ps);
		return err;
	}
	ps->ids = op_xcalloc(nr_fds, sizeof(*ps->ids));
	ps->group_start = op_xcalloc(ps->nr_cpus + 1, sizeof(*ps->group_start));
	for (unsigned ci = 0; ci < ps->nr_cpus; ci++) {
		err = open_cpu(ps, ci);
		if (err) {
			opd_perf_close(ps);
			return err;
		}
	}
	qsort(ps->ids, ps->nr_ids, sizeof(*ps->ids), compare_ids);
	for (size_t i = 0; ps->ocb && i < ps->nr_ids; i++)
		if (ps->ids[i].event == ps->ocb_event)
			ps->ocb_id = ps->ids[i].id;
	*out = ps;
	return 0;
}

static int ioctl_all(struct perf_source *ps, unsigned long req)
{
	for (unsigned i = 0; i < ps->nr_cpus * ps->nr_targets * ps->nr_events; i++)
		if (ps->fds[i] >= 0 && ioctl(ps->fds[i], req, 0))
			return -errno;
	return 0;
}

/*
 * What exists before counting starts: every process (system-wide), the
 * sampled process (per task; tasks[0] is its tgid), or nothing (on exec:
 * the exec's records describe the new image).
 */
static void seed(struct perf_source *ps)
{
	if (!ps->tasks)
		ps->stats.seeded += opd_maps_seed_all(&ps->procs, &ps->cookies);
	else if (!ps->enable_on_exec &&
		 !opd_maps_seed(&ps->procs, &ps->cookies, (unsigned long)ps->tasks[0]))
		ps->stats.seeded++;
}

int opd_perf_enable(struct perf_source *ps)
{
	int err = ps->enable_on_exec ? 0 : ioctl_all(ps, PERF_EVENT_IOC_ENABLE);

	if (err)
		return op_error("cannot enable the perf events: %s",
				strerror(-err)), err;
	ps->enabled = true;
	if (ps->ocb)
		opd_offcpu_bpf_enable(ps->ocb, 1);
	/* after enabling: whatever changes from now on has a record that
	 * is applied on top of this /proc snapshot */
	seed(ps);
	return 0;
}

int opd_perf_disable(struct perf_source *ps)
{
	int err = ioctl_all(ps, PERF_EVENT_IOC_DISABLE);

	if (err)
		return op_error("cannot disable the perf events: %s",
				strerror(-err)), err;
	ps->enabled = false;
	if (ps->ocb)
		opd_offcpu_bpf_enable(ps->ocb, 0);
	return 0;
}

static void drain_all(struct perf_source *ps, uint64_t now)
{
	ps->now = now;
	if (ps->ocb) {
		uint64_t lost = opd_offcpu_bpf_lost(ps->ocb);

		opd_offcpu_bpf_consume(ps->ocb, queue_bpf, ps);
		ps->lost[OP_LOST_OFFCPU] += lost - ps->ocb_lost;
		ps->ocb_lost = lost;
	}
	for (unsigned i = 0; i < ps->nr_cpus; i++)
		ps->stats.records += perf_ring_drain(&ps->rings[i], &ps->q,
						     opd_perf_record_time);
	if (ps->q.max_nr > ps->stats.max_pending)
		ps->stats.max_pending = ps->q.max_nr;
}

static bool is_sample(struct perf_queue const *q, size_t i)
{
	uint32_t type;

	memcpy(&type, perf_queue_record(q, i), sizeof(type));
	return type == PERF_RECORD_SAMPLE;
}

/* Apply the samples ent[i..j) grouped by ring, each ring's in time order
 * (a stable counting sort by ring). */
static void handle_grouped(struct perf_source *ps, size_t i, size_t j)
{
	struct perf_queue *q = &ps->q;
	size_t *start = ps->group_start;

	memset(start, 0, (ps->nr_cpus + 1) * sizeof(*start));
	for (size_t k = i; k < j; k++)
		start[q->ent[k].src + 1]++;
	for (unsigned c = 0; c < ps->nr_cpus; c++)
		start[c + 1] += start[c];
	OP_ALLOC_GROW(ps->group, j - i, ps->group_cap);
	for (size_t k = i; k < j; k++)
		ps->group[start[q->ent[k].src]++] = k;
	for (size_t k = 0; k < j - i; k++)
		opd_perf_handle_record(ps, perf_queue_record(q, ps->group[k]));
}

/*
 * Apply the ready records ent[0..n). Side-band records (maps, tasks) go in
 * time order. The samples between two of them all see the same maps, so
 * their order does not matter: they are grouped by cpu, and the stream
 * switches cpu (and task) once per group instead of at nearly every
 * sample, as the kernel driver's per-cpu buffer sync did.
 */
static void process_ready(struct perf_source *ps, size_t n)
{
	struct perf_queue *q = &ps->q;
	size_t i = 0;

	while (i < n) {
		size_t j = i;
		bool one_ring = true;

		for (; j < n && is_sample(q, j); j++)
			one_ring &= q->ent[j].src == q->ent[i].src;
		if (j == i) {
			opd_perf_handle_record(ps, perf_queue_record(q, i++));
			continue;
		}
		if (one_ring) {
			for (; i < j; i++)
				opd_perf_handle_record(ps, perf_queue_record(q, i));
			continue;
		}
		handle_grouped(ps, i, j);
		i = j;
	}
}

/* A cookie nothing maps any more: the unwinder's entry of it goes, then
 * the definition (after every sample that used it, in the buffer). */
static void forget_cookie(void *arg, unsigned long cookie)
{
	struct perf_source *ps = arg;

	opd_unwind_cache_forget(ps->unw, cookie);
	opd_emit_forget(&ps->em, cookie);
	ps->stats.cookies_forgotten++;
}

/*
 * Once a second: forget the cookies that no process (alive, or exited
 * and not yet reaped) has mapped for forget_ns, so that binaries built,
 * run and deleted do not pile up in a long-running daemon. Samples are
 * resolved against the maps when applied, so a queued sample of a mapping
 * still known keeps its cookie marked.
 */
static void sweep_cookies(struct perf_source *ps)
{
	if (ps->now - ps->last_sweep < PERF_SOURCE_SWEEP_MS * 1000000ull)
		return;
	ps->last_sweep = ps->now;
	/* after lost records: processes whose EXIT was lost */
	ps->count[OP_COUNT_PROCS_EXIT_LOST] +=
		opd_maps_exit_gone(&ps->procs, (unsigned long)ps->stats.rounds);
	opd_cookie_sweep_begin(&ps->cookies);
	opd_maps_mark_cookies(&ps->procs, &ps->cookies);
	opd_cookie_sweep_idle(&ps->cookies, ps->now, ps->forget_ns, forget_cookie, ps);
	ps->stats.cookies_held = ps->cookies.live;
}

/* Apply the queued records with time <= until. */
static void process_until(struct perf_source *ps, uint64_t until)
{
	size_t n;

	perf_queue_sort(&ps->q);
	n = perf_queue_ready(&ps->q, until);
	process_ready(ps, n);
	perf_queue_consume(&ps->q, n);
	opd_perf_emit_counts(ps);
	ps->stats.rounds++;
	opd_maps_reap(&ps->procs, (unsigned long)ps->stats.rounds, &ps->em);
	sweep_cookies(ps);
}

int opd_perf_read(struct perf_source *ps, int timeout_ms)
{
	uint64_t now;

	if (poll(ps->pfd, ps->nr_cpus + (ps->ocb != NULL), timeout_ms) < 0 && errno != EINTR)
		return -errno;
	now = opd_perf_now();
	drain_all(ps, now);
	process_until(ps, now > ps->slack_ns ? now - ps->slack_ns : 0);
	return 0;
}

void opd_perf_flush(struct perf_source *ps, uint64_t until)
{
	uint64_t now = opd_perf_now();

	drain_all(ps, now);
	process_until(ps, until);
	/* the end: threads still off the cpu count until now */
	if (until == UINT64_MAX && !ps->enabled) {
		opd_perf_offcpu_end(ps, now);
		opd_perf_emit_counts(ps);
	}
}

struct word_buffer *opd_perf_words(struct perf_source *ps)
{
	return &ps->out;
}

void opd_perf_new_stream(struct perf_source *ps)
{
	opd_cookie_new_stream(&ps->cookies);
	opd_emit_reset(&ps->em);
}

struct opd_perf_stats const *opd_perf_stats(struct perf_source const *ps)
{
	return &ps->stats;
}

void opd_perf_close(struct perf_source *ps)
{
	if (!ps)
		return;
	for (unsigned i = 0; ps->rings && i < ps->nr_cpus; i++)
		perf_ring_unmap(&ps->rings[i]);
	for (unsigned i = 0;
	     ps->fds && i < ps->nr_cpus * ps->nr_targets * ps->nr_events; i++)
		if (ps->fds[i] >= 0)
			close(ps->fds[i]);
	opd_offcpu_bpf_close(ps->ocb);
	if (ps->time_unwind && ps->unwind_samples)
		op_info("backtraces: %llu samples, %.0f ns per sample, "
			"%.1f stream words/2 per sample (%s)",
			(unsigned long long)ps->unwind_samples,
			(double)ps->unwind_ns / ps->unwind_samples,
			(double)ps->unwind_frames / ps->unwind_samples,
			ps->stack_size ? "CFI" : "frame pointers");
	if (ps->unw && ps->time_unwind) {
		struct unwind_stats const *u = opd_unwind_cache_stats(ps->unw);

		op_info("unwind: %llu binaries (%llu without CFI, %llu failed reads), %llu steps (%llu by a compiled rule); "
			"root stacks by bytes needed <=1K %llu 2K %llu 4K %llu 8K %llu "
			"16K %llu 32K %llu 64K %llu",
			(unsigned long long)u->binaries, (unsigned long long)u->no_cfi,
			(unsigned long long)u->unreadable,
			(unsigned long long)u->frames, (unsigned long long)u->rule_hits,
			(unsigned long long)u->root_bytes[0], (unsigned long long)u->root_bytes[1],
			(unsigned long long)u->root_bytes[2], (unsigned long long)u->root_bytes[3],
			(unsigned long long)u->root_bytes[4], (unsigned long long)u->root_bytes[5],
			(unsigned long long)u->root_bytes[6]);
	}
	opd_unwind_cache_free(ps->unw);
	free(ps->pcs);
	opd_perf_state_free(ps);
	free(ps->events);
	free(ps->tasks);
	free(ps->cpus);
	free(ps->fds);
	free(ps->rings);
	free(ps->pfd);
	free(ps->ids);
	free(ps->group_start);
	free(ps->group);
	free(ps);
}
