/*
 * Unit tests of the images' life: an image lives while a
 * cookie or a sample file entry holds it and is freed with the last
 * reference; a path's first build keeps its plain sample file name
 * across a free (its files are still there) and no later build takes
 * it; a session's build-ids lists the images it has samples of.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "op_cpu_type.h"
#include "op_file.h"
#include "op_message.h"
#include "op_session.h"
#include "op_util.h"
#include "opd_core.h"
#include "opd_image.h"
#include "opd_sfile.h"

static char const *dir;
static char bin[256];
static struct opd_config cfg;

static unsigned char const build_a[] = { 0xaa, 1, 2, 3 };
static unsigned char const build_b[] = { 0xbb, 1, 2, 3 };

static int build(struct opd_images *images, unsigned char const *id)
{
	return opd_image_binary(images, bin, NULL, id, sizeof(build_a));
}

/* Build id seen and held, as a cookie holds its image. */
static int held(struct opd_images *images, unsigned char const *id)
{
	int img = build(images, id);

	opd_image_ref(images, img);
	return img;
}

static char const *sfname(struct opd_images *images, int id)
{
	struct opd_image const *img = opd_image_get(images, id);

	return img ? opd_image_sfname(img) : "(freed)";
}

static void test_image_life__refs(void)
{
	struct opd_images *images = opd_images_new();
	int a, again;

	a = held(images, build_a);
	opd_image_ref(images, a);
	check(opd_images_live(images) == 1, "one image live");
	opd_image_unref(images, a);
	check(opd_image_get(images, a) != NULL, "alive while one holds it");
	opd_image_unref(images, a);
	check(opd_image_get(images, a) == NULL && opd_images_live(images) == 0,
	      "freed with the last reference");
	again = build(images, build_a);
	check(again != a && opd_image_get(images, again) != NULL,
	      "seen again: a new image with a new id (%d, was %d)", again, a);
	opd_image_unref(images, -1);      /* no image: nothing to do */
	opd_image_unref(images, a);       /* freed already: nothing to do */
	check(opd_images_live(images) == 1, "unref of no image changes nothing");
	opd_images_free(images);
}

/* A seen, freed; B seen (tagged); A again (plain); B freed and again. */
static void test_image_life__plain_name(void)
{
	struct opd_images *images = opd_images_new();
	char tagged[512], tagged_a[512];
	int a, b;

	snprintf(tagged, sizeof(tagged), "%s/{build:bb010203}", bin);
	snprintf(tagged_a, sizeof(tagged_a), "%s/{build:aa010203}", bin);
	a = held(images, build_a);
	check_str(sfname(images, a), bin, "build A first: the plain name");
	opd_image_unref(images, a);
	b = held(images, build_b);
	check_str(sfname(images, b), tagged,
		  "build B after A was freed: the tagged name, not A's files");
	a = held(images, build_a);
	check_str(sfname(images, a), bin, "build A again: its plain name back");
	opd_image_unref(images, b);
	b = held(images, build_b);
	check_str(sfname(images, b), tagged, "build B again: tagged again");
	opd_image_unref(images, a);
	opd_image_unref(images, b);
	check(opd_images_live(images) == 0, "both freed");

	/* a new session has no file of A: the first build then seen owns
	 * the plain name */
	opd_images_new_session(images);
	b = held(images, build_b);
	check_str(sfname(images, b), bin,
		  "a new session: build B, seen first, has the plain name");
	a = held(images, build_a);
	check_str(sfname(images, a), tagged_a, "... and build A the tagged one");
	opd_images_free(images);
}

/* A gone binary whose build no one told (no build-id from the kernel,
 * no file to read) is an unknown build: it is the path's first build,
 * whichever of the two is seen first (t1004's replay of another test's
 * deleted program). */
static void test_image_life__unknown_build(void)
{
	struct opd_images *images = opd_images_new();
	struct opd_image const *img;
	int u, a, b;

	u = opd_image_binary(images, bin, NULL, NULL, 0);
	opd_image_ref(images, u);
	a = build(images, build_a);
	img = opd_image_get(images, a);
	check(a == u, "unknown, then build A: one image (%d, %d)", u, a);
	check_str(img ? img->build_id : "", "aa010203",
		  "the unknown build took A's build-id");
	check_str(sfname(images, a), bin, "... and keeps the plain name");
	check(opd_image_binary(images, bin, NULL, NULL, 0) == a,
	      "unknown again: build A");
	b = held(images, build_b);
	check(b != a, "another build is another image");
	opd_images_free(images);

	images = opd_images_new();
	a = held(images, build_a);
	u = opd_image_binary(images, bin, NULL, NULL, 0);
	check(u == a, "build A, then unknown: build A (%d, %d)", a, u);
	check_str(sfname(images, u), bin, "... under the plain name");
	opd_images_free(images);
}

static void add(struct opd_sfiles *sfs, int image, uint64_t key)
{
	struct opd_sfile_key k = { .app = image, .image = image, .cg = -1,
				   .tgid = -1, .tid = -1, .cpu = -1, .event = 0 };

	opd_sfile_add(sfs, &k, key);
}

static char *build_ids(void)
{
	char path[512];
	char *text;

	snprintf(path, sizeof(path), "%s/%s/%s", dir, OP_META_DIR,
		 OP_META_BUILD_IDS);
	text = op_read_file(path, 0, NULL, NULL, 0);
	return text ? text : op_xstrdup("");
}

/* Sample file entries hold their images; build-ids lists the sampled. */
static void test_image_life__sfiles(void)
{
	struct opd_images *images = opd_images_new();
	struct opd_sfiles *sfs;
	char meta[512], err[256], *text;
	int a, k;

	snprintf(meta, sizeof(meta), "%s/%s", dir, OP_META_DIR);
	check(!op_mkdir_p(meta), "the session's metadata directory");
	cfg.max_open_files = 1;           /* entries trimmed past 2 */
	sfs = opd_sfiles_new(&cfg, images, dir);
	a = build(images, build_a);
	opd_image_ref(images, a);         /* the cookie's */
	add(sfs, a, 0x10);
	opd_sfile_flush(sfs);
	opd_image_unref(images, a);       /* the cookie forgotten */
	check(opd_image_get(images, a) != NULL,
	      "the sample file entry holds the image");
	text = build_ids();
	check(strstr(text, "aa010203") != NULL,
	      "build-ids lists the sampled build: %s", text);
	free(text);

	/* a new session: nothing sampled in it yet, so nothing listed */
	opd_images_new_session(images);
	check(!opd_images_write_build_ids(images, meta, err, sizeof(err)),
	      "build-ids rewritten");
	text = build_ids();
	check_str(text, "", "a new session lists no build yet");
	free(text);

	/* kernel images (no build-id) fill the cache: the closed entry of A
	 * is trimmed and A freed */
	for (k = 0; k < 4; k++) {
		char name[32];
		int id;

		snprintf(name, sizeof(name), "/k%d", k);
		id = opd_image_kernel(images, name, 0x1000u * (k + 1),
				      0x1000u * (k + 2));
		add(sfs, id, 0x10);
		opd_sfile_flush(sfs);
	}
	check(opd_image_get(images, a) == NULL,
	      "the trimmed entry let go of the image: freed");
	opd_sfile_close_all(sfs);
	text = build_ids();
	check(strstr(text, "aa010203") == NULL,
	      "an image not sampled in the session is not listed: %s", text);
	free(text);

	a = held(images, build_a);
	add(sfs, a, 0x10);
	opd_sfile_flush(sfs);
	text = build_ids();
	check(strstr(text, "aa010203") != NULL,
	      "sampled in the new session: listed once more: %s", text);
	free(text);

	/* the cookie forgotten, as the core does: the entries let go first,
	 * writing the pending sample */
	add(sfs, a, 0x20);
	opd_sfile_release_image(sfs, a);
	opd_image_unref(images, a);
	check(opd_image_get(images, a) == NULL,
	      "a forgotten cookie's image is freed at once");
	check(opd_sfile_counts(sfs)->written == 7,
	      "every sample written (%llu)",
	      (unsigned long long)opd_sfile_counts(sfs)->written);
	opd_sfiles_free(sfs);
	check(opd_images_live(images) == 0,
	      "no entry and no cookie: every image freed (%zu live)",
	      opd_images_live(images));
	opd_images_free(images);
}

/* How many lines of text hold needle. */
static int lines_with(char const *text, char const *needle)
{
	char const *l = text;
	int n = 0;

	while (*l) {
		char const *nl = strchr(l, '\n'), *hit = strstr(l, needle);
		size_t len = nl ? (size_t)(nl - l) : strlen(l);

		n += hit && hit < l + len;
		l += len + (nl != NULL);
	}
	return n;
}

static char warned[1024];

static void keep_warning(void *ctx, enum op_message_kind kind, char const *text)
{
	(void)ctx;
	if (kind == OP_MSG_WARN)
		snprintf(warned, sizeof(warned), "%s", text);
}

/* A table's first write: a daemon started on the session (meta) again. */
static struct opd_images *restarted(char const *meta)
{
	struct opd_images *images = opd_images_new();
	char err[256];

	check(!opd_images_write_build_ids(images, meta, err, sizeof(err)),
	      "build-ids written at the start: %s", err);
	return images;
}

/*
 * A daemon stopped and started again on a session keeps the build-ids of
 * the binaries sampled before (their sample files are still there), and
 * lists each line once; a torn last line is left out with a warning.
 */
static void test_image_life__restart(void)
{
	struct opd_images *images;
	char meta[512], bin2[512], path[600], *text;
	FILE *f;
	int a, b;

	snprintf(meta, sizeof(meta), "%s/%s", dir, OP_META_DIR);
	snprintf(bin2, sizeof(bin2), "%s/prog2", dir);
	snprintf(path, sizeof(path), "%s/%s", meta, OP_META_BUILD_IDS);
	check(!op_mkdir_p(meta), "the session's metadata directory");
	unlink(path);

	images = restarted(meta);
	a = build(images, build_a);
	check(!opd_image_record(images, a, meta), "build A recorded");
	opd_images_free(images);

	images = restarted(meta);
	text = build_ids();
	check(lines_with(text, "aa010203") == 1,
	      "started again: build A, sampled before, is still listed: '%s'",
	      text);
	free(text);
	b = opd_image_binary(images, bin2, NULL, build_b, sizeof(build_b));
	check(!opd_image_record(images, b, meta), "build B recorded");
	a = build(images, build_a);
	check(!opd_image_record(images, a, meta), "build A recorded again");
	text = build_ids();
	check(lines_with(text, "aa010203") == 1 && lines_with(text, "bb010203") == 1,
	      "both listed, each once: '%s'", text);
	free(text);
	opd_images_free(images);

	/* killed mid-append: the last line torn */
	f = fopen(path, "a");
	check(f && fputs("cc0102 0 /tm", f) >= 0 && !fclose(f),
	      "a torn line appended");
	op_set_message_sink(keep_warning, NULL);
	images = restarted(meta);
	op_set_message_sink(NULL, NULL);
	check(strstr(warned, path) && strstr(warned, "line 3"),
	      "the warning names the file and line: '%s'", warned);
	text = build_ids();
	check(lines_with(text, "aa010203") == 1 &&
	      lines_with(text, "bb010203") == 1 && !strstr(text, "cc0102"),
	      "the good lines kept, the torn one left out: '%s'", text);
	free(text);

	/* a new session (reset, rotation) starts empty */
	opd_images_new_session(images);
	opd_images_free(images);
	images = opd_images_new();
	opd_images_new_session(images);
	check(!opd_images_write_build_ids(images, meta, warned, sizeof(warned)),
	      "a new session's build-ids written");
	text = build_ids();
	check_str(text, "", "a new session keeps nothing");
	free(text);
	opd_images_free(images);
}

/* An unknown build recorded, then told its build-id: listed, once. */
static void test_image_life__adopted_listed(void)
{
	struct opd_images *images;
	char meta[512], err[256], *text;
	int u, a;

	snprintf(meta, sizeof(meta), "%s/%s", dir, OP_META_DIR);
	images = opd_images_new();
	opd_images_new_session(images);
	check(!opd_images_write_build_ids(images, meta, err, sizeof(err)),
	      "an empty session");
	u = opd_image_binary(images, bin, NULL, NULL, 0);
	opd_image_ref(images, u);
	check(!opd_image_record(images, u, meta), "the unknown build recorded");
	text = build_ids();
	check_str(text, "", "an unknown build has no line");
	free(text);
	a = build(images, build_a);
	check(!opd_image_record(images, a, meta), "recorded again");
	text = build_ids();
	check(a == u && lines_with(text, "aa010203") == 1,
	      "the build it took is listed once: '%s'", text);
	free(text);
	check(!opd_images_write_build_ids(images, meta, err, sizeof(err)),
	      "build-ids rewritten");
	text = build_ids();
	check(lines_with(text, "aa010203") == 1,
	      "... and still once after a rewrite: '%s'", text);
	free(text);
	opd_images_free(images);
}

/* A binary named with a newline cannot forge another's build-id line. */
static void test_image_life__newline_name(void)
{
	struct opd_images *images = opd_images_new();
	char meta[512], err[256], bad[512], *text;
	int id;

	snprintf(meta, sizeof(meta), "%s/%s", dir, OP_META_DIR);
	snprintf(bad, sizeof(bad), "%s/a\ncc0102 1 /usr/bin/victim", dir);
	opd_images_new_session(images);
	check(!opd_images_write_build_ids(images, meta, err, sizeof(err)),
	      "an empty session");
	id = opd_image_binary(images, bad, NULL, build_b, sizeof(build_b));
	opd_image_ref(images, id);
	check(!opd_image_record(images, id, meta), "the binary recorded");
	text = build_ids();
	check(!strstr(text, "victim") && !strstr(text, "cc0102") &&
	      !strstr(text, "bb010203"),
	      "no line for it, no forged line: '%s'", text);
	free(text);
	opd_images_free(images);
}

int main(void)
{
	op_set_progname("image_life_test");
	dir = check_tmpdir();
	snprintf(bin, sizeof(bin), "%s/prog", dir);
	cfg.cpu_type = CPU_TIMER_INT;
	cfg.nr_events = 1;
	strcpy(cfg.events[0].name, "CPU_CLOCK");
	cfg.events[0].count = 1000000;

	test_image_life__refs();
	test_image_life__plain_name();
	test_image_life__unknown_build();
	test_image_life__sfiles();
	test_image_life__restart();
	test_image_life__adopted_listed();
	test_image_life__newline_name();

	check(!check_rmtree(dir), "the scratch directory is removed");
	return check_done();
}
