/*
 * Settings checks shared by oprofiled and opcontrol (see opd_settings.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op_events.h"
#include "op_message.h"
#include "opd_session.h"
#include "opd_settings.h"

static struct {
	char const *name;
	unsigned bits;
} const separate_words[] = {
	{ "none", 0 },
	{ "lib", OPD_SEP_LIB },
	{ "library", OPD_SEP_LIB },
	{ "kernel", OPD_SEP_KERNEL | OPD_SEP_LIB },
	{ "thread", OPD_SEP_THREAD },
	{ "cpu", OPD_SEP_CPU },
	{ "all", OPD_SEP_LIB | OPD_SEP_KERNEL | OPD_SEP_THREAD | OPD_SEP_CPU },
};

#define NR_SEPARATE_WORDS (sizeof(separate_words) / sizeof(separate_words[0]))

int opd_parse_separate(char const *text, unsigned *bits,
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

void opd_separate_text(unsigned bits, char *buf, size_t size)
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

int opd_parse_callgraph(char const *text, unsigned *depth,
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

enum op_cpu opd_settings_cpu(char const *name, char *err, size_t errlen)
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
		if (*nr == OPD_MAX_EVENTS) {
			snprintf(err, errlen, "too many events in '%s': at most %d",
				 specs, OPD_MAX_EVENTS);
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

int opd_settings_events(char const *specs, enum op_cpu cpu, unsigned callgraph,
			struct opd_config *cfg, char *text, size_t textlen,
			char *err, size_t errlen)
{
	struct op_event_spec spec[OPD_MAX_EVENTS];
	int counter[OPD_MAX_EVENTS];
	struct op_event_set set;
	char why[512];
	size_t nr, i, len = 0;
	int ret = -1;

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
			    sizeof(why)) < 0) {
		snprintf(err, errlen, "invalid events '%s': %s", specs, why);
		goto out;
	}
	text[0] = '\0';
	for (i = 0; i < nr; i++) {
		struct op_event const *ev = op_event_find(&set, spec[i].name);

		len += (size_t)snprintf(text + len, len < textlen ? textlen - len : 0,
					"%s%s:%u:%u:%d:%d", i ? "," : "",
					spec[i].name, spec[i].count,
					spec[i].unit_mask, spec[i].kernel,
					spec[i].user);
		if (!cfg || !ev)
			continue;
		memset(&cfg->events[i], 0, sizeof(cfg->events[i]));
		memcpy(cfg->events[i].name, spec[i].name,
		       strnlen(spec[i].name, sizeof(cfg->events[i].name) - 1));
		cfg->events[i].code = ev->code;
		cfg->events[i].unit_mask = spec[i].unit_mask;
		cfg->events[i].count = spec[i].count;
		cfg->events[i].kernel = spec[i].kernel;
		cfg->events[i].user = spec[i].user;
	}
	if (len >= textlen) {
		snprintf(err, errlen, "event list '%s' is too long", specs);
		goto out;
	}
	if (cfg)
		cfg->nr_events = nr;
	ret = 0;
out:
	op_events_free(&set);
	return ret;
}

/* Whether capability bit cap is in this process's effective set. */
static int has_cap(int cap)
{
	char buf[4096], *p;
	unsigned long long eff;

	if (opd_read_file("/proc/self/status", buf, sizeof(buf)) < 0)
		return 0;
	p = strstr(buf, "\nCapEff:");
	if (!p || sscanf(p + 8, "%llx", &eff) != 1)
		return 0;
	return cap < 64 && (eff >> cap) & 1;
}

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38

int opd_check_privilege(void)
{
	char buf[32];
	int paranoid = 2;

	if (geteuid() == 0 || has_cap(CAP_PERFMON_BIT) || has_cap(CAP_SYS_ADMIN_BIT))
		return 0;
	if (opd_read_file("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf)) > 0)
		paranoid = atoi(buf);
	if (paranoid <= 0)
		return 0;
	op_error("%s must run as root: system-wide sampling needs CAP_PERFMON or CAP_SYS_ADMIN",
		 op_progname());
	fprintf(stderr, "hint: kernel.perf_event_paranoid is %d, too high for a non-root user; "
		"system-wide sampling without root needs it at 0 or less "
		"(sysctl kernel.perf_event_paranoid=0)\n", paranoid);
	return -1;
}
