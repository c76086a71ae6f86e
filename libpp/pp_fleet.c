/*
 * The fleet's flat profile (see pp_fleet.h): which tables (one server or
 * a cluster's Distributed ones), the selection every query shares (the
 * manifest rule, hosts, labels, sessions, time, events), and the
 * profile: one query for the (event, app, image) present, the image
 * filters applied here exactly as locally (pp_image_match), then one
 * GROUP BY query for the report's rows.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_util.h"
#include "pp_files.h"
#include "pp_fleet.h"
#include "pp_fleet_int.h"
#include "pp_fleet_sql.h"
#include "pp_symname.h"

/* --- asking ------------------------------------------------------------ */

/* A failed query's message, with the shards it names (host:port). */
static void name_shards(struct pp_fleet const *f, char *err, size_t errlen)
{
	char *msg = op_xstrdup(err), *names = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&names, &len);
	size_t n = 0;
	unsigned last = 0;

	for (size_t i = 0; i < f->nr_shard_addrs; i++) {
		struct pp_fleet_shard const *s = &f->shard_addrs[i];
		char *paren = op_xasprintf("(%s)", s->addr);

		/* a shard is listed by name and by address: named once */
		if (s->num != last && strstr(msg, paren)) {
			fprintf(out, "%sshard %u (%s)", n++ ? ", " : "",
				s->num, s->addr);
			last = s->num;
		}
		free(paren);
	}
	fclose(out);
	if (n)
		snprintf(err, errlen, "%s of cluster '%s' did not answer: %s",
			 names, f->cluster, msg);
	free(names);
	free(msg);
}

int pp_fleet_ask(struct pp_fleet *f, char const *sql, char **body,
		 struct pp_fleet_rows *rows, char *err, size_t errlen)
{
	size_t len = 0;

	*body = NULL;
	pp_fleet_rows_init(rows, "", 0);
	if (f->query(f->query_arg, sql, body, &len, err, errlen)) {
		size_t n = strlen(err);

		free(*body);
		*body = NULL;
		if (f->cluster)
			name_shards(f, err, errlen);
		/* the client's bound on an answer (libfleet) */
		if (strstr(err, "is larger than") && n + 1 < errlen)
			snprintf(err + strlen(err), errlen - strlen(err),
				 ": narrow the report (host:, session:, "
				 "--since, image:)");
		return -1;
	}
	pp_fleet_rows_init(rows, *body, len);
	return 0;
}

FILE *pp_fleet_sql_begin(struct pp_fleet_sql *q)
{
	q->text = NULL;
	q->len = 0;
	q->out = open_memstream(&q->text, &q->len);
	if (!q->out)
		op_die("out of memory");
	return q->out;
}

char *pp_fleet_sql_end(struct pp_fleet_sql *q)
{
	fclose(q->out);
	q->out = NULL;
	return q->text;
}

int pp_fleet_ask_sql(struct pp_fleet *f, struct pp_fleet_sql *q,
		     char **body, struct pp_fleet_rows *rows, char *err,
		     size_t errlen)
{
	char *sql = pp_fleet_sql_end(q);
	int rc = pp_fleet_ask(f, sql, body, rows, err, errlen);

	free(sql);
	return rc;
}

/* --- the tables -------------------------------------------------------- */

static int load_shards(struct pp_fleet *f, char *err, size_t errlen)
{
	struct pp_fleet_rows r;
	char *body;
	struct pp_fleet_sql q;
	FILE *out = pp_fleet_sql_begin(&q);
	int rc;

	fputs("SELECT shard_num, host_name, host_address, toString(port) "
	      "FROM system.clusters WHERE cluster = ", out);
	pp_fleet_sql_quote(out, f->cluster);
	fputs(" ORDER BY shard_num FORMAT TabSeparated", out);
	rc = pp_fleet_ask_sql(f, &q, &body, &r, err, errlen);
	while (rc >= 0 && (rc = pp_fleet_rows_next(&r, 4, err, errlen)) > 0) {
		uint64_t num;

		rc = pp_fleet_u64(&r, 0, &num, err, errlen);
		if (rc)
			break;
		for (int k = 1; k <= 2; k++) {
			OP_ALLOC_GROW(f->shard_addrs, f->nr_shard_addrs + 1,
				      f->alloc_shard_addrs);
			f->shard_addrs[f->nr_shard_addrs++] =
				(struct pp_fleet_shard){ (unsigned)num,
				op_xasprintf("%s:%s", r.field[k], r.field[3]) };
		}
		if (num > f->nr_shards)
			f->nr_shards = (unsigned)num;
	}
	free(body);
	pp_fleet_rows_free(&r);
	if (!rc && !f->nr_shards) {
		snprintf(err, errlen, "the tables of '%s' are Distributed over "
			 "cluster '%s', which the server does not know",
			 f->database, f->cluster);
		rc = -1;
	}
	return rc < 0 ? -1 : 0;
}

/* "Distributed(cluster, db, table, key)": the cluster's name. */
static char *cluster_of(char const *engine)
{
	char const *p = engine + strlen("Distributed(");
	size_t n = strcspn(p, ",)");

	while (n && p[n - 1] == ' ')
		n--;
	if (n >= 2 && (*p == '\'' || *p == '`'))
		p++, n -= 2;
	return op_xasprintf("%.*s", (int)n, p);
}

static int check_skip(struct pp_fleet *f, char *err, size_t errlen);

int pp_fleet_open(struct pp_fleet *f, char *err, size_t errlen)
{
	struct pp_fleet_rows r;
	char *body;
	struct pp_fleet_sql q;
	FILE *out = pp_fleet_sql_begin(&q);
	int rc;

	fputs("SELECT engine_full FROM system.tables WHERE database = ", out);
	pp_fleet_sql_quote(out, f->database);
	fputs(" AND name = 'samples' FORMAT TabSeparated", out);
	rc = pp_fleet_ask_sql(f, &q, &body, &r, err, errlen);
	if (rc)
		return -1;
	rc = pp_fleet_rows_next(&r, 1, err, errlen);
	if (!rc)
		snprintf(err, errlen, "'%s' has no table '%s.samples': no "
			 "machine has shipped to it yet (doc/fleet.md)",
			 f->url, f->database);
	if (rc > 0 && !strncmp(r.field[0], "Distributed(", 12))
		f->cluster = cluster_of(r.field[0]);
	free(body);
	pp_fleet_rows_free(&r);
	if (rc <= 0)
		return -1;
	if (!f->cluster)
		return 0;
	return load_shards(f, err, errlen) ? -1 : check_skip(f, err, errlen);
}

/* A user whose profile skips shards that fail would get partial sums. */
static int check_skip(struct pp_fleet *f, char *err, size_t errlen)
{
	struct pp_fleet_rows r;
	char *body;
	int rc = pp_fleet_ask(f, "SELECT value FROM system.settings WHERE "
			      "name = 'skip_unavailable_shards' "
			      "FORMAT TabSeparated", &body, &r, err, errlen);

	if (!rc && pp_fleet_rows_next(&r, 1, err, errlen) > 0 &&
	    strcmp(r.field[0], "0")) {
		snprintf(err, errlen, "the server skips shards that do not "
			 "answer for this user (skip_unavailable_shards = %s): "
			 "a report could be silently partial; use a user "
			 "without that setting", r.field[0]);
		rc = -1;
	}
	free(body);
	pp_fleet_rows_free(&r);
	return rc;
}

void pp_fleet_close(struct pp_fleet *f)
{
	for (size_t i = 0; i < f->nr_shard_addrs; i++)
		free(f->shard_addrs[i].addr);
	free(f->shard_addrs);
	free(f->cluster);
	f->shard_addrs = NULL;
	f->nr_shard_addrs = f->alloc_shard_addrs = 0;
	f->cluster = NULL;
}

/* --- the selection ----------------------------------------------------- */

static void or_globs(FILE *out, char const *column,
		     struct pp_strlist const *l)
{
	fputs(" AND (", out);
	for (size_t i = 0; i < l->n; i++) {
		fprintf(out, "%smatch(%s, ", i ? " OR " : "", column);
		pp_fleet_sql_glob(out, l->v[i]);
		fputc(')', out);
	}
	fputc(')', out);
}

/* What a session is chosen by: columns every table has. */
static void where_sessions(FILE *out, struct pp_fleet_spec const *fs)
{
	fputs("1", out);
	if (fs->hosts.n)
		or_globs(out, "host", &fs->hosts);
	for (size_t i = 0; i < fs->nr_labels; i++) {
		struct pp_fleet_label const *l = &fs->labels[i];

		fputs(" AND (", out);
		for (size_t k = 0; k < l->values.n; k++) {
			char *kv = op_xasprintf("%s=%s", l->key, l->values.v[k]);

			fprintf(out, "%shas(labels, ", k ? " OR " : "");
			pp_fleet_sql_quote(out, kv);
			fputc(')', out);
			free(kv);
		}
		fputc(')', out);
	}
	if (fs->sessions.n)
		or_globs(out, "substring(session_id, length(host) + 2)",
			 &fs->sessions);
	/* day, the partition key, lets the server skip whole days; a day's
	 * margin each side covers any server time zone */
	if (fs->range.has_since)
		fprintf(out, " AND day >= toDate(toDateTime(%" PRIu64 ")) AND "
			"toUInt32(start) >= %" PRIu64,
			(uint64_t)(fs->range.since > 86400 ?
				   fs->range.since - 86400 : 0),
			(uint64_t)fs->range.since);
	if (fs->range.has_until)
		fprintf(out, " AND day <= toDate(toDateTime(%" PRIu64 ")) AND "
			"toUInt32(start) < %" PRIu64,
			(uint64_t)fs->range.until + 86400,
			(uint64_t)fs->range.until);
}

void pp_fleet_where(FILE *out, struct pp_fleet const *f,
		    struct pp_fleet_spec const *fs)
{
	struct pp_spec const *s = &fs->spec;

	fputs(" WHERE ", out);
	where_sessions(out, fs);
	fprintf(out, " AND (session_id, upload_id) GLOBAL IN (SELECT "
		"session_id, min(upload_id) FROM %s.sessions WHERE ",
		f->database);
	where_sessions(out, fs);
	fputs(" GROUP BY session_id)", out);
	if (s->given[PP_TAG_EVENT])
		or_globs(out, "event", &s->v[PP_TAG_EVENT]);
	if (s->given[PP_TAG_COUNT]) {
		fputs(" AND event_count IN (", out);
		for (size_t i = 0; i < s->v[PP_TAG_COUNT].n; i++)
			fprintf(out, "%s%lld", i ? ", " : "",
				strtoll(s->v[PP_TAG_COUNT].v[i], NULL, 0));
		fputc(')', out);
	}
}

void pp_fleet_where_builds(FILE *out, struct pp_fleet_spec const *fs)
{
	if (!fs->builds.n)
		return;
	fputs(" AND (", out);
	for (size_t i = 0; i < fs->builds.n; i++) {
		fprintf(out, "%sstartsWith(build_id, ", i ? " OR " : "");
		pp_fleet_sql_quote(out, fs->builds.v[i]);
		fputc(')', out);
	}
	fputc(')', out);
}

int pp_fleet_info_read(struct pp_fleet *f, struct pp_fleet_spec const *fs,
		       struct pp_fleet_info *info, char *err, size_t errlen)
{
	struct pp_fleet_rows r;
	char *body;
	struct pp_fleet_sql q;
	FILE *out = pp_fleet_sql_begin(&q);
	uint64_t v[4];
	int rc;

	fprintf(out, "SELECT uniqExact(host), uniqExact(session_id), "
		"toUInt32(min(start)), toUInt32(max(end)) FROM %s.sessions "
		"WHERE ", f->database);
	where_sessions(out, fs);
	fprintf(out, " AND (session_id, upload_id) GLOBAL IN (SELECT "
		"session_id, min(upload_id) FROM %s.sessions GROUP BY "
		"session_id) FORMAT TabSeparated", f->database);
	rc = pp_fleet_ask_sql(f, &q, &body, &r, err, errlen);
	if (!rc && (rc = pp_fleet_rows_next(&r, 4, err, errlen)) == 0) {
		snprintf(err, errlen, "the server gave no answer");
		rc = -1;
	}
	for (int i = 0; rc > 0 && i < 4; i++)
		rc = pp_fleet_u64(&r, i, &v[i], err, errlen) ? -1 : 1;
	free(body);
	pp_fleet_rows_free(&r);
	if (rc < 0)
		return -1;
	*info = (struct pp_fleet_info){ v[0], v[1], (time_t)v[2],
					(time_t)v[3] };
	if (!info->nr_sessions) {
		snprintf(err, errlen, "no session shipped to '%s' matches the "
			 "specification", f->url);
		return -1;
	}
	return 0;
}

/* --- the profile ------------------------------------------------------- */

/* The application column: '' (not separated) is the image itself, and
 * so is every application with --merge=lib. */
static char const *app_sql(struct pp_populate_opts const *o)
{
	return o->merge_lib ? "image" : "if(app = '', image, app)";
}

/* Whether the local filters keep (app, image) (pp_files.c's keep()). */
static bool image_kept(struct pp_spec const *s, bool exclude_dependent,
		       char const *app, char const *image)
{
	struct pp_strlist const *v = s->v;

	if (s->given[PP_TAG_IMAGE] && !pp_image_match(&v[PP_TAG_IMAGE], app))
		return false;
	if (s->given[PP_TAG_IMAGE_EXCLUDE] &&
	    pp_image_match(&v[PP_TAG_IMAGE_EXCLUDE], app))
		return false;
	if (s->given[PP_TAG_LIB_IMAGE] &&
	    !pp_image_match(&v[PP_TAG_LIB_IMAGE], image))
		return false;
	if (s->given[PP_TAG_LIB_IMAGE_EXCLUDE] &&
	    pp_image_match(&v[PP_TAG_LIB_IMAGE_EXCLUDE], image))
		return false;
	if (s->given[PP_TAG_BARE] && !pp_image_match(&v[PP_TAG_BARE], app) &&
	    !pp_image_match(&v[PP_TAG_BARE], image))
		return false;
	return !exclude_dependent || !strcmp(app, image);
}

static int cmp_class(void const *pa, void const *pb)
{
	struct pp_class const *a = pa, *b = pb;
	int c = strcmp(a->event, b->event);

	return c ? c : (a->count > b->count) - (a->count < b->count);
}

static void add_class(struct pp_classes *c, char const *event, int count)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].count == count && !strcmp(c->v[i].event, event))
			return;
	OP_ALLOC_GROW(c->v, c->n + 1, c->alloc);
	c->v[c->n++] = (struct pp_class){
		.event = op_xstrdup(event), .count = count, .unit_mask = -1,
		.tgid = -1, .tid = -1, .cpu = -1,
	};
}

/* (event, count) and (app, image) present; the pairs kept go into the
 * IN list of the report's query (NULL: all of them). */
static int read_images(struct pp_fleet *f, struct pp_fleet_spec const *fs,
		       struct pp_populate_opts const *o,
		       bool exclude_dependent, struct pp_classes *c,
		       char **in_list, char *err, size_t errlen)
{
	struct pp_fleet_rows r;
	char *body, *list = NULL;
	size_t llen, nr_in = 0, nr_out = 0;
	struct pp_fleet_sql q;
	FILE *out = pp_fleet_sql_begin(&q), *lo = open_memstream(&list, &llen);
	int rc;

	if (!lo)
		op_die("out of memory");
	fprintf(out, "SELECT event, event_count, %s AS a, image FROM ",
		app_sql(o));
	fprintf(out, "%s.samples", f->database);
	pp_fleet_where(out, f, fs);
	pp_fleet_where_builds(out, fs);
	fputs(" GROUP BY event, event_count, a, image FORMAT TabSeparated", out);
	rc = pp_fleet_ask_sql(f, &q, &body, &r, err, errlen);
	while (rc >= 0 && (rc = pp_fleet_rows_next(&r, 4, err, errlen)) > 0) {
		uint64_t count;

		if ((rc = pp_fleet_u64(&r, 1, &count, err, errlen)))
			break;
		if (!image_kept(&fs->spec, exclude_dependent, r.field[2],
				r.field[3])) {
			nr_out++;
			continue;
		}
		add_class(c, r.field[0], count > INT32_MAX ? INT32_MAX : (int)count);
		fputs(nr_in++ ? ", (" : "(", lo);
		pp_fleet_sql_quote(lo, r.field[2]);
		fputs(", ", lo);
		pp_fleet_sql_quote(lo, r.field[3]);
		fputc(')', lo);
	}
	fclose(lo);
	free(body);
	pp_fleet_rows_free(&r);
	if (!rc && !nr_in) {
		snprintf(err, errlen, "no samples on '%s' match the "
			 "specification (%zu images left out by it)", f->url,
			 nr_out);
		rc = -1;
	}
	if (rc < 0 || !nr_out) {
		free(list);
		list = NULL;
	}
	*in_list = list;
	if (c->n > 1)
		qsort(c->v, c->n, sizeof(*c->v), cmp_class);
	c->axis = c->n > 1 ? PP_AXIS_EVENT : PP_AXIS_NONE;
	for (size_t i = 0; i < c->n; i++)
		c->v[i].label = op_xasprintf("%s:%d", c->v[i].event,
					     c->v[i].count);
	return rc < 0 ? -1 : 0;
}

static size_t class_of(struct pp_classes const *c, char const *event,
		       uint64_t count)
{
	for (size_t i = 0; i < c->n; i++)
		if ((uint64_t)c->v[i].count == count &&
		    !strcmp(c->v[i].event, event))
			return i;
	return c->n;
}

/* The entry of a row: the last one when the row names it too. */
static long row_entry(struct pp_profile *p, struct pp_populate_opts const *o,
		      char const *app, char const *image, char const *sym)
{
	struct pp_entry const *e = p->n ? &p->v[p->n - 1] : NULL;

	if (e && !strcmp(e->app, app) && !strcmp(e->image, image) &&
	    (e->symbol ? !strcmp(e->symbol, sym) : !*sym))
		return (long)p->n - 1;
	if (*sym && o->symbols && !pp_symbol_wanted(o, sym, sym))
		return -1;
	if (!*sym && o->symbols && o->include && o->include->n)
		return -1;
	return (long)pp_profile_add(p, app, image,
				    *sym ? op_xstrdup(sym) : NULL, false, 0);
}

static int read_rows(struct pp_fleet *f, struct pp_fleet_spec const *fs,
		     struct pp_populate_opts const *o, char const *in_list,
		     struct pp_profile *p, struct pp_classes const *c,
		     char *err, size_t errlen)
{
	char const *by = !o->symbols ? "event, event_count, a, image" :
			 o->details ? "event, event_count, a, image, symbol, offset" :
			 "event, event_count, a, image, symbol";
	size_t nf = !o->symbols ? 5 : o->details ? 7 : 6;
	struct pp_fleet_rows r;
	char *body;
	struct pp_fleet_sql q;
	FILE *out = pp_fleet_sql_begin(&q);
	int rc;

	fprintf(out, "SELECT %s, sum(samples) FROM (SELECT event, event_count, "
		"%s AS a, image, symbol, offset, samples FROM %s.samples",
		by, app_sql(o), f->database);
	pp_fleet_where(out, f, fs);
	pp_fleet_where_builds(out, fs);
	if (in_list)
		fprintf(out, " AND (a, image) IN (%s)", in_list);
	fprintf(out, ") GROUP BY %s ORDER BY a, image%s FORMAT TabSeparated",
		by, o->symbols ? ", symbol" : "");
	rc = pp_fleet_ask_sql(f, &q, &body, &r, err, errlen);
	while (rc >= 0 && (rc = pp_fleet_rows_next(&r, nf, err, errlen)) > 0) {
		uint64_t count, n, offset = 0;
		size_t cls;
		long e;

		if (pp_fleet_u64(&r, 1, &count, err, errlen) ||
		    pp_fleet_u64(&r, nf - 1, &n, err, errlen) ||
		    (o->details && pp_fleet_u64(&r, 5, &offset, err, errlen))) {
			rc = -1;
			break;
		}
		cls = class_of(c, r.field[0], count);
		e = row_entry(p, o, r.field[2], r.field[3],
			      o->symbols ? r.field[4] : "");
		if (cls >= c->n || e < 0 || !n)
			continue;
		p->v[e].counts[cls] += n;
		if (o->details)
			pp_entry_add_detail(&p->v[e], offset, (int)cls, n);
	}
	free(body);
	pp_fleet_rows_free(&r);
	return rc < 0 ? -1 : 0;
}

int pp_fleet_profile(struct pp_fleet *f, struct pp_fleet_spec const *fs,
		     struct pp_populate_opts const *opts,
		     bool exclude_dependent, struct pp_profile *p,
		     struct pp_classes *classes, struct pp_fleet_info *info,
		     char *err, size_t errlen)
{
	char *in_list = NULL;
	int rc;

	memset(p, 0, sizeof(*p));
	memset(classes, 0, sizeof(*classes));
	if (pp_fleet_info_read(f, fs, info, err, errlen) ||
	    read_images(f, fs, opts, exclude_dependent, classes, &in_list,
			err, errlen))
		return -1;
	p->nr_classes = classes->n;
	rc = read_rows(f, fs, opts, in_list, p, classes, err, errlen);
	free(in_list);
	pp_profile_fold_details(p, 0);
	pp_profile_finish(p);
	return rc;
}

/* --- the header -------------------------------------------------------- */

static void utc(char *buf, size_t len, time_t t)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm) ||
	    !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "?");
}

void pp_fleet_header(struct pp_fleet const *f,
		     struct pp_fleet_info const *info,
		     struct pp_strlist *lines)
{
	char a[64], b[64], *line;

	utc(a, sizeof(a), info->first);
	utc(b, sizeof(b), info->last);
	line = op_xasprintf("fleet report from %s (database %s): %" PRIu64
			    " host%s, %" PRIu64 " session%s, %s to %s", f->url,
			    f->database, info->nr_hosts,
			    info->nr_hosts == 1 ? "" : "s", info->nr_sessions,
			    info->nr_sessions == 1 ? "" : "s", a, b);
	pp_strlist_add(lines, line);
	free(line);
	if (f->cluster) {
		line = op_xasprintf("cluster '%s': %u shard%s, all answered",
				    f->cluster, f->nr_shards,
				    f->nr_shards == 1 ? "" : "s");
		pp_strlist_add(lines, line);
		free(line);
	}
}
