/*
 * What opcontrol's files share. opcontrol.c reads the command line and
 * runs the actions in order; one job per file: the settings
 * (opcontrol_settings.c), the commands to a session
 * (opcontrol_command.c), --status (opcontrol_status.c), --start
 * (opcontrol_start.c), --init and --deinit (opcontrol_driver.c), and
 * finding the programs it runs (opcontrol_program.c).
 */
#ifndef OPCONTROL_H
#define OPCONTROL_H

#include <stddef.h>
#include <sys/types.h>

#include "op_session_kv.h"

/* How long to wait for the daemon to answer, to dump, or to exit. */
#define OPC_WAIT_MS 60000

/* The command line (opcontrol.c's option table fills it in). */
struct opc_options {
	char *session_dir;
	char *events;          /* comma list of every --event */
	char *separate;
	char *callgraph;       /* --callgraph depth, as given */
	char *vmlinux;
	char *save;
	char *image;           /* --image filter, as given */
	char *kernel_range;
	char *buffer_size, *buffer_watershed, *cpu_buffer_size;
	int no_vmlinux;
	int start, stop, dump, reset, shutdown, status, setup, start_daemon;
	int list_events, init, deinit, version, verbose;
	int keep_binaries, no_keep_binaries;
	char *rotate, *keep, *keep_size;
	struct op_kv config;   /* the settings file (op_settings_config_read) */
};

extern struct opc_options opt;

/* --- opcontrol_program.c --- */

/*
 * Path of prog next to this executable, else in build_dir (relative to
 * this executable's directory, e.g. "../daemon/" in the build tree; may
 * be NULL), else prog itself (found in PATH).
 */
char *opc_find_program(char const *prog, char const *build_dir);

/* --- opcontrol_settings.c --- */

/*
 * The settings to use: daemonrc with this command line merged in. They
 * are saved when given, but not when --start is refused because a daemon
 * runs with other settings. 0 or -1.
 */
int opc_settings(struct op_kv *kv, pid_t pid);

/* Fill in the defaults of the settings not given. */
void opc_default_settings(struct op_kv *kv);

/* The running session's settings (samples/current/session.conf); empty
 * when unreadable. */
void opc_load_running(char const *dir, struct op_kv *kv);

/* -1 after "daemon already running (pid N) with different settings" when
 * the running daemon's settings are not want's. */
int opc_check_running(char const *dir, pid_t pid, struct op_kv const *want);

/* The callgraph depth of settings kv (0 when not set). 0, or -1 with err. */
int opc_callgraph(struct op_kv const *kv, unsigned *depth, char *err, size_t errlen);

/* --- opcontrol_command.c --- */

/*
 * Send "WHAT [NAME] ID" to the daemon pid of session dir and wait for its
 * answer (complete_dump for "dump", control_reply otherwise). 0 or -1
 * after a message.
 */
int opc_command(char const *dir, pid_t pid, char const *what, char const *name);

/* --dump, --save, --reset, --stop, --shutdown of the session opt names,
 * its daemon pid (0: none runs). 0, or -1 after a message. */
int opc_dump(pid_t pid);
int opc_save(pid_t pid);
int opc_reset(pid_t pid);
int opc_stop(pid_t pid);
int opc_shutdown(pid_t pid);

/* --- opcontrol_status.c --- */

/* --status: the daemon (pid, 0: none), the settings, the service. */
int opc_status(pid_t pid);

/* --- opcontrol_start.c --- */

/*
 * --start: tell a running daemon (pid != 0) to sample, or start oprofiled
 * with want's settings (events, separate, vmlinux, image, buffer sizes).
 * paused (--start-daemon): start it without sampling; a running daemon is
 * left as it is. 0 or -1.
 */
int opc_start(char const *dir, int verbose, int paused, pid_t pid,
	      struct op_kv const *want);

/* --- opcontrol_driver.c --- */

/* --init / --deinit: load the oprofile driver and
 * mount it on the driver directory (op_driver_dir()); unmount and unload.
 * 0 or -1 (message printed). */
int opc_driver_init(void);
int opc_driver_deinit(void);

/* Whether oprofilefs is mounted on the driver directory: then opcontrol
 * asks oprofiled for the driver source, else for perf. */
int opc_driver_loaded(void);

#endif /* OPCONTROL_H */
