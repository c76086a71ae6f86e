/*
 * opwatch's probes and their perf events. A user probe is a uprobe PMU
 * event (config1: the binary's path, config2: the function's file offset;
 * the retprobe format bit makes it the return), no tracefs needed. A
 * syscall probe is the syscalls:sys_enter_NAME / sys_exit_NAME
 * tracepoints, whose ids tracefs gives. A kernel probe is the kprobe PMU
 * (config1: the function's name), which some kernels lack: opwatch says
 * when this one does.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
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

#define PMU_DIR "/sys/bus/event_source/devices"
#define RING_PAGES OPWATCH_RING_PAGES

/* A small decimal sysfs/tracefs file; -1 when it cannot be read. */
static long read_number(char const *path)
{
	FILE *f = fopen(path, "re");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* A probe PMU's (uprobe, kprobe) type and its retprobe bit ("config:N");
 * -1 when the kernel has none. */
static int probe_pmu(char const *name, uint32_t *type, unsigned *bit)
{
	char *path = op_xasprintf("%s/%s/type", PMU_DIR, name);
	long t = read_number(path);
	FILE *f;
	int ok;

	free(path);
	path = op_xasprintf("%s/%s/format/retprobe", PMU_DIR, name);
	f = fopen(path, "re");
	free(path);
	ok = f && fscanf(f, "config:%u", bit) == 1;
	if (f)
		fclose(f);
	if (t < 0 || !ok)
		return -1;
	*type = (uint32_t)t;
	return 0;
}

static int uprobe_pmu(uint32_t *type, unsigned *bit, char *err, size_t errlen)
{
	if (probe_pmu("uprobe", type, bit) == 0)
		return 0;
	snprintf(err, errlen, "this kernel has no uprobe PMU (%s/uprobe): "
		 "user probes need CONFIG_UPROBE_EVENTS", PMU_DIR);
	return -1;
}

/* kernel:FUNCTION through the kprobe PMU (config1: the function's name). */
static int parse_kernel(char const *func, struct opwatch_probe *p,
			char *err, size_t errlen)
{
	unsigned bit;

	if (probe_pmu("kprobe", &p->type, &bit) < 0) {
		snprintf(err, errlen, "probe '%s': this kernel has no kprobe PMU "
			 "(%s/kprobe is missing), so kernel functions cannot be "
			 "probed through perf_event_open here", p->spec, PMU_DIR);
		return -1;
	}
	p->kind = OPWATCH_KERNEL;
	p->path[0] = op_xstrdup(func);
	p->path[1] = op_xstrdup(func);
	p->config[0] = 0;
	p->config[1] = 1ull << bit;
	return 0;
}

/* BINARY as given, or found in PATH when it has no slash. */
static char *find_binary(char const *name)
{
	char const *path = getenv("PATH");
	char *dirs, *save = NULL, *d;

	if (strchr(name, '/') || !path)
		return realpath(name, NULL);
	dirs = op_xstrdup(path);
	for (d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char *cand = op_xasprintf("%s/%s", d, name);

		if (access(cand, X_OK) == 0) {
			char *abs = realpath(cand, NULL);

			free(cand);
			free(dirs);
			return abs;
		}
		free(cand);
	}
	free(dirs);
	errno = ENOENT;
	return NULL;
}

static int parse_user(char const *bin, char const *func,
		      struct opwatch_probe *p, char *err, size_t errlen)
{
	unsigned bit;

	p->kind = OPWATCH_USER;
	p->path[0] = find_binary(bin);
	if (!p->path[0]) {
		snprintf(err, errlen, "binary '%s' of probe '%s': %s", bin, p->spec,
			 strerror(errno));
		return -1;
	}
	if (opwatch_elf_func(p->path[0], func, &p->offset[0], err, errlen) < 0)
		return -1;
	if (uprobe_pmu(&p->type, &bit, err, errlen) < 0)
		return -1;
	p->path[1] = op_xstrdup(p->path[0]);
	p->offset[1] = p->offset[0];
	p->config[0] = 0;
	p->config[1] = 1ull << bit;
	return 0;
}

/* perf's x86-64 register numbers of the arguments 1..6 and the return
 * value (asm/perf_regs.h: AX 0, CX 2, DX 3, SI 4, DI 5, R8 16, R9 17). */
static int key_register(char const *what)
{
	static int const args[] = { 5, 4, 3, 2, 16, 17 };

	if (!strcmp(what, "ret"))
		return 0;
	if (!strncmp(what, "arg", 3) && what[3] >= '1' && what[3] <= '6' &&
	    !what[4])
		return args[what[3] - '1'];
	return -1;
}

/* One side "BINARY:FUNCTION:KEY" into its binary, offset and register. */
static int parse_side(char const *side, bool to, struct opwatch_probe *q,
		      int *reg, char *err, size_t errlen)
{
	char *s = op_xstrdup(side), *key = strrchr(s, ':'), *fn = NULL;
	int ret = -1;

	memset(q, 0, sizeof(*q));
	q->spec = op_xstrdup(side);
	if (key) {
		*key = '\0';
		fn = strrchr(s, ':');
	}
	if (!fn || fn == s) {
		snprintf(err, errlen, "pair side '%s' is not BINARY:FUNCTION:argN%s",
			 side, to ? " or BINARY:FUNCTION:ret" : "");
		goto out;
	}
	*reg = key_register(key + 1);
	if (*reg < 0 || (!to && *reg == 0)) {
		snprintf(err, errlen, "pair side '%s': '%s' is not arg1..arg6%s",
			 side, key + 1, to ? " or ret" : "");
		goto out;
	}
	*fn = '\0';
	ret = parse_user(s, fn + 1, q, err, errlen);
out:
	free(s);
	if (ret < 0)
		opwatch_probe_free(q);
	return ret;
}

int opwatch_pair_parse(char const *spec, struct opwatch_probe *p,
		       char *err, size_t errlen)
{
	char const *comma = strchr(spec, ',');
	struct opwatch_probe from, to;
	char *first;
	int rc;

	memset(p, 0, sizeof(*p));
	if (!comma) {
		snprintf(err, errlen, "--pair '%s' is not FROM,TO", spec);
		return -1;
	}
	memset(&from, 0, sizeof(from));
	memset(&to, 0, sizeof(to));
	first = op_xstrdup(spec);
	first[comma - spec] = '\0';
	rc = parse_side(first, false, &from, &p->reg[0], err, errlen);
	free(first);
	if (rc == 0)
		rc = parse_side(comma + 1, true, &to, &p->reg[1], err, errlen);
	if (rc < 0) {
		opwatch_probe_free(&from);
		return -1;
	}
	p->spec = op_xstrdup(spec);
	p->kind = OPWATCH_USER;
	p->pair = true;
	p->type = from.type;
	p->path[0] = op_xstrdup(from.path[0]);
	p->offset[0] = from.offset[0];
	p->path[1] = op_xstrdup(to.path[0]);
	p->offset[1] = to.offset[0];
	p->config[0] = 0;
	/* the TO side on its return when its key is the return value */
	p->config[1] = p->reg[1] == 0 ? to.config[1] : 0;
	opwatch_probe_free(&from);
	opwatch_probe_free(&to);
	return 0;
}

/* A tracepoint's id from tracefs, wherever it is mounted. */
static long tracepoint_id(char const *sys, char const *name)
{
	static char const *const roots[] = { "/sys/kernel/tracing",
					     "/sys/kernel/debug/tracing" };

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		char *path = op_xasprintf("%s/events/%s/%s/id", roots[i], sys, name);
		long id = read_number(path);

		free(path);
		if (id >= 0)
			return id;
	}
	return -1;
}

static bool tracefs_mounted(void)
{
	return access("/sys/kernel/tracing/events", F_OK) == 0 ||
	       access("/sys/kernel/debug/tracing/events", F_OK) == 0;
}

static int parse_syscall(char const *name, struct opwatch_probe *p,
			 char *err, size_t errlen)
{
	char enter[128], exit_[128];
	long in, out;

	p->kind = OPWATCH_SYSCALL;
	p->type = PERF_TYPE_TRACEPOINT;
	snprintf(enter, sizeof(enter), "sys_enter_%s", name);
	snprintf(exit_, sizeof(exit_), "sys_exit_%s", name);
	if (!tracefs_mounted()) {
		snprintf(err, errlen, "probe '%s': syscall probes need the "
			 "tracepoint ids of tracefs, which is not mounted "
			 "(mount -t tracefs nodev /sys/kernel/tracing)", p->spec);
		return -1;
	}
	in = tracepoint_id("syscalls", enter);
	out = tracepoint_id("syscalls", exit_);
	if (in < 0 || out < 0) {
		snprintf(err, errlen, "probe '%s': no system call '%s' "
			 "(no syscalls:%s tracepoint)", p->spec, name, enter);
		return -1;
	}
	p->config[0] = (uint64_t)in;
	p->config[1] = (uint64_t)out;
	return 0;
}

int opwatch_probe_parse(char const *spec, struct opwatch_probe *p,
			char *err, size_t errlen)
{
	char const *colon = strrchr(spec, ':');
	char *where;
	int ret;

	memset(p, 0, sizeof(*p));
	if (!colon || colon == spec || !colon[1]) {
		snprintf(err, errlen, "probe '%s' is not BINARY:FUNCTION, "
			 "syscall:NAME or kernel:FUNCTION", spec);
		return -1;
	}
	p->spec = op_xstrdup(spec);
	where = op_xstrdup(spec);
	where[colon - spec] = '\0';
	if (!strcmp(where, "syscall")) {
		ret = parse_syscall(colon + 1, p, err, errlen);
	} else if (!strcmp(where, "kernel")) {
		ret = parse_kernel(colon + 1, p, err, errlen);
	} else {
		ret = parse_user(where, colon + 1, p, err, errlen);
	}
	free(where);
	if (ret < 0)
		opwatch_probe_free(p);
	return ret;
}

void opwatch_probe_free(struct opwatch_probe *p)
{
	free(p->spec);
	free(p->path[0]);
	free(p->path[1]);
	memset(p, 0, sizeof(*p));
}

static int nr_events(struct opwatch_events const *e)
{
	return e->side_band_only ? 1 : 2 * e->nr_probes;
}

static int *fd_at(struct opwatch_events const *e, int t, int cpu, int ev)
{
	return &e->fds[(t * e->nr_cpus + cpu) * nr_events(e) + ev];
}

void opwatch_probe_attr(struct opwatch_probe const *p, int ret, bool side_band,
			bool inherit, bool on_exec, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = p->type;
	a->config = p->config[ret];
	if (p->kind != OPWATCH_SYSCALL) {
		/* uprobe: path and file offset; kprobe: function and offset */
		a->config1 = (uint64_t)(uintptr_t)p->path[ret];
		a->config2 = p->offset[ret];
	}
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	if (p->pair) {
		a->sample_type |= PERF_SAMPLE_REGS_USER;
		a->sample_regs_user = 1ull << p->reg[ret];
	}
	a->disabled = 1;
	a->inherit = inherit;
	a->enable_on_exec = on_exec;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->task = side_band;
	a->watermark = 1;
	a->wakeup_watermark = RING_PAGES / 4 * (uint32_t)sysconf(_SC_PAGESIZE);
}

static int open_one(struct opwatch_events *e, int t, int cpu, int ev,
		    bool inherit, bool on_exec)
{
	struct opwatch_probe const *p = &e->probes[ev / 2];
	struct perf_event_attr a;
	pid_t pid = e->tasks[t];
	int fd, lead;

	opwatch_probe_attr(p, ev % 2, ev == 0, inherit && pid >= 0, on_exec, &a);
	if (e->side_band_only) {
		/* --count: the probes are per thread; here only FORK/LOST */
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_DUMMY;
		a.config1 = a.config2 = 0;
		a.sample_type &= ~(uint64_t)PERF_SAMPLE_REGS_USER;
	}
	fd = perf_open(&a, pid, e->cpus[cpu], -1);
	if (fd < 0) {
		int err = errno;

		op_error_errno("cannot open the %s of probe '%s' on cpu %d",
			       ev % 2 ? "return" : "entry", p->spec, e->cpus[cpu]);
		if (err == EACCES || err == EPERM)
			op_hint("probes need root (CAP_PERFMON or CAP_SYS_ADMIN)");
		return -1;
	}
	*fd_at(e, t, cpu, ev) = fd;
	lead = *fd_at(e, 0, cpu, 0);
	if (t == 0 && ev == 0) {
		int rc = perf_ring_map(&e->rings[cpu], fd, e->cpus[cpu],
				       (uint32_t)cpu, RING_PAGES);

		if (rc)
			return op_error("cannot map the ring of cpu %d: %s",
					e->cpus[cpu], strerror(-rc));
	} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, lead) < 0) {
		return op_error_errno("cannot share cpu %d's ring", e->cpus[cpu]);
	}
	if (ioctl(fd, PERF_EVENT_IOC_ID, &e->ids[e->nr_ids].id) < 0)
		return op_error_errno("cannot get a perf event's id");
	e->ids[e->nr_ids++].ev = e->side_band_only ? -1 : ev;
	return 0;
}

int opwatch_events_open(struct opwatch_events *e, bool inherit, bool on_exec)
{
	size_t n = (size_t)(e->nr_tasks * e->nr_cpus * nr_events(e));

	e->fds = op_xmalloc(n * sizeof(*e->fds));
	memset(e->fds, -1, n * sizeof(*e->fds));
	e->ids = op_xcalloc(n, sizeof(*e->ids));
	e->rings = op_xcalloc((size_t)e->nr_cpus, sizeof(*e->rings));
	for (int cpu = 0; cpu < e->nr_cpus; cpu++)
		for (int t = 0; t < e->nr_tasks; t++)
			for (int ev = 0; ev < nr_events(e); ev++)
				if (open_one(e, t, cpu, ev, inherit, on_exec) < 0)
					return -1;
	return 0;
}

static int ioctl_all(struct opwatch_events *e, unsigned long req)
{
	int n = e->nr_tasks * e->nr_cpus * nr_events(e);

	for (int i = 0; e->fds && i < n; i++)
		if (e->fds[i] >= 0 && ioctl(e->fds[i], req, 0) < 0)
			return -1;
	return 0;
}

int opwatch_events_enable(struct opwatch_events *e)
{
	if (ioctl_all(e, PERF_EVENT_IOC_ENABLE) < 0)
		return op_error_errno("cannot enable the probes");
	return 0;
}

void opwatch_events_disable(struct opwatch_events *e)
{
	ioctl_all(e, PERF_EVENT_IOC_DISABLE);
}

int opwatch_events_find(struct opwatch_events const *e, uint64_t id)
{
	for (size_t i = 0; i < e->nr_ids; i++)
		if (e->ids[i].id == id)
			return e->ids[i].ev;
	return -1;
}

void opwatch_events_close(struct opwatch_events *e)
{
	int n = e->nr_tasks * e->nr_cpus * nr_events(e);

	for (int cpu = 0; e->rings && cpu < e->nr_cpus; cpu++)
		perf_ring_unmap(&e->rings[cpu]);
	for (int i = 0; e->fds && i < n; i++)
		if (e->fds[i] >= 0)
			close(e->fds[i]);
	free(e->fds);
	free(e->ids);
	free(e->rings);
	e->fds = NULL;
	e->ids = NULL;
	e->rings = NULL;
}
