/*
 * The sample file header (libop/op_sample_file.c): op_header_init builds a
 * header that validates and is zero apart from magic and version;
 * op_header_validate and op_header_read refuse what a 1.x tool must refuse,
 * with "PATH: fault" messages, and survive tiny error buffers.
 */
#include <stdio.h>
#include <string.h>

#include "odb_helpers.h"

static void test_header__init(void)
{
	struct opd_header h;
	unsigned char const *b = (unsigned char const *)&h;
	char err[256] = "";
	size_t i;

	memset(&h, 0xa5, sizeof(h));
	op_header_init(&h);
	check_assert(!memcmp(h.magic, "DAE\n", 4) && h.version == 0x13, "magic/version");
	for (i = 8; i < sizeof(h); i++)
		check_assert(b[i] == 0, "byte %zu is 0x%x after init", i, b[i]);
	check_assert(op_header_validate(&h, "x", err, sizeof(err)) == 0,
		     "fresh header refused: %s", err);
	check_pass("op_header_init: magic, version 0x13, 64 zero bytes (padding too), validates");
}

static void test_header__validate(void)
{
	struct opd_header h;
	char err[256];

	op_header_init(&h);
	h.magic[3] = 'X';
	check_assert(op_header_validate(&h, "/s/f", err, sizeof(err)) == -1, "magic");
	check_assert(!strcmp(err, "/s/f: not a sample file (bad magic)"), "%s", err);

	op_header_init(&h);
	h.version = 0x12;
	check_assert(op_header_validate(&h, "/s/f", err, sizeof(err)) == -1, "version");
	check_assert(!strcmp(err, "/s/f: sample file version 0x12, this tool reads version 0x13"),
		     "%s", err);

	/* a tiny buffer is truncated, never overrun; no buffer at all is fine */
	memset(err, 'Z', sizeof(err));
	check_assert(op_header_validate(&h, "/s/f", err, 4) == -1, "tiny buffer");
	check_assert(err[3] == 0 && err[4] == 'Z', "tiny buffer overrun");
	check_assert(op_header_validate(&h, "/s/f", NULL, 0) == -1, "no buffer");
	check_pass("op_header_validate: bad magic and version 0x12 refused with PATH: messages");
}

static void test_header__read(void)
{
	char const *missing = t_path("missing"), *empty = t_path("empty");
	char const *good = t_path("good");
	struct opd_header h, back;
	char err[512];
	FILE *f;

	check_assert(op_header_read(missing, &h, err, sizeof(err)) == -1, "missing");
	check_assert(strstr(err, missing) && strstr(err, "cannot open: No such file"),
		     "%s", err);

	f = fopen(empty, "w");
	check_assert(f && fclose(f) == 0, "create %s", empty);
	check_assert(op_header_read(empty, &h, err, sizeof(err)) == -1, "empty");
	check_assert(strstr(err, "file too short for a sample file header (0 bytes, need 72)"),
		     "%s", err);

	op_header_init(&h);
	h.ctr_count = 4242;
	h.mtime = 77;
	f = fopen(good, "w");
	check_assert(f && fwrite(&h, sizeof(h), 1, f) == 1 && fclose(f) == 0, "write");
	check_assert(op_header_read(good, &back, err, sizeof(err)) == 0, "%s", err);
	check_assert(!memcmp(&h, &back, sizeof(h)), "header changed on the way");
	check_pass("op_header_read: missing and empty files refused, a written header reads back");
}

int main(void)
{
	test_header__init();
	test_header__validate();
	test_header__read();
	return check_done();
}
