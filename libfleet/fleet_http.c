/* ClickHouse over HTTP with libcurl (fleet_http.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "fleet_http.h"
#include "op_alloc.h"
#include "op_escape.h"
#include "op_fleet_settings.h"

#define DEFAULT_CONNECT_MS 5000L
#define DEFAULT_TIMEOUT_MS 60000L
#define DEFAULT_MAX_RESPONSE (64u << 20)
/* What of a server's error text a message quotes. */
#define ERROR_QUOTE 400

int fleet_http_check_url(char const *url, char *err, size_t errlen)
{
	return op_fleet_url_check(url, err, errlen);
}

int fleet_http_open(struct fleet_http *h, char const *url,
		    char const *cred_file, struct fleet_http_opts const *o,
		    char *err, size_t errlen)
{
	static int inited;
	size_t len;

	memset(h, 0, sizeof(*h));
	if (fleet_http_check_url(url, err, errlen))
		return -1;
	if (cred_file) {
		if (fleet_cred_read(cred_file, &h->cred, err, errlen))
			return -1;
		h->has_cred = true;
	}
	if (!inited) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
			snprintf(err, errlen, "cannot initialise libcurl");
			fleet_cred_clear(&h->cred);
			return -1;
		}
		inited = 1;
	}
	h->curl = curl_easy_init();
	if (!h->curl) {
		snprintf(err, errlen, "cannot initialise libcurl");
		fleet_cred_clear(&h->cred);
		return -1;
	}
	h->url = op_xstrdup(url);
	len = strlen(h->url);
	while (len > 0 && h->url[len - 1] == '/')
		h->url[--len] = '\0';
	if (o)
		h->opts = *o;
	if (!h->opts.connect_timeout_ms)
		h->opts.connect_timeout_ms = DEFAULT_CONNECT_MS;
	if (!h->opts.timeout_ms)
		h->opts.timeout_ms = DEFAULT_TIMEOUT_MS;
	if (!h->opts.max_response)
		h->opts.max_response = DEFAULT_MAX_RESPONSE;
	if (h->opts.ca_file)
		h->ca_file = op_xstrdup(h->opts.ca_file);
	h->opts.ca_file = h->ca_file;
	return 0;
}

void fleet_http_close(struct fleet_http *h)
{
	if (h->curl)
		curl_easy_cleanup(h->curl);
	fleet_cred_clear(&h->cred);
	free(h->url);
	free(h->ca_file);
	memset(h, 0, sizeof(*h));
}

struct sink {
	struct fleet_buf *out;
	size_t max;
	bool over;
};

static size_t on_data(char *data, size_t size, size_t n, void *arg)
{
	struct sink *s = arg;
	size_t len = size * n;

	if (s->out->len + len > s->max) {
		s->over = true;
		return 0;	/* libcurl stops: CURLE_WRITE_ERROR */
	}
	fleet_buf_add(s->out, data, len);
	return len;
}

/* The server's error text: escaped, one line, cut to ERROR_QUOTE bytes. */
static char *quote_reply(struct fleet_buf const *b)
{
	size_t len = b->len < ERROR_QUOTE ? b->len : ERROR_QUOTE;
	char *s = op_xmalloc(len + 1), *e;

	memcpy(s, b->p ? b->p : "", len);
	s[len] = '\0';
	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r' || s[len - 1] == ' '))
		s[--len] = '\0';
	e = op_escape(s);
	free(s);
	return e;
}

static int request(struct fleet_http *h, bool post, char const *sql,
		   char const *params, void const *body, size_t len,
		   struct fleet_buf *out, char *err, size_t errlen)
{
	char cerr[CURL_ERROR_SIZE] = "";
	struct sink sink = { out, h->opts.max_response, false };
	struct fleet_buf url = { 0 };
	CURL *c = h->curl;
	CURLcode rc;
	char *q = NULL, *eurl;
	int ret = -1;

	fleet_buf_reset(out);
	fleet_buf_add(out, "", 0);
	h->status = 0;
	fleet_buf_printf(&url, "%s/", h->url);
	if (!post || body) {
		q = curl_easy_escape(c, sql, 0);
		if (!q) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		fleet_buf_printf(&url, "?query=%s", q);
		curl_free(q);
	}
	if (params && *params)
		fleet_buf_printf(&url, "%s%s", strchr(url.p, '?') ? "&" : "?", params);

	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url.p);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	/* a fresh connection per request: libcurl sends a request again,
	 * silently, when a reused connection closes before any answer, and
	 * the server may have taken the first one (an INSERT twice under
	 * one upload_id would count twice) */
	curl_easy_setopt(c, CURLOPT_FORBID_REUSE, 1L);
	curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, h->opts.connect_timeout_ms);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, h->opts.timeout_ms);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	if (h->ca_file)
		curl_easy_setopt(c, CURLOPT_CAINFO, h->ca_file);
	if (h->has_cred) {
		curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(c, CURLOPT_USERNAME, h->cred.user);
		curl_easy_setopt(c, CURLOPT_PASSWORD, h->cred.password);
	}
	if (post) {
		curl_easy_setopt(c, CURLOPT_POST, 1L);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body ? body : (void const *)sql);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)(body ? len : strlen(sql)));
	} else {
		curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
	}
	rc = curl_easy_perform(c);
	/* the URL of a message: the base, never the query or a password */
	eurl = op_escape(h->url);
	if (rc == CURLE_WRITE_ERROR && sink.over) {
		snprintf(err, errlen, "'%s': the response is larger than %zu bytes",
			 eurl, h->opts.max_response);
	} else if (rc != CURLE_OK) {
		char *e = op_escape(cerr[0] ? cerr : curl_easy_strerror(rc));

		snprintf(err, errlen, "'%s': %s", eurl, e);
		free(e);
	} else {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &h->status);
		if (h->status == 200) {
			ret = 0;
		} else {
			char *e = quote_reply(out);

			snprintf(err, errlen, "'%s': HTTP %ld: %s", eurl,
				 h->status, *e ? e : "(no text)");
			free(e);
		}
	}
	/* the password stays only in h->cred */
	curl_easy_setopt(c, CURLOPT_PASSWORD, "");
	free(eurl);
	fleet_buf_free(&url);
	return ret;
}

int fleet_http_post(struct fleet_http *h, char const *sql, char const *params,
		    void const *body, size_t len, struct fleet_buf *out,
		    char *err, size_t errlen)
{
	return request(h, true, sql, params, body, len, out, err, errlen);
}

int fleet_http_get(struct fleet_http *h, char const *sql,
		   struct fleet_buf *out, char *err, size_t errlen)
{
	return request(h, false, sql, NULL, NULL, 0, out, err, errlen);
}
