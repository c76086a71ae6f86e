/*
 * libFuzzer target for the session metadata readers (op_session_kernel.h,
 * op_session_kv.h): the first input byte picks the file, the rest is its
 * contents, written into a private directory and read back:
 *   0  session/kernel_images  (op_session_kernel_images)
 *   1  session/kallsyms.gz    (op_session_kallsyms; gzip or plain bytes)
 *   2  session.conf/daemonrc  (op_kv_read)
 *   3  session/kallsyms.idx   (op_kallsyms_index_parse, told the size and
 *                             CRC its header gives, so that the body is
 *                             read, not refused as another file's index)
 *   4  session/build-ids      (op_build_id_file_read: the good lines a
 *   5  session/segments        restarted daemon keeps)
 * $FUZZ_SESSION_META_CASE=N reads every input as case N (the in-memory
 * case 3 runs ~100 times faster than the file cases: a million inputs
 * in minutes). Readers must not crash, hang or leak; what they accept must be sane
 * (an image's end not below its start, a symbol with a name, a key
 * that can be looked up again, a kept build-ids line that parses again).
 * Anything else aborts.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_build_id.h"
#include "op_message.h"
#include "op_session.h"
#include "op_session_kernel.h"
#include "op_session_kv.h"

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size);

static char dir[64];

static void quiet(void *ctx, enum op_message_kind kind, char const *text)
{
	(void)ctx;
	(void)kind;
	(void)text;
}

static void put(char const *name, uint8_t const *data, size_t size)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
}

static void on_sym(struct op_ksym const *sym, void *arg)
{
	(void)arg;
	if (!sym->name || !sym->name[0] || sym->type <= ' ' ||
	    (sym->module && !sym->module[0]))
		abort();
}

/* The index's own gz_size and gz_crc (bytes 16-27), as a match. */
static void kallsyms_index(uint8_t const *data, size_t size)
{
	uint64_t gz_size = 0;
	uint32_t gz_crc = 0;
	char err[256] = "";
	bool any;

	if (size >= 28) {
		memcpy(&gz_size, data + 16, sizeof(gz_size));
		memcpy(&gz_crc, data + 24, sizeof(gz_crc));
	}
	if (op_kallsyms_index_parse(data, size, gz_size, gz_crc, on_sym, NULL,
				    &any, err, sizeof(err)) < 0 && !err[0])
		abort();	/* a refusal must say why */
}

static void images(void)
{
	struct op_kernel_image *v = NULL;
	char err[512];
	size_t n = 0;

	if (op_session_kernel_images(dir, &v, &n, err, sizeof(err)) == 0) {
		for (size_t i = 0; i < n; i++)
			if (!v[i].name || v[i].end < v[i].start)
				abort();
		op_kernel_images_free(v, n);
	} else if (!err[0]) {
		abort();	/* a refusal must say why */
	}
}

/* Every line kept ends in a newline and parses again. */
static void build_ids(char const *name, bool segments)
{
	char path[128], hex[OP_BUILD_ID_HEX_MAX], *text, *nl;
	struct op_segment seg;
	char const *file;
	uint64_t mtime;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	text = op_build_id_file_read(path, segments);
	if (!text)
		abort();	/* the file is there and readable */
	for (char *l = text; *l; l = nl + 1) {
		nl = strchr(l, '\n');
		if (!nl)
			abort();
		*nl = '\0';
		if (segments ? op_segment_parse_line(l, hex, &seg) :
		    op_build_id_parse_line(l, hex, &mtime, &file))
			abort();
	}
	free(text);
}

static void kv(void)
{
	char path[128];
	struct op_kv kv;

	snprintf(path, sizeof(path), "%s/%s", dir, OP_SESSION_CONF);
	memset(&kv, 0, sizeof(kv));
	if (op_kv_read(&kv, path) == 0)
		for (size_t i = 0; i < kv.nr; i++)
			if (!op_kv_get(&kv, kv.keys[i]))
				abort();
	op_kv_free(&kv);
}

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size)
{
	static int only = -1;
	bool any;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/fuzz-meta-%ld", (long)getpid());
		if (mkdir(dir, 0700) && access(dir, F_OK))
			abort();
		op_set_message_sink(quiet, NULL);
		if (getenv("FUZZ_SESSION_META_CASE"))
			only = atoi(getenv("FUZZ_SESSION_META_CASE"));
	}
	if (size < 1)
		return 0;
	switch (only >= 0 ? only : data[0] % 6) {
	case 0:
		put(OP_META_KERNEL_IMAGES, data + 1, size - 1);
		images();
		break;
	case 1:
		put(OP_META_KALLSYMS, data + 1, size - 1);
		op_session_kallsyms(dir, on_sym, NULL, &any);
		break;
	case 3:
		kallsyms_index(data + 1, size - 1);
		break;
	case 4:
		put(OP_META_BUILD_IDS, data + 1, size - 1);
		build_ids(OP_META_BUILD_IDS, false);
		break;
	case 5:
		put(OP_META_SEGMENTS, data + 1, size - 1);
		build_ids(OP_META_SEGMENTS, true);
		break;
	default:
		put(OP_SESSION_CONF, data + 1, size - 1);
		kv();
		break;
	}
	return 0;
}
