/*
 * The fleet source without a server: specs (host:, labels, tags the rows
 * do not keep), quoting into SQL, globs as patterns, TabSeparated answers
 * (hostile ones too), and a profile built from canned answers through a
 * query function that also checks the manifest rule is in every query.
 * The real server is t2035's.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pp_fleet.h"
#include "pp_fleet_int.h"
#include "pp_fleet_sql.h"

static char *quoted(void (*fn)(FILE *, char const *), char const *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, s);
	fclose(f);
	return buf;
}

static void test_fleet__quote_and_glob(void)
{
	char *q = quoted(pp_fleet_sql_quote, "a'b\\c\nd");

	check_str(q, "'a\\'b\\\\c\\x0ad'", "quote, backslash, newline");
	free(q);
	q = quoted(pp_fleet_sql_glob, "web*.ex?mple[0-9]");
	check_str(q, "'^web.*\\\\.ex.mple[0-9]$'", "a glob as re2");
	free(q);
	q = quoted(pp_fleet_sql_glob, "a(b)|c[");
	check_str(q, "'^a\\\\(b\\\\)\\\\|c\\\\[$'", "re2 specials quoted");
	free(q);
	q = quoted(pp_fleet_sql_glob, "[!x]");
	check_str(q, "'^[^x]$'", "a negated class");
	free(q);
}

static int rows_of(char const *text, size_t nf, char *err, size_t errlen,
		   char *first)
{
	char *body = strdup(text);
	struct pp_fleet_rows r;
	int rc, n = 0;

	pp_fleet_rows_init(&r, body, strlen(body));
	while ((rc = pp_fleet_rows_next(&r, nf, err, errlen)) > 0) {
		if (!n && first)
			strcpy(first, r.field[0]);
		n++;
	}
	free(body);
	return rc < 0 ? -1 : n;
}

static void test_fleet__rows(void)
{
	char err[256], first[64];

	check_int(rows_of("a\\tb\\\\\t1\nc\t2\n", 2, err, sizeof(err), first),
		  2, "two rows");
	check_str(first, "a\tb\\", "escapes undone");
	check_int(rows_of("a\t1\nc\t2", 2, err, sizeof(err), NULL), -1,
		  "a row without its newline");
	check_contains(err, "row 2 of the answer is cut short", "said");
	check_int(rows_of("a\t1\t3\n", 2, err, sizeof(err), NULL), -1,
		  "a field too many");
	check_int(rows_of("a\n", 2, err, sizeof(err), NULL), -1,
		  "a field too few");
	check_int(rows_of("a\\0b\t1\n", 2, err, sizeof(err), NULL), -1,
		  "an escaped NUL");
	check_contains(err, "NUL byte", "said");
	check_int(rows_of("a\\qb\t1\n", 2, err, sizeof(err), NULL), -1,
		  "a bad escape");
	check_int(rows_of("a\\", 1, err, sizeof(err), NULL), -1,
		  "a backslash at the end");
	check_int(rows_of("", 2, err, sizeof(err), NULL), 0, "no rows");
}

static void test_fleet__spec(void)
{
	char const *ok[] = { "host:web*,db1", "service:web", "event:CPU_CLOCK",
			     "image:/bin/ls", "session:2026-11-26T14..T16",
			     "zone:eu,us" };
	char const *tid[] = { "tid:3" };
	char const *twice[] = { "service:a", "service:b" };
	char const *hosts[] = { "host:a", "host:b" };
	struct pp_fleet_spec fs;
	char err[512];

	check_int(pp_fleet_spec_parse(&fs, 6, ok, NULL, err, sizeof(err)), 0,
		  "hosts, labels, tags, a session range");
	check_int((long long)fs.hosts.n, 2, "two hosts");
	check_int((long long)fs.nr_labels, 2, "two labels");
	check_str(fs.labels[1].key, "zone", "a label's key");
	check_int((long long)fs.labels[1].values.n, 2, "its values");
	check_that(fs.spec.given[PP_TAG_EVENT] && fs.spec.given[PP_TAG_IMAGE]);
	check_that(fs.range.has_since && fs.range.has_until &&
		   fs.range.until - fs.range.since == 7200);
	pp_fleet_spec_free(&fs);
	check_int(pp_fleet_spec_parse(&fs, 1, tid, NULL, err, sizeof(err)), -1,
		  "tid: is refused");
	check_contains(err, "do not keep 'tid:'", "by name");
	check_int(pp_fleet_spec_parse(&fs, 2, twice, NULL, err, sizeof(err)),
		  -1, "a label twice");
	check_int(pp_fleet_spec_parse(&fs, 2, hosts, NULL, err, sizeof(err)),
		  -1, "host: twice");
}

/* A server in a table: each answer for the query whose text holds key. */
struct canned {
	char const *key, *answer;
};

static struct canned const *answers;
static int nr_queries, nr_without_manifest;

static int fake_query(void *arg, char const *sql, char **body, size_t *len,
		      char *err, size_t errlen)
{
	(void)arg;
	nr_queries++;
	if (strstr(sql, "FROM oprofile.samples") &&
	    !strstr(sql, "(session_id, upload_id) GLOBAL IN (SELECT session_id, min(upload_id) FROM oprofile.sessions"))
		nr_without_manifest++;
	for (struct canned const *c = answers; c->key; c++) {
		if (strstr(sql, c->key) && c->answer[0] == '!') {
			snprintf(err, errlen, "%s", c->answer + 1);
			return -1;
		}
		if (strstr(sql, c->key)) {
			*body = strdup(c->answer);
			*len = strlen(c->answer);
			return 0;
		}
	}
	snprintf(err, errlen, "no answer for: %.200s", sql);
	return -1;
}

static struct canned const one_server[] = {
	{ "FROM system.tables", "MergeTree PARTITION BY day\n" },
	{ "uniqExact(host)", "3\t4\t1764000000\t1764003600\n" },
	{ "GROUP BY event, event_count, a, image FORMAT",
	  "CPU_CLOCK\t100000\t/bin/a\t/bin/a\n"
	  "CPU_CLOCK\t100000\t/bin/a\t/lib/libc.so.6\n"
	  "CPU_CLOCK\t100000\t/bin/b\t/bin/b\n" },
	{ "symbol, sum(samples)",
	  "CPU_CLOCK\t100000\t/bin/a\t/bin/a\tmain\t5\n"
	  "CPU_CLOCK\t100000\t/bin/a\t/bin/a\tspin\t7\n"
	  "CPU_CLOCK\t100000\t/bin/a\t/lib/libc.so.6\t\t3\n" },
	{ NULL, NULL },
};

static void test_fleet__profile(void)
{
	struct pp_fleet f = { .query = fake_query, .url = "http://x:1",
			      .database = "oprofile" };
	char const *spec[] = { "image:/bin/a" };
	struct pp_populate_opts o = { .symbols = true };
	struct pp_fleet_spec fs;
	struct pp_fleet_info info;
	struct pp_profile p;
	struct pp_classes c;
	char err[512];

	answers = one_server;
	check_int(pp_fleet_open(&f, err, sizeof(err)), 0, "one server");
	check_that(!f.cluster);
	check_int(pp_fleet_spec_parse(&fs, 1, spec, NULL, err, sizeof(err)), 0,
		  "a spec");
	check_int(pp_fleet_profile(&f, &fs, &o, false, &p, &c, &info, err,
				   sizeof(err)), 0, "a profile");
	check_int((long long)info.nr_hosts, 3, "hosts counted");
	check_int((long long)c.n, 1, "one class");
	check_int((long long)p.n, 3, "main, spin, libc without symbols");
	check_int((long long)p.totals[0], 15, "the sum");
	check_that(p.n == 3 && !p.v[2].symbol &&
		   !strcmp(p.v[2].image, "/lib/libc.so.6"));
	check_int(nr_without_manifest, 0, "every samples query goes through "
		  "the manifest");
	pp_profile_free(&p);
	pp_classes_free(&c);
	pp_fleet_spec_free(&fs);
	pp_fleet_close(&f);
}

static struct canned const bad_answer[] = {
	{ "FROM system.tables", "MergeTree\n" },
	{ "uniqExact(host)", "3\t4\t1764000000\t1764003600\n" },
	{ "GROUP BY event, event_count, a, image FORMAT",
	  "CPU_CLOCK\t-1\t/bin/a\t/bin/a\n" },
	{ NULL, NULL },
};

static struct canned const cluster[] = {
	{ "FROM system.tables",
	  "Distributed(fleet, oprofile, samples_local, cityHash64(host))\n" },
	{ "FROM system.clusters",
	  "1\tlocalhost\t127.0.0.1\t9001\n2\tlocalhost\t127.0.0.1\t9002\n" },
	{ "FROM system.settings", "0\n" },
	{ NULL, NULL },
};

static struct canned const shard_down[] = {
	{ "uniqExact(host)", "!HTTP 500: Code: 279, e.displayText() = "
	  "DB::NetException: All connection tries failed. Log: Code: 210, "
	  "Connection refused (127.0.0.1:9002)" },
	{ NULL, NULL },
};

static struct canned const skipping[] = {
	{ "FROM system.tables",
	  "Distributed(fleet, oprofile, samples_local, cityHash64(host))\n" },
	{ "FROM system.clusters", "1\tlocalhost\t127.0.0.1\t9001\n" },
	{ "FROM system.settings", "1\n" },
	{ NULL, NULL },
};

static void test_fleet__refusals(void)
{
	struct pp_fleet f = { .query = fake_query, .url = "http://x:1",
			      .database = "oprofile" };
	struct pp_populate_opts o = { .symbols = true };
	struct pp_fleet_spec fs;
	struct pp_fleet_info info;
	struct pp_profile p;
	struct pp_classes c;
	char err[512];

	answers = bad_answer;
	check_int(pp_fleet_spec_parse(&fs, 0, NULL, NULL, err, sizeof(err)), 0,
		  "an empty spec");
	check_int(pp_fleet_profile(&f, &fs, &o, false, &p, &c, &info, err,
				   sizeof(err)), -1, "a negative count");
	check_contains(err, "'-1' is not a count", "is named");
	pp_profile_free(&p);
	pp_classes_free(&c);
	answers = cluster;
	check_int(pp_fleet_open(&f, err, sizeof(err)), 0, "a cluster");
	check_str(f.cluster, "fleet", "its name");
	check_int(f.nr_shards, 2, "its shards");
	answers = shard_down;
	check_int(pp_fleet_info_read(&f, &fs, &info, err, sizeof(err)), -1,
		  "a shard does not answer");
	check_contains(err, "shard 2 (127.0.0.1:9002) of cluster 'fleet' did "
		       "not answer: HTTP 500", "the shard is named");
	pp_fleet_close(&f);
	answers = skipping;
	check_int(pp_fleet_open(&f, err, sizeof(err)), -1,
		  "skip_unavailable_shards = 1 is refused");
	check_contains(err, "silently partial", "and why");
	pp_fleet_close(&f);
	pp_fleet_spec_free(&fs);
}

int main(void)
{
	test_fleet__quote_and_glob();
	test_fleet__rows();
	test_fleet__spec();
	test_fleet__profile();
	test_fleet__refusals();
	return check_done();
}
