/* The fleet's settings with their defaults (fleet_settings.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fleet_schema.h"
#include "fleet_settings.h"
#include "op_alloc.h"
#include "op_fleet_settings.h"
#include "op_session_kv.h"
#include "op_session_settings.h"

static int cmp_str(void const *a, void const *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void fleet_settings_get(struct op_kv const *kv, struct fleet_settings *s)
{
	char const *v;
	char err[256];
	size_t i, n;

	memset(s, 0, sizeof(*s));
	s->url = op_kv_get(kv, "fleet_url");
	s->credentials = op_kv_get(kv, "fleet_credentials");
	s->database = op_kv_get(kv, "fleet_database");
	if (!s->database)
		s->database = FLEET_DATABASE_DEFAULT;
	s->cluster = op_kv_get(kv, "fleet_cluster");
	s->ca = op_kv_get(kv, "fleet_ca");
	v = op_kv_get(kv, "fleet_host");
	if (v)
		snprintf(s->host, sizeof(s->host), "%s", v);
	else if (gethostname(s->host, sizeof(s->host) - 1) || !s->host[0] ||
		 strchr(s->host, '/'))
		snprintf(s->host, sizeof(s->host), "localhost");
	s->spool_size = OP_FLEET_SPOOL_SIZE_DEFAULT;
	v = op_kv_get(kv, "fleet_spool_size");
	if (v && op_settings_size("fleet_spool_size", v, &s->spool_size, err,
				  sizeof(err)))
		s->spool_size = OP_FLEET_SPOOL_SIZE_DEFAULT;
	s->timeout_s = 60;
	v = op_kv_get(kv, "fleet_timeout");
	if (v && op_settings_duration("fleet_timeout", v, &s->timeout_s, err,
				      sizeof(err)))
		s->timeout_s = 60;
	/* op_kv keeps every fleet_label line as a pair of its own */
	for (i = 0; i < kv->nr; i++) {
		if (strcmp(kv->keys[i], OP_FLEET_LABEL_KEY))
			continue;
		s->labels = op_xrealloc(s->labels, (s->nr_labels + 1) * sizeof(*s->labels));
		s->labels[s->nr_labels++] = op_xstrdup(kv->values[i]);
	}
	if (s->nr_labels)
		qsort(s->labels, s->nr_labels, sizeof(*s->labels), cmp_str);
	for (i = n = 0; i < s->nr_labels; i++) {
		if (n && !strcmp(s->labels[i], s->labels[n - 1]))
			free(s->labels[i]);
		else
			s->labels[n++] = s->labels[i];
	}
	s->nr_labels = n;
}

void fleet_settings_free(struct fleet_settings *s)
{
	for (size_t i = 0; i < s->nr_labels; i++)
		free(s->labels[i]);
	free(s->labels);
	memset(s, 0, sizeof(*s));
}
