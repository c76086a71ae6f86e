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
 * retention below deletes the oldest. Sessions with other names (saved
 * by hand, "current") are never rotated sessions.
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

/* Whether name names a rotated session (the full form, with a 'T'). */
bool op_rotate_is_name(char const *name, time_t *t);

struct op_rotated {
	char *name;
	time_t t;                 /* the time its name says */
};

/*
 * The rotated sessions under SESSION/samples, oldest first (by time, then
 * name). *v malloc'ed (free with op_rotated_free). 0 or -1 (message).
 */
int op_rotated_list(char const *session_dir, struct op_rotated **v, size_t *n);
void op_rotated_free(struct op_rotated *v, size_t n);

/* Disk space of a directory tree: st_blocks of its files, a file with N
 * hard links counted 1/N (sessions share kernel data by hard links). */
uint64_t op_session_disk_usage(char const *dir);

/*
 * Retention: remove rotated sessions, oldest first, that ended more than
 * keep seconds before now (a session ends where the next one begins; the
 * newest is never removed by age), and then while all of them together
 * take more than keep_bytes. 0 turns a limit off. Never touches the live
 * session or other names. Each removal is said with op_info (name and
 * reason). The number removed, or -1 after a message.
 */
int op_rotate_retain(char const *session_dir, time_t now, uint64_t keep,
		     uint64_t keep_bytes);

#endif /* OP_SESSION_ROTATE_H */
