/* opcontrol --status: the daemon, the session's settings, the service. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op_session.h"
#include "op_session_kv.h"
#include "op_session_settings.h"
#include "opcontrol.h"

/*
 * The service's state: "systemctl is-active oprofiled" when systemd runs
 * this machine (sd_booted(3)'s test), else "not under systemd".
 */
static void print_service(void)
{
	char line[64] = "";
	FILE *p;

	if (access("/run/systemd/system", F_OK)) {
		printf("Service: not under systemd\n");
		return;
	}
	fflush(stdout);
	p = popen("systemctl is-active oprofiled 2>/dev/null", "r");
	if (!p || !fgets(line, sizeof(line), p))
		snprintf(line, sizeof(line), "unknown (systemctl failed)");
	if (p)
		pclose(p);
	line[strcspn(line, "\n")] = '\0';
	printf("Service: oprofiled.service %s\n", line);
}

int opc_status(pid_t pid)
{
	char *state_path = op_session_path(opt.session_dir, OP_STATE_FILE);
	char state[32] = "";
	struct op_kv kv;

	if (pid) {
		op_session_read_small(state_path, state, sizeof(state));
		printf("Daemon %s: pid %ld\n",
		       strncmp(state, "paused", 6) ? "running" : "paused", (long)pid);
		opc_load_running(opt.session_dir, &kv);
	} else {
		if (op_settings_daemonrc_read(&kv, opt.session_dir) < 0)
			return -1;
		printf("Daemon not running\n");
		opc_default_settings(&kv);
	}
	printf("Session dir: %s\n", opt.session_dir);
	printf("Events: %s\n", op_kv_get(&kv, "events") ? op_kv_get(&kv, "events") : "default");
	printf("Separate: %s\n", op_kv_get(&kv, "separate") ? op_kv_get(&kv, "separate") : "none");
	printf("Callgraph: %s\n", op_kv_get(&kv, "callgraph") ? op_kv_get(&kv, "callgraph") : "0");
	printf("vmlinux: %s\n", op_kv_get(&kv, "vmlinux") ? op_kv_get(&kv, "vmlinux") : "none");
	printf("Image filter: %s\n", op_kv_get(&kv, "image") ? op_kv_get(&kv, "image") : "all");
	printf("Source: %s\n", op_kv_get(&kv, "source") ? op_kv_get(&kv, "source") :
	       opc_driver_loaded() ? "driver" : "perf");
	printf("Rotate: %s\n", op_kv_get(&kv, "rotate") ? op_kv_get(&kv, "rotate") : "0");
	printf("Settings file: %s\n", op_settings_config_path());
	print_service();
	op_kv_free(&kv);
	free(state_path);
	return 0;
}
