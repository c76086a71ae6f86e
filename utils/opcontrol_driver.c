/*
 * opcontrol --init / --deinit: load the oprofile driver (driver/) and
 * mount oprofilefs on the driver directory (op_driver_dir():
 * $OPROFILE_DRIVER_DIR, default /dev/oprofile); unmount it and unload the
 * driver.
 * The module comes from $OPROFILE_MODULE (a .ko path), else the build
 * tree's ../driver/oprofile.ko next to this program, else modprobe, with
 * the module parameters in $OPROFILE_MODULE_ARGS (words separated by
 * blanks, e.g. "timer=1"; see doc/driver.md).
 * Where the driver cannot be loaded but perf_events works (kernels since
 * 5.12 have no oprofile module), --init and --deinit say so and succeed:
 * the daemon then samples through perf_events.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <linux/perf_event.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "op_cpu_type.h"
#include "op_message.h"
#include "op_session.h"
#include "opcontrol.h"

/* Run argv; its exit status, or -1. */
static int run(char *const argv[])
{
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execvp(argv[0], argv);
		op_error_errno("cannot run '%s'", argv[0]);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Is oprofilefs mounted on the driver directory (it has a buffer)? An
 * empty directory, as --deinit leaves it, is no driver: the daemon reads
 * DIR/buffer. */
int opc_driver_loaded(void)
{
	char path[4096];

	return access(op_driver_path(path, sizeof(path), "buffer"), F_OK) == 0;
}

/* Is the oprofilefs filesystem type registered (the module loaded)? */
static int fs_registered(void)
{
	FILE *f = fopen("/proc/filesystems", "r");
	char line[256];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "\toprofilefs") != NULL;
	fclose(f);
	return found;
}

/* Can this process sample the whole of cpu 0 with perf_events (what the
 * perf source does)? */
static int perf_usable(void)
{
	return op_perf_event_opens(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
				   -1, 0);
}

/* The driver could not be loaded: fine when perf_events serves. */
static int no_driver(char const *why)
{
	if (!perf_usable())
		return op_error("%s, and perf_events cannot sample either", why);
	printf("%s: the daemon will sample with perf_events instead (nothing to load).\n", why);
	return 0;
}

#define MAX_MODULE_ARGS 16

/* argv[n..] = the words of $OPROFILE_MODULE_ARGS (in *copy), then NULL. */
static int module_args(char **argv, int n, char **copy)
{
	char const *env = getenv("OPROFILE_MODULE_ARGS");
	char *w, *save = NULL;

	*copy = NULL;
	if (env && *env) {
		*copy = op_xstrdup(env);
		for (w = strtok_r(*copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
			if (n == MAX_MODULE_ARGS + 2)
				return op_error("$OPROFILE_MODULE_ARGS: more than %d words",
						MAX_MODULE_ARGS);
			argv[n++] = w;
		}
	}
	argv[n] = NULL;
	return 0;
}

int opc_driver_init(void)
{
	char const *ko = getenv("OPROFILE_MODULE");
	char const *dir = op_driver_dir();
	char *argv[MAX_MODULE_ARGS + 3];
	char *built = NULL, *copy = NULL;
	char params[1024], why[1400];
	int rc, i;

	if (opc_driver_loaded()) {
		printf("The oprofile driver is already loaded and mounted on %s.\n", dir);
		return 0;
	}
	if (!fs_registered()) {
		if (!ko || !*ko) {
			built = opc_find_program("../driver/oprofile.ko", NULL);
			if (built[0] == '/' && access(built, R_OK) == 0)
				ko = built;
		}
		argv[0] = ko && *ko ? "insmod" : "modprobe";
		argv[1] = ko && *ko ? (char *)ko : "oprofile";
		if (module_args(argv, 2, &copy) < 0) {
			free(built);
			free(copy);
			return -1;
		}
		params[0] = '\0';
		for (i = 2; argv[i]; i++)
			snprintf(params + strlen(params), sizeof(params) - strlen(params), " %s", argv[i]);
		rc = run(argv);
		free(copy);
		if (rc != 0 || !fs_registered()) {
			snprintf(why, sizeof(why), "cannot load the oprofile driver (%s %s%s)",
				 argv[0], argv[1], params);
			free(built);
			return no_driver(why);
		}
		printf("Loaded the oprofile driver%s%s%s%s.\n", ko ? " from " : "", ko ? ko : "",
		       params[0] ? " with" : "", params);
	}
	free(built);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return op_error_errno("cannot create %s", dir);
	if (mount("nodev", dir, "oprofilefs", 0, NULL) < 0)
		return op_error_errno("cannot mount oprofilefs on %s", dir);
	printf("Mounted oprofilefs on %s.\n", dir);
	return 0;
}

int opc_driver_deinit(void)
{
	char const *dir = op_driver_dir();

	if (opc_driver_loaded() && umount(dir) < 0)
		return op_error("cannot unmount %s: %s%s", dir, strerror(errno),
				errno == EBUSY ? " (is the daemon running? opcontrol --shutdown)" : "");
	if (fs_registered()) {
		if (run((char *[]){ "rmmod", "oprofile", NULL }) != 0)
			return op_error("cannot unload the oprofile driver (rmmod oprofile)");
		printf("Unloaded the oprofile driver.\n");
	} else {
		printf("The oprofile driver is not loaded%s.\n",
		       perf_usable() ? " (perf_events needs no unloading)" : "");
	}
	return 0;
}
