/*
 * JIT perf maps kept in the session (opd_jit.h). The map is written by
 * the profiled process's user, read here by the daemon (often root): it
 * is opened without following a link (O_NOFOLLOW) and without blocking
 * (op_open_regular: a regular file only), must be owned by the process's
 * user, and is read in chunks up to OPD_JIT_MAP_BYTES.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "op_file.h"
#include "op_jitdump.h"
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
	char *dump;                  /* its jit-TGID.dump, from its maps */
	bool dump_warned;
	uint64_t dump_saved;         /* bytes of its TGID.so now */
	/* the dump as last read into this session: unchanged, and no new
	 * region since, it is not read again */
	bool dump_kept;
	off_t dump_size;
	struct timespec dump_mtime;
	size_t dump_nr;
};

struct opd_jit {
	char *map_dir;
	struct jit_proc *v;
	size_t n, alloc;
	size_t total;                /* entries in the session's files */
	size_t nr_gone;
	uint64_t dump_total;         /* bytes of the session's TGID.so */
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
	free(p->dump);
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

/*
 * The JIT maps its jitdump (executable, so that perf sees it): the path
 * of process tgid's mapping of a file named jit-TGID.dump, from
 * /proc/TGID/maps (its first 4 MiB), or NULL.
 */
static char *find_dump(unsigned long tgid)
{
	char path[64], want[64], *text, *line, *next;
	size_t len, wlen;
	char *found = NULL;
	struct stat self, other;

	/* another mount namespace's path names another file here */
	snprintf(path, sizeof(path), "/proc/%lu/ns/mnt", tgid);
	if (stat("/proc/self/ns/mnt", &self) || stat(path, &other) ||
	    self.st_ino != other.st_ino || self.st_dev != other.st_dev)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%lu/maps", tgid);
	wlen = (size_t)snprintf(want, sizeof(want), "/jit-%lu.dump", tgid);
	text = op_read_file(path, 4u << 20, &len, NULL, 0);
	for (line = text; line && line < text + len && !found; line = next) {
		char *nl = memchr(line, '\n', (size_t)(text + len - line));
		char *name;
		size_t n;

		next = nl ? nl + 1 : text + len;
		n = (size_t)((nl ? nl : text + len) - line);
		/* the path is the sixth field: from its first '/' on */
		name = memchr(line, '/', n);
		if (!name)
			continue;
		n -= (size_t)(name - line);
		if (n > wlen && !memcmp(name + n - wlen, want, wlen))
			found = op_xasprintf("%.*s", (int)n, name);
	}
	free(text);
	return found;
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
	if (!p->dump)
		p->dump = find_dump(tgid);
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

/* Said once per process: what was wrong with its jitdump. */
__attribute__((format(printf, 2, 3)))
static void dump_warn(struct jit_proc *p, char const *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (p->dump_warned)
		return;
	p->dump_warned = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	op_warn("%s", msg);
}

/*
 * A process's jitdump (the path its mapping named, else map_dir's
 * jit-TGID.dump) read, and the code loads over its sampled regions
 * written as an ELF image, meta_dir/jit/TGID.so; the same checks as a
 * perf map's (a regular file, not a link, its process's user's, written
 * since the process started), bounded (op_jitdump.h; OPD_JIT_DUMP_TOTAL
 * bytes of images in a session).
 */
static void save_dump(struct opd_jit *j, struct jit_proc *p,
		      char const *meta_dir, struct opd_stats *st)
{
	struct op_jitdump_limits lim = { OP_JITDUMP_MAX_BYTES,
					 OP_JITDUMP_MAX_LOADS,
					 OP_JITDUMP_MAX_CODE };
	struct op_jitdump d = { 0 };
	char path[4096], err[512], *out;
	unsigned char *elf;
	uint64_t before = j->dump_total - p->dump_saved;
	size_t len, left;
	struct stat sb;
	int fd, rc;

	if (p->dump)
		snprintf(path, sizeof(path), "%s", p->dump);
	else
		snprintf(path, sizeof(path), "%s/jit-%lu.dump", j->map_dir,
			 p->tgid);
	fd = op_open_regular(path, O_NOFOLLOW);
	if (fd < 0) {
		if (errno == ENOENT)    /* no jitdump: silent */
			return;
		st->jit_dumps_refused++;
		dump_warn(p, "cannot read '%s': %s: its JIT code stays "
			  "unnamed", path, errno == ELOOP ?
			  "a symbolic link" : op_file_strerror(errno));
		return;
	}
	if (fstat(fd, &sb) || !p->uid_known || sb.st_uid != p->uid ||
	    (p->start && sb.st_mtime + OPD_JIT_CLOCK_SLACK < p->start)) {
		st->jit_dumps_refused++;
		if (!p->uid_known)
			dump_warn(p, "'%s' ignored: the user of process %lu "
				  "is unknown", path, p->tgid);
		else if (sb.st_uid != p->uid)
			dump_warn(p, "'%s' ignored: owned by uid %u, process "
				  "%lu runs as uid %u (a jitdump must be its "
				  "process's)", path, (unsigned)sb.st_uid,
				  p->tgid, (unsigned)p->uid);
		else
			dump_warn(p, "'%s' ignored: last written before "
				  "process %lu started (an earlier process's "
				  "dump)", path, p->tgid);
		close(fd);
		return;
	}
	if (p->dump_kept && sb.st_size == p->dump_size &&
	    sb.st_mtim.tv_sec == p->dump_mtime.tv_sec &&
	    sb.st_mtim.tv_nsec == p->dump_mtime.tv_nsec &&
	    p->nr == p->dump_nr) {
		close(fd);
		return;
	}
	if (before >= OPD_JIT_DUMP_TOTAL) {
		st->jit_dumps_refused++;
		dump_warn(p, "'%s' not read: the session's JIT images reached "
			  "%u MiB", path, OPD_JIT_DUMP_TOTAL >> 20);
		close(fd);
		return;
	}
	/* the code, its names and the gaps between runs fit in 3 times it */
	if (lim.max_code > (OPD_JIT_DUMP_TOTAL - before) / 3)
		lim.max_code = (OPD_JIT_DUMP_TOTAL - before) / 3;
	if (op_jitdump_read_fd(&d, fd, p->r, p->nr, &lim, err, sizeof(err))) {
		close(fd);
		st->jit_dumps_refused++;
		dump_warn(p, "'%s' not read: %s", path, err);
		return;
	}
	close(fd);
	st->jit_dumps_read++;
	st->jit_dump_loads_cut += d.cut;
	/* a live process's last record may be half written */
	if (d.problem[0] && (p->gone || !d.truncated))
		dump_warn(p, "'%s': %s at offset %llu: what follows is not "
			  "read", path, d.problem,
			  (unsigned long long)d.problem_at);
	else if (d.cut || d.bytes_cut)
		dump_warn(p, "'%s': code loads past the bound (%u, %u MiB of "
			  "code, %llu MiB read) not kept", path,
			  OP_JITDUMP_MAX_LOADS, (unsigned)(lim.max_code >> 20),
			  (unsigned long long)(OP_JITDUMP_MAX_BYTES >> 20));
	if (d.replaced && p->gone)
		op_info("'%s': %llu code load%s over an earlier one's "
			"addresses in sampled regions: the later one names "
			"them (doc/jit.md)", path,
			(unsigned long long)d.replaced,
			d.replaced == 1 ? "" : "s");
	if (!d.n) {
		op_jitdump_free(&d);
		return;
	}
	elf = op_jitdump_elf(&d, &len, &left);
	st->jit_dump_loads_cut += left;
	op_jitdump_free(&d);
	out = op_xasprintf("%s/%s", meta_dir, OP_META_JIT);
	rc = op_mkdir_p(out);
	if (rc) {
		op_warn("cannot create '%s': %s", out, strerror(-rc));
	} else {
		free(out);
		out = op_xasprintf("%s/%s/%lu.so", meta_dir, OP_META_JIT,
				   p->tgid);
		if (op_write_file_atomic(out, elf, len, err, sizeof(err))) {
			op_warn("%s", err);
		} else {
			j->dump_total = before + len;
			p->dump_saved = len;
			p->dump_kept = true;
			p->dump_size = sb.st_size;
			p->dump_mtime = sb.st_mtim;
			p->dump_nr = p->nr;
		}
	}
	free(out);
	free(elf);
}

void opd_jit_save(struct opd_jit *j, char const *meta_dir, bool all,
		  struct opd_stats *st)
{
	size_t kept = 0;

	for (size_t i = 0; i < j->n; i++) {
		struct jit_proc *p = &j->v[i];

		if (p->gone || all) {
			save_one(j, p, meta_dir, st);
			save_dump(j, p, meta_dir, st);
		}
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
	j->dump_total = 0;
	for (size_t i = 0; i < j->n; i++) {
		j->v[i].saved = 0;
		j->v[i].dump_saved = 0;
		j->v[i].dump_kept = false;
	}
}
