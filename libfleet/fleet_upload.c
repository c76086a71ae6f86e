/* Shipping one session by the manifest rule (fleet_upload.h). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "fleet_schema.h"
#include "fleet_upload.h"

uint64_t fleet_upload_id(void)
{
	uint64_t id = 0;

	while (!id) {
		if (getrandom(&id, sizeof(id), 0) != (ssize_t)sizeof(id)) {
			/* no entropy call: the clock, still unique enough
			 * per host and attempt */
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			id = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec;
		}
	}
	return id;
}

/* rows with "\t<id>" put after their 4th field (upload_id's place),
 * and with tail added at the end of each row. */
static void with_id(struct fleet_buf *out, char const *rows, size_t len,
		    uint64_t id, char const *tail)
{
	char const *p = rows, *end = rows + len;

	fleet_buf_reset(out);
	while (p < end) {
		char const *eol = memchr(p, '\n', (size_t)(end - p));
		char const *f = p;
		int tabs = 0;

		if (!eol)
			eol = end;
		while (f < eol && tabs < 4)
			if (*f++ == '\t')
				tabs++;
		fleet_buf_add(out, p, (size_t)(f - p));
		fleet_buf_printf(out, "%" PRIu64 "\t", id);
		fleet_buf_add(out, f, (size_t)(eol - f));
		if (tail)
			fleet_buf_puts(out, tail);
		fleet_buf_add(out, "\n", 1);
		p = eol + 1;
	}
}

int fleet_manifest_has(struct fleet_target const *t, char const *session_id,
		       size_t len, char *err, size_t errlen)
{
	struct fleet_buf q = { 0 }, out = { 0 };
	int ret;

	fleet_buf_printf(&q, "SELECT count() FROM %s.sessions WHERE session_id = ",
			 t->database);
	fleet_sql_string(&q, session_id, len);
	ret = fleet_http_post(t->http, q.p, NULL, NULL, 0, &out, err, errlen);
	if (!ret)
		ret = out.len && strtoull(out.p, NULL, 10) > 0;
	fleet_buf_free(&q);
	fleet_buf_free(&out);
	return ret;
}

static int insert(struct fleet_target const *t, char const *table,
		  char const *columns, struct fleet_buf const *rows,
		  struct fleet_buf *out, char *err, size_t errlen)
{
	char sql[512];

	snprintf(sql, sizeof(sql), "INSERT INTO %s.%s (%s) FORMAT TabSeparated",
		 t->database, table, columns);
	return fleet_http_post(t->http, sql,
			       t->cluster ? "insert_distributed_sync=1" : NULL,
			       rows->p, rows->len, out, err, errlen);
}

int fleet_upload(struct fleet_target const *t,
		 struct fleet_spool_data const *d, bool *already,
		 char *err, size_t errlen)
{
	struct fleet_buf rows = { 0 }, out = { 0 };
	uint64_t id = fleet_upload_id();
	char shipped[32];
	int has, ret = -1;

	*already = false;
	has = fleet_manifest_has(t, d->session_id.p, d->session_id.len, err, errlen);
	if (has < 0)
		return -1;
	if (has) {
		*already = true;
		return 0;
	}
	if (d->block_len[0]) {
		with_id(&rows, d->block[0], d->block_len[0], id, NULL);
		if (insert(t, "samples", FLEET_SAMPLES_COLUMNS, &rows, &out, err, errlen))
			goto out;
	}
	if (d->block_len[1]) {
		with_id(&rows, d->block[1], d->block_len[1], id, NULL);
		if (insert(t, "stacks", FLEET_STACKS_COLUMNS, &rows, &out, err, errlen))
			goto out;
	}
	/* only now the manifest row: the session counts from here on */
	snprintf(shipped, sizeof(shipped), "\t%lld", (long long)time(NULL));
	with_id(&rows, d->block[2], d->block_len[2], id, shipped);
	if (insert(t, "sessions", FLEET_SESSIONS_COLUMNS, &rows, &out, err, errlen))
		goto out;
	ret = 0;
out:
	fleet_buf_free(&rows);
	fleet_buf_free(&out);
	return ret;
}
