/*
 * The control channel between opcontrol (or any script) and oprofiled.
 *
 * Requests: SESSION/opd_pipe, a FIFO the daemon keeps open. One command a
 * line, at most 511 bytes (so a write is atomic):
 *
 *   start [ID]        start sampling (as SIGUSR1)
 *   stop [ID]         stop sampling, then flush (as SIGUSR2)
 *   dump ID           flush every sample taken before the command, sync
 *                     the files and the stats, then write "ID\n" to
 *                     SESSION/complete_dump
 *   reset [ID]        flush, close and remove the live sample files and
 *                     stats (session.conf and the kernel data stay)
 *   save NAME [ID]    flush, close, rename samples/current to
 *                     samples/NAME and start a new current
 *   exit              as SIGTERM
 *
 * ID: 1-63 characters of [A-Za-z0-9._-]. When a command other than dump
 * carries one, the daemon answers by replacing SESSION/control_reply with
 * "ID ok\n" or "ID error MESSAGE\n" once the command is done. Both answer
 * files are replaced atomically (temp file + rename). Everything is also
 * logged in samples/oprofiled.log.
 *
 * Those two files are shared: two senders at once could each read the
 * other's answer and time out waiting for their own. So a sender first
 * makes its own answer file SESSION/reply.ID holding "-" (O_EXCL: the id
 * holds its pid and a clock reading) and waits there; the daemon writes
 * the answer (the same text) in place into reply.ID when it exists, then
 * into the shared file.
 *
 * Dump ids made by op_control_make_id() are "NANOSECONDS.PID" with
 * CLOCK_MONOTONIC nanoseconds taken before the request was written: a
 * waiter may accept a later id, since the daemon handles commands in
 * order and each dump flushes up to the moment it is handled.
 */
#ifndef OP_SESSION_CONTROL_H
#define OP_SESSION_CONTROL_H

#include <stddef.h>
#include <sys/types.h>

#include "op_session.h"  /* OP_FIFO_FILE, OP_DUMP_FILE, OP_REPLY_FILE */

#define OP_CONTROL_LINE_MAX 512
#define OP_CONTROL_ID_MAX 64

enum op_cmd {
	OP_CMD_START,
	OP_CMD_STOP,
	OP_CMD_DUMP,
	OP_CMD_RESET,
	OP_CMD_SAVE,
	OP_CMD_EXIT,
};

struct op_command {
	enum op_cmd cmd;
	char name[256];                /* save: the session name */
	char id[OP_CONTROL_ID_MAX];    /* "" when none was given */
};

/* Parse one line (no newline). 0, or -1 with err saying what is wrong. */
int op_command_parse(char const *line, struct op_command *c,
		     char *err, size_t errlen);

/* --- daemon side --- */

struct op_control {
	int fd;                 /* the FIFO, O_RDWR: never sees EOF */
	char *fifo;             /* its path */
	char buf[OP_CONTROL_LINE_MAX];
	size_t len;             /* bytes of an incomplete line in buf */
	int discarding;         /* skipping the rest of an overlong line */
};

/* (Re)create SESSION/opd_pipe and open it. 0 or -1 (message printed). */
int op_control_open(struct op_control *c, char const *session_dir);

/*
 * The next command waiting in the FIFO: 1 (cmd filled), 0 (none now).
 * Malformed lines are reported with op_warn() and skipped.
 */
int op_control_next(struct op_control *c, struct op_command *cmd);

void op_control_close(struct op_control *c);

/* Answer a command that carried an id; error NULL for success. */
int op_control_reply(char const *session_dir, char const *id,
		     char const *error);

/*
 * Announce that dump id is complete: "ID\n", or "ID error MESSAGE\n"
 * when error is not NULL (samples could not be written: the disk is
 * full), which the waiter reports at once. On a full disk the existing
 * file is overwritten in place.
 */
int op_control_dump_done(char const *session_dir, char const *id,
			 char const *error);

/* Stale reply.ID files of senders gone (at daemon start). */
void op_control_clean_replies(char const *session_dir);

/* --- client side --- */

/*
 * Make SESSION/reply.ID (empty, O_EXCL, no symbolic link followed) for a
 * command about to be sent with id; the waiters below then read it.
 * 0, or -1 (no message: the shared answer files serve instead).
 */
int op_control_reply_open(char const *session_dir, char const *id);

/* Remove SESSION/reply.ID (answered, or given up). */
void op_control_reply_close(char const *session_dir, char const *id);

/* A fresh id "NANOSECONDS.PID". */
void op_control_make_id(char *id, size_t size);

/*
 * Write one command line (newline added) to the FIFO. 0, or -1 with a
 * message (no daemon reading it, FIFO missing, ...).
 */
int op_control_send(char const *session_dir, char const *line);

/*
 * Wait until SESSION/complete_dump holds id (or a later dump id), polling
 * with short sleeps. Gives up after timeout_ms, or as soon as pid is no
 * longer a running daemon. 0, or -1 with a message (also when the dump
 * completed with an error: its message).
 */
int op_control_wait_dump(char const *session_dir, char const *id,
			 pid_t pid, int timeout_ms);

/*
 * Wait for the reply to id in SESSION/control_reply. 0 (ok), or -1 with a
 * message: the daemon's error (copied to err too), a timeout or the death
 * of pid.
 */
int op_control_wait_reply(char const *session_dir, char const *id,
			  pid_t pid, int timeout_ms, char *err, size_t errlen);

#endif /* OP_SESSION_CONTROL_H */
