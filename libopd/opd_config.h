/*
 * The core's configuration from the checked settings (libop's
 * op_settings_*), as oprofiled, operf and opreport --stream build it.
 */
#ifndef OPD_CONFIG_H
#define OPD_CONFIG_H

#include "op_session_settings.h"
#include "opd_core.h"

/* The settings' events as the core's (every one fits: see the assert). */
void opd_config_events(struct opd_config *cfg,
		       struct op_settings_events const *ev);

#endif /* OPD_CONFIG_H */
