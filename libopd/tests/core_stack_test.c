/*
 * Whole stacks count only samples that are in their sample file: a traced
 * sample whose file cannot be written is counted where the stats say
 * (sample_dropped_sfile_error) and not in stacks/, so the stacks' counts
 * add up to the samples written and the stats balance. Needs root like
 * core_test.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "op_file.h"
#include "op_stacks.h"
#include "op_stream.h"
#include "opd_core.h"
#include "opd_stats_file.h"
#include "stream_words.h"

#define SFILE_NAME "CPU_CLOCK.1000000.0.all.all.all"

static char exe[PATH_MAX];
/* a binary that is gone: its samples keep an image (mtime unknown) */
static char const gone[] = "/no-such-dir/blocked";

static struct opd_core *new_core(char const *dir)
{
	struct opd_config cfg = {
		.session_dir = dir, .cpu_type = CPU_TIMER_INT,
		.cpu_speed = 2000.0, .nr_events = 1,
	};

	strcpy(cfg.events[0].name, "CPU_CLOCK");
	cfg.events[0].count = 1000000;
	cfg.events[0].kernel = cfg.events[0].user = 1;
	return opd_core_new(&cfg);
}

/* n traced samples at pc in the binary of cookie, each with two frames. */
static void traced(struct word_buffer *wb, unsigned long cookie,
		   unsigned long pc, int n)
{
	sw_cookie(wb, cookie);
	while (n--) {
		sw_esc(wb, OP_CODE_TRACE_BEGIN);
		opd_words_push2(wb, pc, 0);
		opd_words_push2(wb, pc + 0x100, 0);
		opd_words_push2(wb, pc + 0x200, 0);
	}
}

static int add_count(void *arg, struct op_stack const *s, char const *event,
		     uint64_t count)
{
	(void)s;
	(void)event;
	*(uint64_t *)arg += count;
	return 0;
}

/* The sum of every count in the session's stacks/. */
static uint64_t stacks_total(char const *dir)
{
	char path[PATH_MAX];
	struct op_stacks *st;
	uint64_t sum = 0;

	snprintf(path, sizeof(path), "%s/samples/current", dir);
	if (!check(op_stacks_open(path, &st) == 0, "stacks/ opens"))
		return UINT64_MAX;
	check(op_stacks_foreach(st, NULL, add_count, &sum) == 0,
	      "stacks/ counts read");
	op_stacks_close(st);
	return sum;
}

int main(void)
{
	char const *dir;
	char block[PATH_MAX * 3];
	struct word_buffer wb;
	struct opd_stats const *st;
	struct opd_core *core;
	ssize_t n;

	if (geteuid() != 0)
		check_skip("needs root, as the daemon core reads /proc/kallsyms");
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	dir = check_tmpdir();
	/* gone's sample file cannot be made: a directory holds its name */
	snprintf(block, sizeof(block),
		 "%s/samples/current/{root}%s/{dep}/{root}%s/" SFILE_NAME,
		 dir, gone, gone);
	check(op_mkdir_p(block) == 0, "a directory where the sample file goes");

	core = new_core(dir);
	if (!check(core != NULL, "opd_core_new"))
		return check_done();
	opd_words_init(&wb);
	sw_cpu(&wb, 0);
	sw_cookie_def(&wb, 5, gone);
	sw_cookie_def(&wb, 6, exe);
	sw_ctx(&wb, 100, 6, 100);
	sw_user(&wb);
	traced(&wb, 5, 0x1000, 3);	/* not written: no stack either */
	traced(&wb, 6, 0x500, 2);	/* written, with their stacks */
	sw_cpu(&wb, 0);			/* ends the last trace */
	opd_core_process(core, wb.w, wb.len);
	opd_core_sync(core);
	st = opd_core_stats(core);
	check(st->received == 5 && st->written == 2 && st->sfile_errors == 3,
	      "received %" PRIu64 " written %" PRIu64 " sfile_errors %" PRIu64
	      " (want 5, 2, 3)", st->received, st->written, st->sfile_errors);
	check(st->received == st->written + opd_stats_dropped(st),
	      "the stats balance");
	check(st->stack_written == 2 && st->stack_dropped == 0,
	      "stacks count the written samples only: written %" PRIu64
	      " dropped %" PRIu64 " (want 2, 0)", st->stack_written,
	      st->stack_dropped);
	opd_core_free(core);
	opd_words_free(&wb);
	check_int((long long)stacks_total(dir), 2,
		  "the counts in stacks/ are the samples written");

	check(!check_rmtree(dir), "the scratch directory is removed");
	return check_done();
}
