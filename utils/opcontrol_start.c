/*
 * opcontrol --start and --start-daemon: starting oprofiled with a
 * session's settings, or telling a running one to sample.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "op_message.h"
#include "op_session.h"
#include "op_session_control.h"
#include "op_session_kv.h"
#include "op_session_settings.h"
#include "opcontrol.h"

/* --cpu-buffer-size=N for the perf source: a ring of N samples of up to
 * 64 bytes, in a power of two of pages (8192, OProfile's default, gives
 * the daemon's default 128 pages). 0: not given. */
static unsigned long perf_ring_pages(struct op_kv const *kv)
{
	char const *v = op_kv_get(kv, "cpu_buffer_size");
	unsigned long bytes, pages = 1, page = (unsigned long)sysconf(_SC_PAGESIZE);

	if (!v)
		return 0;
	bytes = strtoul(v, NULL, 0) * 64;
	while (pages * page < bytes && pages < (1UL << 20))
		pages <<= 1;
	return pages;
}

/* Write a driver buffer setting given in kv to DRIVER_DIR/key. */
static int driver_setting(struct op_kv const *kv, char const *key)
{
	char const *v = op_kv_get(kv, key);
	char path[4096];
	FILE *f;

	if (!v)
		return 0;
	op_driver_path(path, sizeof(path), key);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%s\n", v) < 0 || fclose(f) != 0)
		return op_error_errno("cannot write %s to '%s'", v, path);
	return 0;
}

/*
 * The 0.9 settings that size buffers or only get recorded: written to the
 * driver, turned into the perf rings, or said to have no effect here.
 */
static int apply_buffers(struct op_kv const *kv, char const *source)
{
	char const *range = op_kv_get(kv, "kernel_range");

	if (range)
		printf("Kernel range %s recorded but not used: kernel images and their ranges come from kallsyms.\n",
		       range);
	if (!strcmp(source, "driver"))
		return driver_setting(kv, "buffer_size") < 0 ||
		       driver_setting(kv, "buffer_watershed") < 0 ||
		       driver_setting(kv, "cpu_buffer_size") < 0 ? -1 : 0;
	if (op_kv_get(kv, "buffer_size") || op_kv_get(kv, "buffer_watershed"))
		printf("--buffer-size and --buffer-watershed size the driver's event buffer: the perf_events source has none, they are not used.\n");
	if (perf_ring_pages(kv))
		printf("--cpu-buffer-size=%s: perf ring of %lu pages per cpu.\n",
		       op_kv_get(kv, "cpu_buffer_size"), perf_ring_pages(kv));
	return 0;
}

/* --rotate, --keep, --keep-size of kv as arguments in args (bufs of
 * size bytes). The number added. */
static int rotation_args(struct op_kv const *kv, char **args, char (*buf)[64],
			 size_t size)
{
	static char const *const keys[][2] = {
		{ "rotate", "--rotate" }, { "keep", "--keep" }, { "keep_size", "--keep-size" },
	};
	int n = 0;

	for (size_t i = 0; i < 3; i++) {
		char const *v = op_kv_get(kv, keys[i][0]);

		if (!v)
			continue;
		snprintf(buf[n], size, "%s=%s", keys[i][1], v);
		args[n] = buf[n];
		n++;
	}
	return n;
}

static int run_daemon(char const *dir, int verbose, int paused,
		      struct op_kv const *kv, char const *source)
{
	char const *env = getenv("OPROFILED");
	char *prog = env && *env ? op_xstrdup(env) :
		opc_find_program("oprofiled", "../daemon/");
	char const *image = op_kv_get(kv, "image");
	char *args[20], buf[8][1200], rot[3][64];
	char const *vmlinux = op_kv_get(kv, "vmlinux");
	char const *callgraph = op_kv_get(kv, "callgraph");
	char const *keep = op_kv_get(kv, "keep_binaries");
	int n = 0, status;
	pid_t child;

	args[n++] = prog;
	snprintf(buf[0], sizeof(buf[0]), "--session-dir=%s", dir);
	args[n++] = buf[0];
	if (strcmp(op_kv_get(kv, "events"), "default")) {
		snprintf(buf[1], sizeof(buf[1]), "--events=%s", op_kv_get(kv, "events"));
		args[n++] = buf[1];
	}
	snprintf(buf[2], sizeof(buf[2]), "--separate=%s", op_kv_get(kv, "separate"));
	args[n++] = buf[2];
	if (callgraph && strcmp(callgraph, "0")) {
		snprintf(buf[5], sizeof(buf[5]), "--callgraph=%s", callgraph);
		args[n++] = buf[5];
	}
	if (strcmp(vmlinux, "none")) {
		snprintf(buf[3], sizeof(buf[3]), "--vmlinux=%s", vmlinux);
		args[n++] = buf[3];
	} else {
		args[n++] = "--no-vmlinux";
	}
	snprintf(buf[4], sizeof(buf[4]), "--source=%s", source);
	args[n++] = buf[4];
	if (image && strcmp(image, "all")) {
		snprintf(buf[6], sizeof(buf[6]), "--image=%s", image);
		args[n++] = buf[6];
	}
	if (!strcmp(source, "perf") && perf_ring_pages(kv)) {
		snprintf(buf[7], sizeof(buf[7]), "--buffer-pages=%lu", perf_ring_pages(kv));
		args[n++] = buf[7];
	}
	if (paused)
		args[n++] = "--paused";
	if (keep && !strcmp(keep, "yes"))
		args[n++] = "--keep-binaries";
	if (verbose)
		args[n++] = "--verbose";
	n += rotation_args(kv, args + n, rot, sizeof(rot[0]));
	args[n] = NULL;
	fflush(stdout);
	child = fork();
	if (child < 0)
		return op_error_errno("cannot fork");
	if (child == 0) {
		execvp(prog, args);
		op_error_errno("cannot run '%s'", prog);
		_exit(127);
	}
	free(prog);
	if (waitpid(child, &status, 0) < 0)
		return op_error_errno("cannot wait for oprofiled");
	if ((!WIFEXITED(status) || WEXITSTATUS(status) != 0) &&
	    op_session_daemon_pid(dir))
		return -1;	/* lost a race to another start: opc_start goes on */
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return op_error("oprofiled failed to start; see the message above and '%s/%s'",
				dir, OP_LOG_FILE);
	return 0;
}

/*
 * A daemon that another opcontrol is starting holds the lock before its
 * control FIFO and its state file exist (its sampling starts in
 * between): wait for both, then take the daemon's pid (it changes once
 * the daemon has forked away). The pid, or 0 when it died.
 */
static pid_t wait_ready(char const *dir)
{
	char *fifo = op_session_path(dir, OP_FIFO_FILE);
	char *state = op_session_path(dir, OP_STATE_FILE);
	pid_t pid = op_session_daemon_pid(dir);
	int waited;

	for (waited = 0; pid && (access(fifo, F_OK) || access(state, F_OK)) &&
	     waited < OPC_WAIT_MS; waited += 10) {
		usleep(10000);
		pid = op_session_daemon_pid(dir);
	}
	free(fifo);
	free(state);
	return op_session_daemon_pid(dir);
}

static int is_sampling(char const *dir)
{
	char *path = op_session_path(dir, OP_STATE_FILE), buf[32];
	int yes = op_session_read_small(path, buf, sizeof(buf)) > 0 &&
		!strncmp(buf, "sampling", 8);

	free(path);
	return yes;
}

static int start_running(char const *dir, pid_t pid, int paused,
			 struct op_kv const *want)
{
	pid_t ready = wait_ready(dir);

	if (ready)
		pid = ready;
	if (opc_check_running(dir, pid, want) < 0)
		return -1;
	if (paused) {
		printf("Daemon already running (pid %ld).\n", (long)pid);
		return 0;
	}
	if (is_sampling(dir)) {
		/* nothing to ask: concurrent starts do not race on the reply */
		printf("Daemon already running (pid %ld); sampling.\n", (long)pid);
		return 0;
	}
	printf("Daemon already running (pid %ld); starting sampling.\n",
	       (long)pid);
	return opc_command(dir, pid, "start", NULL);
}

int opc_start(char const *dir, int verbose, int paused, pid_t pid,
	      struct op_kv const *want)
{
	struct op_settings_events ev;
	char err[1024];
	char const *source = opc_driver_loaded() ? "driver" : "perf";
	enum op_cpu cpu;
	unsigned depth;

	if (pid)
		return start_running(dir, pid, paused, want);
	if (op_settings_check_privilege() < 0)
		return -1;
	cpu = op_settings_cpu(NULL, err, sizeof(err));
	if (cpu == CPU_NO_GOOD || opc_callgraph(want, &depth, err, sizeof(err)) < 0 ||
	    op_settings_events(op_kv_get(want, "events"), cpu, depth, &ev, err,
			       sizeof(err)) < 0)
		return op_error("%s", err);
	if (!strcmp(source, "driver"))
		printf("Using the oprofile driver (%s).\n", op_driver_dir());
	else
		printf("Using the perf_events source (no %s).\n", op_driver_dir());
	if (apply_buffers(want, source) < 0)
		return -1;
	if (run_daemon(dir, verbose, paused, want, source) < 0) {
		/* another opcontrol started it first: use that daemon */
		pid = op_session_daemon_pid(dir);
		return pid ? start_running(dir, pid, paused, want) : -1;
	}
	printf("Daemon started: pid %ld\n%s\n", (long)op_session_daemon_pid(dir),
	       paused ? "Profiler not sampling yet (opcontrol --start)." :
			"Profiler running.");
	return 0;
}
