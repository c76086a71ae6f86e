/*
 * opwatch's pairing and statistics: per thread a stack of open calls
 * (probe, entry time), so nested and recursive calls pair with their own
 * returns; per probe and group every duration, for exact percentiles.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_escape.h"
#include "op_util.h"
#include "opwatch.h"

struct open_call {
	int probe;
	uint64_t time;
	bool inherited;		/* copied from the parent at a fork */
	uint64_t counts[OPWATCH_MAX_COUNT];	/* --count: at entry */
};

struct thread {
	struct op_hashmap_entry node;
	uint32_t tid, pid;
	char comm[32];
	struct open_call *stack;
	size_t depth, alloc;
};

static int thread_cmp(void const *data, struct op_hashmap_entry const *a,
		      struct op_hashmap_entry const *b, void const *key)
{
	struct thread const *x = OP_HASHMAP_ENTRY(a, struct thread, node);

	(void)data;
	(void)b;
	return x->tid != *(uint32_t const *)key;
}

static int group_cmp(void const *data, struct op_hashmap_entry const *a,
		     struct op_hashmap_entry const *b, void const *key)
{
	struct opwatch_group const *x = OP_HASHMAP_ENTRY(a, struct opwatch_group, node);
	struct opwatch_group const *y = key;

	(void)data;
	(void)b;
	return x->probe != y->probe || strcmp(x->key, y->key);
}

/* A pair's open items of one key: their FROM times, oldest first. */
struct pair_items {
	struct op_hashmap_entry node;
	int probe;
	uint64_t value;
	uint64_t *times;
	size_t head, n, alloc;
};

static int items_cmp(void const *data, struct op_hashmap_entry const *a,
		     struct op_hashmap_entry const *b, void const *key)
{
	struct pair_items const *x = OP_HASHMAP_ENTRY(a, struct pair_items, node);
	struct pair_items const *y = key;

	(void)data;
	(void)b;
	return x->probe != y->probe || x->value != y->value;
}

void opwatch_stats_init(struct opwatch_stats *s, int nr_probes,
			enum opwatch_by by)
{
	memset(s, 0, sizeof(*s));
	s->nr_probes = nr_probes;
	s->by = by;
	op_hashmap_init(&s->threads, thread_cmp, NULL, 64);
	op_hashmap_init(&s->groups, group_cmp, NULL, 16);
	op_hashmap_init(&s->items, items_cmp, NULL, 64);
}

/* The process name of pid, read once per thread (it may be gone later). */
static void read_comm(struct thread *t)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/comm", t->pid);
	f = fopen(path, "re");
	if (!f || !fgets(t->comm, sizeof(t->comm), f))
		snprintf(t->comm, sizeof(t->comm), "pid %u", t->pid);
	t->comm[strcspn(t->comm, "\n")] = '\0';
	if (f)
		fclose(f);
}

static struct thread *get_thread(struct opwatch_stats *s, uint32_t pid,
				 uint32_t tid, bool create)
{
	struct op_hashmap_entry key;
	struct thread *t;

	op_hashmap_entry_init(&key, op_hash_u64(tid));
	t = OP_HASHMAP_ENTRY(op_hashmap_get(&s->threads, &key, &tid),
			     struct thread, node);
	if (t || !create)
		return t;
	t = op_xcalloc(1, sizeof(*t));
	t->tid = tid;
	t->pid = pid;
	if (s->by == OPWATCH_BY_NAME)
		read_comm(t);
	op_hashmap_entry_init(&t->node, key.hash);
	op_hashmap_add(&s->threads, &t->node);
	return t;
}

static struct opwatch_group *get_group(struct opwatch_stats *s, int probe,
				       char const *k)
{
	struct opwatch_group key = { .probe = probe }, *g;

	snprintf(key.key, sizeof(key.key), "%s", k);
	op_hashmap_entry_init(&key.node, op_hash_str(key.key) ^ (unsigned)probe);
	g = OP_HASHMAP_ENTRY(op_hashmap_get(&s->groups, &key.node, &key),
			     struct opwatch_group, node);
	if (g)
		return g;
	g = op_xcalloc(1, sizeof(*g));
	*g = key;
	op_hashmap_add(&s->groups, &g->node);
	return g;
}

static void group_key(struct opwatch_stats const *s, struct thread const *t,
		      bool child, char *buf, size_t size)
{
	char const *role = child ? " (child)" : "";

	switch (s->by) {
	case OPWATCH_BY_NAME:
		snprintf(buf, size, "%s%s", t->comm, role);
		break;
	case OPWATCH_BY_PID:
		snprintf(buf, size, "pid %u%s", t->pid, role);
		break;
	case OPWATCH_BY_TID:
		snprintf(buf, size, "tid %u%s", t->tid, role);
		break;
	default:
		snprintf(buf, size, "%s", child ? "(child)" : "");
		break;
	}
}

static void add_duration(struct opwatch_group *g, uint64_t ns)
{
	OP_ALLOC_GROW(g->ns, g->n + 1, g->alloc);
	g->ns[g->n++] = ns;
}

/* The innermost open call of probe in t, or -1. */
static long innermost(struct thread const *t, int probe)
{
	for (size_t i = t->depth; i > 0; i--)
		if (t->stack[i - 1].probe == probe)
			return (long)(i - 1);
	return -1;
}

/* --count: the counts' growth over the call (0 for an inherited call:
 * the child's counters started at the fork, not at the entry). */
static void add_counts(struct opwatch_stats const *s, struct opwatch_group *g,
		       struct open_call const *c, uint64_t const *counts)
{
	for (int k = 0; k < s->nr_counts; k++) {
		uint64_t d = counts && !c->inherited && counts[k] >= c->counts[k] ?
			     counts[k] - c->counts[k] : 0;

		g->counts[k] = op_xrealloc(g->counts[k], g->alloc * sizeof(uint64_t));
		g->counts[k][g->n - 1] = d;
	}
}

void opwatch_stats_event(struct opwatch_stats *s, int probe, bool is_return,
			 uint32_t pid, uint32_t tid, uint64_t time)
{
	opwatch_stats_event_counts(s, probe, is_return, pid, tid, time, NULL);
}

void opwatch_stats_event_counts(struct opwatch_stats *s, int probe,
				bool is_return, uint32_t pid, uint32_t tid,
				uint64_t time, uint64_t const *counts)
{
	struct thread *t = get_thread(s, pid, tid, true);
	struct opwatch_group *g;
	char key[64];
	long i;

	if (!is_return) {
		OP_ALLOC_GROW(t->stack, t->depth + 1, t->alloc);
		t->stack[t->depth] = (struct open_call){ probe, time, false, { 0 } };
		for (int k = 0; counts && k < s->nr_counts; k++)
			t->stack[t->depth].counts[k] = counts[k];
		t->depth++;
		return;
	}
	i = innermost(t, probe);
	if (i < 0) {
		s->unmatched_returns++;
		return;
	}
	group_key(s, t, t->stack[i].inherited, key, sizeof(key));
	g = get_group(s, probe, key);
	add_duration(g, time - t->stack[i].time);
	add_counts(s, g, &t->stack[i], counts);
	/* calls opened above it and never returned (a longjmp) are dropped */
	s->open_calls += t->depth - (size_t)i - 1;
	t->depth = (size_t)i;
}

void opwatch_stats_fork(struct opwatch_stats *s, uint32_t ptid, uint32_t pid,
			uint32_t tid)
{
	struct thread *parent = get_thread(s, 0, ptid, false), *child;

	if (!parent || !parent->depth)
		return;
	child = get_thread(s, pid, tid, true);
	child->depth = 0;
	for (size_t i = 0; i < parent->depth; i++) {
		OP_ALLOC_GROW(child->stack, child->depth + 1, child->alloc);
		child->stack[child->depth] = parent->stack[i];
		child->stack[child->depth++].inherited = true;
	}
}

static struct pair_items *get_items(struct opwatch_stats *s, int probe,
				    uint64_t value, bool create)
{
	struct pair_items key = { .probe = probe, .value = value }, *it;

	op_hashmap_entry_init(&key.node, op_hash_u64(value) ^ (unsigned)probe);
	it = OP_HASHMAP_ENTRY(op_hashmap_get(&s->items, &key.node, &key),
			      struct pair_items, node);
	if (it || !create)
		return it;
	it = op_xcalloc(1, sizeof(*it));
	*it = key;
	op_hashmap_add(&s->items, &it->node);
	return it;
}

void opwatch_stats_pair(struct opwatch_stats *s, int probe, bool is_to,
			uint64_t value, uint32_t pid, uint32_t tid,
			uint64_t time)
{
	static struct open_call const none;
	struct pair_items *it = get_items(s, probe, value, !is_to);
	struct opwatch_group *g;
	char key[64];

	if (!is_to) {
		OP_ALLOC_GROW(it->times, it->n + 1, it->alloc);
		it->times[it->n++] = time;
		return;
	}
	if (!it || it->head == it->n) {
		s->unmatched_returns++;
		return;
	}
	group_key(s, get_thread(s, pid, tid, true), false, key, sizeof(key));
	g = get_group(s, probe, key);
	add_duration(g, time - it->times[it->head++]);
	add_counts(s, g, &none, NULL);	/* --count is per call, not per item */
}

static void free_items(struct op_hashmap_entry *e)
{
	struct pair_items *it = OP_HASHMAP_ENTRY(e, struct pair_items, node);

	free(it->times);
	free(it);
}

static void free_thread(struct op_hashmap_entry *e)
{
	struct thread *t = OP_HASHMAP_ENTRY(e, struct thread, node);

	free(t->stack);
	free(t);
}

static void free_group(struct op_hashmap_entry *e)
{
	struct opwatch_group *g = OP_HASHMAP_ENTRY(e, struct opwatch_group, node);

	free(g->ns);
	for (int k = 0; k < OPWATCH_MAX_COUNT; k++)
		free(g->counts[k]);
	free(g);
}

void opwatch_stats_finish(struct opwatch_stats *s)
{
	struct op_hashmap_iter it;

	for (struct op_hashmap_entry *e = op_hashmap_iter_first(&s->threads, &it);
	     e; e = op_hashmap_iter_next(&it)) {
		struct thread const *t = OP_HASHMAP_ENTRY(e, struct thread, node);

		s->open_calls += t->depth;
	}
	for (struct op_hashmap_entry *e = op_hashmap_iter_first(&s->items, &it);
	     e; e = op_hashmap_iter_next(&it)) {
		struct pair_items const *p = OP_HASHMAP_ENTRY(e, struct pair_items,
							      node);

		s->open_calls += p->n - p->head;
	}
}

void opwatch_stats_free(struct opwatch_stats *s)
{
	op_hashmap_clear(&s->threads, free_thread);
	op_hashmap_clear(&s->groups, free_group);
	op_hashmap_clear(&s->items, free_items);
}

/* --- the report ---------------------------------------------------------- */

struct summary {
	uint64_t min, max, p50, p90, p99;
	double mean, stddev;
};

static int cmp_u64(void const *a, void const *b)
{
	uint64_t x = *(uint64_t const *)a, y = *(uint64_t const *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank percentile of sorted v. */
static uint64_t percentile(uint64_t const *v, size_t n, double pct)
{
	size_t rank = (size_t)ceil(pct / 100.0 * (double)n);

	return v[rank ? rank - 1 : 0];
}

static void summarise(struct opwatch_group *g, struct summary *m)
{
	double sum = 0, sq = 0;

	qsort(g->ns, g->n, sizeof(*g->ns), cmp_u64);
	for (size_t i = 0; i < g->n; i++)
		sum += (double)g->ns[i];
	m->mean = sum / (double)g->n;
	for (size_t i = 0; i < g->n; i++)
		sq += ((double)g->ns[i] - m->mean) * ((double)g->ns[i] - m->mean);
	m->stddev = g->n > 1 ? sqrt(sq / (double)(g->n - 1)) : 0;
	m->min = g->ns[0];
	m->max = g->ns[g->n - 1];
	m->p50 = percentile(g->ns, g->n, 50);
	m->p90 = percentile(g->ns, g->n, 90);
	m->p99 = percentile(g->ns, g->n, 99);
}

static int cmp_group(void const *a, void const *b)
{
	struct opwatch_group const *x = *(struct opwatch_group *const *)a;
	struct opwatch_group const *y = *(struct opwatch_group *const *)b;

	if (x->probe != y->probe)
		return x->probe - y->probe;
	return strcmp(x->key, y->key);
}

/* log2 histogram of the durations in µs: bucket b holds [2^b, 2^(b+1)). */
static void histogram(FILE *out, struct opwatch_group const *g)
{
	size_t count[64] = { 0 }, most = 0;
	int lo = 63, hi = 0;

	for (size_t i = 0; i < g->n; i++) {
		uint64_t us = g->ns[i] / 1000;
		int b = us ? 63 - __builtin_clzll(us) : 0;

		count[b]++;
		lo = b < lo ? b : lo;
		hi = b > hi ? b : hi;
	}
	for (int b = lo; b <= hi; b++)
		most = count[b] > most ? count[b] : most;
	for (int b = lo; b <= hi; b++) {
		int bar = most ? (int)(40 * count[b] / most) : 0;

		fprintf(out, "    %10llu us .. %-10llu %8zu |%.*s\n",
			b ? 1ull << b : 0ull, (1ull << (b + 1)) - 1, count[b], bar,
			"****************************************");
	}
}

static void text_group(FILE *out, struct opwatch_group *g,
		       struct opwatch_probe const *p)
{
	struct summary m;

	summarise(g, &m);
	/* probe specs name symbols and paths, keys are process names */
	op_fputs_escaped(out, p->spec);
	fputs(g->key[0] ? "  " : "", out);
	op_fputs_escaped(out, g->key);
	fprintf(out, ": %zu calls\n", g->n);
	fprintf(out, "    min %.3f  mean %.3f  max %.3f  stddev %.3f  "
		"p50 %.3f  p90 %.3f  p99 %.3f  (us)\n", m.min / 1e3,
		m.mean / 1e3, m.max / 1e3, m.stddev / 1e3, m.p50 / 1e3,
		m.p90 / 1e3, m.p99 / 1e3);
	histogram(out, g);
}

/* --count: an event's growth per call, sorted in place. */
struct count_summary {
	uint64_t min, p50, max, total;
	double mean;
};

static void count_summary(struct opwatch_group *g, int k,
			  struct count_summary *c)
{
	memset(c, 0, sizeof(*c));
	if (!g->n || !g->counts[k])
		return;
	qsort(g->counts[k], g->n, sizeof(uint64_t), cmp_u64);
	for (size_t i = 0; i < g->n; i++)
		c->total += g->counts[k][i];
	c->min = g->counts[k][0];
	c->p50 = percentile(g->counts[k], g->n, 50);
	c->max = g->counts[k][g->n - 1];
	c->mean = (double)c->total / (double)g->n;
}

static void text_counts(FILE *out, struct opwatch_stats const *s,
			struct opwatch_group *g)
{
	for (int k = 0; k < s->nr_counts; k++) {
		struct count_summary c;
		bool ns = s->count_unit[k] && !strcmp(s->count_unit[k], "ns");
		double div = ns ? 1e3 : 1;

		count_summary(g, k, &c);
		fputs("    ", out);
		op_fputs_escaped(out, s->count_name[k]);
		fprintf(out, " per call: min %.*f  p50 %.*f  mean %.3f  "
			"max %.*f  total %.*f%s\n", ns ? 3 : 0,
			(double)c.min / div, ns ? 3 : 0, (double)c.p50 / div,
			c.mean / div, ns ? 3 : 0, (double)c.max / div, ns ? 3 : 0,
			(double)c.total / div, ns ? "  (us)" : "");
	}
}

/* A CSV field, escaped (op_escape.h), quoted when it holds a comma or a
 * quote (a pair's spec). */
static void csv_field(FILE *out, char const *name)
{
	char *e = op_escape(name);

	if (!strpbrk(e, ",\"")) {
		fputs(e, out);
		free(e);
		return;
	}
	fputc('"', out);
	for (char const *s = e; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
	free(e);
}

static void csv_group(FILE *out, struct opwatch_stats const *s,
		      struct opwatch_group *g, struct opwatch_probe const *p)
{
	struct summary m;

	summarise(g, &m);
	csv_field(out, p->spec);
	fputc(',', out);
	csv_field(out, g->key);
	fprintf(out, ",%zu,%llu,%.0f,%llu,%.0f,%llu,%llu,%llu", g->n, (unsigned long long)m.min, m.mean,
		(unsigned long long)m.max, m.stddev, (unsigned long long)m.p50,
		(unsigned long long)m.p90, (unsigned long long)m.p99);
	for (int k = 0; k < s->nr_counts; k++) {
		struct count_summary c;

		count_summary(g, k, &c);
		fprintf(out, ",%llu,%llu,%.3f,%llu,%llu",
			(unsigned long long)c.min, (unsigned long long)c.p50,
			c.mean, (unsigned long long)c.max,
			(unsigned long long)c.total);
	}
	fputc('\n', out);
}

/* A JSON string of a name (paths and process names) escaped by the
 * printing rule (op_escape.h): valid UTF-8, no controls left. */
static void json_str(FILE *out, char const *name)
{
	char *e = op_escape(name);

	fputc('"', out);
	for (char const *s = e; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
	free(e);
}

static void json_group(FILE *out, struct opwatch_stats const *s,
		       struct opwatch_group *g, struct opwatch_probe const *p,
		       bool first)
{
	struct summary m;

	summarise(g, &m);
	fprintf(out, "%s\n    {\"probe\": ", first ? "" : ",");
	json_str(out, p->spec);
	fprintf(out, ", \"group\": ");
	json_str(out, g->key);
	fprintf(out, ", \"calls\": %zu, \"min_ns\": %llu, \"mean_ns\": %.0f, "
		"\"max_ns\": %llu, \"stddev_ns\": %.0f, \"p50_ns\": %llu, "
		"\"p90_ns\": %llu, \"p99_ns\": %llu", g->n,
		(unsigned long long)m.min, m.mean, (unsigned long long)m.max,
		m.stddev, (unsigned long long)m.p50, (unsigned long long)m.p90,
		(unsigned long long)m.p99);
	if (s->nr_counts)
		fprintf(out, ", \"counts\": {");
	for (int k = 0; k < s->nr_counts; k++) {
		struct count_summary c;

		count_summary(g, k, &c);
		fprintf(out, "%s", k ? ", " : "");
		json_str(out, s->count_name[k]);
		fprintf(out, ": {\"min\": %llu, \"p50\": %llu, \"mean\": %.3f, "
			"\"max\": %llu, \"total\": %llu}", (unsigned long long)c.min,
			(unsigned long long)c.p50, c.mean,
			(unsigned long long)c.max, (unsigned long long)c.total);
	}
	fprintf(out, "%s}", s->nr_counts ? "}" : "");
}

void opwatch_report(FILE *out, struct opwatch_stats *s,
		    struct opwatch_probe const *probes,
		    enum opwatch_format fmt)
{
	size_t n = op_hashmap_size(&s->groups), i = 0;
	struct opwatch_group **v = op_xcalloc(n ? n : 1, sizeof(*v));
	struct op_hashmap_iter it;

	for (struct op_hashmap_entry *e = op_hashmap_iter_first(&s->groups, &it);
	     e; e = op_hashmap_iter_next(&it))
		v[i++] = OP_HASHMAP_ENTRY(e, struct opwatch_group, node);
	qsort(v, n, sizeof(*v), cmp_group);
	if (fmt == OPWATCH_CSV) {
		fprintf(out, "probe,group,calls,min_ns,mean_ns,max_ns,stddev_ns,"
			"p50_ns,p90_ns,p99_ns");
		for (int k = 0; k < s->nr_counts; k++)
			for (size_t f = 0; f < 5; f++) {
				static char const *const what[] = {
					"min", "p50", "mean", "max", "total",
				};
				char *col = op_xasprintf("%s_%s",
					s->count_name[k], what[f]);

				fputc(',', out);
				csv_field(out, col);
				free(col);
			}
		fputc('\n', out);
	}
	if (fmt == OPWATCH_JSON)
		fprintf(out, "{\n  \"groups\": [");
	for (i = 0; i < n; i++) {
		if (fmt == OPWATCH_TEXT) {
			text_group(out, v[i], &probes[v[i]->probe]);
			text_counts(out, s, v[i]);
		} else if (fmt == OPWATCH_CSV) {
			csv_group(out, s, v[i], &probes[v[i]->probe]);
		} else {
			json_group(out, s, v[i], &probes[v[i]->probe], i == 0);
		}
	}
	if (fmt == OPWATCH_JSON)
		fprintf(out, "\n  ],\n  \"unmatched_returns\": %llu, "
			"\"open_calls\": %llu, \"lost_records\": %llu\n}\n",
			(unsigned long long)s->unmatched_returns,
			(unsigned long long)s->open_calls,
			(unsigned long long)s->lost);
	else if (fmt == OPWATCH_TEXT)
		fprintf(out, "unmatched returns %llu, calls never returned %llu, "
			"records lost %llu\n",
			(unsigned long long)s->unmatched_returns,
			(unsigned long long)s->open_calls,
			(unsigned long long)s->lost);
	free(v);
}
