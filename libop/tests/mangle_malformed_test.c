/*
 * Refusals: malformed names the parser must refuse, and values the mangler
 * must refuse, each with an error that says what is wrong. The asserted
 * substrings are the part of the message a user needs to fix the name, so
 * a refusal for the wrong reason fails too.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "op_mangle.h"
#include "check.h"
#include "tests/mangle_support.h"

#define OK_B "{dep}/{root}/b/"
#define OK_T "E.0.0.all.all.all"

struct bad_name {
	char const *name;
	char const *want;	/* substring of the error */
};

static struct bad_name const bad_names[] = {
	/* structure */
	/* build tags: last, after a path, with a build-id or 'm' mtime */
	{ "{root}/{build:ab}/" OK_B OK_T, "reserved '{build:' path component" },
	{ "{root}/a/{build:ab}/c/" OK_B OK_T, "reserved '{build:' path component" },
	{ "{root}/a/{build:AB}/" OK_B OK_T, "reserved '{build:' path component" },
	{ "{root}/a/{build:abc}/" OK_B OK_T, "reserved '{build:' path component" },
	{ "{root}/a/{build:}/" OK_B OK_T, "reserved '{build:' path component" },
	{ "{root}/a/{build:m01}/" OK_B OK_T, "reserved '{build:' path component" },
	{ "{root}/a/{build:m}/" OK_B OK_T, "reserved '{build:' path component" },
	{ "{root}/a/{build:m18446744073709551616}/" OK_B OK_T,
	  "reserved '{build:' path component" },
	{ "{root}/a/{build:ab}x/" OK_B OK_T, "reserved '{build:' path component" },
	{ "{root}/a/" OK_B "{cg}/{kern}/{build:ab}/" OK_T,
	  "reserved '{build:' path component" },
	{ "", "empty name" },
	{ "{root}/a/{root}/b/" OK_T, "missing '{dep}' component" },
	{ "{root}/a/{dep}/{root}/b/{dep}/{root}/c/" OK_T,
	  "second '{dep}' component at offset 24" },
	{ "{root}/a/{dep}/{root}/b/{cg}/{root}/c/{cg}/{root}/d/" OK_T,
	  "second '{cg}' component at offset 38" },
	{ "{root}/a/{cg}/{root}/b/{dep}/{root}/c/" OK_T,
	  "'{cg}' at offset 9 comes before '{dep}'" },
	{ "{dep}/{root}/b/" OK_T, "missing application image before '{dep}'" },
	{ "{root}/a/{dep}/" OK_T, "missing image after '{dep}' at offset 9" },
	{ "{root}/a/{dep}/{cg}/{root}/c/" OK_T, "missing image after '{dep}'" },
	{ "{root}/a/{dep}/{root}/b/{cg}/" OK_T,
	  "missing callgraph image after '{cg}' at offset 24" },
	{ "{root}/a/" OK_B,
	  "name ends with '/': missing the 'EVENT.COUNT.UM.TGID.TID.CPU' trailer" },
	{ "{root}/a/" OK_B "/", "name ends with '/'" },
	{ "{root}",
	  "missing '/' before the 'EVENT.COUNT.UM.TGID.TID.CPU' trailer" },
	{ "/", "no '{root}/' or '{kern}/' image marker found" },
	{ "bin/ls/" OK_B OK_T,
	  "no '{root}/' or '{kern}/' application marker before '{dep}' at offset 7" },
	{ "/samples/current/E.0.0.all.all.all",
	  "no '{root}/' or '{kern}/' image marker found" },

	/* markers */
	{ "{foo}/a/" OK_B OK_T,
	  "the application at offset 0 starts with '{foo}', not '{root}', '{kern}' or '{anon:NAME}'" },
	{ "{root}/a/{dep}/{foo}/b/" OK_T,
	  "the image at offset 15 starts with '{foo}'" },
	{ "{root}/a/{dep}//{root}/b/" OK_T,
	  "the image at offset 15 starts with ''" },
	{ "{root}/a/{dep}/{root}/b/{cg}/{rooty}/c/" OK_T,
	  "the callgraph image at offset 29 starts with '{rooty}'" },
	{ "{anon:x}/1.0x1.0x2/" OK_B OK_T,
	  "the application at offset 0 cannot be an anonymous region" },

	/* paths */
	{ "{root}/" OK_B OK_T,
	  "empty path after '{root}/' in the application" },
	{ "{root}//" OK_B OK_T,
	  "empty path after '{root}/' in the application" },
	{ "{root}/a/{dep}/{root}/" OK_T,
	  "empty path after '{root}/' in the image" },
	{ "{root}/a//b/" OK_B OK_T,
	  "empty path component in the application at offset 9" },
	{ "{root}///a/" OK_B OK_T,
	  "empty path component in the application at offset 8" },
	{ "{root}/a//" OK_B OK_T,
	  "empty path component in the application at offset 9" },
	{ "{root}/a/../b/" OK_B OK_T,
	  "'..' path component in the application at offset 9" },
	{ "{root}/../" OK_B OK_T,
	  "'..' path component in the application at offset 7" },
	{ "{root}/a/{dep}/{root}/b/./c/" OK_T,
	  "'.' path component in the image at offset 24" },
	{ "{kern}/a/b/{dep}/{kern}/c/" OK_T,
	  "kernel image name 'a/b' in the application at offset 7 has a '/'" },
	{ "{kern}/" OK_B OK_T,
	  "empty kernel image name after '{kern}/' in the application" },
	{ "{root}/a/{dep}/{kern}/../" OK_T,
	  "'..' path component in the image at offset 22" },

	/* anonymous regions */
	{ "{root}/a/{dep}/{anon:x}/" OK_T,
	  "anonymous region in the image at offset 15 has no 'TGID.0xSTART.0xEND'" },
	{ "{root}/a/{dep}/{anon:x}/1.0x20.0x10/" OK_T,
	  "anonymous region start 0x20 is above its end 0x10 in the image" },
	{ "{root}/a/{dep}/{anon:x}/1.0x1A.0x20/" OK_T,
	  "anonymous region '1.0x1A.0x20' in the image at offset 24 is not 'TGID.0xSTART.0xEND'" },
	{ "{root}/a/{dep}/{anon:x}/1.10.20/" OK_T,
	  "is not 'TGID.0xSTART.0xEND'" },
	{ "{root}/a/{dep}/{anon:x}/1.0x01.0x20/" OK_T,
	  "is not 'TGID.0xSTART.0xEND'" },
	{ "{root}/a/{dep}/{anon:x}/1.0x.0x20/" OK_T,
	  "is not 'TGID.0xSTART.0xEND'" },
	{ "{root}/a/{dep}/{anon:x}/1.0x1.0x10000000000000000/" OK_T,
	  "is not 'TGID.0xSTART.0xEND'" },
	{ "{root}/a/{dep}/{anon:x}/all.0x1.0x2/" OK_T,
	  "is not 'TGID.0xSTART.0xEND'" },
	{ "{root}/a/{dep}/{anon:x}/-1.0x1.0x2/" OK_T,
	  "is not 'TGID.0xSTART.0xEND'" },
	{ "{root}/a/{dep}/{anon:x}/1.0x1.0x2.0x3/" OK_T,
	  "is not 'TGID.0xSTART.0xEND'" },
	{ "{root}/a/{dep}/{anon:x}/1.0x1.0x2/more/" OK_T,
	  "anonymous region '1.0x1.0x2/more' in the image" },
	{ "{root}/a/{dep}/{anon:}/1.0x1.0x2/" OK_T,
	  "empty anonymous region name '' in the image at offset 15" },
	{ "{root}/a/{dep}/{anon:a}b}/1.0x1.0x2/" OK_T,
	  "'}' in anonymous region name 'a}b' in the image" },
	{ "{root}/a/{dep}/{anon:x}/5.0x1.0x2/E.0.0.6.all.all",
	  "anonymous region TGID 5 differs from the TGID field 6" },
	{ "{root}/a/{dep}/{anon:x}/5.0x1.0x2/{cg}/{anon:y}/6.0x1.0x2/" OK_T,
	  "callgraph anonymous region TGID 6 differs from TGID 5" },
	{ "{root}/a/{dep}/{anon:x}/7.0x0.0x0/E.0.0.7.all.all",
	  "merged anonymous region with TGID 7, not 0" },
	{ "{root}/a/{dep}/{anon:a}/0.0x0.0x8/{cg}/{anon:[}/5.0x0.0x0/E.0.12.all.1.all",
	  "merged callgraph anonymous region with TGID 5, not 0" },

	/* the trailer */
	{ "{root}/a/" OK_B "E.0.0.all.all",
	  "'E.0.0.all.all': expected 6 dot-separated fields in 'EVENT.COUNT.UM.TGID.TID.CPU', found 5" },
	{ "{root}/a/" OK_B "E.0.0.all.all.all.all",
	  "expected 6 dot-separated fields in 'EVENT.COUNT.UM.TGID.TID.CPU', found 7" },
	{ "{root}/a/" OK_B "E", "found 1" },
	{ "{root}/a/" OK_B ".0.0.all.all.all",
	  "empty EVENT field at offset 24" },
	{ "{root}/a/" OK_B "E..0.all.all.all",
	  "empty COUNT field at offset 26" },
	{ "{root}/a/" OK_B "E.0.0.all.all.", "empty CPU field at offset 38" },
	{ "{root}/a/" OK_B "E.12x.0.all.all.all",
	  "COUNT '12x' at offset 26 is not a decimal integer" },
	{ "{root}/a/" OK_B "E.2147483648.0.all.all.all",
	  "COUNT '2147483648' at offset 26 does not fit in an int" },
	{ "{root}/a/" OK_B "E.99999999999999999999999.0.all.all.all",
	  "does not fit in an int" },
	{ "{root}/a/" OK_B "E.0.-2147483649.all.all.all",
	  "UM '-2147483649' at offset 28 does not fit in an int" },
	{ "{root}/a/" OK_B "E.+5.0.all.all.all",
	  "COUNT '+5' at offset 26 is not a decimal integer" },
	{ "{root}/a/" OK_B "E.007.0.all.all.all",
	  "COUNT '007' at offset 26 is not a decimal integer" },
	{ "{root}/a/" OK_B "E. 5.0.all.all.all",
	  "COUNT ' 5' at offset 26 is not a decimal integer" },
	{ "{root}/a/" OK_B "E.0.-0.all.all.all",
	  "UM '-0' at offset 28 is not a decimal integer" },
	{ "{root}/a/" OK_B "E.0.--1.all.all.all",
	  "UM '--1' at offset 28 is not a decimal integer" },
	{ "{root}/a/" OK_B "E.0.0x10.all.all.all",
	  "UM '0x10' at offset 28 is not a decimal integer" },
	{ "{root}/a/" OK_B "E.0.0.-.all.all",
	  "TGID '-' at offset 30 is not a decimal number or 'all'" },
	{ "{root}/a/" OK_B "E.0.0.all.-1.all",
	  "TID '-1' at offset 34 is not a decimal number or 'all'" },
	{ "{root}/a/" OK_B "E.0.0.all.all.ALL",
	  "CPU 'ALL' at offset 38 is not a decimal number or 'all'" },
	{ "{root}/a/" OK_B "E.0.0.all.all.all ",
	  "CPU 'all ' at offset 38 is not" },
	{ "{root}/a/" OK_B "E.0.0.01.all.all",
	  "TGID '01' at offset 30 is not" },
	{ "{root}/a/" OK_B "E.0.0.2147483648.all.all",
	  "TGID '2147483648' at offset 30 does not fit in an int" },
};

/* Values the mangler must refuse (the name would not read back). */
struct bad_values {
	struct op_mangle_values v;
	char const *want;
};

#define AB .app_name = "/a", .image_name = "/b"
#define ABE AB, .event_name = "E"

static struct bad_values const bad_values[] = {
	{ { .image_name = "/b", .event_name = "E" },
	  "missing application name" },
	{ { .app_name = "", .image_name = "/b", .event_name = "E" },
	  "missing application name" },
	{ { .app_name = "/a", .event_name = "E" }, "missing image name" },
	{ { ABE, .flags = OP_MANGLE_CALLGRAPH },
	  "missing callgraph image name" },
	{ { .app_name = "/", .image_name = "/b", .event_name = "E" },
	  "empty path component in the application name '/'" },
	{ { .app_name = "//a", .image_name = "/b", .event_name = "E" },
	  "empty path component in the application name '//a'" },
	{ { .app_name = "/a//b", .image_name = "/b", .event_name = "E" },
	  "empty path component in the application name '/a//b'" },
	{ { .app_name = "/a/", .image_name = "/b", .event_name = "E" },
	  "empty path component in the application name '/a/'" },
	{ { .app_name = "/a", .image_name = "/a/../b", .event_name = "E" },
	  "'..' path component in the image name '/a/../b'" },
	{ { .app_name = "/a", .image_name = "./b", .event_name = "E" },
	  "'.' path component in the image name './b'" },
	{ { .app_name = "/a", .image_name = "/x/{dep}/y", .event_name = "E" },
	  "reserved '{dep}' path component in the image name" },
	{ { .app_name = "/a", .image_name = "/x/{build:ab}/y", .event_name = "E" },
	  "only last, as '{build:ID}') in the image name" },
	{ { .app_name = "/{build:ab}", .image_name = "/b", .event_name = "E" },
	  "only last, as '{build:ID}') in the application name" },
	{ { .app_name = "/a/{build:ab", .image_name = "/b", .event_name = "E" },
	  "only last, as '{build:ID}') in the application name" },
	{ { ABE, .flags = OP_MANGLE_CALLGRAPH, .cg_image_name = "/x/{cg}" },
	  "reserved '{cg}' path component in the callgraph image name" },
	{ { .flags = OP_MANGLE_KERNEL, .app_name = "/a", .image_name = "..",
	    .event_name = "E" },
	  "'..' path component in the image name '..'" },
	{ { .flags = OP_MANGLE_KERNEL, .app_name = "/a",
	    .image_name = "{dep}", .event_name = "E" },
	  "reserved '{dep}' path component in the image name '{dep}'" },
	{ { AB }, "missing event name" },
	{ { AB, .event_name = "" }, "missing event name" },
	{ { AB, .event_name = "A.B" }, "'.' in the event name 'A.B'" },
	/* ".../b/EV/ENT.0.0..." would read as image "/b/EV", event "ENT" */
	{ { AB, .event_name = "EV/ENT" }, "'/' in the event name 'EV/ENT'" },
	{ { ABE, .flags = OP_MANGLE_TGID, .tgid = -1 }, "negative TGID -1" },
	{ { ABE, .flags = OP_MANGLE_TID, .tid = -2 }, "negative TID -2" },
	{ { ABE, .flags = OP_MANGLE_CPU, .cpu = INT_MIN },
	  "negative CPU -2147483648" },
	{ { ABE, .flags = OP_MANGLE_ANON },
	  "missing anonymous region name for the image" },
	{ { ABE, .flags = OP_MANGLE_ANON, .anon_name = "" },
	  "empty anonymous region name '' for the image" },
	{ { ABE, .flags = OP_MANGLE_ANON, .anon_name = "a}b" },
	  "'}' in anonymous region name 'a}b' for the image" },
	{ { ABE, .flags = OP_MANGLE_ANON, .anon_name = "a/b" },
	  "'/' in anonymous region name 'a/b' for the image" },
	{ { ABE, .flags = OP_MANGLE_ANON, .anon_name = "x", .anon_start = 2,
	    .anon_end = 1 },
	  "anonymous region start 0x2 is above its end 0x1 in the image" },
	{ { ABE, .flags = OP_MANGLE_ANON, .anon_name = "x", .anon_end = 1,
	    .tgid = -1 },
	  "negative TGID -1 for the anonymous region in the image" },
	{ { ABE, .flags = OP_MANGLE_CALLGRAPH | OP_MANGLE_CG_ANON,
	    .cg_anon_name = "x", .cg_anon_end = 1, .tgid = -5 },
	  "negative TGID -5 for the anonymous region in the callgraph image" },
	{ { ABE, .flags = OP_MANGLE_CG_ANON, .cg_anon_name = "x" },
	  "OP_MANGLE_CG_ANON without OP_MANGLE_CALLGRAPH" },
	{ { ABE, .flags = 1u << 7 }, "unknown flag bits 0x80" },
};

static void check_bad_name(struct bad_name const *b)
{
	struct op_parsed_name p;
	char err[512] = "";
	int rc = op_parse_filename(b->name, &p, err, sizeof(err));

	check(rc == -1, "'%s' is refused", b->name);
	check(strstr(err, b->want) != NULL,
	      "'%s': the error is '%s', want '%s'", b->name, err,
	      b->want);
	check(!p.storage && !p.app_name,
	      "'%s': the refused parse leaves no data behind", b->name);
	op_parsed_name_free(&p);
}

static void check_bad_values(struct bad_values const *b)
{
	char buf[256] = "", err[512] = "";
	int rc = op_mangle_filename(&b->v, buf, sizeof(buf), err, sizeof(err));

	check(rc == -1, "refused ('%s', want '%s')", buf, b->want);
	check(strstr(err, b->want) != NULL,
	      "the error is '%s', want '%s'", err, b->want);
}

/* An exactly sized buffer is enough; one byte less is an error. */
static void check_buffer_size(void)
{
	struct op_mangle_values v = { ABE };
	static char const want[] = "{root}/a/{dep}/{root}/b/E.0.0.all.all.all";
	char buf[sizeof(want)], err[128] = "";
	int rc;

	rc = op_mangle_filename(&v, buf, sizeof(want), err, sizeof(err));
	check(rc == (int)strlen(want) && !strcmp(buf, want),
	      "an exact buffer is enough: rc %d '%s'", rc, err);
	rc = op_mangle_filename(&v, buf, sizeof(want) - 1, err, sizeof(err));
	check(rc == -1 && strstr(err, "buffer too small: the name "
				    "needs 42 bytes, have 41"),
	      "a short buffer is refused: rc %d '%s'", rc, err);
	check(buf[0] == '\0', "a short buffer is left empty ('%.8s')", buf);
	rc = op_mangle_filename(&v, NULL, 0, err, sizeof(err));
	check(rc == -1, "a NULL buffer is refused");
	/* a NULL or empty err buffer is allowed */
	rc = op_mangle_filename(&v, buf, 4, NULL, 0);
	check(rc == -1, "a short buffer without err is refused");
}

/*
 * {anon:NAME} is one file name component: a NAME of
 * OP_MANGLE_ANON_NAME_MAX bytes is written and read back, one byte more
 * is refused by both, never left to fail as ENAMETOOLONG.
 */
static void test_mangle__anon_name_length(void)
{
	char name[OP_MANGLE_ANON_NAME_MAX + 2], buf[1024], err[512] = "";
	struct op_mangle_values v = { .flags = OP_MANGLE_ANON, .app_name = "/a",
				      .anon_name = name, .anon_end = 1,
				      .event_name = "E" };
	struct op_parsed_name p;
	char const *anon;
	int rc;

	memset(name, 'n', OP_MANGLE_ANON_NAME_MAX);
	name[OP_MANGLE_ANON_NAME_MAX] = '\0';
	rc = op_mangle_filename(&v, buf, sizeof(buf), err, sizeof(err));
	check(rc > 0, "a %d-byte region name is written: %s",
	      OP_MANGLE_ANON_NAME_MAX, err);
	anon = strstr(buf, "{anon:");
	check(anon && strchr(anon, '/') - anon == 255,
	      "{anon:NAME} is 255 bytes, NAME_MAX");
	rc = op_parse_filename(buf, &p, err, sizeof(err));
	check(!rc && !strcmp(p.image_name, name), "and read back: %s", err);
	op_parsed_name_free(&p);

	strcpy(name + OP_MANGLE_ANON_NAME_MAX, "n");
	rc = op_mangle_filename(&v, buf, sizeof(buf), err, sizeof(err));
	check(rc == -1 && strstr(err, "longer than a file name may be"),
	      "one byte more is refused: %s", err);
	snprintf(buf, sizeof(buf), "{root}/a/{dep}/{anon:%s}/0.0x0.0x1/" OK_T,
		 name);
	rc = op_parse_filename(buf, &p, err, sizeof(err));
	check(rc == -1 && strstr(err, "longer than a file name may be"),
	      "and not parsed: %s", err);
	op_parsed_name_free(&p);
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++)
		check_bad_name(&bad_names[i]);
	for (i = 0; i < sizeof(bad_values) / sizeof(bad_values[0]); i++)
		check_bad_values(&bad_values[i]);
	check_buffer_size();
	test_mangle__anon_name_length();
	check_note("%zu malformed names, %zu unrepresentable values",
		   sizeof(bad_names) / sizeof(bad_names[0]),
		   sizeof(bad_values) / sizeof(bad_values[0]));
	return check_done();
}
