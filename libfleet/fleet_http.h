/*
 * The fleet's HTTP client (libcurl): ClickHouse's HTTP interface, one
 * request at a time. The server's address is a base URL (http:// or
 * https://, host, port, optional path) that never holds credentials:
 * they come from a credentials file (fleet_cred.h) and go as HTTP basic
 * authentication, so they are in no URL, no command line and no message.
 * Every request has a connect timeout and a total timeout, and a
 * response is read up to a bound; no redirect is followed and only
 * http and https are spoken. Each request has a connection of its own,
 * so libcurl never sends one twice on its own. Errors name the URL and quote the server's
 * error text, escaped (op_escape.h).
 */
#ifndef FLEET_HTTP_H
#define FLEET_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "fleet_cred.h"
#include "fleet_tsv.h"

struct fleet_http_opts {
	long connect_timeout_ms;   /* 0: 5 s */
	long timeout_ms;           /* 0: 60 s, the whole request */
	size_t max_response;       /* 0: 64 MiB */
	char const *ca_file;       /* https: the CA to trust; NULL: the system's */
};

struct fleet_http {
	char *url;                 /* the base URL, without a trailing '/' */
	struct fleet_cred cred;
	bool has_cred;
	struct fleet_http_opts opts;
	char *ca_file;
	void *curl;
	long status;               /* the last response's HTTP status, 0: none */
};

/*
 * Check url ("http[s]://HOST[:PORT][/PATH]", no user or password in it,
 * no query, no control character) and read cred_file (NULL: no
 * authentication) into h. 0, or -1 with err.
 */
int fleet_http_open(struct fleet_http *h, char const *url,
		    char const *cred_file, struct fleet_http_opts const *o,
		    char *err, size_t errlen);
void fleet_http_close(struct fleet_http *h);

/*
 * POST a query. Without body, sql is the request's body; with body
 * (len bytes: an INSERT's rows), sql goes in the URL and body is sent.
 * params: more URL parameters already encoded ("a=1&b=2"), or NULL.
 * The response's body into out (reset first). 0 on HTTP 200, else -1
 * with err ("'URL': HTTP 500: <the server's text>" or the network's).
 */
int fleet_http_post(struct fleet_http *h, char const *sql, char const *params,
		    void const *body, size_t len, struct fleet_buf *out,
		    char *err, size_t errlen);

/* GET ?query=sql (ClickHouse runs a GET read-only). As fleet_http_post. */
int fleet_http_get(struct fleet_http *h, char const *sql,
		   struct fleet_buf *out, char *err, size_t errlen);

/* Whether url is one fleet_http_open takes; else why in err. */
int fleet_http_check_url(char const *url, char *err, size_t errlen);

#endif /* FLEET_HTTP_H */
