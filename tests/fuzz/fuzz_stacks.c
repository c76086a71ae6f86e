/*
 * libFuzzer target for the stack table (libstacks/, doc/formats.md
 * section 6) and the reports made from it (libpp/pp_stacks.c and the
 * --stacks, --folded, --pprof and --flame outputs): the input is the
 * bytes of samples/current/stacks/table of a session in a private
 * directory (under /dev/shm when there is one), created once.
 *
 * Random bytes rarely carry a record checksum that matches, which ends
 * the table there (a torn append), so an input whose checksums do not
 * all match is read a second time "sealed": every record's checksum
 * recomputed, so the fuzzer reaches the record checks behind them.
 *
 * A table the reader accepts must be sane (every stack's frames and
 * application name images of the table, ids in sequence, at most
 * OP_STACKS_MAX_FRAMES frames, a build-id in lower-case hex: reports
 * put it in paths). It is then reported as opreport does:
 * a count file gives each stack (up to 256) a count, the selected sample
 * files are one per image the table names (as application and image),
 * the images are located below an empty root (no binary is read: the
 * frames are "[image]"), and the outputs are written. The folded text
 * must sum to the total, and the flame page may not hold a "</script"
 * the page itself does not.
 *
 * FUZZ-SOURCES: libpp/pp_*.c $B/libpp/pprof_profile.pb-c.c
 * FUZZ-SOURCES: $B/libpp/pp_flame_html.c
 * FUZZ-LIBS: -lbfd -lopcodes -liberty -ldebuginfod -lprotobuf-c -lpopt -lz
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* memfd_create, open_memstream */
#endif
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "odb.h"
#include "op_file.h"
#include "op_hashmap.h"
#include "op_message.h"
#include "op_mangle.h"
#include "op_sample_file.h"
#include "op_stacks.h"
#include "op_util.h"
#include "pp_files.h"
#include "pp_flame.h"
#include "pp_locate.h"
#include "pp_pprof.h"
#include "pp_stacks.h"
#include "pp_stacks_output.h"
#include "fuzz_scratch.h"

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size);

#define EVENT "CPU_CLOCK.100000.0"
#define MAX_COUNTED 256
#define MAX_FILES 16

static char top[128], samples[192], table[256], counts[256], root[192];
static struct pp_locate locate;
static int table_fd = -1, flame_fd = -1;
static FILE *devnull;
static char flame_path[64];
extern char const pp_flame_html[];
static size_t page_scripts;	/* "</script" in the page itself */

static void make_counts(void);

static void quiet(void *ctx, enum op_message_kind kind, char const *text)
{
	(void)ctx;
	(void)kind;
	(void)text;
}

static size_t count_str(char const *s, size_t len, char const *what)
{
	size_t n = 0, wl = strlen(what);

	for (char const *p = s; (p = memmem(p, len - (size_t)(p - s), what,
					    wl)); p += wl)
		n++;
	return n;
}

/* The private directory goes at exit (a crash leaves it for a look). */
static void remove_top(void)
{
	fuzz_remove_tree(top);
}

static void setup(void)
{
	char err[256], sub[256];
	char const *base = access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm";

	snprintf(top, sizeof(top), "%s/fuzz-stacks-%ld", base, (long)getpid());
	atexit(remove_top);
	snprintf(samples, sizeof(samples), "%s/samples/current", top);
	snprintf(table, sizeof(table), "%s/stacks/%s", samples,
		 OP_STACKS_TABLE);
	snprintf(counts, sizeof(counts), "%s/stacks/%s", samples, EVENT);
	snprintf(root, sizeof(root), "%s/root", top);
	snprintf(sub, sizeof(sub), "%s/stacks", samples);
	if (op_mkdir_p(sub) || op_mkdir_p(root))
		abort();
	/* nothing of the machine's: no debug files, no debuginfod */
	snprintf(sub, sizeof(sub), "%s/debug", top);
	setenv("OPROFILE_DEBUG_DIRS", sub, 1);
	unsetenv("DEBUGINFOD_URLS");
	op_set_message_sink(quiet, NULL);
	if (pp_locate_init(&locate, root, NULL, err, sizeof(err)))
		abort();
	flame_fd = memfd_create("flame", MFD_CLOEXEC);
	if (flame_fd < 0)
		abort();
	snprintf(flame_path, sizeof(flame_path), "/proc/self/fd/%d", flame_fd);
	page_scripts = count_str(pp_flame_html, strlen(pp_flame_html),
				 "</script");
	table_fd = open(table, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	devnull = fopen("/dev/null", "w");
	if (table_fd < 0 || !devnull)
		abort();
	make_counts();
}

/* The table file, written through the fd kept open. */
static void put(uint8_t const *data, size_t size)
{
	if ((size && pwrite(table_fd, data, size, 0) != (ssize_t)size) ||
	    ftruncate(table_fd, (off_t)size))
		abort();
}

/* The records' checksums made to match; false when they all did. */
static bool seal(uint8_t *buf, size_t len)
{
	size_t off = 16;
	bool changed = false;

	while (len >= off && len - off >= 8) {
		uint32_t rlen, sum;

		memcpy(&rlen, buf + off, 4);
		if (rlen > len - off - 8)
			break;
		sum = op_hash_mem(buf + off + 8, rlen);
		if (memcmp(buf + off + 4, &sum, 4)) {
			memcpy(buf + off + 4, &sum, 4);
			changed = true;
		}
		off += 8 + (size_t)rlen;
	}
	return changed;
}

static bool hex_only(char const *s)
{
	size_t n = strspn(s, "0123456789abcdef");

	return n && !s[n] && n % 2 == 0;
}

/* What the reader accepted holds together. */
static void check_table(struct op_stacks const *st)
{
	size_t ni = op_stacks_nimages(st), ns = op_stacks_nstacks(st);

	for (uint32_t i = 0; i < ni; i++) {
		struct op_stack_image const *im = op_stacks_image(st, i);

		if (!im || !im->name || !im->name[0])
			abort();
		/* a build-id goes into paths (binaries/ID, .build-id/) */
		if (im->build_id && !hex_only(im->build_id))
			abort();
	}
	if (op_stacks_image(st, (uint32_t)ni))
		abort();
	for (size_t i = 0; i < ns; i++) {
		struct op_stack const *s = op_stacks_stack(st, i);

		if (!s || s->id != i + 1 || op_stacks_find(st, s->id) != s ||
		    s->app >= ni || s->nframes > OP_STACKS_MAX_FRAMES ||
		    (s->nframes && !s->frames))
			abort();
		for (uint32_t k = 0; k < s->nframes; k++)
			if (s->frames[k].image >= ni)
				abort();
	}
	if (op_stacks_find(st, 0) || op_stacks_find(st, ns + 1))
		abort();
}

/* Made once: top/counts/N holds counts (as the daemon's writer makes
 * them) for stacks 1 .. N; an input's table gets the one of its stacks
 * as a hard link, not a new file each time. */
static void make_counts(void)
{
	struct opd_header h;
	char path[300];

	op_header_init(&h);
	h.ctr_count = 100000;
	snprintf(path, sizeof(path), "%s/counts", top);
	if (op_mkdir_p(path))
		abort();
	for (size_t n = 1; n <= MAX_COUNTED; n++) {
		struct odb db;

		snprintf(path, sizeof(path), "%s/counts/%zu", top, n);
		if (odb_create(&db, path, &h, sizeof(h)))
			abort();
		for (size_t id = 1; id <= n; id++)
			if (odb_add(&db, id, 1 + (uint32_t)(id * 7 % 13)) < 0)
				abort();
		odb_close(&db);
	}
}

static void link_counts(size_t n)
{
	static size_t linked;
	char path[300];

	if (linked == n)
		return;
	if (linked && unlink(counts))
		abort();
	linked = n;
	if (!n)
		return;
	snprintf(path, sizeof(path), "%s/counts/%zu", top, n);
	if (link(path, counts))
		abort();
}

/* One selected sample file per image the table names (A == B). */
static void make_files(struct pp_filelist *fl, struct op_stacks const *st)
{
	size_t ni = op_stacks_nimages(st);

	memset(fl, 0, sizeof(*fl));
	fl->sessions = op_xcalloc(1, sizeof(*fl->sessions));
	fl->sessions[0].name = op_xstrdup("current");
	fl->sessions[0].dir = op_xstrdup(samples);
	fl->nr_sessions = 1;
	fl->v = op_xcalloc(MAX_FILES + 1, sizeof(*fl->v));
	for (uint32_t i = 0; i < ni && fl->n < MAX_FILES; i++) {
		char const *name = op_stacks_image(st, i)->name;
		char *rel = op_xasprintf("%s/{dep}/%s/" EVENT ".all.all.all",
					 name, name);
		struct pp_sfile *f = &fl->v[fl->n];
		char err[256];

		if (!op_parse_filename(rel, &f->name, err, sizeof(err))) {
			pp_files_kernel_alias(&f->name.app_name,
					      &f->name.app_is_kernel);
			pp_files_kernel_alias(&f->name.image_name,
					      &f->name.image_is_kernel);
			f->path = op_xasprintf("%s/%s", samples, rel);
			f->cls = -1;
			fl->n++;
		}
		free(rel);
	}
}

static void check_folded(struct pp_stacks const *st,
			 struct pp_spaths const *p)
{
	char *text = NULL;
	size_t len = 0;
	uint64_t sum = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		abort();
	pp_stacks_folded(f, st, p);
	fclose(f);
	for (char *l = text, *nl; *l; l = nl + 1) {
		char *sp;

		nl = strchr(l, '\n');
		if (!nl)
			abort();	/* every path ends its line */
		*nl = '\0';
		sp = strrchr(l, ' ');
		if (!sp)
			abort();
		sum += strtoull(sp + 1, NULL, 10);
	}
	free(text);
	if (sum != st->total || p->total != st->total)
		abort();
}

static void check_flame(struct pp_stacks const *st,
			struct pp_spaths const *p)
{
	char err[512];
	struct stat sb;
	char *page;

	if (ftruncate(flame_fd, 0))
		abort();
	if (pp_flame_write(flame_path, "fuzz", st, p, st, p, err,
			   sizeof(err)))
		abort();
	if (fstat(flame_fd, &sb) || !sb.st_size)
		abort();
	page = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, flame_fd,
		    0);
	if (page == MAP_FAILED)
		abort();
	if (count_str(page, (size_t)sb.st_size, "</script") != page_scripts)
		abort();	/* a name closed the script element */
	munmap(page, (size_t)sb.st_size);
}

static void report(struct op_stacks const *tab)
{
	struct pp_stacks_opts o = { .locate = &locate, .lines = true };
	struct pp_stacks_print pr = { 0, 20, false };
	struct pp_strlist notes = { 0 };
	struct pp_filelist fl;
	struct pp_stacks st;
	struct pp_spaths p;
	char err[1024];
	size_t n = op_stacks_nstacks(tab);
	uint64_t sum = 0;

	make_files(&fl, tab);
	if (!fl.n) {
		pp_files_free(&fl);
		return;
	}
	link_counts(n < MAX_COUNTED ? n : MAX_COUNTED);
	if (pp_stacks_load(&st, &fl, &o, &notes, err, sizeof(err))) {
		/* the table was read once already: it reads again */
		if (n)
			abort();
		goto out;
	}
	for (size_t i = 0; i < st.n; i++) {
		if (st.v[i].nr_frames > OP_STACKS_MAX_FRAMES)
			abort();
		for (size_t k = 0; k < st.v[i].nr_frames; k++)
			if (st.v[i].frames[k] >= st.nr_frames)
				abort();
		sum += st.v[i].count;
	}
	if (sum != st.total)
		abort();
	for (size_t pid = 0; pid < 2; pid++) {
		pp_spaths_build(&p, &st, pid ? PP_GROUP_PID : PP_GROUP_NAME);
		check_folded(&st, &p);
		pp_stacks_report(devnull, &st, &p, &pr, &notes);
		if (!pid)
			check_flame(&st, &p);
		pp_spaths_free(&p);
	}
	if (pp_pprof_write("/dev/null", &st, err, sizeof(err)))
		abort();
	pp_stacks_free(&st);
out:
	pp_strlist_free(&notes);
	pp_files_free(&fl);
}

static void run(uint8_t const *data, size_t size)
{
	struct op_stacks *st;

	put(data, size);
	if (op_stacks_open(samples, &st))
		return;
	check_table(st);
	report(st);
	op_stacks_close(st);
}

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size)
{
	uint8_t *copy;

	if (!top[0])
		setup();
	run(data, size);
	copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	if (seal(copy, size))
		run(copy, size);
	free(copy);
	return 0;
}
