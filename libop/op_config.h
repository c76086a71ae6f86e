/* Paths and defaults shared by the daemon, opcontrol and the report tools. */
#ifndef OP_CONFIG_H
#define OP_CONFIG_H

/* Default session directory (opcontrol --session-dir overrides it). */
#define OP_SESSION_DIR_DEFAULT "/var/lib/oprofile"
/* Below the session dir: samples/<session>/..., samples/current/stats/. */
#define OP_SAMPLES_DIR "samples"
#define OP_CURRENT_SESSION "current"
#define OP_STATS_DIR "stats"

/* Where events/ is installed; OPROFILE_EVENTS_DIR overrides it at run time. */
#ifndef OP_EVENTS_DIR
#define OP_EVENTS_DIR "/usr/local/share/oprofile-ng/events"
#endif
#define OP_EVENTS_DIR_ENV "OPROFILE_EVENTS_DIR"

#endif /* OP_CONFIG_H */
