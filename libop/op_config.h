/* Paths and defaults shared by the daemon, opcontrol and the report tools. */
#ifndef OP_CONFIG_H
#define OP_CONFIG_H

/* The session directory's names and the driver directory. */
#include "op_session.h"

/* Where events/ is installed; OPROFILE_EVENTS_DIR overrides it at run time. */
#ifndef OP_EVENTS_DIR
#define OP_EVENTS_DIR "/usr/local/share/oprofile-ng/events"
#endif
#define OP_EVENTS_DIR_ENV "OPROFILE_EVENTS_DIR"

#endif /* OP_CONFIG_H */
