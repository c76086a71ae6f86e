/*
 * OFF_CPU by eBPF: the record decoding (always built, unit-tested) and
 * the libbpf loader (with HAVE_LIBBPF); see opd_offcpu_bpf.h.
 */
#include "config.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opd_offcpu_bpf.h"

static void wr64(unsigned char *p, size_t off, uint64_t v)
{
	memcpy(p + off, &v, 8);
}

static void wr32(unsigned char *p, size_t off, uint32_t v)
{
	memcpy(p + off, &v, 4);
}

/* A SWITCH record (switch-in) with its sample_id trailer: pid/tid,
 * time, cpu/res, identifier. */
static size_t decode_in(struct ocb_head const *h, uint64_t id,
			unsigned char *o, size_t cap)
{
	size_t len = 8 + 32;

	if (cap < len)
		return 0;
	memset(o, 0, len);
	wr32(o, 0, PERF_RECORD_SWITCH);
	wr32(o, 4, (uint32_t)len << 16);	/* misc 0: in; size */
	wr32(o, 8, h->pid);
	wr32(o, 12, h->tid);
	wr64(o, 16, h->time);
	wr32(o, 24, h->cpu);
	wr64(o, 32, id);
	return len;
}

static size_t decode_out(struct ocb_out const *r, size_t size, uint64_t id,
			 int callchain, unsigned max_stack,
			 unsigned stack_size, unsigned char *o, size_t cap)
{
	size_t nk, off, slen, len;
	uint64_t ip;

	if (size < offsetof(struct ocb_out, stack) ||
	    r->kstack_len > sizeof(r->kstack) || r->kstack_len % 8 ||
	    r->stack_len > OCB_STACK_MAX ||
	    r->stack_len > size - offsetof(struct ocb_out, stack))
		return 0;
	nk = r->kstack_len / 8;
	ip = nk ? r->kstack[0] : 0;
	if (nk > max_stack)
		nk = max_stack;
	slen = r->stack_len < stack_size ? r->stack_len : stack_size;
	len = 8 + 40;
	if (callchain)
		len += 8 + 8 * (nk + 1);
	if (callchain && stack_size && r->user)
		len += 8 + 24 + 8 + ((slen + 7) & ~(size_t)7) + 8;
	else if (callchain && stack_size)
		len += 8 + 8;	/* regs ABI none, a stack of size 0 */
	if (len > cap || len > 0xffff)
		return 0;
	memset(o, 0, len);
	wr32(o, 0, PERF_RECORD_SAMPLE);
	/* misc: a kernel sample (the switch happens in the kernel) */
	wr32(o, 4, PERF_RECORD_MISC_KERNEL | (uint32_t)len << 16);
	wr64(o, 8, id);
	wr64(o, 16, ip);
	wr32(o, 24, r->h.pid);
	wr32(o, 28, r->h.tid);
	wr64(o, 32, r->h.time);
	wr32(o, 40, r->h.cpu);
	off = 48;
	if (!callchain)
		return len;
	wr64(o, off, nk + 1);
	wr64(o, off + 8, (uint64_t)PERF_CONTEXT_KERNEL);
	memcpy(o + off + 16, r->kstack, nk * 8);
	off += 8 + 8 * (nk + 1);
	if (!stack_size)
		return len;
	if (!r->user) {
		/* a kernel thread: no user registers, no stack */
		wr64(o, off, PERF_SAMPLE_REGS_ABI_NONE);
		wr64(o, off + 8, 0);
		return len;
	}
	wr64(o, off, PERF_SAMPLE_REGS_ABI_64);
	wr64(o, off + 8, r->bp);
	wr64(o, off + 16, r->sp);
	wr64(o, off + 24, r->ip);
	off += 32;
	wr64(o, off, (slen + 7) & ~(size_t)7);
	memcpy(o + off + 8, r->stack, slen);
	off += 8 + ((slen + 7) & ~(size_t)7);
	wr64(o, off, slen);	/* dyn_size */
	return len;
}

size_t opd_offcpu_bpf_decode(void const *data, size_t size, uint64_t id,
			     int callchain, unsigned max_stack,
			     unsigned stack_size, void *out, size_t out_cap,
			     uint64_t *time, uint32_t *cpu)
{
	struct ocb_head h;
	size_t len;

	if (!data || size < sizeof(h))
		return 0;
	memcpy(&h, data, sizeof(h));
	if (h.type == OCB_IN)
		len = decode_in(&h, id, out, out_cap);
	else if (h.type == OCB_OUT)
		len = decode_out(data, size, id, callchain, max_stack,
				 stack_size, out, out_cap);
	else
		len = 0;
	if (len) {
		*time = h.time;
		*cpu = h.cpu;
	}
	return len;
}

int opd_offcpu_bpf_mode(enum ocb_mode *mode)
{
	char const *env = getenv("OPROFILE_OFFCPU");

	*mode = OCB_AUTO;
	if (!env || !*env || !strcmp(env, "auto"))
		return 0;
	if (!strcmp(env, "bpf"))
		*mode = OCB_BPF;
	else if (!strcmp(env, "perf"))
		*mode = OCB_PERF;
	else
		return -EINVAL;
	return 0;
}

#ifdef HAVE_LIBBPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

/* the object built from bpf/offcpu.bpf.c (offcpu_bpf_obj.c) */
extern unsigned char const opd_offcpu_bpf_obj[];
extern unsigned int const opd_offcpu_bpf_obj_len;

struct ocb_loader {
	struct bpf_object *obj;
	struct bpf_link *links[3];
	struct ring_buffer *rb;
	int state_fd;			/* .bss: one struct ocb_state */
	int (*fn)(void *, void *, size_t);
	void *arg;
};

int opd_offcpu_bpf_built(void)
{
	return 1;
}

static struct bpf_map *map_ending(struct bpf_object *obj, char const *end)
{
	struct bpf_map *m;
	size_t el = strlen(end);

	bpf_object__for_each_map(m, obj) {
		char const *n = bpf_map__name(m);
		size_t nl = strlen(n);

		if (nl >= el && !strcmp(n + nl - el, end))
			return m;
	}
	return NULL;
}

static int silent(enum libbpf_print_level level, char const *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static int ring_cb(void *ctx, void *data, size_t size)
{
	struct ocb_loader *l = ctx;

	return l->fn(l->arg, data, size);
}

struct ocb_loader *opd_offcpu_bpf_open(unsigned period, unsigned stack_size,
				       int const *tgids, unsigned nr,
				       int at_exec, char *err, size_t err_len)
{
	struct ocb_loader *l = calloc(1, sizeof(*l));
	struct bpf_map *m;
	struct ocb_conf *conf;
	size_t sz;
	int rc;
	char const *what = "open";

	if (!l) {
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	if (!getenv("OPROFILE_BPF_DEBUG"))
		libbpf_set_print(silent);
	l->obj = bpf_object__open_mem(opd_offcpu_bpf_obj,
				      opd_offcpu_bpf_obj_len, NULL);
	rc = -libbpf_get_error(l->obj);
	if (rc) {
		l->obj = NULL;
		goto fail;
	}
	what = "configure";
	m = map_ending(l->obj, ".rodata");
	/* writable before load, whatever the const says */
	conf = m ? (void *)(uintptr_t)bpf_map__initial_value(m, &sz) : NULL;
	if (!conf || sz < sizeof(*conf)) {
		rc = -ENOENT;
		goto fail;
	}
	conf->period = period ? period : 1;
	conf->stack_size = stack_size;
	conf->follow = nr != 0;
	what = "load";
	rc = bpf_object__load(l->obj);
	if (rc)
		goto fail;
	what = "configure";
	m = map_ending(l->obj, ".bss");
	if (!m || bpf_map__value_size(m) != sizeof(struct ocb_state)) {
		rc = -ENOENT;
		goto fail;
	}
	l->state_fd = bpf_map__fd(m);
	m = bpf_object__find_map_by_name(l->obj, "tgids");
	for (unsigned i = 0; m && i < nr; i++) {
		unsigned int k = (unsigned int)tgids[i];
		unsigned char v = at_exec ? OCB_FOLLOW_AT_EXEC : OCB_FOLLOW;

		rc = bpf_map__update_elem(m, &k, sizeof(k), &v, 1, BPF_ANY);
		if (rc)
			goto fail;
	}
	what = "attach";
	l->links[0] = bpf_program__attach(
		bpf_object__find_program_by_name(l->obj, "ocb_switch"));
	rc = -libbpf_get_error(l->links[0]);
	if (rc) {
		l->links[0] = NULL;
		goto fail;
	}
	l->links[1] = bpf_program__attach(
		bpf_object__find_program_by_name(l->obj, "ocb_fork"));
	rc = -libbpf_get_error(l->links[1]);
	if (rc) {
		l->links[1] = NULL;
		goto fail;
	}
	l->links[2] = bpf_program__attach(
		bpf_object__find_program_by_name(l->obj, "ocb_exec"));
	rc = -libbpf_get_error(l->links[2]);
	if (rc) {
		l->links[2] = NULL;
		goto fail;
	}
	what = "map the ring buffer of";
	l->rb = ring_buffer__new(bpf_map__fd(
		bpf_object__find_map_by_name(l->obj, "rb")), ring_cb, l, NULL);
	rc = -libbpf_get_error(l->rb);
	if (rc) {
		l->rb = NULL;
		goto fail;
	}
	return l;
fail:
	snprintf(err, err_len, "cannot %s the eBPF program: %s", what,
		 strerror(rc > 0 ? rc : -rc));
	opd_offcpu_bpf_close(l);
	return NULL;
}

/* .bss is an array of one element, the section */
static struct ocb_state get_state(struct ocb_loader *l)
{
	struct ocb_state st = { 0 };
	unsigned int k = 0;

	bpf_map_lookup_elem(l->state_fd, &k, &st);
	return st;
}

void opd_offcpu_bpf_enable(struct ocb_loader *l, int on)
{
	struct ocb_state st = get_state(l);
	unsigned int k = 0;

	st.enabled = on != 0;
	bpf_map_update_elem(l->state_fd, &k, &st, BPF_ANY);
}

int opd_offcpu_bpf_fd(struct ocb_loader *l)
{
	return l->rb ? ring_buffer__epoll_fd(l->rb) : -1;
}

int opd_offcpu_bpf_consume(struct ocb_loader *l,
			   int (*fn)(void *arg, void *data, size_t size),
			   void *arg)
{
	l->fn = fn;
	l->arg = arg;
	return ring_buffer__consume(l->rb);
}

uint64_t opd_offcpu_bpf_lost(struct ocb_loader *l)
{
	return get_state(l).lost;
}

void opd_offcpu_bpf_close(struct ocb_loader *l)
{
	if (!l)
		return;
	ring_buffer__free(l->rb);
	bpf_link__destroy(l->links[2]);
	bpf_link__destroy(l->links[1]);
	bpf_link__destroy(l->links[0]);
	bpf_object__close(l->obj);
	free(l);
}
#else
struct ocb_loader {
	int unused;
};

int opd_offcpu_bpf_built(void)
{
	return 0;
}

struct ocb_loader *opd_offcpu_bpf_open(unsigned period, unsigned stack_size,
				       int const *tgids, unsigned nr,
				       int at_exec, char *err, size_t err_len)
{
	(void)period;
	(void)stack_size;
	(void)tgids;
	(void)nr;
	(void)at_exec;
	snprintf(err, err_len, "built without libbpf");
	return NULL;
}

void opd_offcpu_bpf_enable(struct ocb_loader *l, int on)
{
	(void)l;
	(void)on;
}

int opd_offcpu_bpf_fd(struct ocb_loader *l)
{
	(void)l;
	return -1;
}

int opd_offcpu_bpf_consume(struct ocb_loader *l,
			   int (*fn)(void *arg, void *data, size_t size),
			   void *arg)
{
	(void)l;
	(void)fn;
	(void)arg;
	return 0;
}

uint64_t opd_offcpu_bpf_lost(struct ocb_loader *l)
{
	(void)l;
	return 0;
}

void opd_offcpu_bpf_close(struct ocb_loader *l)
{
	(void)l;
}
#endif
