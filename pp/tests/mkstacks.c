/*
 * mkstacks: write a session's stack table for the opreport tests, with
 * the daemon's writer (op_stacks.h), next to sample files mksample wrote.
 *
 *   mkstacks SAMPLES_DIR EVENT STACK...
 *
 * SAMPLES_DIR is samples/NAME, EVENT "CPU_CLOCK.100000.0". A STACK is one
 * argument "COUNT TGID STOP APP FRAME..." (spaces between), APP an image
 * name as sample files mangle it ({root}/path, {kern}/name), each FRAME
 * IMAGE+OFFSET, leaf first; offsets decimal or 0x-hex.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_sample_file.h"
#include "op_stacks.h"

static uint64_t number(char const *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	if (end == s || *end) {
		fprintf(stderr, "mkstacks: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static uint32_t image(struct op_stacks_writer *w, char const *name)
{
	uint32_t i;

	if (op_stacks_writer_image(w, name, NULL, &i)) {
		fprintf(stderr, "mkstacks: cannot add image '%s'\n", name);
		exit(1);
	}
	return i;
}

static void add_stack(struct op_stacks_writer *w, char const *event,
		      struct opd_header const *h, char *spec)
{
	struct op_stack_frame f[OP_STACKS_MAX_FRAMES];
	struct op_stack s = { 0 };
	char *count = strtok(spec, " "), *tgid = strtok(NULL, " ");
	char *stop = strtok(NULL, " "), *app = strtok(NULL, " "), *t;
	uint64_t id;

	if (!count || !tgid || !stop || !app) {
		fprintf(stderr, "mkstacks: a stack is COUNT TGID STOP APP FRAME...\n");
		exit(2);
	}
	s.tgid = (uint32_t)number(tgid);
	s.stop = (uint32_t)number(stop);
	s.app = image(w, app);
	while ((t = strtok(NULL, " ")) && s.nframes < OP_STACKS_MAX_FRAMES) {
		char *plus = strrchr(t, '+');

		if (!plus) {
			fprintf(stderr, "mkstacks: frame '%s' is not IMAGE+OFFSET\n", t);
			exit(2);
		}
		*plus = '\0';
		f[s.nframes].image = image(w, t);
		f[s.nframes++].offset = number(plus + 1);
	}
	s.frames = f;
	if (op_stacks_writer_stack(w, &s, &id) ||
	    op_stacks_writer_count(w, event, h, id, (uint32_t)number(count)) < 0) {
		fprintf(stderr, "mkstacks: cannot write a stack\n");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	struct op_stacks_writer *w;
	struct opd_header h;

	if (argc < 3) {
		fprintf(stderr, "usage: mkstacks SAMPLES_DIR EVENT STACK...\n");
		return 2;
	}
	op_header_init(&h);
	h.cpu_type = 4;
	if (sscanf(argv[2], "%*[^.].%u", &h.ctr_count) != 1) {
		fprintf(stderr, "mkstacks: event '%s' is not NAME.COUNT.UM\n", argv[2]);
		return 2;
	}
	if (op_stacks_writer_open(argv[1], &w))
		return 1;
	for (int i = 3; i < argc; i++)
		add_stack(w, argv[2], &h, argv[i]);
	op_stacks_writer_close(w);
	return 0;
}
