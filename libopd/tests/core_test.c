/*
 * The daemon core end to end on a hand-built event stream: which sample
 * files it creates under each --separate mode, their headers, the counts
 * in them, and that the stats balance. Real kernel addresses come from
 * /proc/kallsyms, so this needs root (skip, 77, otherwise). Two cores
 * also run side by side in this one process: a core owns all its state.
 * With a sample sink (opreport --stream) the same files go to the sink,
 * none to the disk.
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

#include "check.h"
#include "odb.h"
#include "op_sample_file.h"
#include "op_stream.h"
#include "opd_core.h"
#include "opd_vdso.h"
#include "stream_words.h"

#define EVENT_NAME "CPU_CLOCK"

static char exe[PATH_MAX];
static char lib[PATH_MAX];
static uint64_t ktext;

static void find_lib(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];

	while (f && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');
		if (p && strstr(p, "libc.so")) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(lib, sizeof(lib), "%s", p);
			break;
		}
	}
	if (f)
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

static void push_samples(struct word_buffer *wb, unsigned long pc, int n, unsigned long ev)
{
	while (n--)
		opd_words_push2(wb, pc, ev);
}

/* Task 100 (tid 101) on cpu 1: 4 in exe, 2 in libc, 4 kernel, 2 anon, 1 bad. */
static void build_stream(struct word_buffer *wb)
{
	sw_cpu(wb, 1);
	sw_cookie_def(wb, 5, exe);
	sw_cookie_def(wb, 6, lib);
	sw_anon_def(wb, 7, 100, 0x7f0000000000ul, 0x7f0000010000ul, "[heap]");
	/* the perf source's name for anon */
	sw_anon_def(wb, 8, 100, 0x7f0000100000ul, 0x7f0000200000ul, "//anon");
	sw_ctx(wb, 101, 5, 100);
	sw_user(wb);
	sw_cookie(wb, 5);
	push_samples(wb, 0x1000, 3, 0);
	push_samples(wb, 0x2000, 1, 0);
	sw_cookie(wb, 6);
	push_samples(wb, 0x500, 2, 0);
	sw_cookie(wb, 7);
	push_samples(wb, 0x10, 1, 0);
	push_samples(wb, 0x20, 1, 3);  /* event 3 is not configured */
	sw_cookie(wb, 8);
	push_samples(wb, 0x30, 1, 0);
	sw_kernel(wb);
	push_samples(wb, ktext + 0x100, 4, 0);
	sw_esc(wb, OP_CODE_LOST);
	opd_words_push2(wb, OP_LOST_NO_MAPPING, 5);
}

struct expect { uint64_t key; uint32_t value; };

static char const *strip(char const *p)
{
	return p + 1;
}

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
	int right = 1;

	snprintf(path, sizeof(path), "%s/samples/current/%s", dir, rel);
	if (!check(!op_header_read(path, &h, err, sizeof(err)), "%s: header read", rel)) {
		check_note("%s", err);
		return;
	}
	check(h.cpu_type == 4 && h.ctr_count == 1000000 && h.ctr_event == 0,
	      "%s: header cpu %u count %u event %u", rel, h.cpu_type, h.ctr_count,
	      h.ctr_event);
	check_int(h.is_kernel, is_kernel, "%s: is_kernel", rel);
	check_int((long long)h.anon_start, (long long)anon_start, "%s: anon_start", rel);
	if (!check(!odb_open(&db, path, ODB_RDONLY, sizeof(struct opd_header)),
		   "%s: opens", rel)) {
		check_note("%s", db.err);
		return;
	}
	check(odb_check(&db) == 0, "%s: odb_check %s", rel, db.err);
	check(odb_for_each(&db, sum_visit, want) == 0, "%s: no unexpected key", rel);
	for (e = want; e->value; e++)
		if (e->value != UINT32_MAX) {
			check_note("%s: key 0x%" PRIx64 " wrong count", rel, e->key);
			right = 0;
		}
	check(right, "%s: every key has its count", rel);
	odb_close(&db);
}

/* The sink new_core gives its cores (NULL: sample files). */
static struct opd_sample_sink const *core_sink;

static struct opd_core *new_core(char const *dir, unsigned separate,
				 size_t max_open)
{
	struct opd_config cfg = {
		.session_dir = dir, .cpu_type = CPU_TIMER_INT, .cpu_speed = 2000.0,
		.separate = separate, .nr_events = 1, .max_open_files = max_open,
		.sink = core_sink,
	};

	strcpy(cfg.events[0].name, EVENT_NAME);
	cfg.events[0].count = 1000000;
	cfg.events[0].kernel = cfg.events[0].user = 1;
	return opd_core_new(&cfg);
}

/* Feed in small pieces: records straddle chunk boundaries. */
static void feed(struct opd_core *core, struct word_buffer const *wb,
		 size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i += 3)
		opd_core_process(core, wb->w + i, to - i < 3 ? to - i : 3);
}

static void check_stats(struct opd_core *core, char const *what)
{
	struct opd_stats const *st;

	opd_core_sync(core);
	st = opd_core_stats(core);
	check(st->received == 13 && st->written == 12 && st->bad_event == 1,
	      "%s: stats received %" PRIu64 " written %" PRIu64 " bad_event %" PRIu64,
	      what, st->received, st->written, st->bad_event);
	check_int((long long)st->lost[OP_LOST_NO_MAPPING], 5, "%s: lost no_mapping", what);
	check_int((long long)st->stream_errors, 0, "%s: stream errors", what);
}

static void run(char const *dir, unsigned separate, size_t max_open)
{
	struct opd_core *core = new_core(dir, separate, max_open);
	struct word_buffer wb;
	size_t released;

	if (!check(core != NULL, "opd_core_new"))
		return;
	opd_words_init(&wb);
	build_stream(&wb);
	/* out of fds, the open files close with samples pending;
	 * they are written all the same when their files reopen */
	feed(core, &wb, 0, wb.len - 12);	/* up to the kernel samples */
	opd_core_sync(core);
	feed(core, &wb, wb.len - 12, wb.len);
	released = opd_core_release_fds(core);
	check(released > 0 && opd_core_nr_open_files(core) == 0,
	      "release_fds closed the %zu open files", released);
	check(opd_core_nr_open_files(core) <= (max_open ? max_open : 256),
	      "%zu files open, bound %zu", opd_core_nr_open_files(core), max_open);
	check_stats(core, "one core");
	opd_core_free(core);
	opd_words_free(&wb);
}

/* The --separate=none files of build_stream's samples in dir. */
static void check_unseparated(char const *dir)
{
	char rel[PATH_MAX * 4];

	snprintf(rel, sizeof(rel), "{root}/%s/{dep}/{root}/%s/CPU_CLOCK.1000000.0.all.all.all", strip(exe), strip(exe));
	check_file(dir, rel, 0, 0, (struct expect[]){ {0x1000, 3}, {0x2000, 1}, {0} });
	snprintf(rel, sizeof(rel), "{root}/%s/{dep}/{root}/%s/CPU_CLOCK.1000000.0.all.all.all", strip(lib), strip(lib));
	check_file(dir, rel, 0, 0, (struct expect[]){ {0x500, 2}, {0} });
	/* the kernel proper as OProfile 1.x names a kallsyms-resolved one */
	check_file(dir, "{root}/proc/kallsyms/{dep}/{root}/proc/kallsyms/CPU_CLOCK.1000000.0.all.all.all", 1, 0,
		   (struct expect[]){ {0x100, 4}, {0} });
	snprintf(rel, sizeof(rel), "{root}/%s/{dep}/{anon:[heap]}/100.0x7f0000000000.0x7f0000010000/CPU_CLOCK.1000000.0.all.all.all", strip(exe));
	check_file(dir, rel, 0, 0x7f0000000000ul, (struct expect[]){ {0x10, 1}, {0} });
	snprintf(rel, sizeof(rel), "{root}/%s/{dep}/{anon:anon}/100.0x7f0000100000.0x7f0000200000/CPU_CLOCK.1000000.0.all.all.all", strip(exe));
	check_file(dir, rel, 0, 0x7f0000100000ul, (struct expect[]){ {0x30, 1}, {0} });
}

/*
 * Two cores alive at once in one process, each with its own session and
 * --separate mode, fed the same stream interleaved chunk by chunk: each
 * must write exactly what it writes alone.
 */
static void run_two_cores(char const *dir_a, char const *dir_b)
{
	struct opd_core *a = new_core(dir_a, 0, 0);
	struct opd_core *b = new_core(dir_b, OPD_SEP_LIB | OPD_SEP_KERNEL |
				      OPD_SEP_THREAD | OPD_SEP_CPU, 1);
	struct word_buffer wb;
	size_t i, step = 7;

	if (!check(a && b, "two cores at once")) {
		opd_core_free(a);
		opd_core_free(b);
		return;
	}
	opd_words_init(&wb);
	build_stream(&wb);
	for (i = 0; i < wb.len; i += step) {
		size_t end = i + step < wb.len ? i + step : wb.len;

		feed(a, &wb, i, end);
		feed(b, &wb, i, end);
	}
	check_stats(a, "core a of two");
	check_stats(b, "core b of two");
	check(opd_core_nr_open_files(b) <= 1, "core b keeps its own bound of 1");
	opd_core_free(a);
	check_stats(b, "core b after core a is gone");
	opd_core_free(b);
	opd_words_free(&wb);
}
/* The --separate=all files of build_stream's samples in dir. */
static void check_separated(char const *dir)
{
	char rel[PATH_MAX * 4];

	snprintf(rel, sizeof(rel), "{root}/%s/{dep}/{root}/%s/CPU_CLOCK.1000000.0.100.101.1", strip(exe), strip(exe));
	check_file(dir, rel, 0, 0, (struct expect[]){ {0x1000, 3}, {0x2000, 1}, {0} });
	snprintf(rel, sizeof(rel), "{root}/%s/{dep}/{root}/%s/CPU_CLOCK.1000000.0.100.101.1", strip(exe), strip(lib));
	check_file(dir, rel, 0, 0, (struct expect[]){ {0x500, 2}, {0} });
	snprintf(rel, sizeof(rel), "{root}/%s/{dep}/{root}/proc/kallsyms/CPU_CLOCK.1000000.0.100.101.1", strip(exe));
	check_file(dir, rel, 1, 0, (struct expect[]){ {0x100, 4}, {0} });
}

/*
 * Budgets, in a producer's words as the driver writes them:
 * three processes' [vdso] regions (the vDSO's size) are one image
 * {root}/[vdso] whose bytes are saved by build-id; 70 anonymous regions of
 * one app give 64 files and the rest folded into {anon:anon}/0.0x0.0x0;
 * COOKIE_FORGET empties the decoder's table of them.
 */
static void run_budgets(char const *dir)
{
	struct opd_core *core = new_core(dir, 0, 0);
	struct opd_stats const *st;
	struct word_buffer wb;
	char rel[PATH_MAX * 4];
	size_t vsize;
	unsigned long c;

	if (!check(core != NULL, "budgets: opd_core_new"))
		return;
	opd_words_init(&wb);
	sw_cpu(&wb, 0);
	sw_cookie_def(&wb, 5, exe);
	if (opd_vdso_self(&vsize)) {
		for (c = 0; c < 3; c++) {
			unsigned long base = 0x7ff000000000ul + (c << 20);

			sw_anon_def(&wb, 10 + c, 200 + c, base, base + vsize, "[vdso]");
			sw_ctx(&wb, 200 + c, 5, 200 + c);
			sw_user(&wb);
			sw_cookie(&wb, 10 + c);
			push_samples(&wb, 0x40, 2, 0);
		}
	}
	for (c = 0; c < 70; c++) {
		unsigned long base = 0x7f0000000000ul + (c << 16);

		sw_anon_def(&wb, 100 + c, 300 + c, base, base + 0x1000, "//anon");
		sw_ctx(&wb, 300 + c, 5, 300 + c);
		sw_user(&wb);
		sw_cookie(&wb, 100 + c);
		push_samples(&wb, 0x10, 1, 0);
	}
	for (c = 0; c < 70; c++) {
		sw_esc(&wb, OP_CODE_COOKIE_FORGET);
		opd_words_push(&wb, 100 + c);
	}
	/* the first region sampled again (the driver freed its cookie after
	 * 10 s idle): a new cookie, and the region keeps its own file */
	sw_anon_def(&wb, 500, 300, 0x7f0000000000ul, 0x7f0000001000ul, "//anon");
	sw_ctx(&wb, 300, 5, 300);
	sw_user(&wb);
	sw_cookie(&wb, 500);
	push_samples(&wb, 0x10, 1, 0);
	feed(core, &wb, 0, wb.len);
	opd_core_sync(core);
	st = opd_core_stats(core);
	check_int((long long)st->stream_errors, 0, "budgets: stream errors");
	check_int((long long)st->anon_regions_folded, 6, "budgets: regions folded");
	check_int((long long)st->cookies_forgotten, 70, "budgets: definitions forgotten");
	check_int((long long)st->decoder_cookies, vsize ? 5 : 2,
		  "budgets: definitions held (the app's, the vDSO's, the redefined one)");
	snprintf(rel, sizeof(rel), "{root}/%s/{dep}/{anon:anon}/300.0x7f0000000000.0x7f0000001000/CPU_CLOCK.1000000.0.all.all.all", strip(exe));
	check_file(dir, rel, 0, 0x7f0000000000ul, (struct expect[]){ {0x10, 2}, {0} });
	if (vsize) {
		check_file(dir, "{root}/[vdso]/{dep}/{root}/[vdso]/CPU_CLOCK.1000000.0.all.all.all",
			   0, 0, (struct expect[]){ {0x40, 6}, {0} });
		snprintf(rel, sizeof(rel), "grep -q ' /\\[vdso\\]$' %s/samples/current/session/build-ids",
			 dir);
		check(system(rel) == 0, "budgets: '/[vdso]' in session/build-ids");
	}
	snprintf(rel, sizeof(rel), "{root}/%s/{dep}/{anon:anon}/0.0x0.0x0/CPU_CLOCK.1000000.0.all.all.all", strip(exe));
	check_file(dir, rel, 0, 0, (struct expect[]){ {0x10, 6}, {0} });
	snprintf(rel, sizeof(rel), "test $(ls -d %s/samples/current/{root}%s/{dep}/{anon:anon}/3* | wc -l) = 64",
		 dir, exe);
	check(system(rel) == 0, "budgets: 64 regions of the app have files of their own");
	opd_core_free(core);
	opd_words_free(&wb);
}

/*
 * Region names reach a file name component, {anon:NAME}: a region named
 * with PR_SET_VMA_ANON_NAME as /proc/PID/maps shows it (79 bytes, the
 * kernel's longest, with '}' and "/.."), a memfd whose name holds ESC,
 * BEL, '}' and "/../" (perf's MMAP2 path, any bytes but NUL), and one
 * longer than a component may be: each is one component of the app's
 * {dep} directory, '/' and '}' written '_', cut to fit.
 */
static void test_core__anon_names(void)
{
	char dir[PATH_MAX], rel[PATH_MAX * 4], name[400], want[400];
	struct opd_core *core;
	struct word_buffer wb;
	char const *memfd = "/memfd:E\033]0;t\007}/../x (deleted)";
	size_t n;

	snprintf(dir, sizeof(dir), "%s/names", check_tmpdir());
	if (mkdir(dir, 0700))
		check_bail("mkdir %s: %s", dir, strerror(errno));
	core = new_core(dir, 0, 0);
	if (!check(core != NULL, "names: opd_core_new"))
		return;
	opd_words_init(&wb);
	sw_cpu(&wb, 0);
	sw_cookie_def(&wb, 5, exe);
	n = (size_t)snprintf(name, sizeof(name), "[anon:x}/../escaped");
	memset(name + n, '0', 79 - (n - 6));
	strcpy(name + 6 + 79, "]");
	sw_anon_def(&wb, 10, 400, 0x7e0000000000ul, 0x7e0000001000ul, name);
	sw_anon_def(&wb, 11, 400, 0x7e0000010000ul, 0x7e0000011000ul, memfd);
	memset(name, 'm', 300);
	memcpy(name, "/memfd:", 7);
	name[300] = '\0';
	sw_anon_def(&wb, 12, 400, 0x7e0000020000ul, 0x7e0000021000ul, name);
	sw_ctx(&wb, 400, 5, 400);
	sw_user(&wb);
	for (unsigned long c = 10; c <= 12; c++) {
		sw_cookie(&wb, c);
		push_samples(&wb, 0x10, 2, 0);	/* offsets in the region */
	}
	feed(core, &wb, 0, wb.len);
	opd_core_sync(core);
	check_int((long long)opd_core_stats(core)->stream_errors, 0,
		  "names: stream errors");
	check_int((long long)opd_core_stats(core)->sfile_errors, 0,
		  "names: every region has its file");
	n = (size_t)snprintf(want, sizeof(want), "[anon:x__.._escaped");
	memset(want + n, '0', 79 - (n - 6));
	strcpy(want + 6 + 79, "]");
	snprintf(rel, sizeof(rel), "{root}/%s/{dep}/{anon:%s}/400.0x7e0000000000.0x7e0000001000/CPU_CLOCK.1000000.0.all.all.all",
		 strip(exe), want);
	check_file(dir, rel, 0, 0x7e0000000000ul, (struct expect[]){ {0x10, 2}, {0} });
	snprintf(rel, sizeof(rel), "{root}/%s/{dep}/{anon:memfd:E\033]0;t\007__.._x (deleted)}/400.0x7e0000010000.0x7e0000011000/CPU_CLOCK.1000000.0.all.all.all",
		 strip(exe));
	check_file(dir, rel, 0, 0x7e0000010000ul, (struct expect[]){ {0x10, 2}, {0} });
	/* a component is at most NAME_MAX bytes: "{anon:" NAME "}" */
	memset(want, 'm', 255 - 7);
	memcpy(want, "memfd:", 6);
	want[255 - 7] = '\0';
	snprintf(rel, sizeof(rel), "{root}/%s/{dep}/{anon:%s}/400.0x7e0000020000.0x7e0000021000/CPU_CLOCK.1000000.0.all.all.all",
		 strip(exe), want);
	check_file(dir, rel, 0, 0x7e0000020000ul, (struct expect[]){ {0x10, 2}, {0} });
	/* nothing of the names' "/../" made a path outside the app's {dep} */
	snprintf(rel, sizeof(rel), "test $(find %s/samples/current -mindepth 1 -maxdepth 1 | grep -v '/{root}$\\|/session$\\|/stats$' | wc -l) = 0", dir);
	check(system(rel) == 0, "names: nothing beside {root}, session and stats in the session");
	opd_core_free(core);
	opd_words_free(&wb);
}

/* A sink in the test: the files the core hands it, by path. */
struct mem_file {
	char path[PATH_MAX * 4];
	struct opd_header h;
	struct expect got[8];
	int n;
};
static struct mem_file mem[16];
static int nr_mem, mem_refuse;

static void *mem_open(void *ctx, char const *path, struct opd_header const *h)
{
	(void)ctx;
	if (mem_refuse)
		return NULL;
	for (int i = 0; i < nr_mem; i++)
		if (!strcmp(mem[i].path, path))
			return &mem[i];
	if (nr_mem == (int)(sizeof(mem) / sizeof(mem[0])))
		return NULL;
	snprintf(mem[nr_mem].path, sizeof(mem[0].path), "%s", path);
	mem[nr_mem].h = *h;
	return &mem[nr_mem++];
}

static void mem_add(void *file, uint64_t key, uint32_t n)
{
	struct mem_file *f = file;
	int i;

	for (i = 0; i < f->n && f->got[i].key != key; i++)
		;
	if (i == f->n && f->n < 7) {
		f->got[f->n].key = key;
		f->got[f->n++].value = 0;
	}
	if (i < 7)
		f->got[i].value += n;
}

/* sink's file rel: its header's is_kernel and anon_start, its counts */
static void check_mem(char const *dir, char const *rel, int is_kernel,
		      uint64_t anon_start, struct expect const *want)
{
	char path[PATH_MAX * 4];
	struct mem_file const *f = NULL;
	int right = 1, n = 0;

	snprintf(path, sizeof(path), "%s/samples/current/%s", dir, rel);
	for (int i = 0; i < nr_mem; i++)
		if (!strcmp(mem[i].path, path))
			f = &mem[i];
	if (!check(f != NULL, "sink: %s handed over", rel))
		return;
	check(f->h.cpu_type == 4 && f->h.ctr_count == 1000000 &&
	      f->h.is_kernel == (uint32_t)is_kernel && f->h.anon_start == anon_start,
	      "sink: %s: the header a file would have", rel);
	for (; want[n].value; n++) {
		int hit = 0;

		for (int i = 0; i < f->n; i++)
			hit |= f->got[i].key == want[n].key &&
			       f->got[i].value == want[n].value;
		right &= hit;
	}
	check(right && f->n == n, "sink: %s: every key has its count", rel);
}

/* The core with a sink: build_stream's files in it, none on disk. */
static void run_sink(char const *dir)
{
	struct opd_sample_sink sink = { .open = mem_open, .add = mem_add };
	char rel[PATH_MAX * 4];
	struct opd_stats const *st;
	struct opd_core *core;
	struct word_buffer wb;

	core_sink = &sink;
	opd_words_init(&wb);
	build_stream(&wb);
	core = new_core(dir, 0, 0);
	if (check(core != NULL, "a core with a sink")) {
		feed(core, &wb, 0, wb.len);
		check_stats(core, "with a sink");
		opd_core_free(core);
	}
	snprintf(rel, sizeof(rel), "{root}/%s/{dep}/{root}/%s/CPU_CLOCK.1000000.0.all.all.all", strip(exe), strip(exe));
	check_mem(dir, rel, 0, 0, (struct expect[]){ {0x1000, 3}, {0x2000, 1}, {0} });
	snprintf(rel, sizeof(rel), "{root}/%s/{dep}/{root}/%s/CPU_CLOCK.1000000.0.all.all.all", strip(lib), strip(lib));
	check_mem(dir, rel, 0, 0, (struct expect[]){ {0x500, 2}, {0} });
	check_mem(dir, "{root}/proc/kallsyms/{dep}/{root}/proc/kallsyms/CPU_CLOCK.1000000.0.all.all.all",
		  1, 0, (struct expect[]){ {0x100, 4}, {0} });
	snprintf(rel, sizeof(rel), "{root}/%s/{dep}/{anon:[heap]}/100.0x7f0000000000.0x7f0000010000/CPU_CLOCK.1000000.0.all.all.all", strip(exe));
	check_mem(dir, rel, 0, 0x7f0000000000ul, (struct expect[]){ {0x10, 1}, {0} });
	check_int(nr_mem, 5, "sink: five files");
	snprintf(rel, sizeof(rel), "test ! -e '%s/samples/current/{root}'", dir);
	check(system(rel) == 0, "sink: no sample file or directory on disk");
	snprintf(rel, sizeof(rel), "grep -q ' %s$' %s/samples/current/session/build-ids",
		 exe, dir);
	check(system(rel) == 0, "sink: the session's build-ids are still written");

	/* a sink that refuses its files: the samples are errors, not written */
	mem_refuse = 1;
	core = new_core(dir, 0, 0);
	if (check(core != NULL, "a core with a refusing sink")) {
		feed(core, &wb, 0, wb.len);
		opd_core_sync(core);
		st = opd_core_stats(core);
		check(st->written == 0 && st->sfile_errors == 12,
		      "refused: 0 written, %" PRIu64 " sample file errors", st->sfile_errors);
		opd_core_free(core);
	}
	mem_refuse = 0;
	core_sink = NULL;
	opd_words_free(&wb);
}

static void rm_rf(char const *path)
{
	check(!check_rmtree(path), "removed: %s", path);
}

int main(void)
{
	char dir[PATH_MAX], dir2[PATH_MAX];
	char rel[PATH_MAX * 4];
	ssize_t n;

	if (geteuid() != 0 || !(ktext = kallsyms_text()))
		check_skip("needs root to read kernel addresses from /proc/kallsyms");
	/* the session dir's kernel-cache/, not the machine's */
	setenv("OPROFILE_KERNEL_CACHE", "", 1);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	find_lib();
	/* two session directories in the test's scratch directory */
	snprintf(dir, sizeof(dir), "%s/one", check_tmpdir());
	snprintf(dir2, sizeof(dir2), "%s/two", check_tmpdir());
	if (mkdir(dir, 0700) || mkdir(dir2, 0700))
		check_bail("mkdir %s: %s", dir, strerror(errno));

	/* --separate=none */
	run(dir, 0, 0);
	check_unseparated(dir);
	snprintf(rel, sizeof(rel), "%s/samples/current/session/kallsyms.gz", dir);
	check(access(rel, R_OK) == 0, "kallsyms saved with the session");
	snprintf(rel, sizeof(rel), "%s/samples/current/session/kernel_images", dir);
	check(access(rel, R_OK) == 0, "kernel_images saved with the session");

	/* the per-boot kallsyms cache: a stale key is replaced, not trusted */
	snprintf(rel, sizeof(rel), "%s/kernel-cache/key", dir);
	{
		FILE *f = fopen(rel, "w");
		char line[128] = "";

		check(f && fputs("stale boot id\n", f) >= 0 && fclose(f) == 0,
		      "write a stale cache key");
		run(dir, 0, 0);
		f = fopen(rel, "r");
		check(f && fgets(line, sizeof(line), f), "read the cache key");
		if (f)
			fclose(f);
		line[strcspn(line, "\n")] = '\0';
		check(strncmp(line, "stale", 5) != 0, "a stale kernel cache is rebuilt (key %s)", line);
	}

	/* --separate=all, with an LRU bound of one open file */
	snprintf(rel, sizeof(rel), "%s/samples", dir);
	rm_rf(rel);
	run(dir, OPD_SEP_LIB | OPD_SEP_KERNEL | OPD_SEP_THREAD | OPD_SEP_CPU, 1);
	check_separated(dir);

	/* a core that cannot make its session fails whole (ASan: no leak) */
	check(new_core("/proc/no-such-session", 0, 0) == NULL,
	      "a core without a session directory is not created");

	/* the samples to a sink */
	rm_rf(rel);
	run_sink(dir);

	/* both at once, in two sessions */
	rm_rf(rel);
	run_two_cores(dir, dir2);
	check_unseparated(dir);
	check_separated(dir2);

	rm_rf(rel);
	run_budgets(dir);
	test_core__anon_names();

	rm_rf(dir);
	rm_rf(dir2);
	return check_done();
}
