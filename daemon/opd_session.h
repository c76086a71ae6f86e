/*
 * The session directory: the one place the daemon, opcontrol and the
 * report tools meet. Both oprofiled and opcontrol link this file, so that
 * the lock protocol, the settings files and "reset"/"save" on disk exist
 * once: the daemon uses them while it runs, opcontrol when it does not.
 *
 *   SESSION/lock                  pid of the daemon (see opd_lock_acquire)
 *   SESSION/daemonrc              opcontrol's saved settings (key=value)
 *   SESSION/daemon_state          "sampling" or "paused" while the daemon runs
 *   SESSION/opd_pipe              control FIFO (opd_control.h)
 *   SESSION/complete_dump         last completed dump id (opd_control.h)
 *   SESSION/control_reply         last command reply (opd_control.h)
 *   SESSION/samples/oprofiled.log the daemon's log
 *   SESSION/samples/current/      the live session: session.conf, the
 *                                 core's session/ (kernel symbol data),
 *                                 {root}/ {kern}/ sample trees, stats/
 *   SESSION/samples/NAME/         saved sessions
 *
 * Functions return 0 or -1 after printing a message through op_error().
 */
#ifndef OPD_SESSION_H
#define OPD_SESSION_H

#include <stddef.h>
#include <sys/types.h>

#define OPD_LOCK_FILE "lock"
#define OPD_DAEMONRC_FILE "daemonrc"
#define OPD_STATE_FILE "daemon_state"
#define OPD_LOG_FILE "samples/oprofiled.log"
#define OPD_SESSION_CONF "session.conf"

/* malloc'ed "DIR/REL" (dies on allocation failure). */
char *opd_path(char const *dir, char const *rel);

/* malloc'ed "SESSION/samples/current" or "SESSION/samples/NAME". */
char *opd_samples_path(char const *session_dir, char const *name);

/*
 * Create SESSION, SESSION/samples and SESSION/samples/current (mode 0755)
 * as needed and check that each can be written. The error names the
 * directory that cannot be created or written.
 */
int opd_session_create(char const *session_dir);

/*
 * Lock protocol. The lock file holds the decimal pid of its owner and a
 * newline. It is created atomically with its content (a private temp file
 * created with O_EXCL, then link(2)ed to "lock"), so a reader never sees
 * an empty lock. A lock whose pid is dead, or alive but not an oprofiled,
 * is stale: it is replaced with a warning.
 *
 * opd_lock_acquire(): take the lock for pid. Returns 0, or -1 after
 * "daemon already running (pid N)" (*owner = N) or another error
 * (*owner = 0).
 */
int opd_lock_acquire(char const *session_dir, pid_t pid, pid_t *owner);

/* Replace the pid in a lock we own (after daemonising). */
int opd_lock_update(char const *session_dir, pid_t pid);

/* Remove the lock if it still names pid. */
void opd_lock_release(char const *session_dir, pid_t pid);

/*
 * The pid of the running daemon of this session, or 0 when none is
 * running (no lock, unreadable lock, or a stale one; stale locks are left
 * for the daemon to replace).
 */
pid_t opd_daemon_pid(char const *session_dir);

/* Whether pid is alive and its command name is oprofiled. */
int opd_pid_is_daemon(pid_t pid);

/*
 * Reset the live session on disk: remove every sample tree (top-level
 * entries of samples/current whose name starts with '{') and stats/,
 * keeping session.conf and the kernel symbol data.
 */
int opd_session_reset_files(char const *session_dir);

/* Whether NAME can name a saved session: non-empty, no '/', not "current",
 * not starting with '.'. On failure err says why. */
int opd_session_name_ok(char const *name, char *err, size_t errlen);

/*
 * Save: rename samples/current to samples/NAME (an error if NAME exists)
 * and recreate samples/current holding copies of everything in the saved
 * session but its sample trees and stats/ (session.conf, the core's
 * session/ kernel symbol data). On failure
 * err (when not NULL) holds the message, which is also printed.
 */
int opd_session_save(char const *session_dir, char const *name,
		     char *err, size_t errlen);

/* key=value files (daemonrc, session.conf): one pair a line, '#' comments. */
struct opd_kv {
	size_t nr;
	char **keys;
	char **values;
};

/* Read path into kv (empty when the file does not exist). 0 or -1. */
int opd_kv_read(struct opd_kv *kv, char const *path);
/* The value of key, or NULL. */
char const *opd_kv_get(struct opd_kv const *kv, char const *key);
/* Set or replace key (value copied). */
void opd_kv_set(struct opd_kv *kv, char const *key, char const *value);
/* Write atomically (temp file + rename), keys in insertion order. */
int opd_kv_write(struct opd_kv const *kv, char const *path);
void opd_kv_free(struct opd_kv *kv);

/* Write text to path atomically: PATH.tmp.PID then rename. 0 or -1. */
int opd_write_file_atomic(char const *path, char const *text);

/* rm -rf path (a missing path is fine). 0 or -1. */
int opd_remove_tree(char const *path);

/* Read a small file into buf (NUL-terminated, trailing newline kept).
 * Returns bytes read or -1 (errno set, no message). */
ssize_t opd_read_file(char const *path, char *buf, size_t size);

#endif /* OPD_SESSION_H */
