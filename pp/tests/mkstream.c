/*
 * mkstream: write a recorded event stream (doc/formats.md 4.2) for the
 * opreport --stream tests, word by word from its arguments.
 *
 *   mkstream FILE ITEM...
 *
 *   cpu=N                 CPU_SWITCH
 *   task=TID,TGID,PATH    CTX_SWITCH to a task running PATH (then user)
 *   kernel | user         KERNEL_ENTER, USER_ENTER
 *   in=PATH               COOKIE_SWITCH to PATH (defined at its first use)
 *   sample=OFF[*N]        N sample pairs (OFF, event 0)
 *   trace=OFF@PATH,...    TRACE_BEGIN, the sample (the first frame), its
 *                         callers leaf first, each in its PATH
 *   time=NS               TIME
 *   many=N,PREFIX         N binaries PREFIX000000.. of one sample each
 *   word=W                one raw word (0x-hex or decimal: hostile input)
 *
 * Cookies are numbered from 1 in order of first use. The words are this
 * host's unsigned long, as the daemon writes them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_stream.h"

static FILE *out;
static char *names[4096];
static unsigned long cookies[4096], nr_names, next_cookie = 1;

static void put(unsigned long w)
{
	if (fwrite(&w, sizeof(w), 1, out) != 1) {
		perror("mkstream");
		exit(1);
	}
}

static void esc(unsigned long code)
{
	put(OP_ESCAPE_CODE);
	put(code);
}

static unsigned long number(char const *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (end == s || (*end && *end != '*' && *end != ',' && *end != '@')) {
		fprintf(stderr, "mkstream: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

/* COOKIE_DEF: the name's bytes packed into words, zero padded */
static void define(unsigned long cookie, char const *path)
{
	size_t len = strlen(path);

	esc(OP_CODE_COOKIE_DEF);
	put(cookie);
	put(len);
	for (size_t i = 0; i < len; i += sizeof(unsigned long)) {
		unsigned long w = 0;

		memcpy(&w, path + i, len - i < sizeof(w) ? len - i : sizeof(w));
		put(w);
	}
}

/* PATH's cookie, defined at its first use */
static unsigned long cookie_of(char const *path)
{
	for (unsigned long i = 0; i < nr_names; i++)
		if (!strcmp(names[i], path))
			return cookies[i];
	if (nr_names == sizeof(names) / sizeof(names[0])) {
		fprintf(stderr, "mkstream: too many named binaries\n");
		exit(2);
	}
	names[nr_names] = strdup(path);
	cookies[nr_names++] = next_cookie;
	define(next_cookie, path);
	return next_cookie++;
}

static void switch_to(char const *path)
{
	unsigned long c = cookie_of(path);

	esc(OP_CODE_COOKIE_SWITCH);
	put(c);
}

static void trace(char *frames)
{
	esc(OP_CODE_TRACE_BEGIN);
	for (char *f = strtok(frames, ","); f; f = strtok(NULL, ",")) {
		char *at = strchr(f, '@');

		if (!at) {
			fprintf(stderr, "mkstream: a frame is OFF@PATH, not '%s'\n", f);
			exit(2);
		}
		switch_to(at + 1);
		put(number(f));
		put(0);
	}
}

static void many(char const *arg)
{
	unsigned long n = number(arg);
	char const *prefix = strchr(arg, ',');
	char path[4200];

	if (!prefix || strlen(prefix + 1) > 4000) {
		fprintf(stderr, "mkstream: many=N,PREFIX\n");
		exit(2);
	}
	for (unsigned long i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s%06lu", prefix + 1, i);
		define(next_cookie, path);
		esc(OP_CODE_COOKIE_SWITCH);
		put(next_cookie++);
		put(0x1000 + i % 4096);
		put(0);
	}
}

int main(int argc, char **argv)
{
	uint32_t head[2] = { sizeof(unsigned long), 1 };

	if (argc < 2) {
		fprintf(stderr, "usage: mkstream FILE ITEM...\n");
		return 2;
	}
	out = fopen(argv[1], "wb");
	if (!out || fwrite("OPSTREAM", 8, 1, out) != 1 ||
	    fwrite(head, sizeof(head), 1, out) != 1) {
		perror(argv[1]);
		return 1;
	}
	for (int i = 2; i < argc; i++) {
		char *a = argv[i], *v = strchr(a, '=');

		v = v ? v + 1 : a + strlen(a);
		if (!strncmp(a, "cpu=", 4)) {
			esc(OP_CODE_CPU_SWITCH);
			put(number(v));
		} else if (!strncmp(a, "task=", 5)) {
			unsigned long tid = number(v), tgid, app;
			char *c1 = strchr(v, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;

			if (!c2) {
				fprintf(stderr, "mkstream: task=TID,TGID,PATH\n");
				return 2;
			}
			tgid = number(c1 + 1);
			app = cookie_of(c2 + 1);
			esc(OP_CODE_CTX_SWITCH);
			put(tid);
			put(app);
			esc(OP_CODE_CTX_TGID);
			put(tgid);
		} else if (!strcmp(a, "kernel")) {
			esc(OP_CODE_KERNEL_ENTER);
		} else if (!strcmp(a, "user")) {
			esc(OP_CODE_USER_ENTER);
		} else if (!strncmp(a, "in=", 3)) {
			switch_to(v);
		} else if (!strncmp(a, "sample=", 7)) {
			unsigned long off = number(v), n = 1;
			char *star = strchr(v, '*');

			if (star)
				n = number(star + 1);
			for (unsigned long k = 0; k < n; k++) {
				put(off);
				put(0);
			}
		} else if (!strncmp(a, "trace=", 6)) {
			trace(v);
		} else if (!strncmp(a, "time=", 5)) {
			esc(OP_CODE_TIME);
			put(number(v));
		} else if (!strncmp(a, "many=", 5)) {
			many(v);
		} else if (!strncmp(a, "word=", 5)) {
			put(number(v));
		} else {
			fprintf(stderr, "mkstream: unknown item '%s'\n", a);
			return 2;
		}
	}
	if (fclose(out)) {
		perror(argv[1]);
		return 1;
	}
	for (unsigned long i = 0; i < nr_names; i++)
		free(names[i]);
	return 0;
}
