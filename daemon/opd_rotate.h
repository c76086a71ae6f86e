/*
 * oprofiled --rotate: the clock of sessions by time (when the live
 * session is saved, under which name) and, at start, the samples a killed
 * run left in the live session. The save itself (flush, close, rename,
 * new stats) is the process loop's (oprofiled.c); names, listing and
 * retention are the session library's (op_session_rotate.h).
 */
#ifndef OPD_ROTATE_H
#define OPD_ROTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct opd_rotation {
	uint64_t interval;      /* seconds; 0: no rotation */
	time_t period_start;    /* when the live session's period began (0: not yet) */
	time_t next;            /* the next boundary */
	unsigned nr_rotated;    /* sessions saved */
};

/*
 * (Re)start the clock: interval seconds, boundaries at its multiples since
 * the epoch; the live period begins now unless it began already (a
 * reload). Says so in the log. Nothing with interval 0.
 */
void opd_rotation_start(struct opd_rotation *r, uint64_t interval, time_t now);

/* 0, or (when a boundary has passed at now) the last boundary: the start
 * of the next period, even when the loop is late. Moves the clock on. */
time_t opd_rotation_due(struct opd_rotation *r, time_t now);

/* Milliseconds the loop may sleep when it has nothing else to wait for
 * (-1: forever). */
int opd_rotation_timeout(struct opd_rotation const *r, time_t now);

/* A name for the live session's period that no session of session_dir
 * has yet (op_session_rotate.h's forms). */
void opd_rotation_name(struct opd_rotation const *r, char const *session_dir,
		       char *name, size_t size);

/* Mark session name as rotated (op_rotate_mark), end (seconds since the
 * epoch; 0: unknown) its end_time; a failure is a warning. */
void opd_rotation_mark_end(char const *session_dir, char const *name, time_t end);

/*
 * At start: samples left in the live session by a run that did not stop
 * cleanly (kill -9, power loss) belong to its period and its boot's
 * kernel: save them as a session named by their session.conf's
 * start_time, before this run writes there. Logs what it did. The name
 * saved under goes to saved (size bytes; "" when nothing was saved).
 */
void opd_rotation_leftover(char const *session_dir, char *saved, size_t size);

/*
 * Retention (--keep, --keep-size: op_rotate_retain) off the loop: removing
 * a session of thousands of files takes seconds, so a child process does
 * it (at nice 10) while the loop samples on. One at a time: asked again
 * while one works, it runs once more when that one ends.
 */
struct opd_retention {
	pid_t pid;              /* the child at work; 0: none */
	bool again;             /* asked while it worked */
	char const *session_dir;
	uint64_t keep, keep_bytes;
};

/* Start retention for session_dir (kept as a pointer) with these limits;
 * nothing when both are 0. */
void opd_retention_run(struct opd_retention *r, char const *session_dir,
		       uint64_t keep, uint64_t keep_bytes);
/* In the loop: reap the child that ended, start the one asked since. */
void opd_retention_poll(struct opd_retention *r);
/* At exit: wait for the child at work (and the one asked since). */
void opd_retention_wait(struct opd_retention *r);

#endif /* OPD_ROTATE_H */
