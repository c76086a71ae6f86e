/*
 * opcontrol's settings: SESSION_DIR/daemonrc with the command line merged
 * in, then the settings file's for the rest, each checked as it comes in;
 * saved, defaulted, and compared with a running daemon's (see
 * opcontrol.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_message.h"
#include "op_session.h"
#include "op_session_kv.h"
#include "op_session_settings.h"
#include "op_util.h"
#include "opcontrol.h"

/* The command line, filled in by opcontrol.c's option table: here, with
 * the settings it gives, for every file of opcontrol. */
struct opc_options opt;

int opc_callgraph(struct op_kv const *kv, unsigned *depth, char *err, size_t errlen)
{
	char const *v = op_kv_get(kv, "callgraph");

	*depth = 0;
	return v ? op_settings_callgraph(v, depth, err, errlen) : 0;
}

/* The running session's settings (samples/current/session.conf). */
void opc_load_running(char const *dir, struct op_kv *kv)
{
	char *current = op_session_samples(dir, OP_CURRENT_SESSION);
	char *path = op_session_path(current, OP_SESSION_CONF);

	if (op_kv_read(kv, path) < 0)
		memset(kv, 0, sizeof(*kv));
	free(path);
	free(current);
}

/* A setting given on the command line as option: checked as the files'
 * lines are (op_settings_check), then set. 0, or -1 after a message. */
static int set_checked(struct op_kv *kv, char const *key, char const *option,
		       char const *text)
{
	char err[1024];

	if (!text)
		return 0;
	if (op_settings_check(key, option, text, err, sizeof(err)) < 0)
		return op_error("%s", err);
	op_kv_set(kv, key, text);
	return 0;
}

/* The settings file's values for what daemonrc and the command line
 * leave unset (daemonrc wins: it is this session's). */
static void merge_config(struct op_kv *kv)
{
	for (size_t i = 0; i < opt.config.nr; i++)
		if (strcmp(opt.config.keys[i], "session_dir") &&
		    /* the shipper's: it reads the file itself */
		    strncmp(opt.config.keys[i], "fleet_", 6) &&
		    !op_kv_get(kv, opt.config.keys[i]))
			op_kv_set(kv, opt.config.keys[i], opt.config.values[i]);
}

/* The settings given as they are, checked: those of sessions by time,
 * and those OProfile 0.9 has that we only pass on or record. */
static int merge_given(struct op_kv *kv)
{
	if (set_checked(kv, "rotate", "--rotate", opt.rotate) < 0 ||
	    set_checked(kv, "keep", "--keep", opt.keep) < 0 ||
	    set_checked(kv, "keep_size", "--keep-size", opt.keep_size) < 0 ||
	    set_checked(kv, "buffer_size", "--buffer-size", opt.buffer_size) < 0 ||
	    set_checked(kv, "buffer_watershed", "--buffer-watershed", opt.buffer_watershed) < 0 ||
	    set_checked(kv, "cpu_buffer_size", "--cpu-buffer-size", opt.cpu_buffer_size) < 0 ||
	    set_checked(kv, "image", "--image", opt.image) < 0 ||
	    set_checked(kv, "kernel_range", "--kernel-range", opt.kernel_range) < 0)
		return -1;
	return 0;
}

/* "FILE:LINE: " of the file the events of kv came from (daemonrc, else
 * the settings file), "" when given on the command line or by default. */
static void events_origin(struct op_kv const *kv, char *buf, size_t size)
{
	unsigned line = op_kv_line(kv, "events");

	buf[0] = '\0';
	if (opt.events)
		return;
	if (line) {
		snprintf(buf, size, "%s/%s:%u: ", opt.session_dir, OP_DAEMONRC_FILE, line);
		return;
	}
	line = op_kv_line(&opt.config, "events");
	if (line && op_kv_get(kv, "events") == NULL)
		snprintf(buf, size, "%s:%u: ", op_settings_config_path(), line);
}

/*
 * The settings in SESSION/daemonrc with those given on the command line
 * merged in, then the settings file's for the rest, each checked as it
 * comes in (op_settings_check). With check_events (a command that saves
 * or starts), the events are checked against this cpu's events/ files
 * too, wherever they come from: an error names the file and line. 0, or
 * -1 after a message.
 */
static int merge_settings(struct op_kv *kv, int check_events)
{
	char err[1024], text[1024], origin[1200];

	if (op_settings_daemonrc_read(kv, opt.session_dir) < 0 || merge_given(kv) < 0)
		return -1;
	events_origin(kv, origin, sizeof(origin));
	merge_config(kv);
	if (opt.callgraph) {
		unsigned depth;

		if (op_settings_callgraph(opt.callgraph, &depth, err, sizeof(err)) < 0)
			return op_error("%s", err);
		snprintf(text, sizeof(text), "%u", depth);
		op_kv_set(kv, "callgraph", text);
	}
	/* the events given, or the saved ones (also under a new depth: a
	 * callgraph needs 15 times the minimum count) */
	if (opt.events || opt.callgraph || check_events) {
		enum op_cpu cpu = op_settings_cpu(NULL, err, sizeof(err));
		struct op_settings_events ev;
		unsigned depth;

		if (cpu == CPU_NO_GOOD || opc_callgraph(kv, &depth, err, sizeof(err)) < 0)
			return op_error("%s", err);
		if (op_settings_events(opt.events ? opt.events : op_kv_get(kv, "events"),
				       cpu, depth, &ev, err, sizeof(err)) < 0)
			return op_error("%s%s", origin, err);
		if (opt.events)
			op_kv_set(kv, "events", ev.text);
	}
	if (opt.separate) {
		unsigned bits;

		if (op_settings_separate(opt.separate, &bits, err, sizeof(err)) < 0)
			return op_error("%s", err);
		op_settings_separate_text(bits, text, sizeof(text));
		op_kv_set(kv, "separate", text);
	}
	if (opt.vmlinux) {
		char *abs = realpath(opt.vmlinux, NULL);

		if (!abs)
			return op_error_errno("cannot use vmlinux '%s'", opt.vmlinux);
		op_kv_set(kv, "vmlinux", abs);
		free(abs);
	}
	if (opt.no_vmlinux)
		op_kv_set(kv, "vmlinux", "none");
	if (opt.keep_binaries || opt.no_keep_binaries)
		op_kv_set(kv, "keep_binaries", opt.keep_binaries ? "yes" : "no");
	return 0;
}

static int save_settings(struct op_kv const *kv)
{
	char *rc_path = op_session_path(opt.session_dir, OP_DAEMONRC_FILE);
	int ret = op_kv_write(kv, rc_path);

	free(rc_path);
	return ret;
}

/* Fill in the defaults of the settings not given. */
void opc_default_settings(struct op_kv *kv)
{
	if (!op_kv_get(kv, "events"))
		op_kv_set(kv, "events", "default");
	if (!op_kv_get(kv, "separate"))
		op_kv_set(kv, "separate", "none");
	if (!op_kv_get(kv, "callgraph"))
		op_kv_set(kv, "callgraph", "0");
	if (!op_kv_get(kv, "vmlinux"))
		op_kv_set(kv, "vmlinux", "none");
	if (!op_kv_get(kv, "image"))
		op_kv_set(kv, "image", "all");
	if (!op_kv_get(kv, "keep_binaries"))
		op_kv_set(kv, "keep_binaries", "no");
}

/* The first setting that differs between what we would start with and
 * what runs, as "KEY 'RUNNING' (wanted 'WANTED')"; 0 when none does. */
static int settings_differ(struct op_kv const *want, struct op_kv const *run,
			   char *why, size_t size)
{
	static char const *const keys[] = { "events", "separate", "callgraph", "vmlinux",
					    "image", "keep_binaries" };
	struct op_settings_events ev;
	char err[512];
	unsigned depth;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char const *w = op_kv_get(want, keys[i]);
		char const *r = op_kv_get(run, keys[i]);

		if (!strcmp(keys[i], "events") && !strcmp(w, "default")) {
			enum op_cpu cpu = op_settings_cpu(NULL, err, sizeof(err));

			if (cpu != CPU_NO_GOOD &&
			    opc_callgraph(want, &depth, err, sizeof(err)) == 0 &&
			    op_settings_events(NULL, cpu, depth, &ev, err,
					       sizeof(err)) == 0)
				w = ev.text;
		}
		if (r && strcmp(w, r)) {
			snprintf(why, size, "%s '%s' (wanted '%s')", keys[i], r, w);
			return 1;
		}
	}
	return 0;
}

/* Refuse to "start" a daemon that runs with other settings than want. */
int opc_check_running(char const *dir, pid_t pid, struct op_kv const *want)
{
	struct op_kv running;
	char why[1200];
	int ret = 0;

	opc_load_running(dir, &running);
	if (settings_differ(want, &running, why, sizeof(why)))
		ret = op_error("daemon already running (pid %ld) with different settings: %s; run 'opcontrol --shutdown' first",
			       (long)pid, why);
	op_kv_free(&running);
	return ret;
}

/*
 * The settings to use: daemonrc with this command line merged in. They
 * are saved when given, but not when --start is refused because a daemon
 * runs with other settings. 0 or -1.
 */
int opc_settings(struct op_kv *kv, pid_t pid)
{
	int given = opt.events || opt.separate || opt.callgraph || opt.vmlinux ||
		opt.no_vmlinux || opt.image || opt.kernel_range || opt.buffer_size ||
		opt.buffer_watershed || opt.cpu_buffer_size || opt.keep_binaries ||
		opt.no_keep_binaries || opt.rotate || opt.keep || opt.keep_size;
	int starting = opt.start || opt.start_daemon;

	memset(kv, 0, sizeof(*kv));
	if ((given || starting || opt.setup) && op_session_create(opt.session_dir) < 0)
		return -1;
	if (merge_settings(kv, given || starting || opt.setup) < 0)
		return -1;
	opc_default_settings(kv);
	if (given && starting && pid && !opt.shutdown && opc_check_running(opt.session_dir, pid, kv) < 0)
		return -1;
	if (!given && !opt.setup)
		return 0;
	if (save_settings(kv) < 0)
		return -1;
	if (opt.setup)
		printf("Settings saved in %s/%s.\n", opt.session_dir, OP_DAEMONRC_FILE);
	return 0;
}
