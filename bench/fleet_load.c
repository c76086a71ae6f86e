/*
 * The fleet benchmark's load (bench/fleet_bench.sh): HOSTS x HOURS
 * hourly sessions made from a few real recorded ones, varied per
 * host-hour, shipped as the shipper ships a session (doc/fleet.md):
 * the samples rows, the stacks rows, then - only after both answered
 * 200 - the manifest row, all with one random upload_id, each an INSERT
 * over libfleet's HTTP client. JOBS processes ship at once.
 *
 * Per host-hour: host hostNNNN, labels service=web|db|batch (host mod 3)
 * and version=A|B (host mod 2), the base session (host + hour) mod the
 * number of bases, every count x SCALE x a per-host factor (0.5-1.5) x a
 * per-row one (0.8-1.2), a tenth of the rows left out at random, rows
 * rounding to 0 dropped; in version B one symbol in 8 (by a hash of its
 * name) costs 1.5 times as much, so that a diff has something to find.
 *
 *   fleet_load --url URL [--credentials FILE] [--database DB]
 *              --hosts N --hours H --start EPOCH [--scale X] [--jobs P]
 *              [--seed S] BASE...
 * BASE.samples: app, image, build_id, symbol, offset (hex), samples;
 * BASE.stacks: app, frames, [offsets in hex], samples - the rows the
 * shipper made of a recorded session, read back by fleet_bench.sh.
 * Prints "host-hours N rows R bytes B seconds S" (the rows and bytes
 * sent). Exit 0, or 1 naming the first failure.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fleet_http.h"
#include "fleet_schema.h"
#include "fleet_tsv.h"

#define EVENT "CPU_CLOCK"
#define EVENT_COUNT 20408163u

struct row {
	char *head;           /* the fields before the offset(s), tab-ended */
	char *offsets;        /* samples: decimal; stacks: "[d,d,...]" */
	uint64_t samples;
	bool hot;             /* version B's costlier symbols */
};

struct base {
	struct row *samples, *stacks;
	size_t nr_samples, nr_stacks;
};

static char const *const services[] = { "web", "db", "batch" };

static _Noreturn void die(char const *fmt, char const *a, char const *b)
{
	fprintf(stderr, "fleet_load: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	exit(1);
}

static uint64_t rng_next(uint64_t *s)
{
	/* splitmix64: one state word, good enough to vary counts */
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static double rng_unit(uint64_t *s)
{
	return (double)(rng_next(s) >> 11) / 9007199254740992.0;
}

static uint64_t hash_str(char const *s, size_t n)
{
	uint64_t h = 1469598103934665603u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211u;
	return h;
}

/* "a,b,c" of hex numbers as "[d,d,d]" */
static char *hex_list(char const *s, char const *path)
{
	struct fleet_buf b = { 0 };
	char const *p = s;

	fleet_buf_puts(&b, "[");
	while (*p) {
		char *end;
		uint64_t v;

		errno = 0;
		v = strtoull(p, &end, 16);
		if (errno || end == p || (*end && *end != ','))
			die("'%s': a bad offset '%s'", path, s);
		fleet_buf_printf(&b, "%s%" PRIu64, p == s ? "" : ",", v);
		p = *end ? end + 1 : end;
	}
	fleet_buf_puts(&b, "]");
	return b.p;
}

/* Read path's lines of nf tab-separated fields: the offset(s) in field
 * nf - 2, the samples last. */
static struct row *read_rows(char const *path, int nf, bool list,
			     size_t *nr)
{
	FILE *f = fopen(path, "r");
	struct row *v = NULL;
	size_t n = 0, alloc = 0, cap = 0;
	char *line = NULL;
	ssize_t len;

	if (!f)
		die("cannot open '%s': %s", path, strerror(errno));
	while ((len = getline(&line, &cap, f)) > 0) {
		char *tab[8], *p = line, *end;
		int k = 0;

		if (line[len - 1] == '\n')
			line[--len] = 0;
		while (k < nf - 1 && (p = strchr(p, '\t')))
			tab[k++] = p++;
		if (k != nf - 1)
			die("'%s': a line without its %s fields", path,
			    nf == 6 ? "6" : "4");
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 4096;
			if (!(v = realloc(v, alloc * sizeof(*v))))
				die("out of memory%s%s", "", "");
		}
		/* head: up to and with the tab before the offset field(s) */
		v[n].head = strndup(line, (size_t)(tab[nf - 3] - line) + 1);
		*tab[nf - 2] = 0;
		if (list) {
			/* stacks: "[hex,...]" */
			char *o = tab[nf - 3] + 1;
			size_t ol = strlen(o);

			if (ol < 2 || o[0] != '[' || o[ol - 1] != ']')
				die("'%s': bad frame offsets '%s'", path, o);
			o[ol - 1] = 0;
			v[n].offsets = hex_list(o + 1, path);
		} else {
			v[n].offsets = hex_list(tab[nf - 3] + 1, path);
			/* drop the brackets: one number */
			memmove(v[n].offsets, v[n].offsets + 1,
				strlen(v[n].offsets) - 1);
			v[n].offsets[strlen(v[n].offsets) - 2] = 0;
		}
		errno = 0;
		v[n].samples = strtoull(tab[nf - 2] + 1, &end, 10);
		if (errno || *end || end == tab[nf - 2] + 1)
			die("'%s': bad samples '%s'", path, tab[nf - 2] + 1);
		/* the symbol (samples) or the leaf frame (stacks) */
		if (list) {
			/* the leaf: after the last frame's "\\t" */
			char *leaf = strrchr(v[n].head, '\'');
			char *sym = leaf;

			while (sym && sym > v[n].head + 1 &&
			       !(sym[-2] == '\\' && sym[-1] == 't'))
				sym--;
			v[n].hot = leaf && sym > v[n].head + 1 &&
				   !(hash_str(sym, (size_t)(leaf - sym)) % 8);
		} else {
			char *s = v[n].head;

			for (int i = 0; i < 3; i++)
				s = strchr(s, '\t') + 1;
			v[n].hot = !(hash_str(s, strcspn(s, "\t")) % 8);
		}
		n++;
	}
	free(line);
	fclose(f);
	*nr = n;
	return v;
}

struct opts {
	char const *url, *cred, *db;
	unsigned hosts, hours, jobs;
	int64_t start;
	double scale;
	uint64_t seed;
};

struct tally {
	uint64_t host_hours, rows, bytes;
};

static void common(struct fleet_buf *b, char const *host, char const *sid,
		   char const *const *labels, uint64_t upload_id, int64_t start)
{
	fleet_tsv_date(b, start);
	fleet_tsv_tab(b);
	fleet_tsv_str(b, host);
	fleet_tsv_tab(b);
	fleet_tsv_array(b, labels, 2);
	fleet_tsv_tab(b);
	fleet_tsv_str(b, sid);
	fleet_tsv_tab(b);
	fleet_tsv_u64(b, upload_id);
	fleet_tsv_tab(b);
	fleet_tsv_datetime(b, start);
	fleet_tsv_tab(b);
	fleet_tsv_datetime(b, start + 3600);
	fleet_tsv_tab(b);
	fleet_tsv_str(b, EVENT);
	fleet_tsv_tab(b);
	fleet_tsv_u64(b, EVENT_COUNT);
	fleet_tsv_tab(b);
}

/* rows of one table for a host-hour into body; the number of rows */
static uint64_t vary(struct fleet_buf *body, struct fleet_buf const *prefix,
		     struct row const *v, size_t n, double factor, bool b,
		     uint64_t *rng, uint64_t *total)
{
	uint64_t rows = 0;

	for (size_t i = 0; i < n; i++) {
		double c;
		uint64_t k;

		if (rng_unit(rng) < 0.1)
			continue;
		c = (double)v[i].samples * factor * (0.8 + 0.4 * rng_unit(rng));
		if (b && v[i].hot)
			c *= 1.5;
		k = (uint64_t)(c + 0.5);
		if (!k)
			continue;
		fleet_buf_add(body, prefix->p, prefix->len);
		fleet_buf_puts(body, v[i].head);
		fleet_buf_puts(body, v[i].offsets);
		fleet_tsv_tab(body);
		fleet_tsv_u64(body, k);
		fleet_tsv_eol(body);
		*total += k;
		rows++;
	}
	return rows;
}

static int ship(struct fleet_http *h, char const *table, char const *cols,
		char const *db, struct fleet_buf const *body,
		struct fleet_buf *resp, struct tally *t)
{
	char sql[512], err[1024];

	snprintf(sql, sizeof(sql), "INSERT INTO %s.%s (%s) FORMAT TabSeparated",
		 db, table, cols);
	if (fleet_http_post(h, sql, NULL, body->p, body->len, resp, err,
			    sizeof(err))) {
		fprintf(stderr, "fleet_load: %s\n", err);
		return -1;
	}
	t->bytes += body->len;
	return 0;
}

static int worker(struct opts const *o, struct base const *bases,
		  size_t nr_bases, unsigned job, struct tally *t)
{
	struct fleet_http h;
	struct fleet_buf prefix = { 0 }, body = { 0 }, resp = { 0 };
	char err[1024];
	uint64_t total = o->hosts * (uint64_t)o->hours;

	if (fleet_http_open(&h, o->url, o->cred, NULL, err, sizeof(err))) {
		fprintf(stderr, "fleet_load: %s\n", err);
		return -1;
	}
	/* hour by hour, as a fleet ships */
	for (uint64_t i = job; i < total; i += o->jobs) {
		unsigned host = (unsigned)(i % o->hosts);
		unsigned hour = (unsigned)(i / o->hosts);
		struct base const *bs = &bases[(host + hour) % nr_bases];
		uint64_t rng = o->seed ^ (i * 0x2545f4914f6cdd1du);
		uint64_t upload_id = rng_next(&rng), sum = 0, nr_s, nr_st;
		int64_t start = o->start + 3600 * (int64_t)hour;
		double hf = o->scale * (0.5 + rng_unit(&rng));
		char hostname[32], sid[64], lab0[32], lab1[32], name[32];
		char const *labels[2] = { lab0, lab1 };
		bool b = host % 2;
		struct tm tm;
		time_t ts = (time_t)start;

		snprintf(hostname, sizeof(hostname), "host%04u", host);
		gmtime_r(&ts, &tm);
		strftime(name, sizeof(name), "%Y-%m-%dT%H", &tm);
		snprintf(sid, sizeof(sid), "%s/%s", hostname, name);
		snprintf(lab0, sizeof(lab0), "service=%s", services[host % 3]);
		snprintf(lab1, sizeof(lab1), "version=%s", b ? "B" : "A");

		fleet_buf_reset(&prefix);
		common(&prefix, hostname, sid, labels, upload_id, start);
		fleet_buf_reset(&body);
		nr_s = vary(&body, &prefix, bs->samples, bs->nr_samples, hf, b,
			    &rng, &sum);
		if (ship(&h, "samples", FLEET_SAMPLES_COLUMNS, o->db, &body,
			 &resp, t))
			return -1;
		fleet_buf_reset(&body);
		{
			uint64_t st_sum = 0;

			nr_st = vary(&body, &prefix, bs->stacks, bs->nr_stacks,
				     hf, b, &rng, &st_sum);
		}
		if (ship(&h, "stacks", FLEET_STACKS_COLUMNS, o->db, &body,
			 &resp, t))
			return -1;
		fleet_buf_reset(&body);
		fleet_buf_add(&body, prefix.p, prefix.len);
		fleet_tsv_u64(&body, nr_s);
		fleet_tsv_tab(&body);
		fleet_tsv_u64(&body, nr_st);
		fleet_tsv_tab(&body);
		fleet_tsv_u64(&body, sum);
		fleet_tsv_tab(&body);
		fleet_tsv_datetime(&body, (int64_t)time(NULL));
		fleet_tsv_eol(&body);
		if (ship(&h, "sessions", FLEET_SESSIONS_COLUMNS, o->db, &body,
			 &resp, t))
			return -1;
		t->host_hours++;
		t->rows += nr_s + nr_st + 1;
	}
	fleet_buf_free(&prefix);
	fleet_buf_free(&body);
	fleet_buf_free(&resp);
	fleet_http_close(&h);
	return 0;
}

static unsigned num(char const *what, char const *s, unsigned max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || end == s || !v || v > max)
		die("%s: '%s' is not a count in range", what, s);
	return (unsigned)v;
}

int main(int argc, char **argv)
{
	static struct option const lo[] = {
		{ "url", 1, NULL, 'u' }, { "credentials", 1, NULL, 'c' },
		{ "database", 1, NULL, 'd' }, { "hosts", 1, NULL, 'n' },
		{ "hours", 1, NULL, 'H' }, { "start", 1, NULL, 's' },
		{ "scale", 1, NULL, 'x' }, { "jobs", 1, NULL, 'j' },
		{ "seed", 1, NULL, 'r' }, { NULL, 0, NULL, 0 },
	};
	struct opts o = { .db = "oprofile", .jobs = 1, .scale = 1,
			  .seed = 1, .start = -1 };
	struct base *bases;
	size_t nr_bases;
	struct timespec t0, t1;
	struct tally sum = { 0 };
	int c, fds[2], failed = 0;
	pid_t *pids;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'u': o.url = optarg; break;
		case 'c': o.cred = optarg; break;
		case 'd': o.db = optarg; break;
		case 'n': o.hosts = num("--hosts", optarg, 1000000); break;
		case 'H': o.hours = num("--hours", optarg, 24 * 366); break;
		case 'j': o.jobs = num("--jobs", optarg, 64); break;
		case 's': o.start = strtoll(optarg, NULL, 10); break;
		case 'x': o.scale = strtod(optarg, NULL); break;
		case 'r': o.seed = strtoull(optarg, NULL, 10); break;
		default: die("usage: see the comment at the top of %s%s",
			     "bench/fleet_load.c", "");
		}
	}
	if (!o.url || !o.hosts || !o.hours || o.start < 0 || optind == argc ||
	    !(o.scale > 0))
		die("usage: fleet_load --url URL --hosts N --hours H --start "
		    "EPOCH [--scale X] [--jobs P] BASE...%s%s", "", "");
	nr_bases = (size_t)(argc - optind);
	bases = calloc(nr_bases, sizeof(*bases));
	for (size_t i = 0; i < nr_bases; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s.samples", argv[optind + i]);
		bases[i].samples = read_rows(path, 6, false,
					     &bases[i].nr_samples);
		snprintf(path, sizeof(path), "%s.stacks", argv[optind + i]);
		bases[i].stacks = read_rows(path, 4, true, &bases[i].nr_stacks);
	}
	if (pipe(fds))
		die("pipe: %s%s", strerror(errno), "");
	pids = calloc(o.jobs, sizeof(*pids));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned j = 0; j < o.jobs; j++) {
		pids[j] = fork();
		if (pids[j] < 0)
			die("fork: %s%s", strerror(errno), "");
		if (!pids[j]) {
			struct tally t = { 0 };
			int rc = worker(&o, bases, nr_bases, j, &t);

			if (write(fds[1], &t, sizeof(t)) != sizeof(t))
				rc = -1;
			_exit(rc ? 1 : 0);
		}
	}
	close(fds[1]);
	for (unsigned j = 0; j < o.jobs; j++) {
		int st;
		struct tally t;

		if (waitpid(pids[j], &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			failed = 1;
		if (read(fds[0], &t, sizeof(t)) == sizeof(t)) {
			sum.host_hours += t.host_hours;
			sum.rows += t.rows;
			sum.bytes += t.bytes;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("host-hours %" PRIu64 " rows %" PRIu64 " bytes %" PRIu64
	       " seconds %.3f\n", sum.host_hours, sum.rows, sum.bytes,
	       (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return failed;
}
