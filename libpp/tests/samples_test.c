/*
 * Reading sample files: counts of files written byte by byte (sfwriter.h)
 * come back exactly, several files fold by key, and bad files give an
 * error naming the file.
 */
#include "config.h"

#include <stdlib.h>

#include "pp_sample_file.h"
#include "pp_samples.h"
#include "sfwriter.h"
#include "check.h"

static char const *dir;

static char *path(char const *name)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

static void test_samples__fold(void)
{
	struct sf_header h = { .cpu_type = 4, .count = 100000, .mtime = 77,
			       .cpu_speed = 1234.5 };
	struct sf_sample a[] = { { 0x10, 5 }, { 0x20, 7 }, { 1ull << 40, 1 },
				 { 0x30, 0 } };
	struct sf_sample b[] = { { 0x20, 3 }, { 0x5, UINT32_MAX } };
	struct pp_samples s = { 0 };
	struct opd_header hdr;
	char err[512];

	check(!sf_write(path("a"), &h, a, 4) && !sf_write(path("b"), &h, b, 2),
	      "sample files written");
	check(!pp_samples_read(&s, path("a"), &hdr, err, sizeof(err)) &&
	      !pp_samples_read(&s, path("b"), &hdr, err, sizeof(err)),
	      "both files read (%s)", err);
	check(hdr.mtime == 77 && hdr.cpu_type == 4 && hdr.cpu_speed == 1234.5,
	      "header fields read");
	pp_samples_finish(&s);
	check(s.n == 4, "4 distinct keys with samples (zero count dropped)");
	check(s.n == 4 && s.v[0].key == 0x5 && s.v[0].count == UINT32_MAX,
	      "a saturated value is read as it is");
	check(s.n == 4 && s.v[2].key == 0x20 && s.v[2].count == 10,
	      "0x20: 7 + 3 folded");
	check(s.n == 4 && s.v[3].key == 1ull << 40, "64-bit keys kept");
	check(pp_samples_total(&s) == (uint64_t)UINT32_MAX + 16, "total");
	pp_samples_free(&s);
}

static void test_samples__big(void)
{
	struct sf_header h = { .cpu_type = 4, .count = 1 };
	struct sf_sample *v = calloc(1000, sizeof(*v));
	struct pp_samples s = { 0 };
	struct opd_header hdr;
	char err[512];
	uint64_t want = 0;

	for (unsigned i = 0; i < 1000; i++) {
		v[i].key = i * 4099ull;
		v[i].count = i + 1;
		want += i + 1;
	}
	check(!sf_write(path("big"), &h, v, 1000), "a grown file (1024 nodes) written");
	check(!pp_samples_read(&s, path("big"), &hdr, err, sizeof(err)) &&
	      s.n == 1000 && pp_samples_total(&s) == want,
	      "all 1000 keys and their sum read back (%s)", err);
	pp_samples_free(&s);
	free(v);
}

static void test_samples__bad(void)
{
	struct sf_header h = { .cpu_type = 4 };
	struct sf_sample a[] = { { 1, 1 } };
	struct pp_samples s = { 0 };
	struct opd_header hdr;
	char err[512] = "";
	FILE *f;

	sf_write(path("corrupt"), &h, a, 1);
	f = fopen(path("corrupt"), "r+");
	fseek(f, 104 + 16 + 12, SEEK_SET);   /* node 1's next */
	fwrite("\x01\x00\x00\x00", 1, 4, f); /* points at itself */
	fclose(f);
	check(pp_samples_read(&s, path("corrupt"), &hdr, err, sizeof(err)) == -1 &&
	      strstr(err, path("corrupt")) && s.n == 0,
	      "a chain cycle is an error naming the file: %s", err);
	check(pp_samples_read(&s, path("missing"), &hdr, err, sizeof(err)) == -1 &&
	      strstr(err, path("missing")), "a missing file: %s", err);
	f = fopen(path("short"), "w");
	fputs("DAE\n", f);
	fclose(f);
	check(pp_samples_read(&s, path("short"), &hdr, err, sizeof(err)) == -1 &&
	      strstr(err, path("short")), "a short file: %s", err);
}

int main(void)
{
	dir = check_tmpdir();
	test_samples__fold();
	test_samples__big();
	test_samples__bad();
	for (char const *const *n = (char const *const[]){ "a", "b", "big",
	     "corrupt", "short", NULL }; *n; n++)
		unlink(path(*n));
	rmdir(dir);
	return check_done();
}
