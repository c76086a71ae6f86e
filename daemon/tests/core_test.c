/*
 * The daemon core end to end on a hand-built event stream: which sample
 * files it creates under each --separate mode, their headers, the counts
 * in them, and that the stats balance. Real kernel addresses come from
 * /proc/kallsyms, so this needs root (skip, 77, otherwise).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "odb.h"
#include "op_sample_file.h"
#include "op_stream.h"
#include "opd_core.h"
#include "opd_sfile.h"
#include "word_buffer.h"

#define ESC OP_ESCAPE_CODE
#define EVENT_NAME "CPU_CLOCK"

static int failures;
static char exe[PATH_MAX];
static char lib[PATH_MAX];
static uint64_t ktext;

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		failures++; \
		fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
	} \
} while (0)

static void find_lib(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];

	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');
		if (p && strstr(p, "libc.so")) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(lib, sizeof(lib), "%s", p);
			break;
		}
	}
	fclose(f);
}

static uint64_t kallsyms_text(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], type;
	uint64_t addr, text = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) == 3 &&
		    !strcmp(name, "_text")) {
			text = addr;
			break;
		}
	if (f)
		fclose(f);
	return text;
}

static void push_def(struct word_buffer *wb, unsigned long cookie, char const *path)
{
	wb_push2(wb, ESC, OP_CODE_COOKIE_DEF);
	wb_push2(wb, cookie, strlen(path));
	wb_push_string(wb, path, strlen(path));
}

static void push_samples(struct word_buffer *wb, unsigned long pc, int n, unsigned long ev)
{
	while (n--)
		wb_push2(wb, pc, ev);
}

/* Task 100 (tid 101) on cpu 1: 4 in exe, 2 in libc, 4 kernel, 2 anon, 1 bad. */
static void build_stream(struct word_buffer *wb)
{
	wb_push2(wb, ESC, OP_CODE_CPU_SWITCH);
	wb_push(wb, 1);
	push_def(wb, 5, exe);
	push_def(wb, 6, lib);
	wb_push2(wb, ESC, OP_CODE_ANON_DEF);
	wb_push2(wb, 7, 100);
	wb_push2(wb, 0x7f0000000000ul, 0x7f0000010000ul);
	wb_push(wb, strlen("[heap]"));
	wb_push_string(wb, "[heap]", strlen("[heap]"));
	wb_push2(wb, ESC, OP_CODE_ANON_DEF);  /* the perf source's name for anon */
	wb_push2(wb, 8, 100);
	wb_push2(wb, 0x7f0000100000ul, 0x7f0000200000ul);
	wb_push(wb, strlen("//anon"));
	wb_push_string(wb, "//anon", strlen("//anon"));
	wb_push2(wb, ESC, OP_CODE_CTX_SWITCH);
	wb_push2(wb, 101, 5);
	wb_push2(wb, ESC, OP_CODE_CTX_TGID);
	wb_push(wb, 100);
	wb_push2(wb, ESC, OP_CODE_USER_ENTER);
	wb_push2(wb, ESC, OP_CODE_COOKIE_SWITCH);
	wb_push(wb, 5);
	push_samples(wb, 0x1000, 3, 0);
	push_samples(wb, 0x2000, 1, 0);
	wb_push2(wb, ESC, OP_CODE_COOKIE_SWITCH);
	wb_push(wb, 6);
	push_samples(wb, 0x500, 2, 0);
	wb_push2(wb, ESC, OP_CODE_COOKIE_SWITCH);
	wb_push(wb, 7);
	push_samples(wb, 0x10, 1, 0);
	push_samples(wb, 0x20, 1, 3);  /* event 3 is not configured */
	wb_push2(wb, ESC, OP_CODE_COOKIE_SWITCH);
	wb_push(wb, 8);
	push_samples(wb, 0x30, 1, 0);
	wb_push2(wb, ESC, OP_CODE_KERNEL_ENTER);
	push_samples(wb, ktext + 0x100, 4, 0);
	wb_push2(wb, ESC, OP_CODE_LOST);
	wb_push2(wb, OP_LOST_NO_MAPPING, 5);
}

struct expect { uint64_t key; uint32_t value; };

static int sum_visit(odb_key_t key, odb_value_t value, void *arg)
{
	struct expect *e = arg;
	for (; e->value; e++)
		if (e->key == key) {
			e->value = e->value == value ? UINT32_MAX : e->value;
			return 0;
		}
	return 1;  /* a key we did not expect */
}

static void check_file(char const *dir, char const *rel, int is_kernel,
		       uint64_t anon_start, struct expect *want)
{
	char path[PATH_MAX * 2];
	struct opd_header h;
	struct odb db;
	char err[512];
	struct expect *e;

	snprintf(path, sizeof(path), "%s/samples/current/%s", dir, rel);
	if (op_header_read(path, &h, err, sizeof(err))) {
		CHECK(0, "%s", err);
		return;
	}
	CHECK(h.cpu_type == 4 && h.ctr_count == 1000000 && h.ctr_event == 0,
	      "%s: header cpu %u count %u event %u", rel, h.cpu_type, h.ctr_count, h.ctr_event);
	CHECK(h.is_kernel == (uint32_t)is_kernel, "%s: is_kernel %u", rel, h.is_kernel);
	CHECK(h.anon_start == anon_start, "%s: anon_start 0x%" PRIx64, rel, h.anon_start);
	if (odb_open(&db, path, ODB_RDONLY, sizeof(struct opd_header))) {
		CHECK(0, "%s", db.err);
		return;
	}
	CHECK(odb_check(&db) == 0, "%s", db.err);
	CHECK(odb_for_each(&db, sum_visit, want) == 0, "%s: unexpected key", rel);
	for (e = want; e->value; e++)
		CHECK(e->value == UINT32_MAX, "%s: key 0x%" PRIx64 " wrong count", rel, e->key);
	odb_close(&db);
	printf("ok: %s\n", rel);
}

static void run(char const *dir, unsigned separate, size_t max_open)
{
	struct opd_config cfg = {
		.session_dir = dir, .cpu_type = CPU_TIMER_INT, .cpu_speed = 2000.0,
		.separate = separate, .nr_events = 1, .max_open_files = max_open,
	};
	struct word_buffer wb;
	struct opd_stats const *st;
	size_t i;

	strcpy(cfg.events[0].name, EVENT_NAME);
	cfg.events[0].count = 1000000;
	cfg.events[0].kernel = cfg.events[0].user = 1;
	if (opd_core_init(&cfg)) {
		CHECK(0, "opd_core_init failed");
		return;
	}
	wb_init(&wb);
	build_stream(&wb);
	/* Feed in small pieces: records straddle chunk boundaries. */
	for (i = 0; i < wb.len; i += 3)
		opd_core_process(wb.w + i, wb.len - i < 3 ? wb.len - i : 3);
	CHECK(opd_sfile_nr_open() <= (max_open ? max_open : 256),
	      "%zu files open, bound %zu", opd_sfile_nr_open(), max_open);
	opd_core_sync();
	st = opd_core_stats();
	CHECK(st->received == 13 && st->written == 12 && st->bad_event == 1,
	      "stats received %" PRIu64 " written %" PRIu64 " bad_event %" PRIu64,
	      st->received, st->written, st->bad_event);
	CHECK(st->lost[OP_LOST_NO_MAPPING] == 5, "lost no_mapping %" PRIu64,
	      st->lost[OP_LOST_NO_MAPPING]);
	CHECK(st->stream_errors == 0, "stream errors %" PRIu64, st->stream_errors);
	opd_core_exit();
	wb_free(&wb);
}

static char const *strip(char const *p)
{
	return p + 1;
}

int main(void)
{
	char dir[] = "/tmp/opd-core-test-XXXXXX";
	char rel[PATH_MAX * 4];
	char cmd[PATH_MAX];
	ssize_t n;

	if (geteuid() != 0 || !(ktext = kallsyms_text())) {
		printf("skip: needs root to read kernel addresses from /proc/kallsyms\n");
		return 77;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	find_lib();
	if (!mkdtemp(dir))
		return 1;

	/* --separate=none */
	run(dir, 0, 0);
	snprintf(rel, sizeof(rel), "{root}/%s/{dep}/{root}/%s/CPU_CLOCK.1000000.0.all.all.all", strip(exe), strip(exe));
	check_file(dir, rel, 0, 0, (struct expect[]){ {0x1000, 3}, {0x2000, 1}, {0} });
	snprintf(rel, sizeof(rel), "{root}/%s/{dep}/{root}/%s/CPU_CLOCK.1000000.0.all.all.all", strip(lib), strip(lib));
	check_file(dir, rel, 0, 0, (struct expect[]){ {0x500, 2}, {0} });
	check_file(dir, "{kern}/vmlinux/{dep}/{kern}/vmlinux/CPU_CLOCK.1000000.0.all.all.all", 1, 0,
		   (struct expect[]){ {0x100, 4}, {0} });
	snprintf(rel, sizeof(rel), "{root}/%s/{dep}/{anon:[heap]}/100.0x7f0000000000.0x7f0000010000/CPU_CLOCK.1000000.0.all.all.all", strip(exe));
	check_file(dir, rel, 0, 0x7f0000000000ul, (struct expect[]){ {0x10, 1}, {0} });
	snprintf(rel, sizeof(rel), "{root}/%s/{dep}/{anon:anon}/100.0x7f0000100000.0x7f0000200000/CPU_CLOCK.1000000.0.all.all.all", strip(exe));
	check_file(dir, rel, 0, 0x7f0000100000ul, (struct expect[]){ {0x30, 1}, {0} });
	snprintf(rel, sizeof(rel), "%s/samples/current/session/kallsyms.gz", dir);
	CHECK(access(rel, R_OK) == 0, "no saved kallsyms");
	snprintf(rel, sizeof(rel), "%s/samples/current/session/kernel_images", dir);
	CHECK(access(rel, R_OK) == 0, "no saved kernel_images");

	/* the per-boot kallsyms cache: a stale key is replaced, not trusted */
	snprintf(rel, sizeof(rel), "%s/kernel-cache/key", dir);
	{
		FILE *f = fopen(rel, "w");
		char line[128] = "";
		CHECK(f && fputs("stale boot id\n", f) >= 0 && fclose(f) == 0, "write key");
		run(dir, 0, 0);
		f = fopen(rel, "r");
		CHECK(f && fgets(line, sizeof(line), f), "read key");
		if (f)
			fclose(f);
		CHECK(strncmp(line, "stale", 5) != 0, "stale cache key kept: %s", line);
		printf("ok: a stale kernel cache is rebuilt\n");
	}

	/* --separate=all, with an LRU bound of one open file */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/samples'", dir);
	CHECK(system(cmd) == 0, "rm");
	run(dir, OPD_SEP_LIB | OPD_SEP_KERNEL | OPD_SEP_THREAD | OPD_SEP_CPU, 1);
	snprintf(rel, sizeof(rel), "{root}/%s/{dep}/{root}/%s/CPU_CLOCK.1000000.0.100.101.1", strip(exe), strip(exe));
	check_file(dir, rel, 0, 0, (struct expect[]){ {0x1000, 3}, {0x2000, 1}, {0} });
	snprintf(rel, sizeof(rel), "{root}/%s/{dep}/{root}/%s/CPU_CLOCK.1000000.0.100.101.1", strip(exe), strip(lib));
	check_file(dir, rel, 0, 0, (struct expect[]){ {0x500, 2}, {0} });
	snprintf(rel, sizeof(rel), "{root}/%s/{dep}/{kern}/vmlinux/CPU_CLOCK.1000000.0.100.101.1", strip(exe));
	check_file(dir, rel, 1, 0, (struct expect[]){ {0x100, 4}, {0} });

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0, "rm");
	printf("%s\n", failures ? "core_test: FAILED" : "core_test: all checks passed");
	return failures ? 1 : 0;
}
