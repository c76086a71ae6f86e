/* The core's configuration from the checked settings; see opd_config.h. */
#include "config.h"

#include <string.h>

#include "opd_config.h"

void opd_config_events(struct opd_config *cfg,
		       struct op_settings_events const *ev)
{
	_Static_assert(OP_SETTINGS_MAX_EVENTS <= OPD_MAX_EVENTS,
		       "the core takes every event the settings allow");
	for (size_t i = 0; i < ev->nr; i++) {
		struct op_settings_event const *e = &ev->v[i];
		struct opd_event *c = &cfg->events[i];

		_Static_assert(sizeof(c->name) == sizeof(e->name), "event name");
		memcpy(c->name, e->name, sizeof(c->name));
		c->code = e->code;
		c->unit_mask = e->unit_mask;
		c->count = e->count;
		c->kernel = e->kernel;
		c->user = e->user;
	}
	cfg->nr_events = ev->nr;
}
