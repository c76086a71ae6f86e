/*
 * libFuzzer target for the fleet reader (libpp/pp_fleet*.c): the server's
 * answers are input. The bytes are split at NUL bytes into the answers
 * of successive queries (a missing one is a failed query, whose message
 * is the answer's own text), and opreport's fleet paths run on them:
 * pp_fleet_open (the tables' engine, a cluster's shards, its settings),
 * the flat profile with and without symbols and details, and the stacks.
 * A profile accepted must add up: its totals are the sums of its entries;
 * the stacks' total is the sum of their counts, every frame in range.
 *
 * FUZZ-SOURCES: libpp/pp_*.c $B/libpp/pprof_profile.pb-c.c
 * FUZZ-SOURCES: $B/libpp/pp_flame_html.c
 * FUZZ-LIBS: -lbfd -lopcodes -liberty -ldebuginfod -lprotobuf-c -lpopt -lz
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp_fleet.h"

struct answers {
	uint8_t const *p, *end;
};

/* The next answer: up to the next NUL; none left, a failed query. */
static int next_answer(void *arg, char const *sql, char **body, size_t *len,
		       char *err, size_t errlen)
{
	struct answers *a = arg;
	uint8_t const *nul;
	size_t n;

	(void)sql;
	if (a->p >= a->end) {
		snprintf(err, errlen, "no answer");
		return -1;
	}
	nul = memchr(a->p, 0, (size_t)(a->end - a->p));
	n = (size_t)((nul ? nul : a->end) - a->p);
	*body = malloc(n + 1);
	if (!*body)
		abort();
	memcpy(*body, a->p, n);
	(*body)[n] = '\0';
	*len = n;
	a->p += n + (nul != NULL);
	/* an answer that starts with '!' is a failed query with that text */
	if (n && (*body)[0] == '!') {
		snprintf(err, errlen, "%s", *body + 1);
		free(*body);
		*body = NULL;
		return -1;
	}
	return 0;
}

static void check_profile(struct pp_profile const *p)
{
	for (size_t c = 0; c < p->nr_classes; c++) {
		uint64_t sum = 0;

		for (size_t i = 0; i < p->n; i++)
			sum += p->v[i].counts[c];
		if (sum != p->totals[c])
			abort();
	}
}

static void check_stacks(struct pp_stacks const *st)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < st->n; i++) {
		sum += st->v[i].count;
		for (size_t k = 0; k < st->v[i].nr_frames; k++)
			if (st->v[i].frames[k] >= st->nr_frames)
				abort();
	}
	if (sum != st->total)
		abort();
}

static void profile(struct pp_fleet *f, struct pp_fleet_spec const *fs,
		    bool symbols, bool details)
{
	struct pp_populate_opts o = { .symbols = symbols, .details = details };
	struct pp_fleet_info info;
	struct pp_profile p;
	struct pp_classes c;
	char err[1024];

	if (!pp_fleet_profile(f, fs, &o, false, &p, &c, &info, err,
			      sizeof(err)))
		check_profile(&p);
	pp_profile_free(&p);
	pp_classes_free(&c);
}

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size)
{
	struct answers a = { data, data + size };
	struct pp_fleet f = { .query = next_answer, .query_arg = &a,
			      .url = "http://fuzz:1", .database = "oprofile" };
	char const *words[] = { "host:a*", "service:web", "image:/bin/x" };
	struct pp_fleet_spec fs;
	struct pp_fleet_info info;
	struct pp_strlist notes = { 0 };
	struct pp_stacks st;
	char err[1024];

	if (pp_fleet_spec_parse(&fs, size % 4 ? 2 : 3, words, NULL, err,
				sizeof(err)))
		abort();
	if (!pp_fleet_open(&f, err, sizeof(err))) {
		profile(&f, &fs, false, false);
		profile(&f, &fs, true, true);
		if (!pp_fleet_stacks(&f, &fs, true, &st, &info, &notes, err,
				     sizeof(err))) {
			check_stacks(&st);
			pp_stacks_free(&st);
		}
	}
	pp_strlist_free(&notes);
	pp_fleet_close(&f);
	pp_fleet_spec_free(&fs);
	return 0;
}
