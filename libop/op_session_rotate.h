/*
 * Sessions by time (oprofiled --rotate): the live session is saved at
 * each boundary of the interval as samples/NAME, NAME the UTC time the
 * saved period began, in a sortable, file-name-safe form:
 *
 *   2026-11-26T14            intervals of whole hours (and days)
 *   2026-11-26T14:05         of whole minutes
 *   2026-11-26T14:05:30      of seconds
 *   2026-11-26T14:05:30.2    a second session of that time (a restart)
 *
 * Boundaries are multiples of the interval since the epoch (UTC), so an
 * hourly session holds 14:00 to 15:00 (or from the daemon's start). The
 * report tools take ranges of these names (libpp/pp_timerange.h); the
 * retention below deletes the oldest.
 *
 * A name alone does not make a rotated session: anyone may save one as
 * "2021-05-05T05" by hand. The daemon marks each session it rotates with
 * the line rotated=NAME in its session.conf, NAME the name it gave it
 * (op_rotate_mark); retention removes only a session whose name has the
 * form above and whose session.conf (read as op_kv_read reads: a regular
 * file, bounded, no link below the guard) says that same name. A session
 * saved by hand, copied or renamed from a rotated one, or rotated by a
 * version before the mark, is never removed.
 */
#ifndef OP_SESSION_ROTATE_H
#define OP_SESSION_ROTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* The name of a period beginning at t (UTC) for interval seconds. */
void op_rotate_name(time_t t, uint64_t interval, char *buf, size_t size);

/*
 * A time in the form of the names above, also cut short after the day or
 * the hour ("2026-11-26", "2026-11-26T14"), a suffix ".N" allowed when
 * suffix is true. *t the UTC time it names. true when text is one.
 */
bool op_rotate_parse_time(char const *text, bool suffix, time_t *t);

/* Whether name has the form of a rotated session's (the full form, with
 * a 'T'); whether the session is one is op_rotated_list's. */
bool op_rotate_is_name(char const *name, time_t *t);

/* The session.conf key of the mark. */
#define OP_ROTATED_KEY "rotated"

/*
 * Mark samples/NAME of session_dir as rotated by the daemon (rotated=NAME
 * in its session.conf), with end (when not 0) as end_time, the time its
 * period ended. 0, or -1 after a message.
 */
int op_rotate_mark(char const *session_dir, char const *name, time_t end);

struct op_rotated {
	char *name;
	time_t t;                 /* the time its name says */
};

/*
 * The rotated sessions under SESSION/samples (a rotated name and the
 * mark), oldest first (by time, then name). *v malloc'ed (free with op_rotated_free). 0 or -1 (message).
 */
int op_rotated_list(char const *session_dir, struct op_rotated **v, size_t *n);
void op_rotated_free(struct op_rotated *v, size_t n);

/* Disk space of a directory tree: st_blocks of its files, a file with N
 * hard links counted 1/N (sessions share kernel data by hard links). */
uint64_t op_session_disk_usage(char const *dir);

/*
 * Retention: remove rotated sessions, oldest first, that ended more than
 * keep seconds before now (a session ends where the next one begins),
 * and then while all of them together take more than keep_bytes. 0 turns
 * a limit off. The newest rotated session is never removed (by age or by
 * size), nor the live session or any session not marked rotated. Each removal is said with op_info (name and
 * reason). The number removed, or -1 after a message.
 */
int op_rotate_retain(char const *session_dir, time_t now, uint64_t keep,
		     uint64_t keep_bytes);

#endif /* OP_SESSION_ROTATE_H */
