/*
 * sfcheck: structural check of every sample file under a session
 * directory (samples/current or a saved one), for the control tests.
 *
 *   sfcheck DIR          check each file: header (magic, version) and
 *                        odb_check(); prints "N sample files ok"; exit 1
 *                        on any bad file, naming it
 *   sfcheck --dump DIR   print every file's name, header (cpu_speed
 *                        left out: it is read from /proc/cpuinfo at each
 *                        start) and keys with their counts, sorted, so two
 *                        sessions can be compared with diff
 *   sfcheck --total DIR  print the sum of every sample count
 *
 * Sample files are the regular files below the {root}/, {kern}/ ... trees;
 * session.conf, session/ and stats/ are not.
 */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "odb.h"
#include "op_message.h"
#include "op_sample_file.h"

enum mode { CHECK, DUMP, TOTAL };

static enum mode mode;
static size_t prefix_len;
static size_t nr_files, nr_bad;
static uint64_t total;
static char **paths;
static size_t nr_paths;

/* One node while dumping, to sort by key. */
struct kv {
	odb_key_t key;
	odb_value_t value;
};

struct kv_list {
	struct kv *v;
	size_t n, cap;
};

static int collect(odb_key_t key, odb_value_t value, void *arg)
{
	struct kv_list *l = arg;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->v = op_xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = (struct kv){ key, value };
	total += value;
	return 0;
}

static int cmp_kv(void const *a, void const *b)
{
	odb_key_t x = ((struct kv const *)a)->key, y = ((struct kv const *)b)->key;

	return x < y ? -1 : x > y;
}

static void dump(struct odb *db, char const *name)
{
	struct opd_header const *h = odb_get_header(db);
	struct kv_list l = { 0 };
	size_t i;

	printf("file %s\n", name);
	printf("  cpu_type %u event %u um %u count %u kernel %u mtime %" PRIu64
	       " cg_to_kernel %u anon_start %#" PRIx64 " cg_to_anon_start %#" PRIx64 "\n",
	       h->cpu_type, h->ctr_event, h->ctr_um, h->ctr_count, h->is_kernel,
	       h->mtime, h->cg_to_is_kernel, h->anon_start, h->cg_to_anon_start);
	odb_for_each(db, collect, &l);
	qsort(l.v, l.n, sizeof(*l.v), cmp_kv);
	for (i = 0; i < l.n; i++)
		printf("  %#" PRIx64 " %" PRIu32 "\n", l.v[i].key, l.v[i].value);
	free(l.v);
}

static void check_file(char const *path)
{
	char const *name = path + prefix_len;
	struct opd_header h;
	struct kv_list l = { 0 };
	struct odb db;
	char err[512];
	int rc;

	nr_files++;
	if (op_header_read(path, &h, err, sizeof(err)) < 0) {
		fprintf(stderr, "sfcheck: bad sample file: %s\n", err);
		nr_bad++;
		return;
	}
	rc = odb_open(&db, path, ODB_RDONLY, sizeof(struct opd_header));
	if (rc < 0) {
		fprintf(stderr, "sfcheck: bad sample file: %s\n", db.err);
		nr_bad++;
		return;
	}
	if (odb_check(&db) < 0) {
		fprintf(stderr, "sfcheck: bad sample file: %s\n", db.err);
		nr_bad++;
	} else if (mode == DUMP) {
		dump(&db, name);
	} else if (mode == TOTAL) {
		odb_for_each(&db, collect, &l);
		free(l.v);
	}
	odb_close(&db);
}

static int visit(char const *path, struct stat const *st, int flag, struct FTW *ftw)
{
	char const *base = path + ftw->base;

	(void)st;
	if (ftw->level == 1 && flag == FTW_D && base[0] != '{')
		return FTW_SKIP_SUBTREE;
	if (flag == FTW_F && ftw->level > 1) {
		paths = op_xrealloc(paths, (nr_paths + 1) * sizeof(*paths));
		paths[nr_paths++] = op_xstrdup(path);
	}
	return FTW_CONTINUE;
}

static int cmp_str(void const *a, void const *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	char const *dir;
	size_t i;

	op_set_progname("sfcheck");
	if (argc == 3 && !strcmp(argv[1], "--dump"))
		mode = DUMP;
	else if (argc == 3 && !strcmp(argv[1], "--total"))
		mode = TOTAL;
	else if (argc != 2) {
		fprintf(stderr, "usage: sfcheck [--dump|--total] SESSION_SAMPLES_DIR\n");
		return 2;
	}
	dir = argv[argc - 1];
	prefix_len = strlen(dir) + 1;
	if (nftw(dir, visit, 32, FTW_PHYS | FTW_ACTIONRETVAL) < 0) {
		fprintf(stderr, "sfcheck: cannot walk '%s': %s\n", dir, strerror(errno));
		return 1;
	}
	qsort(paths, nr_paths, sizeof(*paths), cmp_str);
	for (i = 0; i < nr_paths; i++) {
		check_file(paths[i]);
		free(paths[i]);
	}
	free(paths);
	if (mode == TOTAL)
		printf("%" PRIu64 "\n", total);
	else if (mode == CHECK)
		printf("%zu sample files ok, %zu bad\n", nr_files - nr_bad, nr_bad);
	return nr_bad ? 1 : 0;
}
