/*
 * Settings checks shared by oprofiled and opcontrol (see
 * op_session_settings.h).
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op_events.h"
#include "op_fleet_settings.h"
#include "op_message.h"
#include "op_session.h"
#include "op_session_kv.h"
#include "op_session_settings.h"
#include "op_stream.h"
#include "op_util.h"

static struct {
	char const *name;
	unsigned bits;
} const separate_words[] = {
	{ "none", 0 },
	{ "lib", OP_SEP_LIB },
	{ "library", OP_SEP_LIB },
	{ "kernel", OP_SEP_KERNEL | OP_SEP_LIB },
	{ "thread", OP_SEP_THREAD },
	{ "cpu", OP_SEP_CPU },
	{ "all", OP_SEP_LIB | OP_SEP_KERNEL | OP_SEP_THREAD | OP_SEP_CPU },
};

#define NR_SEPARATE_WORDS (sizeof(separate_words) / sizeof(separate_words[0]))

int op_settings_separate(char const *text, unsigned *bits,
			 char *err, size_t errlen)
{
	char *copy = op_xstrdup(text), *save = NULL, *w;
	int ret = 0, none = 0, words = 0;

	*bits = 0;
	for (w = strtok_r(copy, ",", &save); w && !ret; w = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < NR_SEPARATE_WORDS; i++)
			if (!strcmp(w, separate_words[i].name))
				break;
		if (i == NR_SEPARATE_WORDS) {
			snprintf(err, errlen, "invalid --separate value '%s' in '%s': use none, lib, kernel, thread, cpu or all",
				 w, text);
			ret = -1;
			break;
		}
		none |= !strcmp(w, "none");
		words++;
		*bits |= separate_words[i].bits;
	}
	if (!ret && !words) {
		snprintf(err, errlen, "empty --separate value: use none, lib, kernel, thread, cpu or all");
		ret = -1;
	}
	if (!ret && none && words > 1) {
		snprintf(err, errlen, "invalid --separate value '%s': 'none' cannot be combined", text);
		ret = -1;
	}
	free(copy);
	return ret;
}

void op_settings_separate_text(unsigned bits, char *buf, size_t size)
{
	static char const *const names[] = { "lib", "kernel", "thread", "cpu" };
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < 4; i++) {
		if (!(bits & (1u << i)))
			continue;
		len += (size_t)snprintf(buf + len, len < size ? size - len : 0,
					"%s%s", len ? "," : "", names[i]);
	}
	if (!len)
		snprintf(buf, size, "none");
}

int op_settings_callgraph(char const *text, unsigned *depth,
			  char *err, size_t errlen)
{
	char const *p = text;
	unsigned long v = 0;

	for (; *p >= '0' && *p <= '9' && v <= OP_MAX_BACKTRACE_DEPTH; p++)
		v = v * 10 + (unsigned long)(*p - '0');
	if (p == text || *p || v > OP_MAX_BACKTRACE_DEPTH) {
		snprintf(err, errlen, "invalid --callgraph depth '%s': use 0 (no backtraces) to %d",
			 text, OP_MAX_BACKTRACE_DEPTH);
		return -1;
	}
	*depth = (unsigned)v;
	return 0;
}

enum op_cpu op_settings_cpu(char const *name, char *err, size_t errlen)
{
	enum op_cpu cpu = name ? op_cpu_from_name(name) : op_cpu_detect();

	if (cpu == CPU_NO_GOOD) {
		if (name)
			snprintf(err, errlen, "unknown cpu type '%s'", name);
		else
			snprintf(err, errlen, "cannot tell this machine's cpu type");
		return CPU_NO_GOOD;
	}
	if (!op_cpu_has_events(cpu)) {
		snprintf(err, errlen, "no events for cpu type '%s' in '%s'",
			 op_cpu_name(cpu), op_events_dir());
		return CPU_NO_GOOD;
	}
	return cpu;
}

/* Split specs on ',' into parsed specs; -1 with err. */
static int parse_specs(char const *specs, struct op_event_spec *out,
		       size_t *nr, char *err, size_t errlen)
{
	char *copy = op_xstrdup(specs), *save = NULL, *w;
	char why[512];
	int ret = 0;

	*nr = 0;
	for (w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (*nr == OP_SETTINGS_MAX_EVENTS) {
			snprintf(err, errlen, "too many events in '%s': at most %d",
				 specs, OP_SETTINGS_MAX_EVENTS);
			ret = -1;
			break;
		}
		if (op_parse_event_spec(w, &out[*nr], why, sizeof(why)) < 0) {
			snprintf(err, errlen, "invalid event specification '%s': %s",
				 w, why);
			ret = -1;
			break;
		}
		(*nr)++;
	}
	if (!ret && !*nr) {
		snprintf(err, errlen, "no event in '%s'", specs);
		ret = -1;
	}
	free(copy);
	return ret;
}

/* The checked specs into out: their events and the normalised text. */
static int fill_events(struct op_event_set const *set,
		       struct op_event_spec const *spec, size_t nr,
		       struct op_settings_events *out)
{
	size_t i, len = 0;

	out->text[0] = '\0';
	for (i = 0; i < nr; i++) {
		struct op_event const *ev = op_event_find(set, spec[i].name);
		struct op_settings_event *e = &out->v[i];

		len += (size_t)snprintf(out->text + len,
					len < sizeof(out->text) ? sizeof(out->text) - len : 0,
					"%s%s:%u:%u:%d:%d", i ? "," : "",
					spec[i].name, spec[i].count,
					spec[i].unit_mask, spec[i].kernel,
					spec[i].user);
		memset(e, 0, sizeof(*e));
		memcpy(e->name, spec[i].name,
		       strnlen(spec[i].name, sizeof(e->name) - 1));
		e->code = ev ? ev->code : 0;
		e->unit_mask = spec[i].unit_mask;
		e->count = spec[i].count;
		e->kernel = spec[i].kernel;
		e->user = spec[i].user;
	}
	out->nr = nr;
	return len < sizeof(out->text) ? 0 : -1;
}

int op_settings_events(char const *specs, enum op_cpu cpu, unsigned callgraph,
		       struct op_settings_events *out, char *err, size_t errlen)
{
	struct op_event_spec spec[OP_SETTINGS_MAX_EVENTS];
	int counter[OP_SETTINGS_MAX_EVENTS];
	struct op_event_set set;
	char why[512];
	size_t nr;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (!specs || !*specs || !strcmp(specs, "default")) {
		specs = op_default_event(cpu);
		if (!specs) {
			snprintf(err, errlen, "cpu type '%s' has no default event",
				 op_cpu_name(cpu));
			return -1;
		}
	}
	if (parse_specs(specs, spec, &nr, err, errlen) < 0)
		return -1;
	if (op_events_load(cpu, &set, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "cannot load the events of cpu type '%s': %s",
			 op_cpu_name(cpu), why);
		return -1;
	}
	if (op_check_events(&set, spec, nr, callgraph > 0, counter, why,
			    sizeof(why)) < 0)
		snprintf(err, errlen, "invalid events '%s': %s", specs, why);
	else if (fill_events(&set, spec, nr, out) < 0)
		snprintf(err, errlen, "event list '%s' is too long", specs);
	else
		ret = 0;
	op_events_free(&set);
	return ret;
}

/* Whether capability bit cap is in this process's effective set. */
static int has_cap(int cap)
{
	char buf[4096], *p;
	unsigned long long eff;

	if (op_session_read_small("/proc/self/status", buf, sizeof(buf)) < 0)
		return 0;
	p = strstr(buf, "\nCapEff:");
	if (!p || sscanf(p + 8, "%llx", &eff) != 1)
		return 0;
	return cap < 64 && (eff >> cap) & 1;
}

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38

int op_settings_check_privilege(void)
{
	char buf[32];
	int paranoid = 2;

	if (geteuid() == 0 || has_cap(CAP_PERFMON_BIT) || has_cap(CAP_SYS_ADMIN_BIT))
		return 0;
	if (op_session_read_small("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf)) > 0)
		paranoid = atoi(buf);
	if (paranoid <= 0)
		return 0;
	op_error("%s must run as root: system-wide sampling needs CAP_PERFMON or CAP_SYS_ADMIN",
		 op_progname());
	op_hint("kernel.perf_event_paranoid is %d, too high for a non-root user; "
		"system-wide sampling without root needs it at 0 or less "
		"(sysctl kernel.perf_event_paranoid=0)", paranoid);
	return -1;
}

/* --- durations, sizes, and the system settings file --- */

/* A decimal number and one optional unit letter of units (with their
 * factors); 0, or -1. */
static int number_unit(char const *text, char const *units,
		       uint64_t const *factor, uint64_t *out)
{
	char const *p = text, *u;
	uint64_t v = 0;

	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == text || v == 0)
		return -1;
	if (*p) {
		u = strchr(units, *p);
		if (!u || p[1])
			return -1;
		if (v > UINT64_MAX / factor[u - units])
			return -1;
		v *= factor[u - units];
	}
	*out = v;
	return 0;
}

int op_settings_duration(char const *option, char const *text,
			 uint64_t *seconds, char *err, size_t errlen)
{
	static uint64_t const factor[] = { 1, 60, 3600, 86400 };

	if (number_unit(text, "smhd", factor, seconds) < 0) {
		snprintf(err, errlen, "%s: '%s' is not a duration: give a number of seconds, or N with s, m, h or d (e.g. 30s, 1h, 7d)",
			 option, text);
		return -1;
	}
	return 0;
}

void op_settings_duration_text(uint64_t seconds, char *buf, size_t size)
{
	static struct { uint64_t s; char unit; } const units[] = {
		{ 86400, 'd' }, { 3600, 'h' }, { 60, 'm' }, { 1, 's' },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (seconds % units[i].s == 0 || units[i].s == 1) {
			snprintf(buf, size, "%llu%c",
				 (unsigned long long)(seconds / units[i].s), units[i].unit);
			return;
		}
}

int op_settings_size(char const *option, char const *text, uint64_t *bytes,
		     char *err, size_t errlen)
{
	static uint64_t const factor[] = { 1ULL << 10, 1ULL << 20, 1ULL << 30, 1ULL << 40 };

	if (number_unit(text, "KMGT", factor, bytes) < 0) {
		snprintf(err, errlen, "%s: '%s' is not a size: give a number of bytes, or N with K, M, G or T (e.g. 500M)",
			 option, text);
		return -1;
	}
	return 0;
}

char const *op_settings_config_path(void)
{
	char const *env = getenv(OP_CONFIG_ENV);

	return env && *env ? env : OP_CONFIG_FILE_DEFAULT;
}

int op_settings_stack_size(char const *option, char const *text, int *bytes,
			   char *err, size_t errlen)
{
	char const *p = text;
	long v = 0;

	for (; *p >= '0' && *p <= '9' && v <= OP_SETTINGS_STACK_MAX; p++)
		v = v * 10 + (*p - '0');
	if (p == text || *p || (v && v < OP_SETTINGS_STACK_MIN) ||
	    v > OP_SETTINGS_STACK_MAX) {
		snprintf(err, errlen, "%s: '%s' is not a stack size: give 0 (frame pointers only) or %d to %d bytes",
			 option, text, OP_SETTINGS_STACK_MIN, OP_SETTINGS_STACK_MAX);
		return -1;
	}
	*bytes = (int)v;
	return 0;
}

int op_settings_ring_pages(char const *option, char const *text,
			   unsigned *pages, char *err, size_t errlen)
{
	char const *p = text;
	unsigned long v = 0;

	for (; *p >= '0' && *p <= '9' && v <= OP_SETTINGS_RING_PAGES_MAX; p++)
		v = v * 10 + (unsigned long)(*p - '0');
	if (p == text || *p || !v || (v & (v - 1)) ||
	    v > OP_SETTINGS_RING_PAGES_MAX) {
		snprintf(err, errlen, "%s: '%s' is not a ring size: give a power of two of pages, 1 to %lu",
			 option, text, OP_SETTINGS_RING_PAGES_MAX);
		return -1;
	}
	*pages = (unsigned)v;
	return 0;
}

int op_settings_entries(char const *option, char const *text,
			unsigned long *n, char *err, size_t errlen)
{
	unsigned long v = 0;
	bool ok = false;
	char *end;

	/* a digit first: strtoul would take blanks, a sign and a wrapped "-1" */
	if (text[0] >= '0' && text[0] <= '9') {
		errno = 0;
		v = strtoul(text, &end, 0);
		ok = !errno && !*end && v && v <= 0x7fffffffUL;
	}
	if (!ok) {
		snprintf(err, errlen, "%s: '%s' is not a positive number of entries (1 to %lu)",
			 option, text, 0x7fffffffUL);
		return -1;
	}
	*n = v;
	return 0;
}

/* "none"/"all" or absolute paths, comma separated (image), or one. */
static int config_paths(char const *v, char const *none, int list)
{
	char *copy, *w, *save = NULL;
	int ret = 0, words = 0;

	if (!strcmp(v, none))
		return 0;
	if (!list)
		return v[0] == '/' ? 0 : -1;
	copy = op_xstrdup(v);
	for (w = strtok_r(copy, ",", &save); w && !ret; w = strtok_r(NULL, ",", &save)) {
		words++;
		if (w[0] != '/')
			ret = -1;
	}
	free(copy);
	return words ? ret : -1;
}

/* Event specifications as far as they can be checked without a cpu
 * type (op_parse_event_spec: the syntax, the count, kernel and user);
 * op_settings_events checks them against the cpu type's events. */
static int check_events(char const *name, char const *v, char *err, size_t errlen)
{
	struct op_event_spec spec[OP_SETTINGS_MAX_EVENTS];
	size_t nr;

	if (!*v) {
		snprintf(err, errlen, "%s is empty (give 'default' or NAME:count,...)", name);
		return -1;
	}
	if (!strcmp(v, "default"))
		return 0;
	return parse_specs(v, spec, &nr, err, errlen);
}

/* --kernel-range=START,END (hex, as OProfile's). */
static int check_kernel_range(char const *name, char const *v, char *err,
			      size_t errlen)
{
	unsigned long long start, end;
	char tail;

	/* sscanf alone would take blanks and signs */
	if (v[strspn(v, "0123456789abcdefABCDEFxX,")] ||
	    sscanf(v, "%llx,%llx%c", &start, &end, &tail) != 2 || start >= end) {
		snprintf(err, errlen, "%s: '%s' is not START,END in hex with START < END",
			 name, v);
		return -1;
	}
	return 0;
}

/* Where a key may be: the settings file, daemonrc. */
enum { IN_CONFIG = 1, IN_DAEMONRC = 2 };

static struct {
	char const *key;
	unsigned in;
} const setting_keys[] = {
	{ "session_dir", IN_CONFIG },
	{ "events", IN_CONFIG | IN_DAEMONRC },
	{ "separate", IN_CONFIG | IN_DAEMONRC },
	{ "callgraph", IN_CONFIG | IN_DAEMONRC },
	{ "vmlinux", IN_CONFIG | IN_DAEMONRC },
	{ "image", IN_CONFIG | IN_DAEMONRC },
	{ "keep_binaries", IN_CONFIG | IN_DAEMONRC },
	{ "rotate", IN_CONFIG | IN_DAEMONRC },
	{ "keep", IN_CONFIG | IN_DAEMONRC },
	{ "keep_size", IN_CONFIG | IN_DAEMONRC },
	{ "buffer_size", IN_DAEMONRC },
	{ "buffer_watershed", IN_DAEMONRC },
	{ "cpu_buffer_size", IN_DAEMONRC },
	{ "kernel_range", IN_DAEMONRC },
	/* the fleet (op_fleet_settings.h): read by the shipper */
	{ "fleet_url", IN_CONFIG },
	{ "fleet_credentials", IN_CONFIG },
	{ "fleet_host", IN_CONFIG },
	{ "fleet_label", IN_CONFIG },
	{ "fleet_spool_size", IN_CONFIG },
	{ "fleet_database", IN_CONFIG },
	{ "fleet_cluster", IN_CONFIG },
	{ "fleet_ca", IN_CONFIG },
	{ "fleet_timeout", IN_CONFIG },
};

int op_settings_check(char const *key, char const *name, char const *v,
		      char *err, size_t errlen)
{
	unsigned bits, depth;
	unsigned long entries;
	uint64_t n;

	if (!name)
		name = key;
	if (!strcmp(key, "events"))
		return check_events(name, v, err, errlen);
	if (!strcmp(key, "separate"))
		return op_settings_separate(v, &bits, err, errlen);
	if (!strcmp(key, "callgraph"))
		return op_settings_callgraph(v, &depth, err, errlen);
	if (!strcmp(key, "rotate") && !strcmp(v, "0"))
		return 0;	/* no rotation */
	if (!strcmp(key, "rotate") || !strcmp(key, "keep"))
		return op_settings_duration(name, v, &n, err, errlen);
	if (!strcmp(key, "keep_size"))
		return op_settings_size(name, v, &n, err, errlen);
	if (!strcmp(key, "buffer_size") || !strcmp(key, "buffer_watershed") ||
	    !strcmp(key, "cpu_buffer_size"))
		return op_settings_entries(name, v, &entries, err, errlen);
	if (!strcmp(key, "kernel_range"))
		return check_kernel_range(name, v, err, errlen);
	if (!strcmp(key, "fleet_spool_size"))
		return op_settings_size(name, v, &n, err, errlen);
	if (!strcmp(key, "fleet_timeout"))
		return op_settings_duration(name, v, &n, err, errlen);
	if (!strncmp(key, "fleet_", 6))
		return op_fleet_setting_check(key, name, v, err, errlen);
	if (!strcmp(key, "keep_binaries") && (!strcmp(v, "yes") || !strcmp(v, "no")))
		return 0;
	if ((!strcmp(key, "session_dir") && config_paths(v, "", 0) == 0 && *v) ||
	    (!strcmp(key, "vmlinux") && config_paths(v, "none", 0) == 0) ||
	    (!strcmp(key, "image") && config_paths(v, "all", 1) == 0))
		return 0;
	if (!strcmp(key, "keep_binaries") || !strcmp(key, "session_dir") ||
	    !strcmp(key, "vmlinux") || !strcmp(key, "image")) {
		snprintf(err, errlen, "%s: '%s' is not %s", name, v,
			 !strcmp(key, "keep_binaries") ? "yes or no" :
			 !strcmp(key, "vmlinux") ? "'none' or an absolute path" :
			 !strcmp(key, "image") ? "'all' or absolute paths" :
			 "an absolute path");
		return -1;
	}
	snprintf(err, errlen, "unknown setting '%s'", key);
	return -1;
}

/* op_settings_check of a key allowed in the file of in (the list of its
 * keys in the error when not). */
static int check_in(unsigned in, char const *key, char const *v, char *err,
		    size_t errlen)
{
	size_t i, len;

	for (i = 0; i < OP_ARRAY_SIZE(setting_keys); i++)
		if (!strcmp(key, setting_keys[i].key) && (setting_keys[i].in & in))
			return op_settings_check(key, NULL, v, err, errlen);
	len = (size_t)snprintf(err, errlen, "unknown key '%s' (keys:", key);
	for (i = 0; i < OP_ARRAY_SIZE(setting_keys); i++)
		if ((setting_keys[i].in & in) && len < errlen)
			len += (size_t)snprintf(err + len, errlen - len, "%s %s",
						len && err[len - 1] != ':' ? "," : "",
						setting_keys[i].key);
	if (len < errlen)
		snprintf(err + len, errlen - len, ")");
	return -1;
}

static int config_check(char const *key, char const *v, char *err, size_t errlen)
{
	return check_in(IN_CONFIG, key, v, err, errlen);
}

static int daemonrc_check(char const *key, char const *v, char *err, size_t errlen)
{
	return check_in(IN_DAEMONRC, key, v, err, errlen);
}

int op_settings_daemonrc_read(struct op_kv *kv, char const *session_dir)
{
	char *path = op_session_path(session_dir, OP_DAEMONRC_FILE);
	int ret = op_kv_read_checked(kv, path, daemonrc_check);

	free(path);
	return ret;
}

int op_settings_config_read(struct op_kv *kv)
{
	return op_kv_read_checked(kv, op_settings_config_path(), config_check);
}
