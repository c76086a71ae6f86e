/* opcontrol --status: the daemon, the session's settings, the service. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op_escape.h"
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

/*
 * The fleet's shipper (doc/fleet.md): where it ships (the URL only, never
 * the credentials) and its counters from SESSION/fleet/stats.
 */
static void print_fleet(void)
{
	char *path = op_session_path(opt.session_dir, OP_FLEET_STATS);
	char const *url = op_kv_get(&opt.config, "fleet_url");
	char const *err;
	struct op_kv st = { 0 };

	if (!url) {
		printf("Fleet: off (no fleet_url)\n");
		free(path);
		return;
	}
	printf("Fleet: %s\n", url);
	if (op_kv_read(&st, path) == 0 && st.nr) {
		printf("Fleet spool: %s entries, %s bytes (at most %s); dropped %s\n",
		       op_kv_get(&st, "spool_entries") ? op_kv_get(&st, "spool_entries") : "0",
		       op_kv_get(&st, "spool_bytes") ? op_kv_get(&st, "spool_bytes") : "0",
		       op_kv_get(&st, "spool_max_bytes") ? op_kv_get(&st, "spool_max_bytes") : "?",
		       op_kv_get(&st, "dropped") ? op_kv_get(&st, "dropped") : "0");
		printf("Fleet uploads: %s uploaded, %s already there, %s failures, %s not symbolised\n",
		       op_kv_get(&st, "uploaded") ? op_kv_get(&st, "uploaded") : "0",
		       op_kv_get(&st, "already_shipped") ? op_kv_get(&st, "already_shipped") : "0",
		       op_kv_get(&st, "failures") ? op_kv_get(&st, "failures") : "0",
		       op_kv_get(&st, "unsymbolised") ? op_kv_get(&st, "unsymbolised") : "0");
		err = op_kv_get(&st, "last_error");
		if (err && *err) {
			printf("Fleet last error: ");
			op_fputs_escaped(stdout, err);
			printf("\n");
		}
	} else {
		printf("Fleet spool: nothing shipped yet\n");
	}
	op_kv_free(&st);
	free(path);
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
	print_fleet();
	print_service();
	op_kv_free(&kv);
	free(state_path);
	return 0;
}
