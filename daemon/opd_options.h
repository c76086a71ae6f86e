/*
 * oprofiled's command line: the popt table, and the checks that turn it
 * into the core's configuration (events validated against the cpu type's
 * events/ files) before anything touches the session directory. Also the
 * session.conf writer, since that file is the options as used.
 */
#ifndef OPD_OPTIONS_H
#define OPD_OPTIONS_H

#include <stdint.h>

#include "op_session_kv.h"
#include "opd_core.h"
#include "opd_source.h"

struct opd_options {
	char *session_dir;              /* absolute once the session exists */
	char *vmlinux;                  /* NULL: kallsyms (--no-vmlinux) */
	char *record_stream;            /* --record-stream=FILE or NULL */
	char *replay;                   /* --replay=FILE or NULL */
	int no_daemon;                  /* --no-daemon or --foreground */
	int foreground;                 /* --foreground: as a service */
	uint64_t rotate;                /* --rotate seconds, 0: never */
	uint64_t keep;                  /* --keep seconds, 0: no limit */
	uint64_t keep_size;             /* --keep-size bytes, 0: no limit */
	int rotation_cmdline;           /* those three came from the command line */
	struct op_kv config;            /* the settings file as read at start */
	int paused;                     /* --paused: wait for "start" */
	unsigned buffer_pages;
	int verbose;
	int sync_interval;              /* seconds between syncs + stats */
	int flush_interval_ms;          /* samples wait in memory at most this */
	unsigned callgraph;             /* --callgraph depth, 0: no backtraces */
	int stack_size;                 /* --stack-size: -1 default, 0 FP only */
	struct opd_source_ops const *source;  /* NULL with --replay */
	char events_text[1024];         /* normalised NAME:count:um:k:u,... */
	char separate_text[64];         /* normalised lib,kernel,... or none */
	char image_text[1024];          /* --image list, or all */
};

/*
 * Parse argv into o and cfg: validates every option (events against the
 * cpu type, vmlinux exists, privileges for live sampling) and dies with a
 * clear message (exit 1; 2 for a usage error) when one is wrong.
 */
void opd_options_parse(struct opd_options *o, struct opd_config *cfg,
		       int argc, char const **argv);

/*
 * Write SESSION/samples/current/session.conf: events, separate, callgraph,
 * cpu_type, cpu_speed, vmlinux, image, source, start_time (seconds since the
 * epoch) and start_time_text. 0 or -1.
 */
int opd_options_save(struct opd_options const *o, struct opd_config const *cfg);

/*
 * SIGHUP: read the settings file again. rotate, keep and keep_size take
 * effect at once (unless the command line set them); a change of any
 * other key is logged as needing a restart. 0, or -1 (the file is bad:
 * nothing changes).
 */
int opd_options_reload(struct opd_options *o);

#endif /* OPD_OPTIONS_H */
