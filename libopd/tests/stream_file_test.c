/*
 * Stream files: a written stream replays to the same samples in any chunk
 * size; bad headers, a foreign word size and a partial last word are
 * clear errors; opstream dump escapes the names it prints.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "op_message.h"
#include "opd_trans.h"
#include "opd_stream_dump.h"
#include "opd_stream_file.h"
#include "stream_words.h"

static char path[64];

static void build(struct word_buffer *wb, int samples)
{
	sw_cpu(wb, 0);
	sw_cookie_def(wb, 1, "/bin");
	sw_ctx(wb, 7, 1, 7);
	sw_user(wb);
	sw_cookie(wb, 1);
	for (int i = 0; i < samples; i++)
		opd_words_push2(wb, (unsigned long)i * 4, 0);
}

static void write_file(unsigned long const *w, size_t n, size_t pieces)
{
	struct stream_writer sw;

	check(opd_stream_writer_open(&sw, path) == 0, "writer opens");
	for (size_t i = 0; i < pieces; i++) {
		size_t a = n * i / pieces, b = n * (i + 1) / pieces;

		check(opd_stream_writer_write(&sw, w + a, b - a) == 0, "write");
	}
	check(sw.words == n, "writer counts words");
	check(opd_stream_writer_close(&sw) == 0, "writer closes");
}

static void test_stream_file__round_trip(void)
{
	static size_t const chunks[] = { 1, 2, 3, 7, 64, 0 };
	struct word_buffer wb;

	opd_words_init(&wb);
	build(&wb, 10000);
	write_file(wb.w, wb.len, 13);
	for (size_t i = 0; i < sizeof(chunks) / sizeof(*chunks); i++) {
		struct opd_trans dec;

		opd_trans_init(&dec, NULL, path);
		check(opd_stream_file_replay(path, &dec, chunks[i]) == 0,
		      "replay succeeds");
		check(dec.stats.samples == 10000 && dec.stats.words == wb.len &&
		      dec.stats.errors == 0, "replay gives every sample");
		check(opd_trans_cookie(&dec, 1) &&
		      !strcmp(opd_trans_cookie(&dec, 1)->name, "/bin"),
		      "replay keeps definitions");
		opd_trans_free(&dec);
	}
	opd_words_free(&wb);
}

static void test_stream_file__empty(void)
{
	struct opd_trans dec;

	write_file(NULL, 0, 1);
	opd_trans_init(&dec, NULL, path);
	check(opd_stream_file_replay(path, &dec, 0) == 0 && dec.stats.words == 0,
	      "a header-only file is an empty stream");
	opd_trans_free(&dec);
}

static void write_raw(void const *p, size_t n)
{
	FILE *f = fopen(path, "w");

	fwrite(p, 1, n, f);
	fclose(f);
}

static int replay_fails(void)
{
	struct opd_trans dec;
	int err;

	opd_trans_init(&dec, NULL, path);
	err = opd_stream_file_replay(path, &dec, 0);
	opd_trans_free(&dec);
	return err != 0;
}

static void test_stream_file__bad(void)
{
	struct stream_file_header h = { .word_size = sizeof(long),
					.version = STREAM_FILE_VERSION };
	unsigned char buf[sizeof(h) + 12];

	memcpy(h.magic, STREAM_FILE_MAGIC, 8);
	fprintf(stderr, "(the errors below are expected)\n");
	write_raw(&h, 10);
	check(replay_fails(), "a short header is refused");
	h.magic[0] = 'X';
	write_raw(&h, sizeof(h));
	check(replay_fails(), "bad magic is refused");
	h.magic[0] = 'O';
	h.word_size = 4;
	write_raw(&h, sizeof(h));
	check(replay_fails(), "a foreign word size is refused");
	h.word_size = sizeof(long);
	h.version = 99;
	write_raw(&h, sizeof(h));
	check(replay_fails(), "an unknown version is refused");
	h.version = STREAM_FILE_VERSION;
	memset(buf, 0, sizeof(buf));
	memcpy(buf, &h, sizeof(h));
	write_raw(buf, sizeof(buf));
	check(replay_fails(), "a partial last word is refused");
	unlink(path);
	check(replay_fails(), "a missing file is refused");
}

/* opstream dump prints cookie names from the stream escaped. */
static void test_stream_file__dump_escapes(void)
{
	struct word_buffer wb;
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	opd_words_init(&wb);
	sw_cpu(&wb, 0);
	sw_cookie_def(&wb, 1, "/b\033[2J\xc2\x9b\xff\nX");
	write_file(wb.w, wb.len, 1);
	check(opd_stream_dump(path, m) == 0, "dump succeeds");
	fclose(m);
	check(strstr(out, "cookie 1 = /b\\x1b[2J\\xc2\\x9b\\xff\\x0aX\n") &&
	      !strpbrk(out, "\033\x9b\xff"),
	      "a cookie's name is escaped, on one line: %s", out);
	free(out);
	opd_words_free(&wb);
}

int main(void)
{
	op_set_progname("stream_file_test");
	snprintf(path, sizeof(path), "stream_file_test.%d.ops", (int)getpid());
	test_stream_file__round_trip();
	test_stream_file__empty();
	test_stream_file__bad();
	test_stream_file__dump_escapes();
	unlink(path);
	return check_done();
}
