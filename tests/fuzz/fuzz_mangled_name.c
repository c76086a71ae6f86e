/*
 * libFuzzer target for sample file names (libop/op_mangle.h).
 *
 * The input bytes, up to the first NUL, are a name. If op_parse_filename()
 * accepts it, the parse must be one op_mangle_filename() can write, and
 * that canonical name must parse to exactly the same fields: the parser
 * and the mangler agree on every name the parser lets through. Anything
 * else aborts. Refused names must come with an error message.
 *
 * Build (from the top of the tree):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Ilibop -Ilibutil \
 *     tests/fuzz/fuzz_mangled_name.c libop/op_mangle.c \
 *     libop/op_parse_filename.c libutil/op_*.c -o fuzz_mangled_name
 *   ./fuzz_mangled_name -dict=tests/fuzz/fuzz_mangled_name.dict \
 *     -max_total_time=60 CORPUS_DIR tests/fuzz/corpus/mangled_name
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_mangle.h"
#include "tests/mangle_support.h"

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size);

static void die(char const *what, char const *name, char const *detail)
{
	fprintf(stderr, "fuzz_mangled_name: %s\n  name: '%s'\n  %s\n", what,
		name, detail);
	abort();
}

/* name was accepted as p: its canonical form must parse the same. */
static void check_canonical(char const *name, struct op_parsed_name const *p)
{
	struct op_mangle_values v;
	struct op_parsed_name q;
	size_t cap = strlen(name) + 1;
	char *again = malloc(cap);
	char err[512], why[512];
	int n;

	if (!again)
		abort();
	mangle_values_from_parsed(p, &v);
	/* the canonical form is never longer: it only drops bytes */
	n = op_mangle_filename(&v, again, cap, err, sizeof(err));
	if (n < 0)
		die("accepted name does not re-mangle", name, err);
	if (op_parse_filename(again, &q, err, sizeof(err)))
		die("re-mangled name does not parse", again, err);
	if (!mangle_parsed_equal(p, &q, why, sizeof(why)))
		die("re-mangled name parses differently", again, why);
	op_parsed_name_free(&q);
	free(again);
}

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size)
{
	struct op_parsed_name p;
	char *name = malloc(size + 1);
	char err[512] = "";

	if (!name)
		return 0;
	memcpy(name, data, size);
	name[size] = '\0';
	if (op_parse_filename(name, &p, err, sizeof(err)) == 0) {
		check_canonical(name, &p);
		op_parsed_name_free(&p);
	} else if (!err[0] || p.storage) {
		die("refused without a message, or left storage", name, err);
	}
	free(name);
	return 0;
}
