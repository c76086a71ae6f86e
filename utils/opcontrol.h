/* Shared by opcontrol.c and opcontrol_start.c. */
#ifndef OPCONTROL_H
#define OPCONTROL_H

#include <stddef.h>
#include <sys/types.h>

#include "op_session_kv.h"

/* How long to wait for the daemon to answer, to dump, or to exit. */
#define OPC_WAIT_MS 60000

/*
 * Path of prog next to this executable, else in build_dir (relative to
 * this executable's directory, e.g. "../daemon/" in the build tree; may
 * be NULL), else prog itself (found in PATH).
 */
char *opc_find_program(char const *prog, char const *build_dir);

/* The running session's settings (samples/current/session.conf); empty
 * when unreadable. */
void opc_load_running(char const *dir, struct op_kv *kv);

/*
 * Send "WHAT [NAME] ID" to the daemon pid of session dir and wait for its
 * answer (complete_dump for "dump", control_reply otherwise). 0 or -1
 * after a message.
 */
int opc_command(char const *dir, pid_t pid, char const *what, char const *name);

/* -1 after "daemon already running (pid N) with different settings" when
 * the running daemon's settings are not want's. */
int opc_check_running(char const *dir, pid_t pid, struct op_kv const *want);

/* The callgraph depth of settings kv (0 when not set). 0, or -1 with err. */
int opc_callgraph(struct op_kv const *kv, unsigned *depth, char *err, size_t errlen);

/*
 * --start: tell a running daemon (pid != 0) to sample, or start oprofiled
 * with want's settings (events, separate, vmlinux, image, buffer sizes).
 * paused (--start-daemon): start it without sampling; a running daemon is
 * left as it is. 0 or -1.
 */
int opc_start(char const *dir, int verbose, int paused, pid_t pid,
	      struct op_kv const *want);

/* --init / --deinit (opcontrol_driver.c): load the oprofile driver and
 * mount it on the driver directory (op_driver_dir()); unmount and unload.
 * 0 or -1 (message printed). */
int opc_driver_init(void);
int opc_driver_deinit(void);

/* Whether oprofilefs is mounted on the driver directory: then opcontrol
 * asks oprofiled for the driver source, else for perf. */
int opc_driver_loaded(void);

#endif /* OPCONTROL_H */
