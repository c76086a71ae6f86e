/*
 * Unit tests of the daemon's plumbing that needs no sampling: control
 * command parsing and the FIFO round trip, the answer files, the lock
 * protocol (live and stale owners), key=value files, --separate lists,
 * reset and save on disk, and the stats files' balance.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "op_message.h"
#include "opd_control.h"
#include "opd_session.h"
#include "opd_settings.h"
#include "opd_stats_file.h"

static int failures;
static char session[256];

static void check(int ok, char const *fmt, ...) __attribute__((format(printf, 2, 3)));

static void check(int ok, char const *fmt, ...)
{
	va_list ap;

	if (ok)
		return;
	failures++;
	fprintf(stderr, "FAIL: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void touch(char const *rel, char const *text)
{
	char *p = opd_path(session, rel);

	check(opd_write_file_atomic(p, text) == 0, "write %s", p);
	free(p);
}

static void mkd(char const *rel)
{
	char *p = opd_path(session, rel);

	check(mkdir(p, 0755) == 0 || errno == EEXIST, "mkdir %s", p);
	free(p);
}

static int exists(char const *rel)
{
	char *p = opd_path(session, rel);
	struct stat st;
	int ret = lstat(p, &st) == 0;

	free(p);
	return ret;
}

static void test_command_parse(void)
{
	static struct {
		char const *line;
		int ok;
		enum opd_cmd cmd;
		char const *name, *id;
	} const cases[] = {
		{ "start", 1, OPD_CMD_START, "", "" },
		{ "stop x1", 1, OPD_CMD_STOP, "", "x1" },
		{ "dump 123.45", 1, OPD_CMD_DUMP, "", "123.45" },
		{ "  dump\t7  ", 1, OPD_CMD_DUMP, "", "7" },
		{ "reset", 1, OPD_CMD_RESET, "", "" },
		{ "save run1", 1, OPD_CMD_SAVE, "run1", "" },
		{ "save run1 9.9", 1, OPD_CMD_SAVE, "run1", "9.9" },
		{ "exit", 1, OPD_CMD_EXIT, "", "" },
		{ "dump", 0, 0, NULL, NULL },
		{ "save", 0, 0, NULL, NULL },
		{ "save ../x", 0, 0, NULL, NULL },
		{ "save current", 0, 0, NULL, NULL },
		{ "save .hidden", 0, 0, NULL, NULL },
		{ "reset a b", 0, 0, NULL, NULL },
		{ "dump bad!id", 0, 0, NULL, NULL },
		{ "bogus", 0, 0, NULL, NULL },
		{ "", 0, 0, NULL, NULL },
	};
	struct opd_command c;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = opd_command_parse(cases[i].line, &c, err, sizeof(err));

		check((rc == 0) == cases[i].ok, "parse '%s': rc %d (%s)",
		      cases[i].line, rc, rc ? err : "");
		if (rc || !cases[i].ok)
			continue;
		check(c.cmd == cases[i].cmd, "parse '%s': cmd %d", cases[i].line, c.cmd);
		check(!strcmp(c.name, cases[i].name), "parse '%s': name '%s'",
		      cases[i].line, c.name);
		check(!strcmp(c.id, cases[i].id), "parse '%s': id '%s'",
		      cases[i].line, c.id);
	}
}

static void test_fifo(void)
{
	struct opd_control ctl;
	struct opd_command c;
	char id[OPD_CONTROL_ID_MAX], later[OPD_CONTROL_ID_MAX], err[256];

	check(opd_control_send(session, "start") < 0, "send with no FIFO reader fails");
	check(opd_control_open(&ctl, session) == 0, "open control FIFO");
	check(opd_control_next(&ctl, &c) == 0, "no command yet");
	check(opd_control_send(session, "dump 5.1") == 0, "send dump");
	check(opd_control_send(session, "nonsense") == 0, "send nonsense");
	check(opd_control_send(session, "save keep 6.1") == 0, "send save");
	check(opd_control_next(&ctl, &c) == 1 && c.cmd == OPD_CMD_DUMP &&
	      !strcmp(c.id, "5.1"), "receive dump 5.1");
	check(opd_control_next(&ctl, &c) == 1 && c.cmd == OPD_CMD_SAVE &&
	      !strcmp(c.name, "keep"), "nonsense skipped, receive save keep");
	check(opd_control_next(&ctl, &c) == 0, "nothing left");
	opd_control_close(&ctl);

	opd_control_make_id(id, sizeof(id));
	check(opd_control_reply(session, id, NULL) == 0, "reply ok");
	check(opd_control_wait_reply(session, id, 0, 1000, err, sizeof(err)) == 0,
	      "wait for ok reply");
	check(opd_control_reply(session, id, "no such thing") == 0, "reply error");
	check(opd_control_wait_reply(session, id, 0, 1000, err, sizeof(err)) < 0 &&
	      !strcmp(err, "no such thing"), "error reply carries the message: '%s'", err);
	check(opd_control_wait_reply(session, "other.1", 0, 50, err, sizeof(err)) < 0,
	      "a reply to another id times out");

	opd_control_make_id(later, sizeof(later));
	check(opd_control_dump_done(session, later) == 0, "dump done");
	check(opd_control_wait_dump(session, id, 0, 1000) == 0,
	      "a later dump id completes an earlier one");
	check(opd_control_wait_dump(session, "99999999999999999.1", 0, 50) < 0,
	      "an earlier dump id does not complete a later one");
}

/* A child whose command name is oprofiled, to own a lock. */
static pid_t fake_daemon(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_NAME, "oprofiled");
		pause();
		_exit(0);
	}
	usleep(50000);
	return pid;
}

static void test_lock(void)
{
	pid_t owner, child = fake_daemon();
	char text[32];

	check(opd_lock_acquire(session, getpid(), &owner) == 0, "take a free lock");
	check(opd_daemon_pid(session) == 0, "a lock held by a non-oprofiled pid is no daemon");
	opd_lock_release(session, getpid());
	check(!exists(OPD_LOCK_FILE), "release removes the lock");

	snprintf(text, sizeof(text), "%ld\n", (long)child);
	touch(OPD_LOCK_FILE, text);
	check(opd_daemon_pid(session) == child, "live daemon pid read from the lock");
	check(opd_lock_acquire(session, getpid(), &owner) < 0 && owner == child,
	      "a live owner keeps the lock");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	check(opd_daemon_pid(session) == 0, "dead owner: no daemon");
	check(opd_lock_acquire(session, getpid(), &owner) == 0, "a stale lock is replaced");
	check(opd_lock_update(session, 4242) == 0, "update the pid");
	opd_lock_release(session, getpid());
	check(exists(OPD_LOCK_FILE), "release leaves a lock naming another pid");
	opd_lock_release(session, 4242);
	touch(OPD_LOCK_FILE, "garbage\n");
	check(opd_lock_acquire(session, getpid(), &owner) == 0, "a garbage lock is replaced");
	opd_lock_release(session, getpid());
}

static void test_kv(void)
{
	char *path = opd_path(session, "kv");
	struct opd_kv kv = { 0 }, back;

	opd_kv_set(&kv, "events", "CPU_CLOCK:100000:0:1:1");
	opd_kv_set(&kv, "vmlinux", "/boot/a=b");
	opd_kv_set(&kv, "events", "TASK_CLOCK:200000:0:1:1");
	check(opd_kv_write(&kv, path) == 0, "write kv");
	check(opd_kv_read(&back, path) == 0 && back.nr == 2, "read kv back");
	check(!strcmp(opd_kv_get(&back, "events"), "TASK_CLOCK:200000:0:1:1"),
	      "later set wins");
	check(!strcmp(opd_kv_get(&back, "vmlinux"), "/boot/a=b"), "value keeps '='");
	check(opd_kv_get(&back, "none") == NULL, "missing key");
	opd_kv_free(&kv);
	opd_kv_free(&back);
	unlink(path);
	check(opd_kv_read(&back, path) == 0 && back.nr == 0, "missing file reads empty");
	free(path);
}

static void test_separate(void)
{
	static struct {
		char const *in;
		int ok;
		char const *out;
	} const cases[] = {
		{ "none", 1, "none" },
		{ "lib", 1, "lib" },
		{ "library", 1, "lib" },
		{ "kernel", 1, "lib,kernel" },
		{ "thread,cpu", 1, "thread,cpu" },
		{ "all", 1, "lib,kernel,thread,cpu" },
		{ "none,lib", 0, NULL },
		{ "bogus", 0, NULL },
		{ "", 0, NULL },
	};
	char err[256], text[64];
	unsigned bits;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = opd_parse_separate(cases[i].in, &bits, err, sizeof(err));

		check((rc == 0) == cases[i].ok, "separate '%s': rc %d", cases[i].in, rc);
		if (rc)
			continue;
		opd_separate_text(bits, text, sizeof(text));
		check(!strcmp(text, cases[i].out), "separate '%s' is '%s'", cases[i].in, text);
	}
}

static void test_callgraph(void)
{
	static struct {
		char const *in;
		int ok;
		unsigned depth;
	} const cases[] = {
		{ "0", 1, 0 },
		{ "8", 1, 8 },
		{ "128", 1, 128 },
		{ "0008", 1, 8 },
		{ "129", 0, 0 },
		{ "99999999999999999999", 0, 0 },
		{ "-1", 0, 0 },
		{ "+3", 0, 0 },
		{ "8x", 0, 0 },
		{ " 8", 0, 0 },
		{ "", 0, 0 },
	};
	char err[256];
	unsigned depth;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = opd_parse_callgraph(cases[i].in, &depth, err, sizeof(err));

		check((rc == 0) == cases[i].ok, "callgraph '%s': rc %d", cases[i].in, rc);
		if (rc)
			check(strstr(err, "0 (no backtraces) to 128") != NULL,
			      "callgraph '%s' message: %s", cases[i].in, err);
		else
			check(depth == cases[i].depth, "callgraph '%s' is %u", cases[i].in, depth);
	}
}

static void test_reset_save(void)
{
	char err[512];

	check(opd_session_create(session) == 0, "create session");
	touch("samples/current/session.conf", "events=X\n");
	mkd("samples/current/session");
	touch("samples/current/session/kallsyms", "0 T _text\n");
	mkd("samples/current/{root}");
	mkd("samples/current/{root}/bin");
	touch("samples/current/{root}/bin/x", "sample");
	mkd("samples/current/stats");
	touch("samples/current/stats/sample_received", "3\n");

	check(opd_session_save(session, "one", err, sizeof(err)) == 0, "save one");
	check(exists("samples/one/{root}/bin/x") && exists("samples/one/stats"),
	      "saved session has the samples and stats");
	check(exists("samples/current/session.conf") &&
	      exists("samples/current/session/kallsyms"),
	      "new current keeps session.conf and session/");
	check(!exists("samples/current/{root}") && !exists("samples/current/stats"),
	      "new current has no samples");
	check(opd_session_save(session, "one", err, sizeof(err)) < 0 &&
	      strstr(err, "already exists"), "saving over a session fails: %s", err);
	check(opd_session_save(session, "a/b", err, sizeof(err)) < 0, "bad name refused");

	mkd("samples/current/{kern}");
	touch("samples/current/{kern}/v", "sample");
	check(opd_session_reset_files(session) == 0, "reset");
	check(!exists("samples/current/{kern}"), "reset removes samples");
	check(exists("samples/current/session.conf") &&
	      exists("samples/current/session/kallsyms"), "reset keeps the settings");
}

static unsigned long long stat_file(char const *name)
{
	char rel[256], buf[64];
	char *p;
	unsigned long long v = ~0ull;

	snprintf(rel, sizeof(rel), "samples/current/stats/%s", name);
	p = opd_path(session, rel);
	if (opd_read_file(p, buf, sizeof(buf)) > 0)
		v = strtoull(buf, NULL, 10);
	free(p);
	return v;
}

static void test_stats(void)
{
	struct opd_stats st;
	struct opd_stat_field const *f;
	unsigned long long dropped = 0;

	memset(&st, 0, sizeof(st));
	st.written = 100;
	st.no_app = 1;
	st.bad_event = 2;
	st.unresolved_kernel = 3;
	st.unknown_cookie = 4;
	st.no_mapping = 5;
	st.sfile_errors = 6;
	st.saturated = 7;
	st.received = 128;
	st.lost[OP_LOST_OVERFLOW] = 50;
	st.stream_errors = 9;
	check(opd_stats_dropped(&st) == 28, "dropped sum %llu",
	      (unsigned long long)opd_stats_dropped(&st));
	check(opd_stats_write(session, &st) == 0, "write stats");
	check(opd_stats_write(session, &st) == 0, "rewrite stats over existing ones");
	for (f = opd_stat_fields; f->name; f++)
		if (f->dropped)
			dropped += stat_file(f->name);
	check(stat_file("sample_received") == stat_file("sample_written") + dropped,
	      "stats files balance");
	check(stat_file("sample_lost_overflow") == 50, "lost category file");
	check(stat_file("stream_errors") == 9, "stream_errors file");
	check(!exists("samples/current/stats.new"), "no temp dir left");
}

int main(void)
{
	char cmd[300];

	op_set_progname("plumbing_test");
	snprintf(session, sizeof(session), "/tmp/opd-plumbing-%ld", (long)getpid());
	check(opd_session_create(session) == 0, "create '%s'", session);
	test_command_parse();
	test_fifo();
	test_lock();
	test_kv();
	test_separate();
	test_callgraph();
	test_reset_save();
	test_stats();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", session);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove '%s'\n", session);
	printf("%s\n", failures ? "plumbing tests FAILED" : "plumbing tests passed");
	return failures ? 1 : 0;
}
