/*
 * The session library without sampling: control command parsing and the
 * FIFO round trip, the answer files, the lock protocol (live and stale
 * owners), key=value files, the settings checks, reset and save on disk,
 * the rule for what is sample data, the kernel metadata written and read
 * back, and the driver directory.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zlib.h>

#include "check.h"
#include "op_message.h"
#include "op_session.h"
#include "op_session_control.h"
#include "op_session_kernel.h"
#include "op_session_kv.h"
#include "op_session_settings.h"
#include "op_util.h"

static char session[256];

static void touch(char const *rel, char const *text)
{
	char *p = op_session_path(session, rel);

	if (op_session_write_text(p, text))
		check_bail("cannot write '%s'", p);
	free(p);
}

static void mkd(char const *rel)
{
	char *p = op_session_path(session, rel);

	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		check_bail("cannot create '%s': %s", p, strerror(errno));
	free(p);
}

static bool exists(char const *rel)
{
	char *p = op_session_path(session, rel);
	struct stat st;
	bool ret = lstat(p, &st) == 0;

	free(p);
	return ret;
}

static void test_session__command_parse(void)
{
	static struct {
		char const *line;
		bool ok;
		enum op_cmd cmd;
		char const *name, *id;
	} const cases[] = {
		{ "start", true, OP_CMD_START, "", "" },
		{ "stop x1", true, OP_CMD_STOP, "", "x1" },
		{ "dump 123.45", true, OP_CMD_DUMP, "", "123.45" },
		{ "  dump\t7  ", true, OP_CMD_DUMP, "", "7" },
		{ "reset", true, OP_CMD_RESET, "", "" },
		{ "save run1", true, OP_CMD_SAVE, "run1", "" },
		{ "save run1 9.9", true, OP_CMD_SAVE, "run1", "9.9" },
		{ "exit", true, OP_CMD_EXIT, "", "" },
		{ "dump", false, 0, NULL, NULL },
		{ "save", false, 0, NULL, NULL },
		{ "save ../x", false, 0, NULL, NULL },
		{ "save current", false, 0, NULL, NULL },
		{ "save .hidden", false, 0, NULL, NULL },
		{ "reset a b", false, 0, NULL, NULL },
		{ "dump bad!id", false, 0, NULL, NULL },
		{ "bogus", false, 0, NULL, NULL },
		{ "", false, 0, NULL, NULL },
	};
	struct op_command c;
	char err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char const *line = cases[i].line;
		int rc = op_command_parse(line, &c, err, sizeof(err));

		if (!check((rc == 0) == cases[i].ok, "parse '%s': %s", line,
			   cases[i].ok ? "accepted" : "refused"))
			check_note("rc %d: %s", rc, rc ? err : "");
		if (rc || !cases[i].ok)
			continue;
		check_int(c.cmd, cases[i].cmd, "parse '%s': command", line);
		check_str(c.name, cases[i].name, "parse '%s': name", line);
		check_str(c.id, cases[i].id, "parse '%s': id", line);
	}
}

/* Two senders at once: each reads its own answer (reply.ID), not the
 * shared file that the other's answer replaced. */
static void test_session__own_replies(void)
{
	char err[256];

	check(op_control_reply_open(session, "100.1") == 0, "own reply file 100.1");
	check(op_control_reply_open(session, "100.1") < 0, "made once (O_EXCL)");
	check(op_control_reply_open(session, "200.2") == 0, "own reply file 200.2");
	check(op_control_reply_open(session, "../x") < 0, "a bad id makes no file");
	op_control_reply(session, "100.1", NULL);
	op_control_reply(session, "200.2", "refused");
	check(op_control_wait_reply(session, "100.1", 0, 1000, err, sizeof(err)) == 0,
	      "the first sender's ok, though the shared file holds the second's");
	check(op_control_wait_reply(session, "200.2", 0, 1000, err, sizeof(err)) < 0,
	      "the second sender's error");
	check_str(err, "refused", "its message");
	op_control_reply_close(session, "100.1");
	op_control_reply_close(session, "200.2");
	check(!exists("reply.100.1") && !exists("reply.200.2"), "both removed");
	check(op_control_reply_open(session, "300.3") == 0 &&
	      op_control_reply_open(session, "301.3") == 0, "two own dump files");
	op_control_dump_done(session, "300.3", NULL);
	op_control_dump_done(session, "301.3", "no space left on device");
	check(op_control_wait_dump(session, "300.3", 0, 1000) == 0,
	      "a dump's own answer, though the shared file says another failed");
	check(op_control_wait_dump(session, "301.3", 0, 1000) < 0, "the failed one");
	op_control_clean_replies(session);
	check(!exists("reply.300.3") && !exists("reply.301.3"), "stale replies cleaned");
}

static void test_session__fifo(void)
{
	struct op_control ctl;
	struct op_command c;
	char id[OP_CONTROL_ID_MAX], later[OP_CONTROL_ID_MAX], err[256];

	check(op_control_send(session, "start") < 0, "send with no FIFO reader fails");
	check(op_control_open(&ctl, session) == 0, "open control FIFO");
	check(op_control_next(&ctl, &c) == 0, "no command yet");
	check(op_control_send(session, "dump 5.1") == 0, "send dump");
	check(op_control_send(session, "nonsense") == 0, "send nonsense");
	check(op_control_send(session, "save keep 6.1") == 0, "send save");
	check(op_control_next(&ctl, &c) == 1 && c.cmd == OP_CMD_DUMP &&
	      !strcmp(c.id, "5.1"), "receive dump 5.1");
	check(op_control_next(&ctl, &c) == 1 && c.cmd == OP_CMD_SAVE &&
	      !strcmp(c.name, "keep"), "nonsense skipped, receive save keep");
	check(op_control_next(&ctl, &c) == 0, "nothing left");
	op_control_close(&ctl);

	op_control_make_id(id, sizeof(id));
	check(op_control_reply(session, id, NULL) == 0, "reply ok");
	check(op_control_wait_reply(session, id, 0, 1000, err, sizeof(err)) == 0,
	      "wait for ok reply");
	check(op_control_reply(session, id, "no such thing") == 0, "reply error");
	check(op_control_wait_reply(session, id, 0, 1000, err, sizeof(err)) < 0,
	      "wait for error reply");
	check_str(err, "no such thing", "error reply carries the message");
	check(op_control_wait_reply(session, "other.1", 0, 50, err, sizeof(err)) < 0,
	      "a reply to another id times out");

	op_control_make_id(later, sizeof(later));
	check(op_control_dump_done(session, later, NULL) == 0, "dump done");
	check(op_control_wait_dump(session, id, 0, 1000) == 0,
	      "a later dump id completes an earlier one");
	check(op_control_wait_dump(session, "99999999999999999.1", 0, 50) < 0,
	      "an earlier dump id does not complete a later one");
	test_session__own_replies();
}

/*
 * A child whose command name is oprofiled, to own a lock. It says when
 * the name is set: a fixed wait was too short on a loaded machine.
 */
static pid_t fake_daemon(void)
{
	int p[2];
	char b;
	pid_t pid;

	if (pipe(p) < 0)
		check_bail("cannot create a pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		check_bail("cannot fork: %s", strerror(errno));
	if (pid == 0) {
		close(p[0]);
		prctl(PR_SET_NAME, "oprofiled");
		if (write(p[1], "", 1) != 1)
			_exit(1);
		close(p[1]);
		pause();
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &b, 1) != 1)
		check_bail("the fake daemon did not start");
	close(p[0]);
	return pid;
}

static void test_session__lock(void)
{
	pid_t owner, child = fake_daemon();
	char text[32];

	check(op_lock_acquire(session, getpid(), &owner) == 0, "take a free lock");
	check_int(op_session_daemon_pid(session), 0,
		  "a lock held by a non-oprofiled pid is no daemon");
	op_lock_release(session, getpid());
	check(!exists(OP_LOCK_FILE), "release removes the lock");

	snprintf(text, sizeof(text), "%ld\n", (long)child);
	touch(OP_LOCK_FILE, text);
	check_int(op_session_daemon_pid(session), child,
		  "live daemon pid read from the lock");
	check(op_lock_acquire(session, getpid(), &owner) < 0 && owner == child,
	      "a live owner keeps the lock");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	check_int(op_session_daemon_pid(session), 0, "dead owner: no daemon");
	check(op_lock_acquire(session, getpid(), &owner) == 0, "a stale lock is replaced");
	check(op_lock_update(session, 4242) == 0, "update the pid");
	op_lock_release(session, getpid());
	check(exists(OP_LOCK_FILE), "release leaves a lock naming another pid");
	op_lock_release(session, 4242);
	touch(OP_LOCK_FILE, "garbage\n");
	check(op_lock_acquire(session, getpid(), &owner) == 0, "a garbage lock is replaced");
	op_lock_release(session, getpid());
}

static void test_session__kv(void)
{
	char *path = op_session_path(session, "kv");
	struct op_kv kv = { 0 }, back;

	op_kv_set(&kv, "events", "CPU_CLOCK:100000:0:1:1");
	op_kv_set(&kv, "vmlinux", "/boot/a=b");
	op_kv_set(&kv, "events", "TASK_CLOCK:200000:0:1:1");
	check(op_kv_write(&kv, path) == 0, "write kv");
	check(op_kv_read(&back, path) == 0 && back.nr == 2, "read kv back");
	check_str(op_kv_get(&back, "events"), "TASK_CLOCK:200000:0:1:1",
		  "later set wins");
	check_str(op_kv_get(&back, "vmlinux"), "/boot/a=b", "value keeps '='");
	check_str(op_kv_get(&back, "none"), NULL, "missing key");
	op_kv_free(&kv);
	op_kv_free(&back);
	unlink(path);
	check(op_kv_read(&back, path) == 0 && back.nr == 0, "missing file reads empty");
	touch("kv", "# settings\n  events = X \n\nbroken line\n");
	check(op_kv_read(&back, path) < 0, "a line without '=' is refused");
	op_kv_free(&back);
	touch("kv", "# settings\n\n  events = X \nvmlinux=none");
	check(op_kv_read(&back, path) == 0 && back.nr == 2, "read with lines");
	check_int(op_kv_line(&back, "events"), 3, "events is on line 3");
	check_int(op_kv_line(&back, "vmlinux"), 4, "a last line without a newline");
	op_kv_set(&back, "events", "Y");
	check_int(op_kv_line(&back, "events"), 0, "a value set is on no line");
	op_kv_free(&back);
	free(path);
}

/* key=value files are read as regular files only, bounded, without NULs */
static void test_session__kv_hostile(void)
{
	char *path = op_session_path(session, "kv");
	struct op_kv back;
	FILE *f;

	unlink(path);
	check(mkfifo(path, 0644) == 0, "make a FIFO");
	check(op_kv_read(&back, path) < 0 && back.nr == 0,
	      "a FIFO is refused, without blocking");
	unlink(path);
	f = fopen(path, "w");
	for (int i = 0; f && i < OP_KV_MAX_BYTES / 16 + 1; i++)
		fputs("# 16 bytes line\n", f);
	check(f && fclose(f) == 0, "write a big file");
	check(op_kv_read(&back, path) < 0 && back.nr == 0, "a file over the bound is refused");
	f = fopen(path, "w");
	check(f && fwrite("a=b\nc=d\0e\n", 1, 11, f) == 11 && fclose(f) == 0,
	      "write a NUL");
	check(op_kv_read(&back, path) < 0 && back.nr == 0, "a NUL byte is refused");
	unlink(path);
	free(path);
}

static void test_session__separate(void)
{
	static struct {
		char const *in;
		bool ok;
		char const *out;
	} const cases[] = {
		{ "none", true, "none" },
		{ "lib", true, "lib" },
		{ "library", true, "lib" },
		{ "kernel", true, "lib,kernel" },
		{ "thread,cpu", true, "thread,cpu" },
		{ "all", true, "lib,kernel,thread,cpu" },
		{ "none,lib", false, NULL },
		{ "bogus", false, NULL },
		{ "", false, NULL },
	};
	char err[256], text[64];
	unsigned bits;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = op_settings_separate(cases[i].in, &bits, err, sizeof(err));

		check((rc == 0) == cases[i].ok, "separate '%s': %s", cases[i].in,
		      cases[i].ok ? "accepted" : "refused");
		if (rc)
			continue;
		op_settings_separate_text(bits, text, sizeof(text));
		check_str(text, cases[i].out, "separate '%s' as text", cases[i].in);
	}
}

static void test_session__callgraph(void)
{
	static struct {
		char const *in;
		bool ok;
		unsigned depth;
	} const cases[] = {
		{ "0", true, 0 },
		{ "8", true, 8 },
		{ "128", true, 128 },
		{ "0008", true, 8 },
		{ "129", false, 0 },
		{ "99999999999999999999", false, 0 },
		{ "-1", false, 0 },
		{ "+3", false, 0 },
		{ "8x", false, 0 },
		{ " 8", false, 0 },
		{ "", false, 0 },
	};
	char err[256];
	unsigned depth;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = op_settings_callgraph(cases[i].in, &depth, err, sizeof(err));

		check((rc == 0) == cases[i].ok, "callgraph '%s': %s", cases[i].in,
		      cases[i].ok ? "accepted" : "refused");
		if (rc)
			check(strstr(err, "0 (no backtraces) to 128") != NULL,
			      "callgraph '%s' message: %s", cases[i].in, err);
		else
			check_int(depth, cases[i].depth, "callgraph '%s' depth",
				  cases[i].in);
	}
}

/* The timer cpu type's events/ files, from OPROFILE_EVENTS_DIR. */
static void test_session__events(void)
{
	struct op_settings_events ev;
	char err[512];
	enum op_cpu cpu = op_settings_cpu("timer", err, sizeof(err));

	if (!check(cpu == CPU_TIMER_INT, "cpu type 'timer'")) {
		check_note("%s", err);
		return;
	}
	check(op_settings_cpu("no-such-cpu", err, sizeof(err)) == CPU_NO_GOOD,
	      "unknown cpu type refused");
	check(op_settings_events("CPU_CLOCK:100000,TASK_CLOCK:200000:0:0:1",
				 cpu, 0, &ev, err, sizeof(err)) == 0,
	      "two timer events accepted");
	check_str(ev.text, "CPU_CLOCK:100000:0:1:1,TASK_CLOCK:200000:0:0:1",
		  "events normalised");
	check_int(ev.nr, 2, "two events");
	check_str(ev.v[1].name, "TASK_CLOCK", "second event name");
	check(ev.v[1].code == 1 && ev.v[1].count == 200000 &&
	      !ev.v[1].kernel && ev.v[1].user, "second event code, count, modes");
	check(op_settings_events("CPU_CLOCK:10", cpu, 0, &ev, err,
				 sizeof(err)) < 0, "count below the minimum refused");
	check(op_settings_events(NULL, cpu, 0, &ev, err, sizeof(err)) == 0 &&
	      ev.nr == 1, "default event");
}

static void test_session__reset_save(void)
{
	char err[512];

	check(op_session_create(session) == 0, "create session");
	touch("samples/current/session.conf", "events=X\n");
	mkd("samples/current/session");
	touch("samples/current/session/kallsyms", "0 T _text\n");
	touch("samples/current/session/build-ids", "ab 1 /bin/x\n");
	mkd("samples/current/{root}");
	mkd("samples/current/{root}/bin");
	touch("samples/current/{root}/bin/x", "sample");
	mkd("samples/current/stats");
	touch("samples/current/stats/sample_received", "3\n");

	check(op_session_save(session, "one", err, sizeof(err)) == 0, "save one");
	check(exists("samples/one/{root}/bin/x") && exists("samples/one/stats"),
	      "saved session has the samples and stats");
	check(exists("samples/current/session.conf") &&
	      exists("samples/current/session/kallsyms"),
	      "new current keeps session.conf and session/");
	check(!exists("samples/current/{root}") && !exists("samples/current/stats"),
	      "new current has no samples");
	check(exists("samples/one/session/build-ids") &&
	      !exists("samples/current/session/build-ids"),
	      "the build-ids stay with the saved samples");
	check(op_session_save(session, "one", err, sizeof(err)) < 0 &&
	      strstr(err, "already exists"), "saving over a session fails: %s", err);
	check(op_session_save(session, "a/b", err, sizeof(err)) < 0, "bad name refused");

	mkd("samples/current/{kern}");
	touch("samples/current/{kern}/v", "sample");
	mkd("samples/current/stats.new");
	touch("samples/current/session/build-ids", "ab 1 /bin/x\n");
	touch("samples/current/session/segments", "ab 0x0 0x0 0x10\n");
	check(op_session_reset(session) == 0, "reset");
	check(!exists("samples/current/session/build-ids") &&
	      !exists("samples/current/session/segments"),
	      "reset removes the build-ids of the samples it removes");
	check(!exists("samples/current/{kern}"), "reset removes samples");
	check(!exists("samples/current/stats.new"), "reset removes stats.new");
	check(exists("samples/current/session.conf") &&
	      exists("samples/current/session/kallsyms"), "reset keeps the settings");
}

static void test_session__sample_data_rule(void)
{
	check(op_session_is_sample_tree("{root}"), "{root} is a sample tree");
	check(op_session_is_sample_tree("{anon:[heap]}"), "{anon:...} is a sample tree");
	check(!op_session_is_sample_tree(OP_STATS_DIR), "stats/ is no sample tree");
	check(!op_session_is_sample_tree(OP_META_DIR), "session/ is no sample tree");
	check(!op_session_is_sample_tree(OP_SESSION_CONF), "session.conf is no sample tree");
	check(op_session_is_profile_data(OP_STATS_DIR), "stats/ is profile data");
	check(op_session_is_profile_data("{kern}"), "{kern} is profile data");
	check(!op_session_is_sample_tree(OP_STACKS_DIR), "stacks/ is no sample tree");
	check(op_session_is_profile_data(OP_STACKS_DIR), "stacks/ is profile data");
	check(!op_session_is_profile_data(OP_META_DIR), "session/ is kept on reset");
	check(!op_session_is_profile_data(OP_SESSION_CONF), "session.conf is kept on reset");
}

/* The gunzipped content of path, or NULL. */
static char *gunzip(char const *path)
{
	static char buf[4096];
	gzFile f = gzopen(path, "rb");
	int n;

	if (!f)
		return NULL;
	n = gzread(f, buf, sizeof(buf) - 1);
	gzclose(f);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

struct ksyms {
	int nr;
	char names[8][64];
	char modules[8][64];
};

static void collect(struct op_ksym const *sym, void *arg)
{
	struct ksyms *k = arg;

	if (k->nr == 8)
		return;
	snprintf(k->names[k->nr], sizeof(k->names[0]), "%c %s", sym->type, sym->name);
	snprintf(k->modules[k->nr], sizeof(k->modules[0]), "%s",
		 sym->module ? sym->module : "-");
	k->nr++;
}

/* The messages of the code under test, the last one kept. */
static char last_warning[1024];

static void keep_warning(void *ctx, enum op_message_kind kind, char const *text)
{
	(void)ctx;
	(void)kind;
	snprintf(last_warning, sizeof(last_warning), "%s", text);
}

/*
 * kallsyms.idx: written with kallsyms.gz, read in its place with the same
 * symbols; ignored (quietly) when kallsyms.gz is another, and when damaged
 * (said, naming it); the text is read then.
 */
static void test_session__kallsyms_index(char const *dir, char const *kallsyms)
{
	char *gz = op_session_path(dir, OP_META_KALLSYMS);
	char *idx = op_session_path(dir, OP_META_KALLSYMS_INDEX);
	struct ksyms ks = { 0 };
	size_t len = 0;
	char *buf;
	bool any;

	buf = op_read_file(idx, 0, &len, NULL, 0);
	check(buf && len > 40 && !memcmp(buf, "OPKSYMIX", 8),
	      "kallsyms.idx written beside kallsyms.gz");
	free(buf);
	/* the same symbols from the index alone: the text would say "other" */
	check(op_session_write_gz(gz, "ffffffff81000000 T other\n", 25) == 0,
	      "another kallsyms.gz");
	check(op_session_kallsyms(dir, collect, &ks, &any) == 0 && ks.nr == 1 &&
	      !strcmp(ks.names[0], "T other"),
	      "an index of another kallsyms.gz is ignored");
	check(op_session_write_kallsyms(gz, idx, kallsyms, strlen(kallsyms)) == 0,
	      "op_session_write_kallsyms");
	memset(&ks, 0, sizeof(ks));
	check(op_session_kallsyms(dir, collect, &ks, &any) == 0 && any &&
	      ks.nr == 3 && !strcmp(ks.names[2], "t ext4_read") &&
	      !strcmp(ks.modules[2], "ext4") && !strcmp(ks.modules[0], "-"),
	      "the index gives the text's symbols and modules");
	/* damaged: a name offset past the pool */
	buf = op_read_file(idx, 0, &len, NULL, 0);
	if (buf && len > 60) {
		memset(buf + 40 + 8, 0xff, 4);
		check(op_write_file_atomic_mode(idx, buf, len, 0600, NULL, 0) == 0,
		      "damage the index");
		op_set_message_sink(keep_warning, NULL);
		memset(&ks, 0, sizeof(ks));
		check(op_session_kallsyms(dir, collect, &ks, &any) == 0 &&
		      ks.nr == 3 && !strcmp(ks.names[1], "t helper"),
		      "a damaged index: the text is read");
		op_set_message_sink(NULL, NULL);
		check(strstr(last_warning, OP_META_KALLSYMS_INDEX) &&
		      strstr(last_warning, "outside the pool"),
		      "a damaged index is named: %s", last_warning);
	}
	free(buf);
	free(gz);
	free(idx);
}

static void test_session__kernel_metadata(void)
{
	static char const kallsyms[] =
		"ffffffff81000000 T _text\n"
		"ffffffff81000100 t helper\n"
		"not a symbol line\n"
		"ffffffffc0100000 t ext4_read\t[ext4]\n"
		"ffffffffc0100010 t bad_module\text4]\n";
	struct op_kernel_image images[] = {
		{ "vmlinux", 0xffffffff81000000ull, 0xffffffff81200000ull },
		{ "ext4", 0xffffffffc0100000ull, 0xffffffffc0101000ull },
	};
	struct op_kernel_sources src = { 0 };
	struct op_kernel_image *back;
	struct ksyms ks = { 0 };
	char *dir = op_session_path(session, "samples/current/" OP_META_DIR);
	char *path, err[512];
	bool any;
	size_t n;

	touch("kallsyms.src", kallsyms);
	touch("modules.src", "ext4 4096 0 - Live 0xffffffffc0100000\n");
	src.kallsyms = path = op_session_path(session, "kallsyms.src");
	src.modules = op_session_path(session, "modules.src");
	check(op_session_kernel_write(dir, &src, images, 2, err, sizeof(err)) == 0,
	      "write the kernel metadata");
	free(path);
	path = op_session_path(dir, OP_META_KALLSYMS);
	check_str(gunzip(path), kallsyms, "kallsyms.gz holds kallsyms");
	free(path);
	touch("samples/current/session/kallsyms", "ignored: kallsyms.gz is read first\n");
	check(op_session_kernel_images(dir, &back, &n, err, sizeof(err)) == 0,
	      "read kernel_images back");
	if (check_int(n, 2, "two images")) {
		check_str(back[1].name, "ext4", "module name");
		check(back[0].start == images[0].start && back[1].end == images[1].end,
		      "image ranges");
	}
	op_kernel_images_free(back, n);
	check(op_session_kallsyms(dir, collect, &ks, &any) == 0 && any,
	      "read kallsyms back");
	check_int(ks.nr, 3, "well-formed symbols only");
	check_str(ks.names[1], "t helper", "kernel symbol");
	check_str(ks.modules[1], "-", "kernel symbol has no module");
	check_str(ks.names[2], "t ext4_read", "module symbol");
	check_str(ks.modules[2], "ext4", "module name without brackets");

	test_session__kallsyms_index(dir, kallsyms);

	touch("samples/current/session/kernel_images", "vmlinux 0x10\n");
	check(op_session_kernel_images(dir, &back, &n, err, sizeof(err)) < 0 &&
	      strstr(err, "kernel_images:1: expected"), "bad kernel_images line: %s", err);
	free((char *)src.modules);
	src.modules = "/nonexistent/modules";
	src.kallsyms = "/nonexistent/kallsyms";
	check(op_session_kernel_write(dir, &src, images, 2, err, sizeof(err)) < 0 &&
	      strstr(err, "/nonexistent/kallsyms"), "missing kallsyms named: %s", err);
	path = op_session_path(dir, OP_META_KALLSYMS);
	unlink(path);
	free(path);
	path = op_session_path(dir, OP_META_KALLSYMS_PLAIN);
	unlink(path);
	free(path);
	check(op_session_kallsyms(dir, collect, &ks, &any) < 0, "no saved kallsyms");
	free(dir);
}

static void test_session__atomic_write(void)
{
	char *path = op_session_path(session, "atomic");
	char buf[64];

	check(op_write_file_atomic(path, "abc\n", 4, NULL, 0) == 0, "atomic write");
	check(op_session_read_small(path, buf, sizeof(buf)) == 4 &&
	      !strcmp(buf, "abc\n"), "read it back");
	check(op_write_file_atomic("/nonexistent/dir/x", "a", 1, NULL, 0) < 0 &&
	      errno == ENOENT, "write in a missing directory fails with errno");
	free(path);
}

static void test_session__driver_dir(void)
{
	char buf[256];

	unsetenv(OP_DRIVER_DIR_ENV);
	check_str(op_driver_dir(), "/dev/oprofile", "default driver directory");
	setenv(OP_DRIVER_DIR_ENV, "/tmp/fake-oprofile", 1);
	check_str(op_driver_dir(), "/tmp/fake-oprofile", "$OPROFILE_DRIVER_DIR honoured");
	check_str(op_driver_path(buf, sizeof(buf), "buffer"),
		  "/tmp/fake-oprofile/buffer", "a driver file");
	setenv(OP_DRIVER_DIR_ENV, "", 1);
	check_str(op_driver_dir(), "/dev/oprofile", "empty $OPROFILE_DRIVER_DIR ignored");
	unsetenv(OP_DRIVER_DIR_ENV);
}

int main(void)
{
	op_set_progname("session_test");
	snprintf(session, sizeof(session), "%s/session", check_tmpdir());
	if (op_session_create(session) < 0)
		check_bail("cannot create '%s'", session);
	test_session__command_parse();
	test_session__fifo();
	test_session__lock();
	test_session__kv();
	test_session__kv_hostile();
	test_session__separate();
	test_session__callgraph();
	test_session__events();
	test_session__reset_save();
	test_session__sample_data_rule();
	test_session__kernel_metadata();
	test_session__atomic_write();
	test_session__driver_dir();
	if (op_session_remove_tree(session) < 0)
		check_note("cannot remove '%s'", session);
	return check_done();
}
