/* Counting a tally's samples for the end-to-end tests; see sample_count.h. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sample_count.h"

static bool matches(struct tally const *t, struct tally_sample const *s,
		    struct sample_filter const *f)
{
	if (f->tgid && s->tgid != f->tgid)
		return false;
	if (f->kernel)
		return s->in_kernel;
	if (!f->path)
		return true;
	if (f->by_app)
		return !strcmp(tally_cookie_name(t, s->app), f->path);
	return !s->in_kernel && !strcmp(tally_cookie_name(t, s->cookie), f->path);
}

size_t count_samples(struct tally const *t, struct sample_filter const *f,
		     unsigned long start, unsigned long end, size_t *in_range)
{
	size_t n = 0;

	*in_range = 0;
	for (size_t i = 0; i < t->nr; i++) {
		struct tally_sample const *s = &t->s[i];

		if (!matches(t, s, f))
			continue;
		n++;
		if (s->pc >= start && s->pc < end)
			(*in_range)++;
	}
	return n;
}

char const *workload_path(char const *name)
{
	static char buf[4][PATH_MAX + 32];
	static int next;
	char exe[PATH_MAX], *slash;
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *out = buf[next++ % 4];

	if (len <= 0)
		return name;
	exe[len] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(out, sizeof(buf[0]), "%.*s/workloads/%s",
		 PATH_MAX - 64, exe, name);
	return out;
}
