/*
 * The reader of a session's stacks (op_stacks.h): the table, the events
 * that have count files, and the counts per stack id.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "odb.h"
#include "op_sample_file.h"
#include "op_stacks_int.h"
#include "op_util.h"
#include "op_walk.h"

struct op_stacks {
	struct table t;
	char *dir;
	char **events;
	size_t nevents, aevents;
};

static int str_cmp(void const *a, void const *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_event_name(char const *name)
{
	return name[0] != '.' && strcmp(name, OP_STACKS_TABLE) &&
	       strchr(name, '.');
}

static int add_event(void *arg, struct op_walk_entry const *e)
{
	struct op_stacks *st = arg;

	if (is_event_name(e->name)) {
		OP_ALLOC_GROW(st->events, st->nevents + 1, st->aevents);
		st->events[st->nevents++] = op_xstrdup(e->name);
	}
	return 0;
}

static int list_events(struct op_stacks *st)
{
	if (op_walk(st->dir, 0, add_event, NULL, st) < 0) {
		int ret = -errno;

		op_error_errno("cannot read directory '%s'", st->dir);
		return ret;
	}
	if (st->nevents)
		qsort(st->events, st->nevents, sizeof(*st->events), str_cmp);
	return 0;
}

int op_stacks_open(char const *session_samples_dir, struct op_stacks **out)
{
	struct op_stacks *st = op_xcalloc(1, sizeof(*st));
	char *path;
	int ret;

	*out = NULL;
	st->dir = op_xasprintf("%s/%s", session_samples_dir, OP_STACKS_DIR);
	path = op_xasprintf("%s/%s", st->dir, OP_STACKS_TABLE);
	op_stacks_table_init(&st->t, path);
	free(path);
	ret = op_stacks_table_load(&st->t);
	if (!ret)
		ret = list_events(st);
	if (ret) {
		op_stacks_close(st);
		return ret;
	}
	*out = st;
	return 0;
}

void op_stacks_close(struct op_stacks *st)
{
	size_t i;

	if (!st)
		return;
	op_stacks_table_free(&st->t);
	for (i = 0; i < st->nevents; i++)
		free(st->events[i]);
	free(st->events);
	free(st->dir);
	free(st);
}

size_t op_stacks_nimages(struct op_stacks const *st)
{
	return st->t.nimages;
}

struct op_stack_image const *op_stacks_image(struct op_stacks const *st,
					     uint32_t i)
{
	return i < st->t.nimages ? &st->t.images[i]->img : NULL;
}

size_t op_stacks_nevents(struct op_stacks const *st)
{
	return st->nevents;
}

char const *op_stacks_event(struct op_stacks const *st, size_t i)
{
	return i < st->nevents ? st->events[i] : NULL;
}

size_t op_stacks_nstacks(struct op_stacks const *st)
{
	return st->t.nstacks;
}

struct op_stack const *op_stacks_stack(struct op_stacks const *st, size_t i)
{
	return i < st->t.nstacks ? &st->t.stacks[i]->s : NULL;
}

struct op_stack const *op_stacks_find(struct op_stacks const *st,
				      uint64_t id)
{
	return id && id <= st->t.nstacks ? &st->t.stacks[id - 1]->s : NULL;
}

struct visit {
	struct op_stacks const *st;
	char const *event;
	char const *path;
	int (*cb)(void *, struct op_stack const *, char const *, uint64_t);
	void *arg;
	int err;
};

static int visit_count(odb_key_t key, odb_value_t value, void *arg)
{
	struct visit *v = arg;
	struct op_stack const *s = op_stacks_find(v->st, key);

	if (!s) {
		op_error("%s: a count of stack %llu, which '%s' does not hold",
			 v->path, (unsigned long long)key, v->st->t.path);
		v->err = -EINVAL;
		return v->err;
	}
	if (!value)
		return 0;
	return v->cb(v->arg, s, v->event, value);
}

static int foreach_event(struct op_stacks const *st, char const *event,
			 struct visit *v)
{
	struct odb db;
	char *path = op_xasprintf("%s/%s", st->dir, event);
	int ret = odb_open(&db, path, ODB_RDONLY, sizeof(struct opd_header));

	if (ret) {
		op_error("%s", db.err);
		free(path);
		return ret;
	}
	v->event = event;
	v->path = path;
	ret = odb_for_each(&db, visit_count, v);
	odb_close(&db);
	free(path);
	return ret;
}

int op_stacks_foreach(struct op_stacks const *st, char const *event,
		      int (*cb)(void *arg, struct op_stack const *s,
				char const *event, uint64_t count),
		      void *arg)
{
	struct visit v = { .st = st, .cb = cb, .arg = arg };
	size_t i;
	int ret;

	for (i = 0; i < st->nevents; i++) {
		if (event && strcmp(event, st->events[i]))
			continue;
		ret = foreach_event(st, st->events[i], &v);
		if (ret)
			return ret;
	}
	return 0;
}
