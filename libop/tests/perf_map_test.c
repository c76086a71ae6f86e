/*
 * The perf map parser (op_perf_map.h): a map as Node writes it, a later
 * line for the same start winning, the ranges a caller asks for, the
 * bound on entries, lines that do not parse (no size, size 0, a wrap, a
 * name missing, a last line without newline), escape bytes and NULs in
 * names, a name cut at the limit, and the text written read back alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_perf_map.h"
#include "check.h"

static void parse(struct op_perf_map *m, char const *text)
{
	op_perf_map_parse(m, text, strlen(text), NULL, 0, 0);
}

int main(void)
{
	struct op_perf_map m = { 0 }, back = { 0 };
	struct op_perf_map_entry const *e;
	char const node[] =
		"3c2f8c043c0 be Builtin:ArgumentsAdaptorTrampoline\n"
		"3c2f8c04500 3c LazyCompile:~hotA /tmp/x.js:3\n"
		"3c2f8c04600 80 LazyCompile:*hotA /tmp/x.js:3\n"
		"0x3c2f8c04500 40 LazyCompile:*hotB /tmp/x.js:9\n";
	char *text, big[OP_PERF_MAP_NAME_MAX + 64];
	size_t len;
	int bad = 0;

	parse(&m, node);
	check_int((long long)m.n, 3, "three starts, one of them twice");
	check_int((long long)m.bad_lines, 0, "every line parses");
	e = op_perf_map_find(&m, 0x3c2f8c04510);
	check_str(e ? e->name : "(none)", "LazyCompile:*hotB /tmp/x.js:9",
		  "the later line for a start wins, with its size");
	e = op_perf_map_find(&m, 0x3c2f8c0467f);
	check_str(e ? e->name : "(none)", "LazyCompile:*hotA /tmp/x.js:3",
		  "the last byte of an entry is in it");
	check(!op_perf_map_find(&m, 0x3c2f8c04680) &&
	      !op_perf_map_find(&m, 0x3c2f8c04540) &&
	      !op_perf_map_find(&m, 0x10),
	      "an address past an entry's size, or below all, is in none");

	/* a second text wins over the first for the same start */
	parse(&m, "3c2f8c04600 80 LazyCompile:*hotA2 /tmp/x.js:3\n");
	e = op_perf_map_find(&m, 0x3c2f8c04600);
	check_str(e ? e->name : "(none)", "LazyCompile:*hotA2 /tmp/x.js:3",
		  "a later text's line wins over an earlier text's");

	text = op_perf_map_format(&m, &len);
	parse(&back, text);
	check_int((long long)back.n, (long long)m.n, "the text read back: as many");
	for (size_t i = 0; i < m.n && i < back.n; i++)
		check_batch(&bad, back.v[i].start == m.v[i].start &&
			    back.v[i].size == m.v[i].size &&
			    !strcmp(back.v[i].name, m.v[i].name),
			    "entry %zu read back alike", i);
	check(!bad, "every entry read back alike (%d not)", bad);
	free(text);
	op_perf_map_free(&back);
	op_perf_map_free(&m);

	{
		struct op_perf_map_range r[] = { { 0x2000, 0x3000 },
						 { 0x8000, 0x8100 } };

		char const t[] = "1000 1000 below\n1fff 2 across\n"
				 "2800 10 in\n3000 10 above\n80ff 1 second\n";

		op_perf_map_parse(&m, t, sizeof(t) - 1, r, 2, 0);
		check_int((long long)m.n, 3, "only entries overlapping the ranges");
		check(m.n == 3 && !strcmp(m.v[0].name, "across") &&
		      !strcmp(m.v[2].name, "second"), "the overlapping ones");
		op_perf_map_free(&m);
		op_perf_map_parse(&m, "1 1 a\n2 1 b\n3 1 c\n4 1 d\n", 24,
				  NULL, 0, 2);
		check(m.n == 2 && m.cut == 2 && !strcmp(m.v[1].name, "b"),
		      "past the bound: the lowest kept, the rest counted");
		op_perf_map_free(&m);
	}

	parse(&m, "10\n10 \n10 0 zero\nffffffffffffffff 2 wrap\n"
	      "20 10\n20 10 \nzz 1 x\n11111111111111111 1 long\n"
	      "30 4 ok\n40 4 cut short");
	check_int((long long)m.n, 1, "of ten bad lines and one good, one kept");
	check_int((long long)m.bad_lines, 9, "nine lines counted bad");
	check_int((long long)m.first_bad, 1, "the first bad line is line 1");
	check(!op_perf_map_find(&m, 0x40), "a last line without newline is not kept");
	op_perf_map_free(&m);

	{
		char const t[] = "50 4 esc\x1b]0;x\x07 \x9b\n60 4 nul\0after\n";

		op_perf_map_parse(&m, t, sizeof(t) - 1, NULL, 0, 0);
	}
	check(m.n == 2 && !strcmp(m.v[0].name, "esc\x1b]0;x\x07 \x9b") &&
	      !strcmp(m.v[1].name, "nul"),
	      "escape bytes kept as they are (printed escaped), a name cut at NUL");
	op_perf_map_free(&m);

	parse(&m, "1 1 a\n2 1 b\n");
	parse(&m, "3 1 c\nbad\n");
	check(m.n == 3 && m.lines == 4 && m.first_bad == 4,
	      "a file read in two pieces: lines counted on (the bad one is line 4)");
	op_perf_map_free(&m);

	memset(big, 'n', sizeof(big));
	memcpy(big, "70 4 ", 5);
	big[sizeof(big) - 1] = '\n';
	op_perf_map_parse(&m, big, sizeof(big), NULL, 0, 0);
	check(m.n == 1 && strlen(m.v[0].name) == OP_PERF_MAP_NAME_MAX,
	      "a long name cut at OP_PERF_MAP_NAME_MAX");
	op_perf_map_free(&m);
	return check_done();
}
