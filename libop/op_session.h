/*
 * The session directory: the one place the daemon, opcontrol and the
 * report tools meet (doc/formats.md section 1). Every name in it is
 * spelled here and nowhere else:
 *
 *   SESSION/lock                  pid of the daemon (op_lock_acquire)
 *   SESSION/daemonrc              opcontrol's saved settings (op_session_kv.h)
 *   SESSION/daemon_state          "sampling" or "paused" while the daemon runs
 *   SESSION/opd_pipe              control FIFO (op_session_control.h)
 *   SESSION/complete_dump         last completed dump id
 *   SESSION/control_reply         last command reply
 *   SESSION/reply.ID              the reply to one sender's command ID
 *   SESSION/kernel-cache/         kallsyms gzipped once per boot (key,
 *                                 kernel_range, kallsyms.gz, kallsyms.idx)
 *   SESSION/samples/oprofiled.log the daemon's log
 *   SESSION/samples/current/      the live session: session.conf,
 *                                 session/ (op_session_kernel.h),
 *                                 {root}/ {kern}/ sample trees, stats/
 *   SESSION/samples/NAME/         saved sessions
 *   SESSION/fleet/                the fleet's shipper (doc/fleet.md):
 *                                 queue/NAME (closed sessions to ship),
 *                                 spool/ (their rows), stats, lock
 *
 * Also the oprofile driver's directory, which every tool finds the same
 * way. Functions return 0 or -1 after printing a message through
 * op_error(), unless they say otherwise.
 */
#ifndef OP_SESSION_H
#define OP_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Default session directory (--session-dir overrides it). */
#define OP_SESSION_DIR_DEFAULT "/var/lib/oprofile"

/* Entries of the session directory. */
#define OP_LOCK_FILE "lock"
#define OP_DAEMONRC_FILE "daemonrc"
#define OP_STATE_FILE "daemon_state"
#define OP_FIFO_FILE "opd_pipe"
#define OP_DUMP_FILE "complete_dump"
#define OP_REPLY_FILE "control_reply"
#define OP_REPLY_PREFIX "reply."
#define OP_KERNEL_CACHE_DIR "kernel-cache"
#define OP_SAMPLES_DIR "samples"
#define OP_LOG_FILE OP_SAMPLES_DIR "/oprofiled.log"
#define OP_CURRENT_SESSION "current"
#define OP_FLEET_DIR "fleet"
#define OP_FLEET_QUEUE OP_FLEET_DIR "/queue"
#define OP_FLEET_SPOOL OP_FLEET_DIR "/spool"
#define OP_FLEET_STATS OP_FLEET_DIR "/stats"
#define OP_FLEET_LOCK OP_FLEET_DIR "/lock"

/* Entries of one session, samples/NAME/, besides its sample trees. */
#define OP_SESSION_CONF "session.conf"
#define OP_STATS_DIR "stats"
#define OP_META_DIR "session"
/* whole stacks (op_stacks.h): profile data, but no sample tree */
#define OP_STACKS_DIR "stacks"

/* Entries of session/ (the kernel of the sampled boot). */
#define OP_META_KALLSYMS "kallsyms.gz"
#define OP_META_KALLSYMS_PLAIN "kallsyms"      /* read too, never written */
/* kallsyms.gz's symbols, ready to use (op_session_kernel.h; ours) */
#define OP_META_KALLSYMS_INDEX "kallsyms.idx"
#define OP_META_MODULES "modules"
#define OP_META_KERNEL_IMAGES "kernel_images"
/* and of the binaries sampled: their build-ids (op_build_id.h) */
#define OP_META_BUILD_IDS "build-ids"
/* and their loadable segments, by build-id (op_build_id.h) */
#define OP_META_SEGMENTS "segments"
/* and copies of binaries of other mount namespaces, by build-id */
#define OP_META_BINARIES "binaries"
/* and what JITs' perf maps say about sampled anonymous regions:
 * jit/TGID.map (op_perf_map.h) */
#define OP_META_JIT "jit"

/* Entries of kernel-cache/. */
#define OP_KCACHE_KEY "key"
#define OP_KCACHE_RANGE "kernel_range"
#define OP_KCACHE_KALLSYMS "kallsyms.gz"
#define OP_KCACHE_KALLSYMS_INDEX OP_META_KALLSYMS_INDEX

/*
 * The one rule for what a session holds: a top-level entry whose name
 * starts with '{' ({root}, {kern}, {anon:...}) is a sample tree; anything
 * else (session.conf, session/, stats/) is metadata, which report tools
 * skip.
 */
bool op_session_is_sample_tree(char const *name);

/*
 * What reset removes and save leaves out of the new current session: the
 * sample trees, the statistics (stats/ and its temporary siblings) and
 * the stacks (stacks/).
 */
bool op_session_is_profile_data(char const *name);

/* malloc'ed "DIR/REL" (dies on allocation failure). */
char *op_session_path(char const *dir, char const *rel);

/* malloc'ed "SESSION/samples/NAME" (NAME "current": the live session). */
char *op_session_samples(char const *session_dir, char const *name);

/*
 * Create SESSION, SESSION/samples and SESSION/samples/current (mode 0755)
 * as needed and check that each can be written. The error names the
 * directory that cannot be created or written.
 */
int op_session_create(char const *session_dir);

/*
 * Lock protocol. The lock file holds the decimal pid of its owner and a
 * newline. It is created atomically with its content (a private temp file
 * created with O_EXCL, then link(2)ed to "lock"), so a reader never sees
 * an empty lock. A lock whose pid is dead, or alive but not an oprofiled
 * (its command name does not contain "oprofiled"), is stale: it is
 * replaced with a warning.
 *
 * op_lock_acquire(): take the lock for pid. Returns 0, or -1 after
 * "daemon already running (pid N)" (*owner = N) or another error
 * (*owner = 0).
 */
int op_lock_acquire(char const *session_dir, pid_t pid, pid_t *owner);

/* Replace the pid in a lock we own (after daemonising). */
int op_lock_update(char const *session_dir, pid_t pid);

/* Remove the lock if it still names pid. */
void op_lock_release(char const *session_dir, pid_t pid);

/*
 * The pid of the running daemon of this session, or 0 when none is
 * running (no lock, unreadable lock, or a stale one; stale locks are left
 * for the daemon to replace).
 */
pid_t op_session_daemon_pid(char const *session_dir);

/* Whether pid is alive and its command name is oprofiled. */
bool op_pid_is_daemon(pid_t pid);

/*
 * Reset the live session on disk: remove its profile data (sample trees
 * and stats/), keeping session.conf and session/ but for the record of
 * the removed samples' binaries (session/build-ids and segments: a
 * daemon started on the session would keep them).
 */
int op_session_reset(char const *session_dir);

/* Whether NAME can name a saved session: non-empty, no '/', not "current",
 * not starting with '.', no white space. On failure err says why. */
bool op_session_name_ok(char const *name, char *err, size_t errlen);

/*
 * Save: rename samples/current to samples/NAME (an error if NAME exists)
 * and recreate samples/current holding copies of everything in the saved
 * session but its profile data (session.conf, session/ but for build-ids
 * and segments, the saved samples'). On failure err
 * (when not NULL) holds the message, which is also printed.
 */
int op_session_save(char const *session_dir, char const *name,
		    char *err, size_t errlen);

/* op_write_file_atomic (op_util.h) of a string; on a full disk, an
 * existing file is rewritten in place instead. 0 or -1 after a message. */
int op_session_write_text(char const *path, char const *text);

/* rm -rf path (a missing path is fine). 0 or -1. */
int op_session_remove_tree(char const *path);

/* Read a small file (a regular file only, op_open_regular: never a FIFO)
 * into buf (NUL-terminated, trailing newline kept), at most size - 1 bytes.
 * Returns bytes read or -1 (errno set, no message). */
ssize_t op_session_read_small(char const *path, char *buf, size_t size);

/* The oprofile driver's directory: $OPROFILE_DRIVER_DIR, else this. */
#define OP_DRIVER_DIR_DEFAULT "/dev/oprofile"
#define OP_DRIVER_DIR_ENV "OPROFILE_DRIVER_DIR"

char const *op_driver_dir(void);

/* "DRIVER_DIR/name" in buf (name "" for the directory itself). */
char const *op_driver_path(char *buf, size_t size, char const *name);

#endif /* OP_SESSION_H */
