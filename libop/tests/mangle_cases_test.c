/*
 * Known names, byte for byte: OProfile 1.x's own mangle test cases, names
 * seen on real machines, and anonymous-region and kernel cases. Each one
 * must mangle to exactly the expected string, parse back to the same
 * values, re-mangle to itself, and parse the same in OProfile's
 * "{root}//path" spelling and behind a session directory prefix.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_mangle.h"
#include "check.h"
#include "tests/mangle_support.h"

struct mangle_case {
	struct op_mangle_values v;
	char const *expect;
};

#define ALL_IDS (OP_MANGLE_CPU | OP_MANGLE_TID | OP_MANGLE_TGID)

static struct mangle_case const cases[] = {
	/* OProfile 1.x libop/tests/mangle_tests.c, all nine, verbatim */
	{ { .flags = OP_MANGLE_NONE, .app_name = "bar", .image_name = "foo",
	    .event_name = "EVENT" },
	  "{root}/bar/{dep}/{root}/foo/EVENT.0.0.all.all.all" },
	{ { .flags = OP_MANGLE_CPU, .app_name = "bar", .image_name = "foo",
	    .event_name = "EVENT", .cpu = 2 },
	  "{root}/bar/{dep}/{root}/foo/EVENT.0.0.all.all.2" },
	{ { .flags = OP_MANGLE_TID, .app_name = "bar", .image_name = "foo",
	    .event_name = "EVENT", .tid = 33 },
	  "{root}/bar/{dep}/{root}/foo/EVENT.0.0.all.33.all" },
	{ { .flags = OP_MANGLE_TGID, .app_name = "bar", .image_name = "foo",
	    .event_name = "EVENT", .tgid = 34 },
	  "{root}/bar/{dep}/{root}/foo/EVENT.0.0.34.all.all" },
	{ { .flags = OP_MANGLE_KERNEL, .app_name = "bar", .image_name = "foo",
	    .event_name = "EVENT" },
	  "{kern}/bar/{dep}/{kern}/foo/EVENT.0.0.all.all.all" },
	{ { .flags = OP_MANGLE_CALLGRAPH, .app_name = "bar-from",
	    .image_name = "foo-from", .cg_image_name = "foo-to",
	    .event_name = "EVENT" },
	  "{root}/bar-from/{dep}/{root}/foo-from/{cg}/{root}/foo-to/EVENT.0.0.all.all.all" },
	{ { .flags = ALL_IDS | OP_MANGLE_KERNEL, .app_name = "bar",
	    .image_name = "foo", .event_name = "EVENT", .count = 1234,
	    .unit_mask = 8192, .tgid = 34, .tid = 35, .cpu = 2 },
	  "{kern}/bar/{dep}/{kern}/foo/EVENT.1234.8192.34.35.2" },
	{ { .flags = ALL_IDS | OP_MANGLE_KERNEL, .app_name = "bar1/bar2",
	    .image_name = "foo1/foo2", .event_name = "EVENT", .count = 1234,
	    .unit_mask = 8192, .tgid = 34, .tid = 35, .cpu = 2 },
	  "{root}/bar1/bar2/{dep}/{root}/foo1/foo2/EVENT.1234.8192.34.35.2" },
	{ { .flags = OP_MANGLE_CALLGRAPH | ALL_IDS | OP_MANGLE_KERNEL,
	    .app_name = "bar1/bar2", .image_name = "bar1/bar2",
	    .cg_image_name = "bar1/bar2-to", .event_name = "EVENT",
	    .count = 1234, .unit_mask = 8192, .tgid = 34, .tid = 35,
	    .cpu = 2 },
	  "{root}/bar1/bar2/{dep}/{root}/bar1/bar2/{cg}/{root}/bar1/bar2-to/EVENT.1234.8192.34.35.2" },

	/* seen on real machines (operf 1.x, oprofiled 0.9.9) */
	{ { .flags = OP_MANGLE_CALLGRAPH, .app_name = "/home/u/loopfp",
	    .image_name = "/usr/lib/x86_64-linux-gnu/libc.so.6",
	    .cg_image_name = "/home/u/loopfp",
	    .event_name = "CPU_CLK_UNHALTED", .count = 100000 },
	  "{root}/home/u/loopfp/{dep}/{root}/usr/lib/x86_64-linux-gnu/libc.so.6/{cg}/{root}/home/u/loopfp/CPU_CLK_UNHALTED.100000.0.all.all.all" },
	{ { .flags = OP_MANGLE_CALLGRAPH | ALL_IDS,
	    .app_name = "/home/u/loopfp",
	    .image_name = "/usr/lib/x86_64-linux-gnu/libc.so.6",
	    .cg_image_name = "/home/u/loopfp",
	    .event_name = "CPU_CLK_UNHALTED", .count = 100000,
	    .tgid = 20277, .tid = 20277, .cpu = 1 },
	  "{root}/home/u/loopfp/{dep}/{root}/usr/lib/x86_64-linux-gnu/libc.so.6/{cg}/{root}/home/u/loopfp/CPU_CLK_UNHALTED.100000.0.20277.20277.1" },
	{ { .flags = OP_MANGLE_KERNEL, .app_name = "no-vmlinux",
	    .image_name = "no-vmlinux", .event_name = "TIMER" },
	  "{kern}/no-vmlinux/{dep}/{kern}/no-vmlinux/TIMER.0.0.all.all.all" },

	/* later builds of a path (op_mangle.h): a tag below the path */
	{ { .flags = OP_MANGLE_CALLGRAPH,
	    .app_name = "/usr/bin/foo/{build:0123456789abcdef0123456789abcdef01234567}",
	    .image_name = "/usr/lib/libc.so.6",
	    .cg_image_name = "/usr/bin/foo/{build:0123456789abcdef0123456789abcdef01234567}",
	    .event_name = "CPU_CLOCK", .count = 1000000 },
	  "{root}/usr/bin/foo/{build:0123456789abcdef0123456789abcdef01234567}/{dep}/{root}/usr/lib/libc.so.6/{cg}/{root}/usr/bin/foo/{build:0123456789abcdef0123456789abcdef01234567}/CPU_CLOCK.1000000.0.all.all.all" },
	{ { .flags = OP_MANGLE_NONE, .app_name = "/opt/x/prog/{build:m1700000000}",
	    .image_name = "/opt/x/prog/{build:m1700000000}",
	    .event_name = "CPU_CLOCK", .count = 1000000 },
	  "{root}/opt/x/prog/{build:m1700000000}/{dep}/{root}/opt/x/prog/{build:m1700000000}/CPU_CLOCK.1000000.0.all.all.all" },

	/* anonymous regions */
	{ { .flags = OP_MANGLE_ANON | OP_MANGLE_TGID | OP_MANGLE_TID,
	    .app_name = "/usr/bin/python3", .anon_name = "[heap]",
	    .anon_start = 0x55d0c0000000ull, .anon_end = 0x55d0c0021000ull,
	    .event_name = "CPU_CLOCK", .count = 1000000, .tgid = 1234,
	    .tid = 1234 },
	  "{root}/usr/bin/python3/{dep}/{anon:[heap]}/1234.0x55d0c0000000.0x55d0c0021000/CPU_CLOCK.1000000.0.1234.1234.all" },
	/* without thread separation the region still carries its TGID */
	{ { .flags = OP_MANGLE_ANON, .app_name = "/usr/bin/java",
	    .anon_name = "anon", .anon_start = 0x7f3a2c000000ull,
	    .anon_end = 0x7f3a2c400000ull, .event_name = "CPU_CLK_UNHALTED",
	    .count = 100000, .tgid = 4321 },
	  "{root}/usr/bin/java/{dep}/{anon:anon}/4321.0x7f3a2c000000.0x7f3a2c400000/CPU_CLK_UNHALTED.100000.0.all.all.all" },
	{ { .flags = OP_MANGLE_ANON | ALL_IDS, .app_name = "/bin/ls",
	    .anon_name = "[vdso]", .anon_start = 0x7ffd1a3f0000ull,
	    .anon_end = 0x7ffd1a3f2000ull, .event_name = "CPU_CLK_UNHALTED",
	    .count = 100000, .tgid = 77, .tid = 78, .cpu = 0 },
	  "{root}/bin/ls/{dep}/{anon:[vdso]}/77.0x7ffd1a3f0000.0x7ffd1a3f2000/CPU_CLK_UNHALTED.100000.0.77.78.0" },
	/* a callgraph arc from the program into its JIT'ed code */
	{ { .flags = OP_MANGLE_CALLGRAPH | OP_MANGLE_CG_ANON,
	    .app_name = "/usr/bin/node", .image_name = "/usr/bin/node",
	    .cg_anon_name = "anon", .cg_anon_start = 0x1c0000000ull,
	    .cg_anon_end = 0x1c0100000ull, .event_name = "CPU_CLK_UNHALTED",
	    .count = 100000, .tgid = 9 },
	  "{root}/usr/bin/node/{dep}/{root}/usr/bin/node/{cg}/{anon:anon}/9.0x1c0000000.0x1c0100000/CPU_CLK_UNHALTED.100000.0.all.all.all" },
	/* both sides anonymous, an empty region at address 0 */
	{ { .flags = OP_MANGLE_CALLGRAPH | OP_MANGLE_ANON | OP_MANGLE_CG_ANON |
		     OP_MANGLE_TGID,
	    .app_name = "/a", .anon_name = "[stack]", .anon_start = 0,
	    .anon_end = 0, .cg_anon_name = "[heap]", .cg_anon_start = 0x10,
	    .cg_anon_end = UINT64_MAX, .event_name = "E", .tgid = 0 },
	  "{root}/a/{dep}/{anon:[stack]}/0.0x0.0x0/{cg}/{anon:[heap]}/0.0x10.0xffffffffffffffff/E.0.0.0.all.all" },

	/* the merged region holds many processes' regions: its files
	 * carry the samples' TGID, the region 0 */
	{ { .flags = OP_MANGLE_ANON | OP_MANGLE_TGID | OP_MANGLE_TID,
	    .app_name = "/tmp/jit_spin", .anon_name = "anon",
	    .event_name = "CPU_CLOCK", .count = 1000000, .tgid = 1680,
	    .tid = 1681 },
	  "{root}/tmp/jit_spin/{dep}/{anon:anon}/0.0x0.0x0/CPU_CLOCK.1000000.0.1680.1681.all" },
	{ { .flags = OP_MANGLE_CALLGRAPH | OP_MANGLE_CG_ANON | OP_MANGLE_TGID,
	    .app_name = "/usr/bin/node", .image_name = "/usr/bin/node",
	    .cg_anon_name = "anon", .event_name = "E", .tgid = 42 },
	  "{root}/usr/bin/node/{dep}/{root}/usr/bin/node/{cg}/{anon:anon}/0.0x0.0x0/E.0.0.42.all.all" },

	/* kernel: a module under a user app, vmlinux by path, kallsyms */
	{ { .flags = OP_MANGLE_KERNEL | OP_MANGLE_TGID | OP_MANGLE_TID,
	    .app_name = "/bin/dd", .image_name = "ext4",
	    .event_name = "CPU_CLK_UNHALTED", .count = 100000, .tgid = 555,
	    .tid = 556 },
	  "{root}/bin/dd/{dep}/{kern}/ext4/CPU_CLK_UNHALTED.100000.0.555.556.all" },
	{ { .flags = OP_MANGLE_KERNEL, .app_name = "/usr/sbin/sshd",
	    .image_name = "/boot/vmlinux-6.1.0-13-amd64",
	    .event_name = "CPU_CLK_UNHALTED", .count = 100000 },
	  "{root}/usr/sbin/sshd/{dep}/{root}/boot/vmlinux-6.1.0-13-amd64/CPU_CLK_UNHALTED.100000.0.all.all.all" },
	{ { .flags = OP_MANGLE_KERNEL | OP_MANGLE_CALLGRAPH,
	    .app_name = "/bin/bash", .image_name = "/proc/kallsyms",
	    .cg_image_name = "xfs", .event_name = "CYCLES", .count = 50000 },
	  "{root}/bin/bash/{dep}/{root}/proc/kallsyms/{cg}/{kern}/xfs/CYCLES.50000.0.all.all.all" },

	/* odd but legal: spaces, dots, braces; extreme numbers as "%d" */
	{ { .flags = OP_MANGLE_CPU,
	    .app_name = "/opt/my app/v1.2/{x}/a.out (deleted)",
	    .image_name = "/opt/my app/.hidden/...so",
	    .event_name = "UOPS_{RET}", .count = INT_MAX, .unit_mask = INT_MIN, .cpu = INT_MAX },
	  "{root}/opt/my app/v1.2/{x}/a.out (deleted)/{dep}/{root}/opt/my app/.hidden/...so/UOPS_{RET}.2147483647.-2147483648.all.all.2147483647" },
	/* marker-looking components inside a path are just names */
	{ { .flags = OP_MANGLE_NONE, .app_name = "/x/{root}/{kern}/y",
	    .image_name = "/{anon:z}/all.0x1.0x2", .event_name = "all",
	    .count = -1, .unit_mask = 0 },
	  "{root}/x/{root}/{kern}/y/{dep}/{root}/{anon:z}/all.0x1.0x2/all.-1.0.all.all.all" },
};

/* name must parse to exactly want (a parse of the canonical name). */
static void check_same_parse(char const *name,
			     struct op_parsed_name const *want)
{
	struct op_parsed_name p;
	char err[256], why[256] = "";
	int rc = op_parse_filename(name, &p, err, sizeof(err));

	check(!rc, "parse '%s': %s", name, rc ? err : "");
	if (!rc)
		check(mangle_parsed_equal(want, &p, why, sizeof(why)),
		      "'%s' parses to the same fields %s", name, why);
	op_parsed_name_free(&p);
}

static void check_spellings(char const *name,
			    struct op_parsed_name const *p)
{
	static char const *const prefixes[] = {
		"/var/lib/oprofile/samples/current/",
		"oprofile_data/samples/current/",
		"/home/u/my {data}/samples/current/",
	};
	char buf[8192];
	size_t i;

	oprofile_spelling(name, buf, sizeof(buf));
	check(strcmp(buf, name) || !strstr(name, "{root}/"),
	      "a '{root}//' spelling is made for '%s'", name);
	check_same_parse(buf, p);
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		snprintf(buf, sizeof(buf), "%s%s", prefixes[i], name);
		check_same_parse(buf, p);
	}
}

static void check_case(struct mangle_case const *c)
{
	struct op_mangle_values again;
	struct op_parsed_name p;
	char buf[4096], buf2[4096], err[256], why[256] = "";
	int n;

	n = op_mangle_filename(&c->v, buf, sizeof(buf), err, sizeof(err));
	check(n >= 0, "mangle '%s': %s", c->expect, err);
	if (n < 0)
		return;
	check(!strcmp(buf, c->expect) && (size_t)n == strlen(buf),
	      "mangled to '%s', want '%s'", buf, c->expect);
	if (op_parse_filename(buf, &p, err, sizeof(err))) {
		check(0, "parse '%s': %s", buf, err);
		return;
	}
	check(mangle_parse_matches(&c->v, &p, why, sizeof(why)),
	      "'%s' parses to the values it was made of %s", buf, why);
	mangle_values_from_parsed(&p, &again);
	n = op_mangle_filename(&again, buf2, sizeof(buf2), err, sizeof(err));
	check(n >= 0 && !strcmp(buf, buf2),
	      "'%s' re-mangles to itself: '%s' %s", buf, n >= 0 ? buf2 : "",
	      n >= 0 ? "" : err);
	check_spellings(buf, &p);
	op_parsed_name_free(&p);
}

/* The real-world names parse to these fields (not just round trip). */
static void check_real_world(void)
{
	static char const name[] = "/var/lib/oprofile/samples/current/"
		"{root}//home/u/loopfp/{dep}/{root}//usr/lib/x86_64-linux-gnu/"
		"libc.so.6/{cg}/{root}//home/u/loopfp/"
		"CPU_CLK_UNHALTED.100000.0.20277.20277.1";
	struct op_parsed_name p;
	char err[256];
	int ok;

	ok = !op_parse_filename(name, &p, err, sizeof(err));
	check(ok, "parse real-world name: %s", err);
	if (!ok)
		return;
	check(!strcmp(p.app_name, "/home/u/loopfp") &&
	      !strcmp(p.image_name, "/usr/lib/x86_64-linux-gnu/libc.so.6") &&
	      !strcmp(p.cg_image_name, "/home/u/loopfp") &&
	      !strcmp(p.event_name, "CPU_CLK_UNHALTED") &&
	      p.is_callgraph && !p.app_is_kernel && !p.image_is_kernel &&
	      !p.cg_is_kernel && !p.image_is_anon && !p.cg_is_anon &&
	      p.count == 100000 && p.unit_mask == 0 &&
	      p.tgid == 20277 && p.tid == 20277 && p.cpu == 1,
	      "real-world name parsed to the wrong fields");
	op_parsed_name_free(&p);

	ok = !op_parse_filename("{kern}/no-vmlinux/{dep}/{kern}/no-vmlinux/"
				"TIMER.0.0.all.all.all", &p, err, sizeof(err));
	check(ok, "parse no-vmlinux name: %s", err);
	if (!ok)
		return;
	check(!strcmp(p.app_name, "no-vmlinux") && p.app_is_kernel &&
	      !strcmp(p.image_name, "no-vmlinux") && p.image_is_kernel &&
	      !p.is_callgraph && !p.cg_image_name &&
	      !strcmp(p.event_name, "TIMER") && p.count == 0 &&
	      p.tgid == -1 && p.tid == -1 && p.cpu == -1,
	      "no-vmlinux name parsed to the wrong fields");
	op_parsed_name_free(&p);

	ok = !op_parse_filename("{root}/usr/bin/python3/{dep}/{anon:[heap]}/"
				"1234.0x55d0c0000000.0x55d0c0021000/"
				"CPU_CLOCK.1000000.0.1234.1234.all",
				&p, err, sizeof(err));
	check(ok, "parse anon name: %s", err);
	if (!ok)
		return;
	check(!strcmp(p.image_name, "[heap]") && p.image_is_anon &&
	      !p.image_is_kernel && p.anon_tgid == 1234 &&
	      p.anon_start == 0x55d0c0000000ull &&
	      p.anon_end == 0x55d0c0021000ull && p.cg_anon_tgid == -1,
	      "anon name parsed to the wrong fields");
	op_parsed_name_free(&p);
}

/* A later build's name, split back into its path and build. */
static void check_build_tags(void)
{
	char buf[256];
	char const *id;
	size_t idlen;

	check(op_build_tag_name("/usr/bin/foo", "ab01", buf, sizeof(buf)) ==
	      (int)strlen("/usr/bin/foo/{build:ab01}") &&
	      !strcmp(buf, "/usr/bin/foo/{build:ab01}"), "tag by build-id: %s",
	      buf);
	check(op_build_tag_split(buf, &id, &idlen) == strlen("/usr/bin/foo") &&
	      idlen == 4 && !memcmp(id, "ab01", 4), "split back");
	check(op_build_tag_name("/p", "m0", buf, sizeof(buf)) > 0 &&
	      !strcmp(buf, "/p/{build:m0}") &&
	      op_build_tag_split(buf, &id, &idlen) == 2 && idlen == 2,
	      "tag by mtime: %s", buf);
	check(op_build_tag_name("/p", "AB", buf, sizeof(buf)) == -1 &&
	      op_build_tag_name("/p", "m01", buf, sizeof(buf)) == -1 &&
	      op_build_tag_name("/p", "abc", buf, sizeof(buf)) == -1 &&
	      op_build_tag_name("/p", "ab", buf, 8) == -1,
	      "bad IDs and a short buffer refused");
	check(!op_build_tag_split("/usr/bin/foo", NULL, NULL) &&
	      !op_build_tag_split("/{build:ab}", NULL, NULL) &&
	      !op_build_tag_split("/a/{build:ab}x", NULL, NULL) &&
	      !op_build_tag_split("vmlinux", NULL, NULL),
	      "names without a tag are paths");
}

/* An image name alone, as a stack table keeps it. */
static void check_image_names(void)
{
	struct op_parsed_name p;
	char err[256];

	check(!op_parse_image_name("{root}/usr/bin/gzip", &p, err, sizeof(err)) &&
	      !strcmp(p.image_name, "/usr/bin/gzip") && !p.image_is_kernel &&
	      !p.image_is_anon, "a {root} image: %s", err);
	op_parsed_name_free(&p);
	check(!op_parse_image_name("{kern}/ext4", &p, err, sizeof(err)) &&
	      !strcmp(p.image_name, "ext4") && p.image_is_kernel,
	      "a {kern} image: %s", err);
	op_parsed_name_free(&p);
	check(!op_parse_image_name("{anon:anon}/7.0x1000.0x2000", &p, err,
				   sizeof(err)) && p.image_is_anon &&
	      p.anon_tgid == 7 && p.anon_start == 0x1000,
	      "an anonymous image: %s", err);
	op_parsed_name_free(&p);
	check(op_parse_image_name("", &p, err, sizeof(err)) == -1 &&
	      op_parse_image_name(NULL, &p, err, sizeof(err)) == -1 &&
	      op_parse_image_name("usr/bin/gzip", &p, err, sizeof(err)) == -1 &&
	      op_parse_image_name("{root}/a/../b/{dep}/{root}/c", &p, err,
				  sizeof(err)) == -1 &&
	      op_parse_image_name("{root}/tmp/../etc/passwd", &p, err,
				  sizeof(err)) == -1 &&
	      op_parse_image_name("{kern}/../x", &p, err, sizeof(err)) == -1,
	      "names that are no image refused");
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_case(&cases[i]);
	check_real_world();
	check_build_tags();
	check_image_names();
	return check_done();
}
