/*
 * key=value files of a session: daemonrc (opcontrol's saved settings) and
 * session.conf (the settings a session was sampled with). One pair a line,
 * blanks around key and value ignored, '#' starts a comment line; a value
 * may hold '='. Written atomically, keys in insertion order.
 */
#ifndef OP_SESSION_KV_H
#define OP_SESSION_KV_H

#include <stddef.h>

struct op_kv {
	size_t nr;
	size_t alloc;	/* of keys and of values */
	char **keys;
	char **values;
};

/* Read path into kv (empty when the file does not exist). 0, or -1 after
 * a message naming the file (and the line), kv left empty. */
int op_kv_read(struct op_kv *kv, char const *path);

/* Whether value is right for key: 0, or -1 with err filled in. */
typedef int op_kv_check(char const *key, char const *value, char *err,
			size_t errlen);

/* op_kv_read, each pair checked as read: a bad one is "PATH:LINE: err". */
int op_kv_read_checked(struct op_kv *kv, char const *path, op_kv_check *check);

/* The value of key, or NULL. */
char const *op_kv_get(struct op_kv const *kv, char const *key);

/* Set or replace key (value copied). */
void op_kv_set(struct op_kv *kv, char const *key, char const *value);

/* Write atomically (temp file + rename). 0 or -1 after a message. */
int op_kv_write(struct op_kv const *kv, char const *path);

void op_kv_free(struct op_kv *kv);

#endif /* OP_SESSION_KV_H */
