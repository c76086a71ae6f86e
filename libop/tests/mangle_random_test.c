/*
 * Property tests over random names. Paths are made of weird but legal
 * components (spaces, dots, braces, marker look-alikes, control and high
 * bytes), so the parser is exercised where the format is easy to get wrong.
 *
 *  1. Round trip: random values mangle, parse back to the same values,
 *     re-mangle to the same bytes, and parse the same in OProfile's
 *     "{root}//" spelling and behind a session directory prefix.
 *  2. Refusal: a value with one illegal component or name is refused.
 *  3. Mutation: a mangled name with a few random edits either is refused
 *     or is a name whose canonical form parses to the same values (the
 *     fuzz target's property, run here on every 'make check').
 *
 * The seed is printed; MANGLE_SEED=N reruns one, MANGLE_ITERS=N sets the
 * count.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_mangle.h"
#include "check.h"
#include "tests/mangle_support.h"

#define NAME_MAX_LEN 4096

static uint64_t rng_state;

/* xorshift64*: small, fast, and the same on every platform. */
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static unsigned rnd_below(unsigned n)
{
	return (unsigned)(rnd() % n);
}

static char const weird_chars[] =
	"abcXYZ019 ._-~{}:+,@%#[]()=!$&'\"\\*?<>|^`;\t\n\x01\x7f\x80\xc3\xa9\xff";

/* Whole components that look like syntax but are ordinary names. */
static char const *const tricky[] = {
	"{root}", "{kern}", "{anon:x}", "{anon:[heap]}", "{dep}x", "x{cg}",
	"{dep", "cg}", "{{dep}}", "...", ".x", "x.", "all", "0x10",
	"1.0x1.0x2", "E.0.0.all.all.all", " ", "-", "{}", "{anon:}",
};

static void rnd_chars(char *out, size_t len, char const *avoid)
{
	size_t i;

	for (i = 0; i < len; i++) {
		char ch;

		do
			ch = weird_chars[rnd_below(sizeof(weird_chars) - 1)];
		while (strchr(avoid, ch));
		out[i] = ch;
	}
	out[len] = '\0';
}

/* One legal path component into out (at least 32 bytes). */
static void rnd_component(char *out)
{
	do {
		if (!rnd_below(5))
			strcpy(out, tricky[rnd_below(sizeof(tricky) /
						     sizeof(tricky[0]))]);
		else
			rnd_chars(out, 1 + rnd_below(12), "/");
	} while (!strcmp(out, ".") || !strcmp(out, "..") ||
		 !strcmp(out, "{dep}") || !strcmp(out, "{cg}"));
}

/* A path of 1..5 components, with or without a leading '/'. */
static void rnd_path(char *out, size_t len)
{
	unsigned i, n = 1 + rnd_below(5);
	char comp[32];

	snprintf(out, len, "%s", rnd_below(4) ? "/" : "");
	for (i = 0; i < n; i++) {
		rnd_component(comp);
		strncat(out, comp, len - strlen(out) - 1);
		if (i + 1 < n)
			strncat(out, "/", len - strlen(out) - 1);
	}
}

/* An image name: a path, or with the kernel flag sometimes a module. */
static void rnd_image(unsigned flags, char *out, size_t len)
{
	if ((flags & OP_MANGLE_KERNEL) && rnd_below(2))
		rnd_component(out);
	else
		rnd_path(out, len);
}

static int rnd_int(void)
{
	static int const edges[] = { 0, 1, -1, INT_MAX, INT_MIN, 10, 100000 };

	if (rnd_below(3))
		return edges[rnd_below(sizeof(edges) / sizeof(edges[0]))];
	return (int)(uint32_t)rnd();
}

static int rnd_id(void)
{
	if (rnd_below(4))
		return (int)rnd_below(100000);
	return INT_MAX - (int)rnd_below(2);
}

/* Each rnd() call is its own statement so that a seed means one sequence. */
static uint64_t rnd_addr(uint64_t edge)
{
	unsigned shift;

	if (!rnd_below(4))
		return edge;
	shift = rnd_below(64);
	return rnd() >> shift;
}

static void rnd_region(uint64_t *start, uint64_t *end)
{
	uint64_t a = rnd_addr(0);
	uint64_t b = rnd_addr(UINT64_MAX);

	*start = a < b ? a : b;
	*end = a < b ? b : a;
}

/* Names live in these buffers while v is in use. */
struct rnd_names {
	char app[512], image[512], cg[512], anon[32], cg_anon[32], event[32];
};

static void rnd_values(struct op_mangle_values *v, struct rnd_names *n)
{
	memset(v, 0, sizeof(*v));
	v->flags = rnd_below(128);
	if ((v->flags & OP_MANGLE_CG_ANON) && !(v->flags & OP_MANGLE_CALLGRAPH))
		v->flags &= ~OP_MANGLE_CG_ANON;
	rnd_image(v->flags, n->app, sizeof(n->app));
	rnd_image(v->flags, n->image, sizeof(n->image));
	rnd_image(v->flags, n->cg, sizeof(n->cg));
	rnd_chars(n->anon, 1 + rnd_below(10), "/}");
	rnd_chars(n->cg_anon, 1 + rnd_below(10), "/}");
	rnd_chars(n->event, 1 + rnd_below(20), "./");
	v->app_name = n->app;
	v->image_name = v->flags & OP_MANGLE_ANON ? NULL : n->image;
	v->anon_name = n->anon;
	rnd_region(&v->anon_start, &v->anon_end);
	if (v->flags & OP_MANGLE_CALLGRAPH)
		v->cg_image_name = v->flags & OP_MANGLE_CG_ANON ? NULL : n->cg;
	v->cg_anon_name = n->cg_anon;
	rnd_region(&v->cg_anon_start, &v->cg_anon_end);
	v->event_name = n->event;
	v->count = rnd_int();
	v->unit_mask = rnd_int();
	v->tgid = rnd_id();
	v->tid = rnd_id();
	v->cpu = rnd_id();
}

static void check_variant(int *bad, char const *name,
			  struct op_parsed_name const *want)
{
	struct op_parsed_name p;
	char err[256], why[256] = "";

	if (op_parse_filename(name, &p, err, sizeof(err))) {
		check_batch(bad, 0, "variant '%s': %s", name, err);
		return;
	}
	check_batch(bad, mangle_parsed_equal(want, &p, why, sizeof(why)),
		      "variant '%s' differs: %s", name, why);
	op_parsed_name_free(&p);
}

static void round_trip(int *bad)
{
	static char buf[NAME_MAX_LEN], buf2[NAME_MAX_LEN];
	static char var[2 * NAME_MAX_LEN];
	struct op_mangle_values v, again;
	struct op_parsed_name p;
	struct rnd_names names;
	char err[256], why[256] = "";

	rnd_values(&v, &names);
	if (op_mangle_filename(&v, buf, sizeof(buf), err, sizeof(err)) < 0) {
		check_batch(bad, 0, "mangle refused legal values: %s", err);
		return;
	}
	if (op_parse_filename(buf, &p, err, sizeof(err))) {
		check_batch(bad, 0, "parse '%s': %s", buf, err);
		return;
	}
	check_batch(bad, mangle_parse_matches(&v, &p, why, sizeof(why)),
		      "parse '%s' gave other values: %s", buf, why);
	mangle_values_from_parsed(&p, &again);
	check_batch(bad, op_mangle_filename(&again, buf2, sizeof(buf2), err,
					    sizeof(err)) >= 0 &&
		      !strcmp(buf, buf2), "re-mangle '%s' gave '%s'", buf, buf2);
	oprofile_spelling(buf, var, sizeof(var));
	check_variant(bad, var, &p);
	snprintf(var, sizeof(var), "/var/lib/oprofile/samples/current/%s", buf);
	check_variant(bad, var, &p);
	op_parsed_name_free(&p);
}

/* Spoil one name or value of legal values: the mangler must refuse. */
static void refusal(int *failed)
{
	static char const *const bad_comp[] = { "", ".", "..", "{dep}", "{cg}" };
	struct op_mangle_values v;
	struct rnd_names n;
	char buf[NAME_MAX_LEN], err[256] = "";
	char const *bad = bad_comp[rnd_below(5)];

	rnd_values(&v, &n);
	v.flags &= ~(OP_MANGLE_ANON | OP_MANGLE_KERNEL);
	switch (rnd_below(4)) {
	case 0:	/* a bad component somewhere in the application path */
		snprintf(n.app, sizeof(n.app), "/x/%s%s", bad,
			 rnd_below(2) ? "" : "/y");
		break;
	case 1:
		snprintf(n.image, sizeof(n.image), "/%s", bad);
		v.image_name = n.image;
		break;
	case 2:
		snprintf(n.event, sizeof(n.event), "E%cV",
			 rnd_below(2) ? '.' : '/');
		break;
	default:
		v.flags |= OP_MANGLE_ANON;
		snprintf(n.anon, sizeof(n.anon), "a%cb",
			 rnd_below(2) ? '/' : '}');
		break;
	}
	check_batch(failed, op_mangle_filename(&v, buf, sizeof(buf), err,
					    sizeof(err)) == -1 && *err,
		      "spoiled values mangled to '%s'", buf);
}

static char const *const mutation_tokens[] = {
	"/", ".", "{root}/", "{kern}/", "{dep}/", "{cg}/", "{anon:x}/", "/",
	"all", "0x", "-", "0", "9", "..", "}", "{",
};

static void mutate(char *s, size_t cap)
{
	size_t len = strlen(s), pos = len ? rnd_below((unsigned)len) : 0;
	char const *tok;

	switch (rnd_below(3)) {
	case 0:
		s[pos] = weird_chars[rnd_below(sizeof(weird_chars) - 1)];
		if (!s[pos])
			s[pos] = '/';
		break;
	case 1:
		if (len)
			memmove(s + pos, s + pos + 1, len - pos);
		break;
	default:
		tok = mutation_tokens[rnd_below(sizeof(mutation_tokens) /
						sizeof(mutation_tokens[0]))];
		if (len + strlen(tok) + 1 > cap)
			break;
		memmove(s + pos + strlen(tok), s + pos, len - pos + 1);
		memcpy(s + pos, tok, strlen(tok));
		break;
	}
}

/* Returns 1 if the mutated name was accepted. */
static int mutation(int *bad)
{
	static char buf[NAME_MAX_LEN], again[NAME_MAX_LEN];
	struct op_mangle_values v;
	struct op_parsed_name p, q;
	struct rnd_names names;
	char err[256], why[256] = "";
	unsigned i, n = 1 + rnd_below(3);
	int accepted;

	rnd_values(&v, &names);
	if (op_mangle_filename(&v, buf, sizeof(buf) - 64, err,
			       sizeof(err)) < 0)
		return 0;
	for (i = 0; i < n; i++)
		mutate(buf, sizeof(buf));
	accepted = !op_parse_filename(buf, &p, err, sizeof(err));
	if (!accepted) {
		check_batch(bad, *err, "'%s' refused without a message", buf);
		return 0;
	}
	mangle_values_from_parsed(&p, &v);
	if (op_mangle_filename(&v, again, sizeof(again), err,
			       sizeof(err)) < 0) {
		check_batch(bad, 0, "accepted '%s' does not re-mangle: %s", buf,
			      err);
	} else if (op_parse_filename(again, &q, err, sizeof(err))) {
		check_batch(bad, 0, "'%s' re-mangled to unparsable '%s': %s",
			      buf, again, err);
	} else {
		check_batch(bad, mangle_parsed_equal(&p, &q, why, sizeof(why)),
			      "'%s' -> '%s' differs: %s", buf, again, why);
		op_parsed_name_free(&q);
	}
	op_parsed_name_free(&p);
	return 1;
}

static unsigned long env_num(char const *name, unsigned long def)
{
	char const *s = getenv(name);

	return s && *s ? strtoul(s, NULL, 0) : def;
}

int main(void)
{
	int bad_trip = 0, bad_refusal = 0, bad_mutation = 0;
	unsigned long i, iters = env_num("MANGLE_ITERS", 20000);
	unsigned long accepted = 0;
	uint64_t seed = env_num("MANGLE_SEED", 0x6f70726f66696c65ull);

	rng_state = seed ? seed : 1;
	check_note("seed %llu, %lu iterations", (unsigned long long)seed,
		   iters);
	for (i = 0; i < iters; i++) {
		round_trip(&bad_trip);
		refusal(&bad_refusal);
		accepted += (unsigned long)mutation(&bad_mutation);
	}
	check_note("mutated names accepted: %lu of %lu", accepted, iters);
	check(!bad_trip, "%lu random values mangle, parse back the same, "
	      "re-mangle the same; both spellings parse (%d failed)", iters,
	      bad_trip);
	check(!bad_refusal, "%lu spoiled values are refused with a message "
	      "(%d failed)", iters, bad_refusal);
	check(!bad_mutation, "%lu mutated names are refused with a message or "
	      "parse to a name that re-mangles the same (%d failed)", iters,
	      bad_mutation);
	return check_done();
}
