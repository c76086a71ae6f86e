/*
 * Listing and matching sample files (see pp_files.h). The filters run as
 * stages in a fixed order, each counting what it keeps, so that an empty
 * result can name the stage that emptied it and what was there instead.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "op_config.h"
#include "op_message.h"
#include "op_session.h"
#include "op_util.h"
#include "op_walk.h"
#include "pp_archive.h"
#include "pp_files.h"
#include "pp_memtree.h"
#include "pp_timerange.h"
#include "pp_notes.h"

/* Growable array of candidates while listing. */
struct candidates {
	struct pp_sfile *v;
	size_t n, alloc;
	size_t nr_unparsable;
};

static bool is_dir(char const *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static char *path_join(char const *a, char const *b)
{
	return op_xasprintf("%s/%s", a, b);
}

char *pp_files_session_base(struct pp_spec const *spec,
			    char const *session_dir)
{
	if (!spec->given[PP_TAG_ARCHIVE])
		return op_xstrdup(session_dir);
	return pp_archive_session_base(spec->v[PP_TAG_ARCHIVE].v[0],
				       session_dir);
}

static void add_session(struct pp_filelist *l, char const *name,
			char const *dir)
{
	for (size_t i = 0; i < l->nr_sessions; i++)
		if (!strcmp(l->sessions[i].dir, dir))
			return;
	l->sessions = op_xrealloc(l->sessions,
				  (l->nr_sessions + 1) * sizeof(*l->sessions));
	l->sessions[l->nr_sessions].name = op_xstrdup(name);
	l->sessions[l->nr_sessions].dir = op_xstrdup(dir);
	l->nr_sessions++;
}

/* Names of the session directories under samples/, sorted. */
static void list_sessions(char const *samples, struct pp_strlist *names)
{
	DIR *d = opendir(samples);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *p;

		if (e->d_name[0] == '.')
			continue;
		p = path_join(samples, e->d_name);
		if (is_dir(p))
			pp_strlist_add(names, e->d_name);
		free(p);
	}
	closedir(d);
	pp_strlist_sort(names);
}

static int missing_session(char const *what, char const *samples,
			   struct pp_strlist const *present,
			   char *err, size_t errlen)
{
	char *list = pp_strlist_join(present, 10);

	snprintf(err, errlen, "session '%s' not found in %s (sessions "
		 "present: %s); use --session-dir or session:NAME", what,
		 samples, present->n ? list : "none");
	free(list);
	return -1;
}

/* The rotated sessions of a time range (pp_timerange.h), oldest first. */
static int resolve_range(struct pp_spec const *spec, char const *what,
			 struct pp_timerange const *r, char const *samples,
			 struct pp_strlist const *present,
			 struct pp_filelist *out, char *err, size_t errlen)
{
	struct pp_strlist const *ex = &spec->v[PP_TAG_SESSION_EXCLUDE];
	struct pp_strlist rotated = { 0 };
	size_t before = out->nr_sessions;
	char *list;

	for (size_t i = 0; i < present->n; i++) {
		char *dir;

		if (pp_timerange_match(r, present->v[i]) &&
		    !pp_strlist_match(ex, present->v[i])) {
			dir = path_join(samples, present->v[i]);
			add_session(out, present->v[i], dir);
			free(dir);
		}
		if (pp_timerange_match(&(struct pp_timerange){ 0 }, present->v[i]))
			pp_strlist_add(&rotated, present->v[i]);
	}
	if (out->nr_sessions > before) {
		pp_strlist_free(&rotated);
		return 0;
	}
	list = pp_strlist_join(&rotated, 10);
	snprintf(err, errlen, "no rotated session in %s in %s (%zu rotated sessions%s%s)",
		 what, samples, rotated.n, rotated.n ? ": " : "", list);
	free(list);
	pp_strlist_free(&rotated);
	return -1;
}

/* A session given by path, a time range, or names/globs under samples/. */
static int resolve_one(struct pp_spec const *spec, char const *item,
		       char const *samples, struct pp_strlist const *present,
		       struct pp_filelist *out, char *err, size_t errlen)
{
	struct pp_strlist const *ex = &spec->v[PP_TAG_SESSION_EXCLUDE];
	bool found = false;

	if (pp_timerange_is_range(item)) {
		struct pp_timerange r;
		char what[300];

		if (pp_timerange_parse(item, &r, err, errlen) < 0)
			return -1;
		snprintf(what, sizeof(what), "range %s", item);
		return resolve_range(spec, what, &r, samples, present, out,
				     err, errlen);
	}
	if (strchr(item, '/')) {
		if (!is_dir(item)) {
			snprintf(err, errlen, "session directory '%s' not "
				 "found", item);
			return -1;
		}
		add_session(out, item, item);
		return 0;
	}
	for (size_t i = 0; i < present->n; i++) {
		char *dir;

		if (fnmatch(item, present->v[i], 0))
			continue;
		found = true;
		if (pp_strlist_match(ex, present->v[i]))
			continue;
		dir = path_join(samples, present->v[i]);
		add_session(out, present->v[i], dir);
		free(dir);
	}
	if (!found)
		return missing_session(item, samples, present, err, errlen);
	return 0;
}

/* --since/--until: the rotated sessions in that range. */
static int resolve_options(struct pp_spec const *spec,
			   struct pp_select_opts const *opts, char const *samples,
			   struct pp_strlist const *present,
			   struct pp_filelist *out, char *err, size_t errlen)
{
	struct pp_timerange r;
	char what[300];

	if (spec->given[PP_TAG_SESSION]) {
		snprintf(err, errlen, "--since/--until choose the sessions: give them or session:, not both");
		return -1;
	}
	if (pp_timerange_options(opts->since, opts->until, time(NULL), &r, err,
				 errlen) < 0)
		return -1;
	snprintf(what, sizeof(what), "--since=%s --until=%s",
		 opts->since ? opts->since : "(open)",
		 opts->until ? opts->until : "(open)");
	return resolve_range(spec, what, &r, samples, present, out, err, errlen);
}

static int resolve_sessions(struct pp_spec const *spec,
			    struct pp_select_opts const *opts, char const *base,
			    struct pp_filelist *out, char *err, size_t errlen)
{
	static char const *const current[] = { OP_CURRENT_SESSION };
	struct pp_strlist present = { 0 };
	struct pp_strlist const *want = &spec->v[PP_TAG_SESSION];
	char *samples = path_join(base, OP_SAMPLES_DIR);
	struct pp_strlist dflt = { .n = 1, .v = (char **)current };
	struct pp_strlist none = { 0 };
	int rc = 0;

	if (!spec->given[PP_TAG_SESSION])
		want = &dflt;
	list_sessions(samples, &present);
	if (opts->since || opts->until) {
		rc = resolve_options(spec, opts, samples, &present, out, err, errlen);
		want = &none;
	}
	for (size_t i = 0; i < want->n && !rc; i++)
		rc = resolve_one(spec, want->v[i], samples, &present, out,
				 err, errlen);
	if (!rc && !out->nr_sessions) {
		char *ex = pp_strlist_join(&spec->v[PP_TAG_SESSION_EXCLUDE], 5);
		snprintf(err, errlen, "no session left after "
			 "session-exclude:%s", ex);
		free(ex);
		rc = -1;
	}
	pp_strlist_free(&present);
	free(samples);
	return rc;
}

/* OProfile 1.x's name of a kallsyms-resolved kernel proper
 * ("/proc/kallsyms", as our daemon writes too) read as the older
 * "vmlinux": one image, shown and looked up as before (op_config.h).
 * "no-vmlinux" (no symbols could be had) stays itself, as in OProfile. */
void pp_files_kernel_alias(char **name, int *is_kernel)
{
	if (*name && !strcmp(*name, OP_NO_VMLINUX_IMAGE)) {
		*is_kernel = 1;
		return;
	}
	if (*name && !strcmp(*name, OP_KALLSYMS_IMAGE)) {
		*name = (char *)OP_VMLINUX_IMAGE;  /* storage keeps the original */
		*is_kernel = 1;
	}
}

static void add_candidate(struct candidates *c, char const *path,
			  char const *rel, size_t session,
			  struct pp_strlist *notes)
{
	struct op_parsed_name name;
	char perr[256];

	if (op_parse_filename(rel, &name, perr, sizeof(perr))) {
		pp_note(notes, "skipping '%s': not a sample file name: %s",
			path, perr);
		c->nr_unparsable++;
		return;
	}
	pp_files_kernel_alias(&name.app_name, &name.app_is_kernel);
	pp_files_kernel_alias(&name.image_name, &name.image_is_kernel);
	if (name.is_callgraph)
		pp_files_kernel_alias(&name.cg_image_name, &name.cg_is_kernel);
	OP_ALLOC_GROW(c->v, c->n + 1, c->alloc);
	c->v[c->n].path = op_xstrdup(path);
	c->v[c->n].session = session;
	c->v[c->n].name = name;
	c->v[c->n].cls = -1;
	c->n++;
}

/* Session metadata, not sample files: a top-level entry that is no sample
 * tree (op_session_is_sample_tree: stats/, session/, session.conf, ...). */
static bool is_metadata(char const *rel)
{
	return !strchr(rel, '/') && !op_session_is_sample_tree(rel);
}

struct session_walk {
	size_t session;
	struct candidates *c;
	struct pp_strlist *notes;
};

static int walk_entry(void *arg, struct op_walk_entry const *e)
{
	struct session_walk *w = arg;

	if (!e->st) {
		/* e.g. ENAMETOOLONG: longer than PATH_MAX */
		pp_note(w->notes, "skipping '%.200s%s' (%zu bytes): %s",
			e->path, strlen(e->path) > 200 ? "..." : "",
			strlen(e->path), strerror(e->errnum));
		return 0;
	}
	if (is_metadata(e->rel))
		return OP_WALK_PRUNE;
	if (S_ISREG(e->st->st_mode))
		add_candidate(w->c, e->path, e->rel, w->session, w->notes);
	else if (!S_ISDIR(e->st->st_mode))
		/* a FIFO, device or link planted for a sample file: its
		 * samples are missing from the report, which must say so */
		pp_note(w->notes, "skipping '%s': not a regular file",
			e->path);
	return 0;
}

static int walk_dir_err(void *arg, char const *path, int errnum)
{
	struct session_walk *w = arg;

	pp_note(w->notes, "cannot read directory '%s': %s", path,
		strerror(errnum));
	return 0;
}

static void walk(char const *dir, size_t session, struct candidates *c,
		 struct pp_strlist *notes)
{
	struct session_walk w = { session, c, notes };

	op_walk(dir, OP_WALK_RECURSE, walk_entry, walk_dir_err, &w);
}

/* A session's files: on disk, or the tree in memory standing for it. */
static void list_session(char const *dir, size_t session,
			 struct candidates *c, struct pp_strlist *notes)
{
	struct pp_memtree const *t = pp_memtree_at(dir);
	char const *rel;

	if (!t) {
		walk(dir, session, c, notes);
		return;
	}
	for (size_t i = 0; (rel = pp_memtree_rel(t, i)); i++) {
		char *p = path_join(dir, rel);

		add_candidate(c, p, rel, session, notes);
		free(p);
	}
}

static int cmp_sfile(void const *a, void const *b)
{
	return strcmp(((struct pp_sfile const *)a)->path,
		      ((struct pp_sfile const *)b)->path);
}

bool pp_sfile_is_dependent(struct op_parsed_name const *n)
{
	return n->image_is_anon || n->app_is_kernel != n->image_is_kernel ||
	       strcmp(n->app_name, n->image_name);
}

int pp_sfile_app_rank(struct op_parsed_name const *n)
{
	char const *base = strrchr(n->app_name, '/'), *so;

	base = base ? base + 1 : n->app_name;
	so = strstr(base, ".so");
	if (n->app_is_kernel)
		return 0;
	/* an anonymous region's file is always under its process's
	 * program (the daemon's A), whatever the separation */
	if (n->image_is_anon)
		return 3;
	if (*base == '[')
		return 1;
	if (so && (so[3] == '\0' || so[3] == '.'))	/* libc.so.6, ld.so */
		return 2;
	return 3;
}

bool pp_event_is_clock(char const *event)
{
	return !strcmp(event, "CPU_CLOCK") || !strcmp(event, "TASK_CLOCK");
}

static bool match_one(struct pp_strlist const *pats, char const *name)
{
	char const *base = strrchr(name, '/');

	base = base ? base + 1 : name;
	for (size_t i = 0; i < pats->n; i++) {
		/* a name taken as it is first: "[vdso]" is a glob that
		 * does not match itself */
		if (!strcmp(pats->v[i], name) || !strcmp(pats->v[i], base))
			return true;
		if (!fnmatch(pats->v[i], name, 0))
			return true;
		if (!strchr(pats->v[i], '/') && !fnmatch(pats->v[i], base, 0))
			return true;
	}
	return false;
}

bool pp_image_match(struct pp_strlist const *pats, char const *name)
{
	size_t plen;
	bool hit;
	char *path;

	if (match_one(pats, name))
		return true;
	/* a later build of a path (PATH/{build:ID}) is that path's too */
	plen = op_build_tag_split(name, NULL, NULL);
	if (!plen)
		return false;
	path = op_xasprintf("%.*s", (int)plen, name);
	hit = match_one(pats, path);
	free(path);
	return hit;
}

/* The filter stages, in order. PP_NR_TAGS stands for -x. */
static enum pp_tag const stages[] = {
	PP_TAG_IMAGE, PP_TAG_IMAGE_EXCLUDE, PP_TAG_LIB_IMAGE,
	PP_TAG_LIB_IMAGE_EXCLUDE, PP_TAG_BARE, PP_NR_TAGS, PP_TAG_EVENT,
	PP_TAG_COUNT, PP_TAG_UNIT_MASK, PP_TAG_CPU, PP_TAG_TGID, PP_TAG_TID,
};

static bool match_id(struct pp_spec const *spec, enum pp_tag tag, int v)
{
	return v >= 0 && pp_spec_match_number(spec, tag, v);
}

static bool keep(struct pp_spec const *spec, enum pp_tag tag,
		 struct op_parsed_name const *n)
{
	struct pp_strlist const *l = &spec->v[tag];

	switch (tag) {
	case PP_TAG_IMAGE:
		return pp_image_match(l, n->app_name);
	case PP_TAG_IMAGE_EXCLUDE:
		return !pp_image_match(l, n->app_name);
	case PP_TAG_LIB_IMAGE:
		return pp_image_match(l, n->image_name);
	case PP_TAG_LIB_IMAGE_EXCLUDE:
		return !pp_image_match(l, n->image_name);
	case PP_TAG_BARE:
		return pp_image_match(l, n->app_name) ||
		       pp_image_match(l, n->image_name);
	case PP_TAG_EVENT:
		return pp_strlist_match(l, n->event_name);
	case PP_TAG_COUNT:
		return pp_spec_match_number(spec, tag, n->count);
	case PP_TAG_UNIT_MASK:
		return pp_spec_match_number(spec, tag, n->unit_mask);
	case PP_TAG_CPU:
		return match_id(spec, tag, n->cpu);
	case PP_TAG_TGID:
		return match_id(spec, tag, n->tgid);
	case PP_TAG_TID:
		return match_id(spec, tag, n->tid);
	default:
		return true;
	}
}

static void add_unique(struct pp_strlist *l, char const *s)
{
	if (!pp_strlist_has(l, s))
		pp_strlist_add(l, s);
}

/* What a stage looked at, for "... present: " lists. */
static void field_text(enum pp_tag tag, struct op_parsed_name const *n,
		       struct pp_strlist *out)
{
	char buf[64];
	int v;

	switch (tag) {
	case PP_TAG_IMAGE: case PP_TAG_IMAGE_EXCLUDE:
		add_unique(out, n->app_name);
		return;
	case PP_TAG_LIB_IMAGE: case PP_TAG_LIB_IMAGE_EXCLUDE:
		add_unique(out, n->image_name);
		return;
	case PP_TAG_EVENT:
		add_unique(out, n->event_name);
		return;
	case PP_TAG_COUNT: v = n->count; break;
	case PP_TAG_UNIT_MASK: v = n->unit_mask; break;
	case PP_TAG_CPU: v = n->cpu; break;
	case PP_TAG_TGID: v = n->tgid; break;
	case PP_TAG_TID: v = n->tid; break;
	default:
		add_unique(out, n->app_name);
		add_unique(out, n->image_name);
		return;
	}
	if (v >= 0)
		snprintf(buf, sizeof(buf), "%d", v);
	else
		snprintf(buf, sizeof(buf), "all (not separated)");
	add_unique(out, buf);
}

static char const *field_plural(enum pp_tag tag)
{
	switch (tag) {
	case PP_TAG_EVENT: return "events";
	case PP_TAG_COUNT: return "counts";
	case PP_TAG_UNIT_MASK: return "unit masks";
	case PP_TAG_CPU: return "cpus";
	case PP_TAG_TGID: return "tgids";
	case PP_TAG_TID: return "tids";
	default: return "images";
	}
}

static char *sessions_text(struct pp_filelist const *l)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		op_die("out of memory");
	fprintf(f, "session%s ", l->nr_sessions > 1 ? "s" : "");
	for (size_t i = 0; i < l->nr_sessions; i++)
		fprintf(f, "%s'%s'", i ? ", " : "", l->sessions[i].name);
	fclose(f);
	return out;
}

static void empty_message(struct pp_spec const *spec, enum pp_tag tag,
			  struct candidates const *c, size_t total,
			  struct pp_filelist const *l, char *err, size_t errlen)
{
	struct pp_strlist present = { 0 };
	char *sess = sessions_text(l);
	char *what = tag == PP_NR_TAGS ? op_xstrdup("--exclude-dependent") :
		     pp_strlist_join(&spec->v[tag], 5);
	char *vals;

	for (size_t i = 0; i < c->n; i++)
		field_text(tag, &c->v[i].name, &present);
	pp_strlist_sort(&present);
	vals = pp_strlist_join(&present, 8);
	snprintf(err, errlen, "no sample files matched: %zu files in %s, "
		 "0 left after %s%s%s (%s present: %s)", total, sess,
		 tag == PP_NR_TAGS ? "" : pp_tag_name(tag),
		 tag == PP_NR_TAGS || tag == PP_TAG_BARE ? "" : ":", what,
		 field_plural(tag), vals);
	free(vals);
	free(what);
	free(sess);
	pp_strlist_free(&present);
}

static void drop(struct pp_sfile *f)
{
	free(f->path);
	op_parsed_name_free(&f->name);
}

static bool stage_keeps(struct pp_spec const *spec, enum pp_tag tag,
			struct pp_select_opts const *opts,
			struct op_parsed_name const *n)
{
	if (tag == PP_NR_TAGS)
		return !opts->exclude_dependent || !pp_sfile_is_dependent(n);
	return !spec->given[tag] || keep(spec, tag, n);
}

/*
 * Keep the candidates a stage keeps and return how many. When it would
 * keep none, c is left as it was so that the caller can describe it.
 */
static size_t run_stage(struct pp_spec const *spec, enum pp_tag tag,
			struct pp_select_opts const *opts, struct candidates *c)
{
	size_t kept = 0;

	for (size_t i = 0; i < c->n; i++)
		kept += stage_keeps(spec, tag, opts, &c->v[i].name);
	if (!kept)
		return 0;
	kept = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (stage_keeps(spec, tag, opts, &c->v[i].name))
			c->v[kept++] = c->v[i];
		else
			drop(&c->v[i]);
	}
	c->n = kept;
	return kept;
}

/*
 * Callgraph files are not part of the flat selection: dropped (counted),
 * or with opts->callgraph moved to cg.
 */
static void split_callgraph(struct candidates *c, struct candidates *cg,
			    struct pp_filelist *l, bool keep)
{
	size_t kept = 0;

	for (size_t i = 0; i < c->n; i++) {
		if (!c->v[i].name.is_callgraph) {
			c->v[kept++] = c->v[i];
			continue;
		}
		l->nr_callgraph++;
		if (!keep) {
			drop(&c->v[i]);
			continue;
		}
		OP_ALLOC_GROW(cg->v, cg->n + 1, cg->alloc);
		cg->v[cg->n++] = c->v[i];
	}
	c->n = kept;
}

/* The stages on callgraph files: whatever none of them keeps is dropped. */
static void filter_callgraph(struct pp_spec const *spec,
			     struct pp_select_opts const *opts,
			     struct candidates *cg)
{
	size_t kept = 0;

	for (size_t i = 0; i < cg->n; i++) {
		bool keep = true;

		for (size_t s = 0; keep && s < sizeof(stages) / sizeof(stages[0]); s++)
			keep = stage_keeps(spec, stages[s], opts, &cg->v[i].name);
		if (keep)
			cg->v[kept++] = cg->v[i];
		else
			drop(&cg->v[i]);
	}
	cg->n = kept;
}

static int filter(struct pp_spec const *spec,
		  struct pp_select_opts const *opts, struct candidates *c,
		  struct pp_filelist *out, char *err, size_t errlen)
{
	size_t total = c->n;

	if (!total) {
		char *sess = sessions_text(out);
		char skipped[64] = "";

		if (c->nr_unparsable)
			snprintf(skipped, sizeof(skipped), " (%zu unparsable "
				 "names skipped)", c->nr_unparsable);
		snprintf(err, errlen, "no sample files in %s%s: was the "
			 "profile dumped (opcontrol --dump)?", sess, skipped);
		free(sess);
		return -1;
	}
	for (size_t s = 0; s < sizeof(stages) / sizeof(stages[0]); s++) {
		if (run_stage(spec, stages[s], opts, c))
			continue;
		empty_message(spec, stages[s], c, total, out, err, errlen);
		for (size_t i = 0; i < c->n; i++)
			drop(&c->v[i]);
		c->n = 0;
		return -1;
	}
	return 0;
}

int pp_files_select(struct pp_spec const *spec,
		    struct pp_select_opts const *opts,
		    struct pp_filelist *out, struct pp_strlist *notes,
		    char *err, size_t errlen)
{
	struct candidates c = { 0 }, cg = { 0 };
	char *base = pp_files_session_base(spec, opts->session_dir);
	int rc;

	memset(out, 0, sizeof(*out));
	rc = resolve_sessions(spec, opts, base, out, err, errlen);
	free(base);
	if (rc) {
		pp_files_free(out);
		return -1;
	}
	for (size_t s = 0; s < out->nr_sessions; s++)
		list_session(out->sessions[s].dir, s, &c, notes);
	split_callgraph(&c, &cg, out, opts->callgraph);
	rc = filter(spec, opts, &c, out, err, errlen);
	if (rc) {
		free(c.v);
		for (size_t i = 0; i < cg.n; i++)
			drop(&cg.v[i]);
		free(cg.v);
		pp_files_free(out);
		return -1;
	}
	filter_callgraph(spec, opts, &cg);
	if (c.n > 1)
		qsort(c.v, c.n, sizeof(*c.v), cmp_sfile);
	if (cg.n > 1)
		qsort(cg.v, cg.n, sizeof(*cg.v), cmp_sfile);
	out->v = c.v;
	out->n = c.n;
	out->cg = cg.v;
	out->nr_cg = cg.n;
	return 0;
}

void pp_files_free(struct pp_filelist *l)
{
	for (size_t i = 0; i < l->n; i++)
		drop(&l->v[i]);
	free(l->v);
	for (size_t i = 0; i < l->nr_cg; i++)
		drop(&l->cg[i]);
	free(l->cg);
	for (size_t i = 0; i < l->nr_sessions; i++) {
		free(l->sessions[i].name);
		free(l->sessions[i].dir);
	}
	free(l->sessions);
	memset(l, 0, sizeof(*l));
}
