/*
 * The fleet settings of oprofiled.conf (libop/op_fleet_settings.h checks
 * each line), with their defaults, as the shipper uses them.
 */
#ifndef FLEET_SETTINGS_H
#define FLEET_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

struct op_kv;

struct fleet_settings {
	char const *url;             /* NULL: no fleet */
	char const *credentials, *database, *cluster, *ca;  /* in the kv */
	char host[256];
	char **labels;               /* sorted, distinct "k=v" */
	size_t nr_labels;
	uint64_t spool_size;
	uint64_t timeout_s;          /* one request's time, fleet_timeout */
};

/* The fleet settings of a checked settings file (kv). */
void fleet_settings_get(struct op_kv const *kv, struct fleet_settings *s);
void fleet_settings_free(struct fleet_settings *s);

#endif /* FLEET_SETTINGS_H */
