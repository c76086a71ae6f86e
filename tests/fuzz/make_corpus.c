/*
 * Writes the generated seeds of the fuzz corpora (tests/fuzz/corpus/):
 * real streams made by the daemon's emitter (opd_emit.h) and real
 * sample files written by libdb, each with a few malformed variants. The
 * committed files came from here; the rest of a corpus is hand-made or
 * past finds. Built by make check so that it keeps compiling; run it by
 * hand: fuzz/make_corpus stream|sample_file DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opd_cookie.h"
#include "odb.h"
#include "op_sample_file.h"
#include "op_stream.h"
#include "opd_emit.h"
#include "opd_words.h"

static char const *out_dir;

static void put(char const *name, void const *data, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", out_dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "make_corpus: cannot write %s: %s\n", path,
			strerror(errno));
		exit(1);
	}
}

/* fuzz_stream's input: a chunk-size byte, then the words. */
static void put_stream(char const *name, unsigned char chunk,
		       unsigned long const *w, size_t n, size_t extra)
{
	size_t len = 1 + n * sizeof(*w) + extra;
	unsigned char *buf = calloc(1, len);

	if (!buf)
		exit(1);
	buf[0] = chunk;
	memcpy(buf + 1, w, n * sizeof(*w));
	put(name, buf, len);
	free(buf);
}

/* Two cpus, three tasks, kernel and user samples, a library, an anon
 * region, lost and count records, as the perf source writes them. */
static void emit_session(struct stream_emit *se, struct cookie_table *ct)
{
	unsigned long app = opd_cookie_intern(ct, "/usr/bin/app", 12);
	unsigned long sh = opd_cookie_intern(ct, "/bin/sh", 7);
	unsigned long lib = opd_cookie_intern(ct, "/usr/lib/libc.so.6", 18);
	unsigned long anon = opd_cookie_new_anon(ct, 200, 0x7f0000000000UL,
					 0x7f0000021000UL, "[heap]");

	opd_emit_cpu(se, 0);
	opd_emit_task(se, 200, 200, app);
	opd_emit_mode(se, false);
	opd_emit_cookie(se, app);
	opd_emit_pair(se, 0x1130, 0);
	opd_emit_pair(se, 0x1134, 0);
	opd_emit_cookie(se, lib);
	opd_emit_pair(se, 0x9a010, 0);
	opd_emit_cookie(se, anon);
	opd_emit_pair(se, 0x120, 1);
	opd_emit_mode(se, true);
	opd_emit_pair(se, 0xffffffff81234560UL, 0);
	opd_emit_cpu(se, 1);
	opd_emit_task(se, 301, 300, sh);
	opd_emit_mode(se, false);
	opd_emit_cookie(se, sh);
	opd_emit_pair(se, 0x4410, 0);
	opd_emit_task(se, 302, 300, sh);
	opd_emit_mode(se, true);
	opd_emit_pair(se, 0xffffffff81000010UL, 0);
	opd_emit_lost(se, OP_LOST_NO_MAPPING, 2);
	opd_emit_count(se, OP_COUNT_MAPS_REREAD, 1);
}

/* A sample with a backtrace: the sample, a kernel frame, user frames. */
static void emit_trace(struct stream_emit *se, struct cookie_table *ct)
{
	unsigned long app = opd_cookie_intern(ct, "/usr/bin/app", 12);
	unsigned long lib = opd_cookie_intern(ct, "/usr/lib/libc.so.6", 18);

	opd_emit_cpu(se, 2);
	opd_emit_task(se, 200, 200, app);
	opd_emit_escape(se, OP_CODE_TRACE_BEGIN);
	opd_emit_mode(se, true);
	opd_emit_pair(se, 0xffffffff81000020UL, 0);
	opd_emit_pair(se, 0xffffffff81000030UL, 0);
	opd_emit_mode(se, false);
	opd_emit_cookie(se, lib);
	opd_emit_pair(se, 0x9a100, 0);
	opd_emit_cookie(se, app);
	opd_emit_pair(se, 0x1200, 0);
}

/* A sample in a binary the kernel gave the build-id of (MMAP2). */
static void emit_build_id(struct stream_emit *se, struct cookie_table *ct)
{
	struct ct_file_id id = { .build_id_len = 20 };
	unsigned long app;

	for (unsigned i = 0; i < 20; i++)
		id.build_id[i] = (unsigned char)(0x10 * i + 1);
	app = opd_cookie_intern_file(ct, "/usr/bin/built", 14, id);
	opd_emit_cpu(se, 0);
	opd_emit_task(se, 400, 400, app);
	opd_emit_mode(se, false);
	opd_emit_cookie(se, app);
	opd_emit_pair(se, 0x1140, 0);
}

static void streams(void)
{
	static unsigned long const bad_code[] = {
		OP_ESCAPE_CODE, OP_CODE_CPU_SWITCH, 0, OP_ESCAPE_CODE, 99,
		0x10, 0, OP_ESCAPE_CODE,
	};
	struct word_buffer wb;
	struct cookie_table ct;
	struct stream_emit se;

	opd_words_init(&wb);
	opd_cookie_init(&ct);
	opd_emit_init(&se, &wb, &ct);
	emit_session(&se, &ct);
	put_stream("session-whole", 0, wb.w, wb.len, 0);
	put_stream("session-chunk7", 6, wb.w, wb.len, 0);
	/* cut inside the library's COOKIE_DEF, and a partial last word */
	put_stream("session-truncated", 2, wb.w, wb.len / 3, 0);
	put_stream("session-partial-word", 4, wb.w, wb.len, 3);
	emit_trace(&se, &ct);
	put_stream("session-trace", 1, wb.w, wb.len, 0);
	/* a new stream defines its cookies again */
	opd_cookie_new_stream(&ct);
	opd_emit_reset(&se);
	wb.len = 0;
	emit_trace(&se, &ct);
	put_stream("trace-only", 15, wb.w, wb.len, 0);
	/* a binary known by its build-id (ESC BUILD_ID after its def) */
	opd_cookie_new_stream(&ct);
	opd_emit_reset(&se);
	wb.len = 0;
	emit_build_id(&se, &ct);
	put_stream("build-id", 5, wb.w, wb.len, 0);
	put_stream("bad-code-lone-escape", 3, bad_code,
		   sizeof(bad_code) / sizeof(*bad_code), 0);
	put_stream("empty", 0, NULL, 0, 0);
	opd_cookie_free(&ct);
	opd_words_free(&wb);
}

/* A sample file of n keys written by libdb, its bytes in *len. */
static void *sample_file(unsigned n, size_t *len)
{
	char path[] = "/tmp/make_corpus-XXXXXX";
	struct opd_header h;
	struct odb db;
	void *buf;
	int fd = mkstemp(path);

	if (fd < 0)
		exit(1);
	close(fd);
	unlink(path);
	op_header_init(&h);
	h.cpu_type = 4;
	h.ctr_count = 100000;
	if (odb_create(&db, path, &h, sizeof(h))) {
		fprintf(stderr, "make_corpus: %s\n", db.err);
		exit(1);
	}
	for (unsigned i = 0; i < n; i++)
		odb_add(&db, 0x1000 + 16 * (i % 211) + i / 211, 1 + i % 3);
	odb_close(&db);
	buf = malloc(1 << 16);
	fd = open(path, O_RDONLY);
	if (!buf || fd < 0)
		exit(1);
	*len = (size_t)read(fd, buf, 1 << 16);
	close(fd);
	unlink(path);
	return buf;
}

static void sample_files(void)
{
	static unsigned const keys[] = { 0, 1, 40, 300 };
	char name[64];
	size_t len;

	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		unsigned char *f = sample_file(keys[i], &len);

		snprintf(name, sizeof(name), "valid-%u-keys.samples", keys[i]);
		put(name, f, len);
		if (keys[i] == 40) {
			/* a crash's leftovers: cut short, and one node's
			 * chain pointing at itself */
			put("valid-40-keys-cut.samples", f, len - 100);
			uint32_t self = 5;

			memcpy(f + sizeof(struct opd_header) +
			       sizeof(struct odb_descr) +
			       5 * sizeof(struct odb_node) +
			       offsetof(struct odb_node, next),
			       &self, sizeof(self));
			put("valid-40-keys-chain.samples", f, len);
		}
		free(f);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: make_corpus stream|sample_file DIR\n");
		return 2;
	}
	out_dir = argv[2];
	if (!strcmp(argv[1], "stream"))
		streams();
	else if (!strcmp(argv[1], "sample_file"))
		sample_files();
	else
		return 2;
	return 0;
}
