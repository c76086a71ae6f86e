/* libfleet's HTTP client as the fleet's query function; see
 * pp_fleet_http.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fleet_schema.h"
#include "op_session_kv.h"
#include "op_session_settings.h"
#include "op_util.h"
#include "pp_fleet_http.h"

/* pp_fleet's query function: a POST, the answer handed over. */
static int ask(void *arg, char const *sql, char **body, size_t *len,
	       char *err, size_t errlen)
{
	struct pp_fleet_conn *c = arg;

	fleet_buf_reset(&c->buf);
	if (fleet_http_post(&c->http, sql, NULL, NULL, 0, &c->buf, err,
			    errlen))
		return -1;
	*len = c->buf.len;
	*body = op_xmalloc(c->buf.len + 1);
	if (c->buf.len)
		memcpy(*body, c->buf.p, c->buf.len);
	(*body)[c->buf.len] = '\0';
	return 0;
}

/* The settings file's fleet_credentials (unless given), fleet_database
 * and fleet_ca. */
static int settings(struct pp_fleet_conn *c, char const *cred_file,
		    char **cred, char **ca, char *err, size_t errlen)
{
	struct op_kv kv = { 0 };
	char const *v;

	if (op_settings_config_read(&kv)) {
		snprintf(err, errlen, "the settings file '%s' cannot be used",
			 op_settings_config_path());
		return -1;
	}
	v = cred_file ? cred_file : op_kv_get(&kv, "fleet_credentials");
	*cred = v ? op_xstrdup(v) : NULL;
	v = op_kv_get(&kv, "fleet_ca");
	*ca = v ? op_xstrdup(v) : NULL;
	v = op_kv_get(&kv, "fleet_database");
	c->database = op_xstrdup(v ? v : FLEET_DATABASE_DEFAULT);
	op_kv_free(&kv);
	return fleet_name_check("fleet_database", c->database, err, errlen);
}

int pp_fleet_connect(struct pp_fleet_conn *c, char const *url,
		     char const *cred_file, char *err, size_t errlen)
{
	struct fleet_http_opts o = { 0 };
	char *cred = NULL, *ca = NULL;
	int rc;

	memset(c, 0, sizeof(*c));
	if (settings(c, cred_file, &cred, &ca, err, errlen)) {
		free(cred);
		free(ca);
		return -1;
	}
	o.ca_file = ca;
	rc = fleet_http_open(&c->http, url, cred, &o, err, errlen);
	free(cred);
	free(ca);
	if (rc)
		return -1;
	c->fleet = (struct pp_fleet){ .query = ask, .query_arg = c,
				      .url = c->http.url,
				      .database = c->database };
	return pp_fleet_open(&c->fleet, err, errlen);
}

void pp_fleet_disconnect(struct pp_fleet_conn *c)
{
	pp_fleet_close(&c->fleet);
	if (c->http.url)
		fleet_http_close(&c->http);
	fleet_buf_free(&c->buf);
	free(c->database);
	c->database = NULL;
}
