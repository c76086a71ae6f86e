/*
 * The session's whole stacks read back with op_stacks (libstacks/op_stacks.h)
 * and checked against the ELF oracle (tests/lib/elf_range):
 *
 *   stackcheck --dump SAMPLES_DIR
 *	every stack: count, event, tgid, stop reason, frames
 *   stackcheck SAMPLES_DIR IMAGE SYMBOL_FILE LEAF CALLER
 *	of the samples whose leaf frame is in function LEAF of IMAGE (the
 *	binary's path as sampled), how many have CALLER of IMAGE as the
 *	next frame and how many have it anywhere: "LEAF_SAMPLES
 *	DIRECT_CALLER ANYWHERE STOPPED_BEFORE_ROOT"; SYMBOL_FILE is where
 *	the function ranges are read (the binary, or its unstripped copy)
 *   stackcheck --reach SAMPLES_DIR IMAGE SYMBOL_FILE FUNC
 *	of the samples whose stack has a frame in IMAGE, how many have FUNC
 *	of IMAGE among their frames: "SAMPLES REACHING"
 *   stackcheck --sum SAMPLES_DIR
 *	the sum of every count, and per stop reason "NAME=N"
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_range.h"
#include "op_message.h"
#include "op_stacks.h"
#include "op_util.h"

struct range {
	unsigned long start, end;
};

struct query {
	struct op_stacks *st;
	char *image;		/* "{root}/path" */
	struct range leaf, caller;
	uint64_t leaf_n, direct, anywhere, stopped, total, reach;
	uint64_t by_stop[OP_UNWIND_NR + 1];
};

static bool is_image(struct query const *q, uint32_t i)
{
	struct op_stack_image const *img = op_stacks_image(q->st, i);

	return img && !strcmp(img->name, q->image);
}

static bool in(struct query const *q, struct op_stack_frame const *f,
	       struct range const *r)
{
	return is_image(q, f->image) && f->offset >= r->start &&
	       f->offset < r->end;
}

static int dump(void *arg, struct op_stack const *s, char const *event,
		uint64_t count)
{
	struct query *q = arg;

	printf("%llu %s tgid=%u stop=%s:", (unsigned long long)count, event,
	       s->tgid, op_unwind_stop_name(s->stop));
	for (uint32_t i = 0; i < s->nframes; i++)
		printf(" %s+%#llx", op_stacks_image(q->st, s->frames[i].image)->name,
		       (unsigned long long)s->frames[i].offset);
	putchar('\n');
	return 0;
}

static int leaf_caller(void *arg, struct op_stack const *s,
		       char const *event, uint64_t count)
{
	struct query *q = arg;

	(void)event;
	if (!s->nframes || !in(q, &s->frames[0], &q->leaf))
		return 0;
	q->leaf_n += count;
	if (s->nframes > 1 && in(q, &s->frames[1], &q->caller))
		q->direct += count;
	for (uint32_t i = 1; i < s->nframes; i++) {
		if (in(q, &s->frames[i], &q->caller)) {
			q->anywhere += count;
			break;
		}
	}
	if (s->stop != OP_UNWIND_ROOT)
		q->stopped += count;
	return 0;
}

static int reach(void *arg, struct op_stack const *s, char const *event,
		 uint64_t count)
{
	struct query *q = arg;
	bool mine = false;

	(void)event;
	for (uint32_t i = 0; i < s->nframes && !mine; i++)
		mine = is_image(q, s->frames[i].image);
	if (!mine)
		return 0;
	q->total += count;
	for (uint32_t i = 0; i < s->nframes; i++) {
		if (in(q, &s->frames[i], &q->caller)) {
			q->reach += count;
			break;
		}
	}
	return 0;
}

static int sum(void *arg, struct op_stack const *s, char const *event,
	       uint64_t count)
{
	struct query *q = arg;

	(void)event;
	q->total += count;
	q->by_stop[s->stop < OP_UNWIND_NR ? s->stop : OP_UNWIND_NR] += count;
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: stackcheck --dump|--sum DIR\n"
		"       stackcheck DIR IMAGE SYMBOL_FILE LEAF CALLER\n"
		"       stackcheck --reach DIR IMAGE SYMBOL_FILE FUNC\n");
	return 2;
}

static int open_stacks(char const *dir, struct query *q)
{
	int ret = op_stacks_open(dir, &q->st);

	if (ret == -ENOENT)
		fprintf(stderr, "stackcheck: '%s' has no stacks\n", dir);
	return ret;
}

int main(int argc, char **argv)
{
	struct query q = { 0 };
	int ret;

	op_set_progname("stackcheck");
	if (argc == 3 && (!strcmp(argv[1], "--dump") || !strcmp(argv[1], "--sum"))) {
		if (open_stacks(argv[2], &q))
			return 1;
		ret = op_stacks_foreach(q.st, NULL, argv[1][2] == 'd' ? dump : sum,
					&q);
		if (argv[1][2] == 's') {
			printf("%llu", (unsigned long long)q.total);
			for (unsigned i = 0; i < OP_UNWIND_NR; i++)
				if (q.by_stop[i])
					printf(" %s=%llu", op_unwind_stop_name(i),
					       (unsigned long long)q.by_stop[i]);
			putchar('\n');
		}
	} else if (argc == 6 && !strcmp(argv[1], "--reach")) {
		if (elf_func_range(argv[4], argv[5], &q.caller.start,
				   &q.caller.end) || open_stacks(argv[2], &q))
			return 1;
		q.image = op_xasprintf("{root}%s", argv[3]);
		ret = op_stacks_foreach(q.st, NULL, reach, &q);
		printf("%llu %llu\n", (unsigned long long)q.total,
		       (unsigned long long)q.reach);
	} else if (argc == 6) {
		if (elf_func_range(argv[3], argv[4], &q.leaf.start, &q.leaf.end) ||
		    elf_func_range(argv[3], argv[5], &q.caller.start,
				   &q.caller.end) || open_stacks(argv[1], &q))
			return 1;
		q.image = op_xasprintf("{root}%s", argv[2]);
		ret = op_stacks_foreach(q.st, NULL, leaf_caller, &q);
		printf("%llu %llu %llu %llu\n", (unsigned long long)q.leaf_n,
		       (unsigned long long)q.direct,
		       (unsigned long long)q.anywhere,
		       (unsigned long long)q.stopped);
	} else {
		return usage();
	}
	op_stacks_close(q.st);
	free(q.image);
	return ret ? 1 : 0;
}
