/*
 * The fleet reader's connection (pp_fleet_http.c): libfleet's HTTP client
 * as pp_fleet's query function, with the credentials of a file given by
 * the tool's option or the settings file's fleet_credentials (never a
 * command line's text), fleet_database and fleet_ca from the settings
 * file. Shared by opreport --fleet and opannotate --fleet.
 */
#ifndef PP_FLEET_HTTP_H
#define PP_FLEET_HTTP_H

#include <stddef.h>

#include "fleet_http.h"
#include "pp_fleet.h"

struct pp_fleet_conn {
	struct fleet_http http;
	struct fleet_buf buf;
	struct pp_fleet fleet;       /* ready for pp_fleet_profile & co */
	char *database;
};

/* Connect to url and pp_fleet_open: 0, or -1 with err. */
int pp_fleet_connect(struct pp_fleet_conn *c, char const *url,
		     char const *cred_file, char *err, size_t errlen);
void pp_fleet_disconnect(struct pp_fleet_conn *c);

#endif /* PP_FLEET_HTTP_H */
