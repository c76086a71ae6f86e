/*
 * opfleet ship --session-dir DIR: the shipper (doc/fleet.md). oprofiled
 * starts it after every rotation and save (and once at its start), in a
 * child process, so that sampling never waits on the network. It
 *
 *   1. takes SESSION/fleet/lock (another shipper at work: it leaves, and
 *      that one sees the new queue entry before it ends);
 *   2. symbolises each queued session (SESSION/fleet/queue/NAME, written
 *      by the daemon) as opreport -l does, with libpp, into rows, and
 *      adds them to the bounded spool (fleet_spool.h);
 *   3. uploads the spool oldest first by the manifest rule
 *      (fleet_upload.h), retrying with backoff while the server is down,
 *      slow or refusing; the spool keeps the sessions meanwhile;
 *   4. keeps its counters in SESSION/fleet/stats (opcontrol --status).
 *
 * Settings: the fleet_* keys of oprofiled.conf (op_fleet_settings.h).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fleet_http.h"
#include "fleet_schema.h"
#include "fleet_settings.h"
#include "fleet_spool.h"
#include "fleet_tsv.h"
#include "fleet_upload.h"
#include "op_alloc.h"
#include "op_escape.h"
#include "op_message.h"
#include "op_session.h"
#include "op_session_kv.h"
#include "op_session_settings.h"
#include "opfleet.h"
#include "pp_binary.h"
#include "pp_run.h"
#include "pp_stacks.h"

/* Retries: 1 s, doubling, at most this. */
#define BACKOFF_MAX_S 16

struct counters {
	uint64_t dropped, uploaded, already, failures, unsymbolised;
	int64_t last_upload;
	char last_error[1024];
};

struct shipper {
	char const *session_dir;
	struct op_kv conf;
	struct fleet_settings set;
	struct fleet_http http;
	struct fleet_target target;
	struct fleet_spool spool;
	struct counters c;
	pid_t parent;               /* who started us: the daemon */
};

/* --- stats -------------------------------------------------------------- */

static char *fleet_path(struct shipper const *s, char const *rel)
{
	return op_session_path(s->session_dir, rel);
}

static uint64_t kv_u64(struct op_kv const *kv, char const *key)
{
	char const *v = op_kv_get(kv, key);

	return v ? strtoull(v, NULL, 10) : 0;
}

/* The counters of earlier shippers: they add up over the daemon's life. */
static void stats_load(struct shipper *s)
{
	char *path = fleet_path(s, OP_FLEET_STATS);
	struct op_kv kv = { 0 };

	if (op_kv_read(&kv, path) == 0) {
		s->c.dropped = kv_u64(&kv, "dropped");
		s->c.uploaded = kv_u64(&kv, "uploaded");
		s->c.already = kv_u64(&kv, "already_shipped");
		s->c.failures = kv_u64(&kv, "failures");
		s->c.unsymbolised = kv_u64(&kv, "unsymbolised");
		s->c.last_upload = (int64_t)kv_u64(&kv, "last_upload");
	}
	op_kv_free(&kv);
	free(path);
}

static void stats_write(struct shipper *s)
{
	char *path = fleet_path(s, OP_FLEET_STATS);
	struct op_kv kv = { 0 };
	char v[64];

#define SET(key, val) \
	do { snprintf(v, sizeof(v), "%" PRIu64, (uint64_t)(val)); \
	     op_kv_set(&kv, key, v); } while (0)
	SET("spool_entries", s->spool.n);
	SET("spool_bytes", s->spool.bytes);
	SET("spool_max_bytes", s->set.spool_size);
	SET("dropped", s->c.dropped);
	SET("uploaded", s->c.uploaded);
	SET("already_shipped", s->c.already);
	SET("failures", s->c.failures);
	SET("unsymbolised", s->c.unsymbolised);
	SET("last_upload", s->c.last_upload);
#undef SET
	op_kv_set(&kv, "last_error", s->c.last_error);
	op_kv_write(&kv, path);
	op_kv_free(&kv);
	free(path);
}

/* An error worth a line in the log, kept for opcontrol --status (escaped
 * already: fleet_http's messages are). */
static void failed(struct shipper *s, char const *err)
{
	size_t len = strnlen(err, sizeof(s->c.last_error) - 1);

	memcpy(s->c.last_error, err, len);
	s->c.last_error[len] = '\0';
	op_warn("%s", err);
}

/* --- a session into rows ------------------------------------------------- */

/* The build-ids libpp found, by image. */
struct ids {
	char **image, **hex;
	size_t n, alloc;
};

static void image_done(void *arg, struct pp_binary const *bin,
		       struct pp_profile const *p, size_t from,
		       char const *image)
{
	struct ids *ids = arg;
	size_t alloc = ids->alloc, i;
	char *hex;

	(void)p;
	(void)from;
	if (!bin->build_id.len)
		return;
	hex = op_xmalloc(bin->build_id.len * 2 + 1);
	for (i = 0; i < bin->build_id.len; i++)
		snprintf(hex + 2 * i, 3, "%02x", bin->build_id.v[i]);
	OP_ALLOC_GROW(ids->image, ids->n + 1, alloc);
	OP_ALLOC_GROW(ids->hex, ids->n + 1, ids->alloc);
	ids->image[ids->n] = op_xstrdup(image);
	ids->hex[ids->n++] = hex;
}

static char const *build_id(struct ids const *ids, char const *image)
{
	for (size_t i = 0; i < ids->n; i++)
		if (!strcmp(ids->image[i], image))
			return ids->hex[i];
	return "";
}

static void ids_free(struct ids *ids)
{
	for (size_t i = 0; i < ids->n; i++) {
		free(ids->image[i]);
		free(ids->hex[i]);
	}
	free(ids->image);
	free(ids->hex);
}

/* A session name the shipper takes: what rotation makes and what a
 * plain --save=NAME is; a profile specification takes it as itself (no
 * glob, no ".." range, no ',' list, no '/' path). */
static bool name_ok(char const *name)
{
	size_t len = strlen(name);

	if (!len || len > 200 || name[0] == '.' || strstr(name, "..") ||
	    !strcmp(name, OP_CURRENT_SESSION))
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_-.:+") == len;
}

/* The rows' first four fields (upload_id goes after them). */
static void prefix(struct fleet_buf *b, struct shipper const *s,
		   int64_t start, char const *session_id)
{
	fleet_tsv_date(b, start);
	fleet_tsv_tab(b);
	fleet_tsv_str(b, s->set.host);
	fleet_tsv_tab(b);
	fleet_tsv_array(b, (char const *const *)s->set.labels, s->set.nr_labels);
	fleet_tsv_tab(b);
	fleet_tsv_str(b, session_id);
	fleet_tsv_tab(b);
}

/* start, end, event, event_count. */
static void span(struct fleet_buf *b, int64_t start, int64_t end,
		 char const *event, uint64_t count)
{
	fleet_tsv_datetime(b, start);
	fleet_tsv_tab(b);
	fleet_tsv_datetime(b, end);
	fleet_tsv_tab(b);
	fleet_tsv_str(b, event);
	fleet_tsv_tab(b);
	fleet_tsv_u64(b, count);
	fleet_tsv_tab(b);
}

struct rows {
	struct fleet_buf pre, samples, stacks, manifest;
	uint64_t nr_samples, nr_stacks, total;
};

static void samples_row(struct rows *r, int64_t start, int64_t end,
			struct pp_class const *cls,
			char const *app, char const *image, char const *bid,
			char const *symbol, uint64_t offset, uint64_t n)
{
	struct fleet_buf *b = &r->samples;

	fleet_buf_add(b, r->pre.p, r->pre.len);
	span(b, start, end, cls->event, (uint64_t)cls->count);
	fleet_tsv_str(b, app);
	fleet_tsv_tab(b);
	fleet_tsv_str(b, image);
	fleet_tsv_tab(b);
	fleet_tsv_str(b, bid);
	fleet_tsv_tab(b);
	fleet_tsv_str(b, symbol);
	fleet_tsv_tab(b);
	fleet_tsv_u64(b, offset);
	fleet_tsv_tab(b);
	fleet_tsv_u64(b, n);
	fleet_tsv_eol(b);
	r->nr_samples++;
	r->total += n;
}

/* Whole stacks of the session (when it kept them), outermost frame first. */
static int stacks_rows(struct rows *r, struct pp_run *run, int64_t start,
		       int64_t end, char *err, size_t errlen)
{
	struct pp_stacks_opts so = { .locate = &run->locate,
				     .demangle = PP_DEMANGLE_NORMAL };
	struct pp_stacks st = { 0 };
	char event[128], *dot;
	uint64_t count = 0;
	char const **frames = NULL;
	uint64_t *offs = NULL;
	size_t i, alloc = 0;

	if (pp_stacks_load(&st, &run->files, &so, &run->notes, err, errlen))
		return -1;
	if (st.flat == st.total) {	/* no stack was recorded */
		pp_stacks_free(&st);
		return 0;
	}
	snprintf(event, sizeof(event), "%s", st.event ? st.event : "");
	dot = strchr(event, '.');
	if (dot) {
		*dot = '\0';
		count = strtoull(dot + 1, NULL, 10);
	}
	for (i = 0; i < st.n; i++) {
		struct pp_sstack const *k = &st.v[i];
		struct fleet_buf *b = &r->stacks;
		size_t j, nf = k->nr_frames, a2 = alloc;

		OP_ALLOC_GROW(frames, nf + 1, a2);
		OP_ALLOC_GROW(offs, nf + 1, alloc);
		for (j = 0; j < nf; j++) {
			struct pp_sframe const *f = &st.frames[k->frames[nf - 1 - j]];
			struct pp_sfunc const *fn = &st.funcs[f->func];

			frames[j] = op_xasprintf("%s\t%s",
						 st.images[f->image].display,
						 fn->has_symbol ? fn->name : "");
			offs[j] = f->has_vma ? f->vma : f->key;
		}
		fleet_buf_add(b, r->pre.p, r->pre.len);
		span(b, start, end, event, count);
		fleet_tsv_str(b, k->proc);
		fleet_tsv_tab(b);
		fleet_tsv_array(b, frames, nf);
		fleet_tsv_tab(b);
		fleet_tsv_array_u64(b, offs, nf);
		fleet_tsv_tab(b);
		fleet_tsv_u64(b, k->count);
		fleet_tsv_eol(b);
		r->nr_stacks++;
		for (j = 0; j < nf; j++)
			free((char *)frames[j]);
	}
	free(frames);
	free(offs);
	pp_stacks_free(&st);
	return 0;
}

static unsigned quiet_warnings;

static void quiet_sink(void *ctx, enum op_message_kind kind, char const *text)
{
	(void)ctx;
	if (kind == OP_MSG_WARN || kind == OP_MSG_INFO || kind == OP_MSG_HINT)
		quiet_warnings++;
	else
		op_message_write(stderr, NULL, kind, text);
}

static int64_t conf_time(struct op_kv const *kv, char const *key)
{
	char const *v = op_kv_get(kv, key);

	return v ? strtoll(v, NULL, 10) : 0;
}

/*
 * samples/NAME into r. 0, or -1 with err (the session cannot be read:
 * removed by retention, no sample file, a bad session.conf).
 */
static int symbolise(struct shipper *s, char const *name, struct rows *r,
		     char const **session_id_out, char *err, size_t errlen)
{
	static char session_id[512];
	struct pp_run_opts ro = { .session_dir = s->session_dir };
	struct pp_populate_opts po = { .symbols = true, .details = true,
				       .demangle = PP_DEMANGLE_NORMAL,
				       .image_done = image_done };
	char *dir = op_session_samples(s->session_dir, name);
	char *conf_path = op_xasprintf("%s/%s", dir, OP_SESSION_CONF);
	char *spec = op_xasprintf("session:%s", name);
	char const *argv[] = { spec, NULL };
	struct pp_run run = { 0 };
	struct op_kv conf = { 0 };
	struct ids ids = { 0 };
	int64_t start, end;
	bool separated;
	char const *sep;
	size_t i, c;
	int ret = -1;

	po.image_done_arg = &ids;
	if (op_kv_read(&conf, conf_path) || !op_kv_get(&conf, "start_time")) {
		snprintf(err, errlen, "session '%s': no start_time in its %s",
			 name, OP_SESSION_CONF);
		goto out;
	}
	start = conf_time(&conf, "start_time");
	end = conf_time(&conf, "end_time");
	if (end < start)	/* saved by hand: it ended when it was saved */
		end = time(NULL) > start ? time(NULL) : start;
	sep = op_kv_get(&conf, "separate");
	separated = sep && strcmp(sep, "none");
	snprintf(session_id, sizeof(session_id), "%s/%s", s->set.host, name);
	*session_id_out = session_id;

	/* libpp's warnings (a binary gone since) are opreport's to say: one
	 * line in the daemon's log per session, not one per binary */
	quiet_warnings = 0;
	op_set_message_sink(quiet_sink, NULL);
	if (pp_run_select(&run, &ro, 1, argv, "opfleet ship") ||
	    pp_run_populate(&run, &ro, &po)) {
		op_set_message_sink(NULL, NULL);
		snprintf(err, errlen, "session '%s': cannot be read (said above)", name);
		goto out;
	}
	prefix(&r->pre, s, start, session_id);
	for (i = 0; i < run.profile.n; i++) {
		struct pp_entry const *e = &run.profile.v[i];
		char const *app = separated && e->app ? e->app : "";
		char const *bid = build_id(&ids, e->image);

		for (c = 0; c < run.classes.n; c++) {
			struct pp_class const *cls = &run.classes.v[c];
			uint64_t in_details = 0;
			size_t k;

			if (!e->counts[c])
				continue;
			for (k = 0; k < e->nr_details; k++) {
				uint64_t n = e->details[k].counts[c];

				if (!n)
					continue;
				samples_row(r, start, end, cls, app, e->image,
					    bid, e->symbol, e->details[k].vma, n);
				in_details += n;
			}
			/* what no detail holds still counts, at the symbol */
			if (in_details < e->counts[c])
				samples_row(r, start, end, cls, app, e->image,
					    bid, e->symbol, e->vma,
					    e->counts[c] - in_details);
		}
	}
	{
		char stacks_dir[4096];
		struct stat st;

		snprintf(stacks_dir, sizeof(stacks_dir), "%s/%s", dir, OP_STACKS_DIR);
		if (!lstat(stacks_dir, &st) && S_ISDIR(st.st_mode) &&
		    stacks_rows(r, &run, start, end, err, errlen))
			op_warn("session '%s': its stacks are left out: %s", name, err);
	}
	op_set_message_sink(NULL, NULL);
	if (quiet_warnings)
		op_info("session '%s': %u warning%s while symbolising it left out (opreport -l says %s)",
			name, quiet_warnings, quiet_warnings == 1 ? "" : "s",
			quiet_warnings == 1 ? "it" : "them");
	/* the manifest row: its events' names, the first one's count */
	fleet_buf_add(&r->manifest, r->pre.p, r->pre.len);
	{
		struct fleet_buf ev = { 0 };

		for (c = 0; c < run.classes.n; c++)
			if (!strstr(ev.p ? ev.p : "", run.classes.v[c].event))
				fleet_buf_printf(&ev, "%s%s", ev.len ? "," : "",
						 run.classes.v[c].event);
		span(&r->manifest, start, end, ev.p ? ev.p : "",
		     run.classes.n ? (uint64_t)run.classes.v[0].count : 0);
		fleet_buf_free(&ev);
	}
	fleet_buf_printf(&r->manifest, "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
			 r->nr_samples, r->nr_stacks, r->total);
	ret = 0;
out:
	pp_run_free(&run);
	op_kv_free(&conf);
	ids_free(&ids);
	free(spec);
	free(conf_path);
	free(dir);
	return ret;
}

static void rows_free(struct rows *r)
{
	fleet_buf_free(&r->pre);
	fleet_buf_free(&r->samples);
	fleet_buf_free(&r->stacks);
	fleet_buf_free(&r->manifest);
}

/* --- the queue ------------------------------------------------------------ */

struct queued {
	char *name;
	struct timespec t;
};

static int cmp_queued(void const *a, void const *b)
{
	struct queued const *x = a, *y = b;

	if (x->t.tv_sec != y->t.tv_sec)
		return x->t.tv_sec < y->t.tv_sec ? -1 : 1;
	if (x->t.tv_nsec != y->t.tv_nsec)
		return x->t.tv_nsec < y->t.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The queue's entries, oldest first; their number. */
static size_t queue_list(struct shipper const *s, struct queued **out)
{
	char *qdir = fleet_path(s, OP_FLEET_QUEUE);
	struct queued *v = NULL;
	size_t n = 0, alloc = 0;
	struct dirent *de;
	DIR *d = opendir(qdir);

	while (d && (de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.' ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode))
			continue;
		OP_ALLOC_GROW(v, n + 1, alloc);
		v[n].name = op_xstrdup(de->d_name);
		v[n++].t = st.st_mtim;
	}
	if (d)
		closedir(d);
	free(qdir);
	if (n)
		qsort(v, n, sizeof(*v), cmp_queued);
	*out = v;
	return n;
}

static void queue_done(struct shipper const *s, char const *name)
{
	char *qdir = fleet_path(s, OP_FLEET_QUEUE);
	char *p = op_xasprintf("%s/%s", qdir, name);

	unlink(p);
	free(p);
	free(qdir);
}

static void said_drop(void *arg, char const *session_id, uint64_t bytes,
		      int too_big)
{
	(void)arg;
	op_warn("the spool is full: session '%s' (%" PRIu64 " bytes) dropped%s",
		session_id, bytes, too_big ? ", alone larger than fleet_spool_size" :
		", the oldest");
}

/* Every queued session into the spool. */
static void spool_queue(struct shipper *s)
{
	struct queued *q;
	size_t n = queue_list(s, &q), i;
	char err[4096];

	for (i = 0; i < n; i++) {
		struct rows r = { 0 };
		char const *session_id = NULL;
		char *e = op_escape(q[i].name);

		if (!name_ok(q[i].name)) {
			snprintf(err, sizeof(err), "session '%s': not a name the fleet takes (letters, digits, _-.:+)", e);
			failed(s, err);
			s->c.unsymbolised++;
		} else if (symbolise(s, q[i].name, &r, &session_id, err, sizeof(err))) {
			failed(s, err);
			s->c.unsymbolised++;
		} else if (fleet_spool_add(&s->spool, session_id, &r.samples,
					   &r.stacks, &r.manifest,
					   &s->c.dropped, said_drop, NULL,
					   err, sizeof(err))) {
			/* the queue entry stays: the next shipper tries again */
			failed(s, err);
			rows_free(&r);
			free(e);
			continue;
		}
		queue_done(s, q[i].name);
		stats_write(s);
		rows_free(&r);
		free(e);
	}
	for (i = 0; i < n; i++)
		free(q[i].name);
	free(q);
}

/* --- the loop ------------------------------------------------------------- */

/* The oldest spool entry into the fleet. 0 shipped (or damaged: dropped). */
static int upload_oldest(struct shipper *s)
{
	struct fleet_spool_data d;
	char err[4096];
	bool already;

	if (fleet_spool_read(&s->spool, 0, &d, err, sizeof(err))) {
		failed(s, err);
		fleet_spool_remove(&s->spool, 0);
		s->c.dropped++;
		return 0;
	}
	if (fleet_upload(&s->target, &d, &already, err, sizeof(err))) {
		failed(s, err);
		s->c.failures++;
		fleet_spool_data_free(&d);
		return -1;
	}
	fleet_spool_remove(&s->spool, 0);
	if (already)
		s->c.already++;
	else
		s->c.uploaded++;
	s->c.last_upload = time(NULL);
	s->c.last_error[0] = '\0';
	fleet_spool_data_free(&d);
	return 0;
}

static int queue_empty(struct shipper const *s)
{
	struct queued *q;
	size_t n = queue_list(s, &q);

	for (size_t i = 0; i < n; i++)
		free(q[i].name);
	free(q);
	return n == 0;
}

static int lock_fleet(struct shipper const *s)
{
	char *p = fleet_path(s, OP_FLEET_LOCK);
	int fd = open(p, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	free(p);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Read the settings file and the credentials (again: before each retry,
 * so that a password put right or a URL changed applies to the shipper
 * at work) and open the client. 0, or -1 (said, and kept as last_error):
 * the shipper stops, the spool waits for the next one.
 */
static int connect_fleet(struct shipper *s)
{
	struct fleet_http_opts ho = { 0 };
	struct fleet_settings set;
	struct fleet_http h;
	struct op_kv conf;
	char err[4096];

	if (op_settings_config_read(&conf) < 0)
		return -1;
	fleet_settings_get(&conf, &set);
	if (!set.url) {
		op_info("no fleet_url in '%s': nothing to ship", op_settings_config_path());
		fleet_settings_free(&set);
		op_kv_free(&conf);
		return -1;
	}
	ho.ca_file = set.ca;
	ho.timeout_ms = (long)set.timeout_s * 1000;
	if (fleet_http_open(&h, set.url, set.credentials, &ho, err, sizeof(err))) {
		failed(s, err);
		fleet_settings_free(&set);
		op_kv_free(&conf);
		return -1;
	}
	if (s->http.curl)
		fleet_http_close(&s->http);
	fleet_settings_free(&s->set);
	op_kv_free(&s->conf);
	s->http = h;
	fleet_cred_clear(&h.cred);
	s->set = set;
	s->conf = conf;
	s->target.http = &s->http;
	s->target.database = s->set.database;
	s->target.cluster = s->set.cluster != NULL;
	return 0;
}

/* Until the queue and the spool are empty; another shipper at work: out. */
static void run(struct shipper *s)
{
	unsigned backoff = 1;
	int lock;

	while ((lock = lock_fleet(s)) >= 0) {
		spool_queue(s);
		while (s->spool.n) {
			if (upload_oldest(s)) {
				stats_write(s);
				/* the daemon is gone (stopped, killed): the
				 * spool waits for the next one's shipper */
				if (getppid() != s->parent) {
					close(lock);
					return;
				}
				sleep(backoff);
				backoff = backoff * 2 > BACKOFF_MAX_S ?
					  BACKOFF_MAX_S : backoff * 2;
				if (connect_fleet(s)) {
					stats_write(s);
					close(lock);
					return;
				}
			} else {
				backoff = 1;
			}
			spool_queue(s);
			stats_write(s);
		}
		stats_write(s);
		close(lock);
		/* queued after the last look: take it (or another shipper has) */
		if (queue_empty(s))
			break;
	}
}

/* SESSION/rel made (0700) if missing; a directory, not a link to one
 * planted there (the spool would be written wherever it points). */
static int fleet_dir(struct shipper const *s, char const *rel)
{
	char *p = fleet_path(s, rel);
	struct stat st;
	int ret = 0;

	if (mkdir(p, 0700) && errno != EEXIST)
		ret = op_error_errno("cannot create '%s'", p);
	else if (lstat(p, &st) || !S_ISDIR(st.st_mode))
		ret = op_error("'%s' is not a directory (a symbolic link?): nothing shipped", p);
	free(p);
	return ret;
}

static _Noreturn void ship_usage(char const *why)
{
	fprintf(stderr, "opfleet: %s\nusage: opfleet ship [--session-dir DIR]\n", why);
	exit(2);
}

int opfleet_ship(int argc, char **argv)
{
	static struct option const longs[] = {
		{ "session-dir", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct shipper s = { 0 };
	char const *dir = NULL;
	char err[4096], *p;
	int c;

	s.parent = getppid();
	signal(SIGPIPE, SIG_IGN);
	while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		if (c != 's')
			ship_usage("unknown option");
		dir = optarg;
	}
	if (optind != argc)
		ship_usage("ship takes no arguments");
	if (op_settings_config_read(&s.conf) < 0)
		return 1;
	if (!dir)
		dir = op_kv_get(&s.conf, "session_dir");
	/* a copy: the settings are read again before each retry */
	s.session_dir = op_xstrdup(dir ? dir : OP_SESSION_DIR_DEFAULT);
	fleet_settings_get(&s.conf, &s.set);
	if (!s.set.url) {
		op_info("no fleet_url in '%s': nothing to ship", op_settings_config_path());
		return 0;
	}
	if (fleet_dir(&s, OP_FLEET_DIR) || fleet_dir(&s, OP_FLEET_QUEUE))
		return 1;
	p = fleet_path(&s, OP_FLEET_SPOOL);
	if (fleet_spool_open(&s.spool, p, s.set.spool_size, err, sizeof(err))) {
		free(p);
		op_error("%s", err);
		return 1;
	}
	free(p);
	stats_load(&s);
	if (connect_fleet(&s)) {
		/* bad credentials: the next rotation's shipper tries again */
		stats_write(&s);
		return 1;
	}
	run(&s);
	fleet_http_close(&s.http);
	fleet_spool_close(&s.spool);
	fleet_settings_free(&s.set);
	op_kv_free(&s.conf);
	free((char *)s.session_dir);
	return 0;
}
