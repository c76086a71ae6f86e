/*
 * JIT perf maps kept in the session (opd_jit.h). The map is written by
 * the profiled process's user, read here by the daemon (often root): it
 * is opened without following a link (O_NOFOLLOW) and without blocking
 * (op_open_regular: a regular file only), must be owned by the process's
 * user, and is read in chunks up to OPD_JIT_MAP_BYTES.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "op_file.h"
#include "op_perf_map.h"
#include "op_session.h"
#include "op_util.h"
#include "opd_core.h"
#include "opd_jit.h"

#define CHUNK (1u << 20)
#define OPD_JIT_CLOCK_SLACK 5   /* seconds */

struct jit_proc {
	unsigned long tgid;
	uid_t uid;
	bool uid_known;
	time_t start;                /* when it started; 0: unknown */
	bool gone;
	bool warned;                 /* said once what was wrong */
	struct op_perf_map_range *r; /* its sampled regions */
	size_t nr, alloc;
	size_t saved;                /* entries in its file now */
};

struct opd_jit {
	char *map_dir;
	struct jit_proc *v;
	size_t n, alloc;
	size_t total;                /* entries in the session's files */
	size_t nr_gone;
};

struct opd_jit *opd_jit_new(char const *map_dir)
{
	struct opd_jit *j = op_xcalloc(1, sizeof(*j));

	j->map_dir = op_xstrdup(map_dir ? map_dir : "/tmp");
	return j;
}

static void proc_free(struct jit_proc *p)
{
	free(p->r);
}

void opd_jit_free(struct opd_jit *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->n; i++)
		proc_free(&j->v[i]);
	free(j->v);
	free(j->map_dir);
	free(j);
}

/* The live record of tgid (not one gone: a pid used again is another). */
static struct jit_proc *find(struct opd_jit *j, unsigned long tgid)
{
	for (size_t i = 0; i < j->n; i++)
		if (j->v[i].tgid == tgid && !j->v[i].gone)
			return &j->v[i];
	return NULL;
}

/* Boot time (/proc/stat btime), in seconds since the epoch; 0: unknown. */
static time_t boot_time(void)
{
	char *text = op_read_file("/proc/stat", 1 << 20, NULL, NULL, 0);
	char *at = text ? strstr(text, "\nbtime ") : NULL;
	time_t t = at ? (time_t)strtoll(at + 7, NULL, 10) : 0;

	free(text);
	return t;
}

/* When process tgid started (/proc/TGID/stat starttime), 0: unknown. */
static time_t proc_start(unsigned long tgid)
{
	char path[64], *text, *p;
	unsigned long long ticks = 0;
	long hz = sysconf(_SC_CLK_TCK);
	time_t boot;
	int field;

	snprintf(path, sizeof(path), "/proc/%lu/stat", tgid);
	text = op_read_file(path, 4096, NULL, NULL, 0);
	p = text ? strrchr(text, ')') : NULL;
	/* after "pid (comm)" comes field 3; starttime is field 22 */
	for (field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p)
		ticks = strtoull(p + 1, NULL, 10);
	free(text);
	boot = boot_time();
	if (!ticks || !boot || hz <= 0)
		return 0;
	return boot + (time_t)(ticks / (unsigned long long)hz);
}

void opd_jit_region(struct opd_jit *j, unsigned long tgid, uint64_t start,
		    uint64_t end)
{
	struct jit_proc *p = find(j, tgid);

	if (!p) {
		char path[64];
		struct stat st;

		OP_ALLOC_GROW(j->v, j->n + 1, j->alloc);
		p = &j->v[j->n++];
		memset(p, 0, sizeof(*p));
		p->tgid = tgid;
		snprintf(path, sizeof(path), "/proc/%lu", tgid);
		if (!stat(path, &st)) {
			p->uid = st.st_uid;
			p->uid_known = true;
		}
		p->start = proc_start(tgid);
	}
	OP_ALLOC_GROW(p->r, p->nr + 1, p->alloc);
	p->r[p->nr++] = (struct op_perf_map_range){ start, end };
}

void opd_jit_gone(struct opd_jit *j, unsigned long tgid)
{
	struct jit_proc *p = find(j, tgid);

	if (p) {
		p->gone = true;
		j->nr_gone++;
	}
}

bool opd_jit_pending(struct opd_jit const *j)
{
	return j->nr_gone > 0;
}

/* Parse what buf holds up to its last newline; the rest moves to the
 * front. A line longer than the buffer is dropped (counted bad). */
static void read_chunks(int fd, struct op_perf_map *m,
			struct jit_proc const *p, size_t max, bool *cut)
{
	char *buf = op_xmalloc(CHUNK);
	size_t have = 0, total = 0;
	bool skipping = false;

	*cut = false;
	for (;;) {
		size_t want = CHUNK - have;
		ssize_t n;
		char *nl;

		if (total >= OPD_JIT_MAP_BYTES) {
			char c;

			*cut = read(fd, &c, 1) == 1;
			break;
		}
		if (want > OPD_JIT_MAP_BYTES - total)
			want = OPD_JIT_MAP_BYTES - total;
		n = read(fd, buf + have, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		total += (size_t)n;
		if (skipping) {
			nl = memchr(buf, '\n', have);
			if (!nl) {
				have = 0;
				continue;
			}
			have -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, have);
			skipping = false;
		}
		nl = have ? memrchr(buf, '\n', have) : NULL;
		if (!nl) {
			if (have == CHUNK) {    /* one line longer than this */
				m->bad_lines++;
				have = 0;
				skipping = true;
			}
			continue;
		}
		op_perf_map_parse(m, buf, (size_t)(nl + 1 - buf), p->r, p->nr,
				  max);
		have -= (size_t)(nl + 1 - buf);
		memmove(buf, nl + 1, have);
	}
	if (have && !skipping && !*cut) /* a last line without newline */
		op_perf_map_parse(m, buf, have, p->r, p->nr, max);
	free(buf);
}

static int by_start(void const *a, void const *b)
{
	struct op_perf_map_entry const *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The session's file keeps what it said about regions other than p's
 * (an earlier process of the same pid, or regions read before): those
 * entries join m.
 */
static void merge_saved(struct op_perf_map *m, char const *path,
			struct jit_proc const *p)
{
	struct op_perf_map old = { 0 };
	size_t len, kept = 0;
	char *text = op_read_file(path, OPD_JIT_MAP_BYTES, &len, NULL, 0);

	if (!text)
		return;
	op_perf_map_parse(&old, text, len, NULL, 0, 0);
	free(text);
	for (size_t i = 0; i < old.n; i++) {
		if (op_perf_map_overlaps(old.v[i].start, old.v[i].size, p->r,
					 p->nr)) {
			free(old.v[i].name);
			continue;
		}
		OP_ALLOC_GROW(m->v, m->n + 1, m->alloc);
		m->v[m->n++] = old.v[i];
		kept++;
	}
	old.n = 0;
	op_perf_map_free(&old);
	if (kept)
		qsort(m->v, m->n, sizeof(*m->v), by_start);
}

/* A process's map read and its entries written; -1 when nothing was. */
static int save_one(struct opd_jit *j, struct jit_proc *p,
		    char const *meta_dir, struct opd_stats *st)
{
	struct op_perf_map m = { 0 };
	char path[4096], err[512], *dir, *out, *text;
	size_t max, len, before;
	struct stat sb;
	bool cut;
	int fd, rc;

	snprintf(path, sizeof(path), "%s/perf-%lu.map", j->map_dir, p->tgid);
	fd = op_open_regular(path, O_NOFOLLOW);
	if (fd < 0) {
		if (errno == ENOENT)    /* no JIT, or no map: as perf, silent */
			return -1;
		st->jit_maps_refused++;
		if (!p->warned)
			op_warn("cannot read '%s': %s: its JIT code stays "
				"unnamed", path, errno == ELOOP ?
				"a symbolic link" : op_file_strerror(errno));
		p->warned = true;
		return -1;
	}
	if (fstat(fd, &sb) || !p->uid_known || sb.st_uid != p->uid) {
		st->jit_maps_refused++;
		if (!p->warned && !p->uid_known)
			op_warn("'%s' ignored: the user of process %lu is "
				"unknown (gone before its first sample was "
				"seen)", path, p->tgid);
		else if (!p->warned)
			op_warn("'%s' ignored: owned by uid %u, process %lu "
				"runs as uid %u (as perf, a map must be its "
				"process's)", path, (unsigned)sb.st_uid,
				p->tgid, (unsigned)p->uid);
		p->warned = true;
		close(fd);
		return -1;
	}
	/* a map last written before the process started is an earlier
	 * process's of the same pid (btime is known to a few seconds) */
	if (p->start && sb.st_mtime + OPD_JIT_CLOCK_SLACK < p->start) {
		st->jit_maps_refused++;
		if (!p->warned)
			op_warn("'%s' ignored: last written before process %lu "
				"started (an earlier process's map)", path,
				p->tgid);
		p->warned = true;
		close(fd);
		return -1;
	}
	before = j->total - p->saved;
	max = OPD_JIT_TOTAL > before ? OPD_JIT_TOTAL - before : 0;
	if (max > OPD_JIT_PER_PROC)
		max = OPD_JIT_PER_PROC;
	if (!max) {
		st->jit_maps_refused++;
		close(fd);
		return -1;
	}
	read_chunks(fd, &m, p, max, &cut);
	close(fd);
	st->jit_maps_read++;
	st->jit_maps_cut += cut;
	st->jit_entries_cut += m.cut;
	if (!p->warned && cut)
		op_warn("'%s': only its first %u MiB read (the bound): later "
			"functions stay unnamed", path, OPD_JIT_MAP_BYTES >> 20);
	if (!p->warned && m.bad_lines)
		op_warn("'%s': %zu line%s that do%s not parse (the first: "
			"line %zu) not kept", path, m.bad_lines,
			m.bad_lines == 1 ? "" : "s", m.bad_lines == 1 ? "es" : "",
			m.first_bad);
	if (!p->warned && m.cut)
		op_warn("'%s': %zu entries past the bound (%u per process, "
			"%u in the session) not kept", path, m.cut,
			OPD_JIT_PER_PROC, OPD_JIT_TOTAL);
	p->warned = p->warned || cut || m.bad_lines || m.cut;
	dir = op_xasprintf("%s/%s", meta_dir, OP_META_JIT);
	rc = op_mkdir_p(dir);
	if (rc) {
		op_warn("cannot create '%s': %s", dir, strerror(-rc));
		free(dir);
		op_perf_map_free(&m);
		return -1;
	}
	out = op_xasprintf("%s/%lu.map", dir, p->tgid);
	merge_saved(&m, out, p);
	rc = 0;
	if (m.n) {
		text = op_perf_map_format(&m, &len);
		rc = op_write_file_atomic(out, text, len, err, sizeof(err));
		if (rc)
			op_warn("%s", err);
		free(text);
	}
	if (!rc) {
		j->total = before + m.n;
		p->saved = m.n;
	}
	free(out);
	free(dir);
	op_perf_map_free(&m);
	return rc;
}

void opd_jit_save(struct opd_jit *j, char const *meta_dir, bool all,
		  struct opd_stats *st)
{
	size_t kept = 0;

	for (size_t i = 0; i < j->n; i++) {
		struct jit_proc *p = &j->v[i];

		if (p->gone || all)
			save_one(j, p, meta_dir, st);
		/* a region unmapped is forgotten too: a process that still
		 * runs (the same one: its start time) stays known */
		if (p->gone && p->start && proc_start(p->tgid) == p->start)
			p->gone = false;
		if (p->gone) {
			proc_free(p);
			continue;
		}
		j->v[kept++] = *p;
	}
	j->n = kept;
	j->nr_gone = 0;
}

void opd_jit_new_session(struct opd_jit *j)
{
	j->total = 0;
	for (size_t i = 0; i < j->n; i++)
		j->v[i].saved = 0;
}
