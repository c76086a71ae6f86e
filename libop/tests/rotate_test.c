/*
 * Sessions by time without a daemon: durations and sizes, the settings
 * file, rotated session names (made, parsed, listed in time order) and
 * the retention on a fabricated session directory with known times and
 * sizes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "op_file.h"
#include "op_message.h"
#include "op_session.h"
#include "op_session_kv.h"
#include "op_session_rotate.h"
#include "op_session_settings.h"
#include "op_util.h"

static char session[256];

static void test_rotate__duration_size(void)
{
	char err[256], text[32];
	uint64_t v = 0;

	check_that(op_settings_duration("--rotate", "90", &v, err, sizeof(err)) == 0 && v == 90);
	check_that(op_settings_duration("--rotate", "5m", &v, err, sizeof(err)) == 0 && v == 300);
	check_that(op_settings_duration("--rotate", "2h", &v, err, sizeof(err)) == 0 && v == 7200);
	check_that(op_settings_duration("--keep", "7d", &v, err, sizeof(err)) == 0 && v == 604800);
	check_that(op_settings_duration("--rotate", "0", &v, err, sizeof(err)) < 0);
	check_that(op_settings_duration("--rotate", "1x", &v, err, sizeof(err)) < 0);
	check_contains(err, "--rotate: '1x' is not a duration", "the error names option and value");
	check_that(op_settings_duration("--rotate", "", &v, err, sizeof(err)) < 0);
	check_that(op_settings_duration("--rotate", "99999999999999999999", &v, err, sizeof(err)) < 0);
	check_that(op_settings_size("--keep-size", "500M", &v, err, sizeof(err)) == 0 && v == 500ULL << 20);
	check_that(op_settings_size("--keep-size", "4096", &v, err, sizeof(err)) == 0 && v == 4096);
	check_that(op_settings_size("--keep-size", "2G", &v, err, sizeof(err)) == 0 && v == 2ULL << 30);
	check_that(op_settings_size("--keep-size", "-1", &v, err, sizeof(err)) < 0);
	check_that(op_settings_size("--keep-size", "1MB", &v, err, sizeof(err)) < 0);
	op_settings_duration_text(7200, text, sizeof(text));
	check_str(text, "2h", "7200 s as text");
	op_settings_duration_text(90, text, sizeof(text));
	check_str(text, "90s", "90 s as text");
	op_settings_duration_text(172800, text, sizeof(text));
	check_str(text, "2d", "2 days as text");
}

static void write_conf(char const *path, char const *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		check_bail("cannot write '%s'", path);
}

/* The last message said, to check what it names. */
static void keep_last(void *ctx, enum op_message_kind kind, char const *text)
{
	(void)kind;
	snprintf(ctx, 512, "%s", text);
}

static void test_rotate__config(void)
{
	char said[512], want[600];

	char path[300];
	struct op_kv kv;

	snprintf(path, sizeof(path), "%s/oprofiled.conf", session);
	setenv(OP_CONFIG_ENV, path, 1);
	check_str(op_settings_config_path(), path, "$OPROFILE_CONFIG names the file");
	check_that(op_settings_config_read(&kv) == 0 && kv.nr == 0);   /* missing: empty */
	write_conf(path, "# comment\nrotate = 1h\nkeep=7d\nkeep_size = 2G\nseparate = lib\n"
		   "session_dir = /var/lib/oprofile\nvmlinux = none\nimage = all\n"
		   "keep_binaries = no\nevents = CPU_CLOCK:1000000\ncallgraph = 4\n");
	check_that(op_settings_config_read(&kv) == 0);
	check_str(op_kv_get(&kv, "rotate"), "1h", "rotate read");
	check_str(op_kv_get(&kv, "keep_size"), "2G", "keep_size read");
	op_kv_free(&kv);
	write_conf(path, "rotate = 1h\nrotation = 2h\n");
	op_set_message_sink(keep_last, said);
	check_that(op_settings_config_read(&kv) < 0 && kv.nr == 0);   /* unknown key */
	op_set_message_sink(NULL, NULL);
	snprintf(want, sizeof(want), "%s:2: unknown key 'rotation'", path);
	check(!strncmp(said, want, strlen(want)),
	      "a bad key is named with the file and its line: %s", said);
	write_conf(path, "rotate = often\n");
	check_that(op_settings_config_read(&kv) < 0);
	write_conf(path, "session_dir = relative/dir\n");
	check_that(op_settings_config_read(&kv) < 0);
	write_conf(path, "separate = bogus\n");
	check_that(op_settings_config_read(&kv) < 0);
	/* events: their syntax is checked when the file is read */
	write_conf(path, "# a comment\nevents = CPU_CLOCK:100000:0:0:0\n");
	op_set_message_sink(keep_last, said);
	check_that(op_settings_config_read(&kv) < 0);
	op_set_message_sink(NULL, NULL);
	snprintf(want, sizeof(want), "%s:2: invalid event specification", path);
	check(!strncmp(said, want, strlen(want)), "events with kernel and user 0: %s", said);
	write_conf(path, "events = CPU_CLOCK:1000000\nimage =\n");
	check_that(op_settings_config_read(&kv) < 0);
	/* daemonrc's own keys are not the settings file's */
	write_conf(path, "cpu_buffer_size = 8192\n");
	check_that(op_settings_config_read(&kv) < 0);
	unsetenv(OP_CONFIG_ENV);
	check_str(op_settings_config_path(), OP_CONFIG_FILE_DEFAULT, "default path");
}

/* One check of each setting, whichever way it comes in. */
static void test_rotate__settings_check(void)
{
	static struct {
		char const *key, *value;
		int ok;
	} const cases[] = {
		{ "events", "default", 1 }, { "events", "CPU_CLOCK:100000", 1 },
		{ "events", "CPU_CLOCK:100000:0:0:0", 0 }, { "events", "CPU_CLOCK:0", 0 },
		{ "events", "", 0 }, { "events", "CPU_CLOCK", 0 },
		{ "rotate", "0", 1 }, { "rotate", "1s", 1 }, { "rotate", "", 0 },
		{ "keep", "0", 0 }, { "keep_size", "99999999999999999999", 0 },
		{ "cpu_buffer_size", "8192", 1 }, { "cpu_buffer_size", "0x2000", 1 },
		{ "cpu_buffer_size", "-1", 0 }, { "cpu_buffer_size", " 1", 0 },
		{ "cpu_buffer_size", "99999999999999999999", 0 },
		{ "cpu_buffer_size", "2147483648", 0 }, { "buffer_size", "", 0 },
		{ "kernel_range", "ffffffff81000000,ffffffff82000000", 1 },
		{ "kernel_range", "-1,5", 0 }, { "kernel_range", "5,1", 0 },
		{ "kernel_range", "1, 5", 0 },
		{ "image", "all", 1 }, { "image", "/a,/b", 1 }, { "image", "", 0 },
		{ "image", ",", 0 }, { "image", "/a,b", 0 },
		{ "vmlinux", "", 0 }, { "keep_binaries", "", 0 },
		{ "no_such_key", "1", 0 },
	};
	static struct {
		char const *text;
		int bytes;             /* -1: refused */
	} const stacks[] = {
		{ "0", 0 }, { "8", 8 }, { "9", 9 }, { "65528", 65528 }, { "1", -1 },
		{ "7", -1 }, { "-1", -1 }, { "", -1 }, { "65529", -1 }, { "abc", -1 },
		{ "99999999999999999999", -1 }, { "16k", -1 },
	};
	static struct {
		char const *text;
		unsigned pages;        /* 0: refused */
	} const rings[] = {
		{ "1", 1 }, { "128", 128 }, { "1048576", 1048576 }, { "0", 0 },
		{ "-1", 0 }, { "3", 0 }, { "2097152", 0 }, { "", 0 },
		{ "99999999999999999999", 0 }, { "0x10", 0 },
	};
	char err[512];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check((op_settings_check(cases[i].key, NULL, cases[i].value, err,
					 sizeof(err)) == 0) == cases[i].ok,
		      "%s=%s %s", cases[i].key, cases[i].value,
		      cases[i].ok ? "taken" : "refused");
	for (size_t i = 0; i < sizeof(stacks) / sizeof(stacks[0]); i++) {
		int bytes = -2, rc = op_settings_stack_size("--stack-size", stacks[i].text,
							    &bytes, err, sizeof(err));

		check(stacks[i].bytes < 0 ? rc < 0 : rc == 0 && bytes == stacks[i].bytes,
		      "--stack-size=%s", stacks[i].text);
	}
	op_settings_stack_size("--stack-size", "7", &(int){ 0 }, err, sizeof(err));
	check_str(err, "--stack-size: '7' is not a stack size: give 0 (frame pointers only) or 8 to 65528 bytes",
		  "the stack size error names the option and the value");
	for (size_t i = 0; i < sizeof(rings) / sizeof(rings[0]); i++) {
		unsigned pages = 7;
		int rc = op_settings_ring_pages("--buffer-pages", rings[i].text, &pages,
						err, sizeof(err));

		check(!rings[i].pages ? rc < 0 : rc == 0 && pages == rings[i].pages,
		      "--buffer-pages=%s", rings[i].text);
	}
}

static void test_rotate__names(void)
{
	time_t t = 1795701930;  /* 2026-11-26T14:05:30Z */
	char name[64];
	time_t back;

	op_rotate_name(t, 3600, name, sizeof(name));
	check_str(name, "2026-11-26T14", "hourly name");
	op_rotate_name(t, 86400, name, sizeof(name));
	check_str(name, "2026-11-26T14", "daily rotation: hours too");
	op_rotate_name(t, 300, name, sizeof(name));
	check_str(name, "2026-11-26T14:05", "5-minute name");
	op_rotate_name(t, 3, name, sizeof(name));
	check_str(name, "2026-11-26T14:05:30", "3-second name");
	check_that(op_rotate_is_name("2026-11-26T14:05:30", &back) && back == t);
	check_that(op_rotate_is_name("2026-11-26T14", &back) && back == t - 330);
	check_that(op_rotate_is_name("2026-11-26T14:05:30.2", &back) && back == t);
	check_that(!op_rotate_is_name("2026-11-26", &back));     /* no T: not a name */
	check_that(!op_rotate_is_name("current", &back));
	check_that(!op_rotate_is_name("2026-11-26T25", &back));
	check_that(!op_rotate_is_name("2026-11-26T14:05:30.x", &back));
	check_that(!op_rotate_is_name("2026-11-26T14x", &back));
	check_that(op_rotate_parse_time("2026-11-26", false, &back) && back == t - 14 * 3600 - 330);
	check_that(!op_rotate_parse_time("2026-11-26T14.2", false, &back));
}

/* samples/NAME with a file of bytes bytes (written, not sparse). */
static void make_session(char const *name, size_t bytes)
{
	char *dir = op_session_samples(session, name), *file;
	char *buf = calloc(1, bytes ? bytes : 1);
	FILE *f;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		check_bail("cannot create '%s'", dir);
	file = op_session_path(dir, "data");
	f = fopen(file, "w");
	if (!buf || !f || fwrite(buf, 1, bytes, f) != bytes || fclose(f))
		check_bail("cannot write '%s'", file);
	free(buf);
	free(file);
	free(dir);
}

/* A session the daemon rotated: made, and marked as the daemon marks it. */
static void make_rotated(char const *name, size_t bytes)
{
	make_session(name, bytes);
	if (op_rotate_mark(session, name, 0) < 0)
		check_bail("cannot mark '%s'", name);
}

/* samples/NAME/session.conf with text as its content. */
static void write_session_conf(char const *name, char const *text)
{
	char *dir = op_session_samples(session, name);
	char *file = op_session_path(dir, OP_SESSION_CONF);

	write_conf(file, text);
	free(file);
	free(dir);
}

static bool has(char const *name)
{
	char *dir = op_session_samples(session, name);
	struct stat st;
	bool ret = stat(dir, &st) == 0;

	free(dir);
	return ret;
}

static void test_rotate__list_retain(void)
{
	struct op_rotated *v;
	time_t t0 = 1795701600;  /* 2026-11-26T14:00:00Z */
	char *mysave = op_session_samples(session, "mysave");
	uint64_t one;
	size_t n;

	char *fifo = op_xasprintf("%s/samples/2019-01-01T00/%s", session,
				  OP_SESSION_CONF);

	make_rotated("2026-11-26T14:00:10", 65536);
	make_rotated("2026-11-26T14", 65536);        /* 14:00:00: first */
	make_rotated("2026-11-26T14:00:20", 65536);
	make_rotated("2026-11-26T14:00:20.2", 65536); /* a restart in that second */
	make_rotated("2026-11-26T14:00:30", 65536);
	make_session("mysave", 65536);               /* by hand: never rotated */
	/* saved by hand under names of the rotated form: never rotated either */
	make_session("2021-05-05T05", 65536);
	write_session_conf("2021-05-05T05", "events=default\n");
	make_session("2020-01-01T00", 65536);        /* a copy of a rotated one */
	write_session_conf("2020-01-01T00", "rotated=2026-11-26T14\nend_time=1795701610\n");
	make_session("2019-01-01T00", 65536);        /* a FIFO: read, it would hang */
	if (mkfifo(fifo, 0644) < 0)
		check_bail("cannot make '%s'", fifo);
	free(fifo);
	check_that(op_rotated_list(session, &v, &n) == 0 && n == 5);
	check_str(n ? v[0].name : "", "2026-11-26T14", "oldest first");
	check_str(n > 3 ? v[3].name : "", "2026-11-26T14:00:20.2", "then by name");
	op_rotated_free(v, n);
	one = op_session_disk_usage(mysave);
	free(mysave);
	check_that(one >= 65536);
	/* by age: at 14:00:45 with keep 30 s, the sessions that ended before
	 * 14:00:15 go (the first ended at 14:00:10), not the one ending at 14:00:20 */
	check_int(op_rotate_retain(session, t0 + 45, 30, 0), 1, "one session older than 30 s");
	check_that(!has("2026-11-26T14") && has("2026-11-26T14:00:10"));
	/* by size: room for two of the four left */
	check_int(op_rotate_retain(session, t0 + 45, 0, 2 * one + one / 2), 2,
		  "two removed over the size");
	check_that(!has("2026-11-26T14:00:10") && !has("2026-11-26T14:00:20"));
	check_that(has("2026-11-26T14:00:20.2") && has("2026-11-26T14:00:30"));
	/* the newest is never removed by age; other names never */
	check_int(op_rotate_retain(session, t0 + 100000, 1, 0), 1, "all but the newest by age");
	check_that(has("2026-11-26T14:00:30") && has("mysave") && has(OP_CURRENT_SESSION));
	/* nor by size: it may be the session just saved at a stop */
	check_int(op_rotate_retain(session, t0 + 100000, 0, 1), 0, "the newest kept over the size");
	check_that(has("2026-11-26T14:00:30"));
	check_that(has("2021-05-05T05") && has("2020-01-01T00") && has("2019-01-01T00"));
	check_int(op_rotate_retain(session, t0 + 100000, 0, 0), 0, "no limits: nothing");
}

/* A removal cut short is finished by the next retention, and a removal
 * follows no symbolic link out of the session. */
static void test_rotate__retain_cut_short(void)
{
	char *gone = op_session_samples(session, ".removing-2026-11-26T13");
	char *outside = op_xasprintf("%s-outside", session);
	char *deep = op_xasprintf("%s/{root}/usr/bin", gone);
	char *link = op_xasprintf("%s/escape", deep);
	char *old = op_session_samples(session, "2026-11-26T12");
	char *link2 = op_xasprintf("%s/escape", old);
	char *keep = op_xasprintf("%s/keep", outside);
	struct stat st;
	FILE *f;

	if (op_mkdir_p(deep) || op_mkdir_p(outside) || op_mkdir_p(old) ||
	    !(f = fopen(keep, "w")) || fclose(f) ||
	    symlink(outside, link) || symlink(outside, link2) ||
	    op_rotate_mark(session, "2026-11-26T12", 0) < 0)
		check_bail("cannot make the cut-short session");
	/* the newest (14:00:30) stays; 12 goes by age */
	check_int(op_rotate_retain(session, 1795701600 + 100000, 1, 0), 1,
		  "the old session removed");
	check_that(stat(gone, &st) < 0 && errno == ENOENT);
	check_that(!has("2026-11-26T12"));
	check(stat(keep, &st) == 0, "no link followed out of the session");
	unlink(keep);
	rmdir(outside);
	free(gone);
	free(outside);
	free(deep);
	free(link);
	free(old);
	free(link2);
	free(keep);
}

int main(void)
{
	op_set_progname("rotate_test");
	snprintf(session, sizeof(session), "%s/session", check_tmpdir());
	if (op_session_create(session) < 0)
		check_bail("cannot create '%s'", session);
	test_rotate__duration_size();
	test_rotate__config();
	test_rotate__settings_check();
	test_rotate__names();
	test_rotate__list_retain();
	test_rotate__retain_cut_short();
	if (op_session_remove_tree(session) < 0)
		check_note("cannot remove '%s'", session);
	return check_done();
}
