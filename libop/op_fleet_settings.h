/*
 * The fleet's settings in the system settings file (oprofiled.conf,
 * doc/fleet.md): where the shipper sends closed sessions and as whom.
 *   fleet_url          http[s]://HOST[:PORT][/PATH], never with credentials
 *   fleet_credentials  absolute path of the credentials file (libfleet
 *                      checks its mode and owner when it reads it)
 *   fleet_host         this host's name in the fleet (default: gethostname)
 *   fleet_label        k=v; may be given on several lines, each adds one
 *   fleet_spool_size   the spool's bound (a size, default 256M)
 *   fleet_database     default oprofile; fleet_cluster: the cluster's name
 *   fleet_ca           absolute path of the CA file for an https server
 *   fleet_timeout      one request's time at most (a duration, default 60s)
 * Checked here so that oprofiled and opcontrol refuse a bad one at once;
 * the URL and name rules are libfleet's too; libfleet/fleet_settings.h
 * reads them with their defaults.
 */
#ifndef OP_FLEET_SETTINGS_H
#define OP_FLEET_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

#define OP_FLEET_SPOOL_SIZE_DEFAULT (256ull << 20)
#define OP_FLEET_LABEL_KEY "fleet_label"

/* A URL the fleet takes; else -1 with err saying why. */
int op_fleet_url_check(char const *url, char *err, size_t errlen);

/* An identifier spliced into SQL (database, cluster): a letter or '_',
 * then letters, digits, '_'; at most 64. 0, or -1 with err naming what. */
int op_fleet_name_check(char const *what, char const *name, char *err,
			size_t errlen);

/* One fleet_* key of the settings file but fleet_spool_size and
 * fleet_timeout (a size and a duration: op_settings_check's own);
 * op_settings_check calls it. */
int op_fleet_setting_check(char const *key, char const *name,
			   char const *value, char *err, size_t errlen);

#endif /* OP_FLEET_SETTINGS_H */
