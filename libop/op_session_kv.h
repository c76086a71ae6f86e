/*
 * key=value files of a session: daemonrc (opcontrol's saved settings) and
 * session.conf (the settings a session was sampled with). One pair a line,
 * blanks around key and value ignored, '#' starts a comment line; a value
 * may hold '='. Written atomically, keys in insertion order.
 *
 * Their paths may come from a user (--session-dir, $OPROFILE_CONFIG) and
 * their bytes from anyone who can write there, so they are read as
 * op_read_file reads (op_file.h: a regular file only, never blocking on a
 * FIFO or device, no symbolic link below the guard directory) and at most
 * OP_KV_MAX_BYTES of them: a larger file is an error, not read whole.
 */
#ifndef OP_SESSION_KV_H
#define OP_SESSION_KV_H

#include <stdbool.h>
#include <stddef.h>

struct op_kv {
	size_t nr;
	size_t alloc;	/* of keys, values and lines */
	char **keys;
	char **values;
	unsigned *lines;	/* the line each pair was read from; 0: set */
};

/* The largest key=value file read (a settings file is a few lines). */
#define OP_KV_MAX_BYTES (1024 * 1024)

/* Read path into kv (empty when the file does not exist). 0, or -1 after
 * a message naming the file (and the line), kv left empty. */
int op_kv_read(struct op_kv *kv, char const *path);

/* Whether value is right for key: 0, or -1 with err filled in. */
typedef int op_kv_check(char const *key, char const *value, char *err,
			size_t errlen);

/* op_kv_read, each pair checked as read: a bad one is "PATH:LINE: err". */
int op_kv_read_checked(struct op_kv *kv, char const *path, op_kv_check *check);

/* The line of path key was read from: 0 when not read, or set since. */
unsigned op_kv_line(struct op_kv const *kv, char const *key);

/* The value of key, or NULL. */
char const *op_kv_get(struct op_kv const *kv, char const *key);

/* Set or replace key (value copied). */
void op_kv_set(struct op_kv *kv, char const *key, char const *value);

/* Add a pair even when key is there (op_kv_get finds the first). */
void op_kv_append(struct op_kv *kv, char const *key, char const *value);

/* Keys a file may give on several lines, each line a pair of its own
 * (fleet_label): op_kv_read appends them instead of replacing. */
bool op_kv_repeats(char const *key);

/* Write atomically (temp file + rename). 0 or -1 after a message. */
int op_kv_write(struct op_kv const *kv, char const *path);

void op_kv_free(struct op_kv *kv);

#endif /* OP_SESSION_KV_H */
