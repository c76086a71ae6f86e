/*
 * opwatch's pairing, statistics and ELF lookup on hand-made events:
 * recursion pairs innermost first, a forked child's return pairs with
 * its parent's call and is reported apart, a pair's TO closes the oldest
 * item of its key, unmatched and open calls are counted, percentiles are
 * nearest-rank, a function's file offset is found (or the error names
 * what is missing), and names are escaped in every format.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "op_util.h"
#include "opwatch.h"

static struct opwatch_probe probes[3] = {
	{ .spec = "bin:rec" }, { .spec = "bin:fork" }, { .spec = "bin:add,bin:del" },
};

/* The report as CSV in a string (malloc'ed). */
static char *csv(struct opwatch_stats *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	opwatch_report(f, s, probes, OPWATCH_CSV);
	fclose(f);
	return buf;
}

static void test_opwatch__recursion_and_fork(void)
{
	struct opwatch_stats s;
	char *out;

	opwatch_stats_init(&s, 3, OPWATCH_BY_NONE);
	opwatch_stats_event(&s, 0, false, 1, 1, 0);
	opwatch_stats_event(&s, 0, false, 1, 1, 10);
	opwatch_stats_event(&s, 0, false, 1, 1, 20);
	opwatch_stats_event(&s, 0, true, 1, 1, 25);
	opwatch_stats_event(&s, 0, true, 1, 1, 40);
	opwatch_stats_event(&s, 0, true, 1, 1, 100);
	opwatch_stats_event(&s, 0, true, 1, 1, 110);	/* no entry */
	opwatch_stats_event(&s, 1, false, 2, 2, 0);
	opwatch_stats_fork(&s, 2, 3, 3);
	opwatch_stats_event(&s, 1, true, 2, 2, 10);
	opwatch_stats_event(&s, 1, true, 3, 3, 30);
	opwatch_stats_event(&s, 0, false, 4, 4, 50);	/* never returns */
	opwatch_stats_finish(&s);
	out = csv(&s);
	check(strstr(out, "bin:rec,,3,5,45,100,") != NULL,
	      "recursion: 3 calls, innermost first: 5, 30, 100 ns");
	check(strstr(out, "bin:fork,,1,10,10,10,") != NULL, "fork: the parent's return");
	check(strstr(out, "bin:fork,(child),1,30,30,30,") != NULL,
	      "fork: the child's return, apart");
	check_int((int)s.unmatched_returns, 1, "a return without an entry is counted");
	check_int((int)s.open_calls, 1, "a call that never returned is counted");
	if (check_failed)
		check_note("%s", out);
	free(out);
	opwatch_stats_free(&s);
}

static void test_opwatch__pair(void)
{
	struct opwatch_stats s;
	char *out;

	opwatch_stats_init(&s, 3, OPWATCH_BY_NONE);
	opwatch_stats_pair(&s, 2, false, 0xa, 1, 1, 0);
	opwatch_stats_pair(&s, 2, false, 0xa, 1, 1, 5);
	opwatch_stats_pair(&s, 2, false, 0xb, 1, 1, 7);
	opwatch_stats_pair(&s, 2, true, 0xb, 1, 2, 9);
	opwatch_stats_pair(&s, 2, true, 0xa, 1, 2, 20);
	opwatch_stats_pair(&s, 2, true, 0xa, 1, 2, 30);
	opwatch_stats_pair(&s, 2, true, 0xc, 1, 2, 31);	/* never added */
	opwatch_stats_finish(&s);
	out = csv(&s);
	check(strstr(out, "\"bin:add,bin:del\",,3,2,16,25,") != NULL,
	      "pair: keyed, oldest item first: 2, 20, 25 ns (the spec quoted)");
	check_int((int)s.unmatched_returns, 1, "a TO with no item is counted");
	if (check_failed)
		check_note("%s", out);
	free(out);
	opwatch_stats_free(&s);
}

static void test_opwatch__percentiles(void)
{
	struct opwatch_stats s;
	char *out;

	opwatch_stats_init(&s, 3, OPWATCH_BY_TID);
	for (int i = 100; i >= 1; i--) {
		opwatch_stats_event(&s, 0, false, 7, 8, 1000);
		opwatch_stats_event(&s, 0, true, 7, 8, 1000 + (uint64_t)i);
	}
	opwatch_stats_finish(&s);
	out = csv(&s);
	check(strstr(out, "bin:rec,tid 8,100,1,50,100,29,50,90,99") != NULL,
	      "1..100 ns: mean 50, stddev 29, p50/p90/p99 50/90/99, group by tid");
	if (check_failed)
		check_note("%s", out);
	free(out);
	opwatch_stats_free(&s);
}

/* --count: each call's counts from entry to return, nested calls apart. */
static void test_opwatch__counts(void)
{
	struct opwatch_stats s;
	uint64_t c[][2] = {
		{ 100, 1 }, { 150, 1 }, { 250, 3 }, { 400, 3 },	/* nested */
		{ 1000, 5 }, { 1010, 5 },
	};
	char *out;

	opwatch_stats_init(&s, 3, OPWATCH_BY_NONE);
	s.nr_counts = 2;
	s.count_name[0] = "task-clock";
	s.count_unit[0] = "ns";
	s.count_name[1] = "context-switches";
	opwatch_stats_event_counts(&s, 0, false, 1, 1, 0, c[0]);
	opwatch_stats_event_counts(&s, 0, false, 1, 1, 1, c[1]);
	opwatch_stats_event_counts(&s, 0, true, 1, 1, 2, c[2]);
	opwatch_stats_event_counts(&s, 0, true, 1, 1, 3, c[3]);
	opwatch_stats_event_counts(&s, 0, false, 1, 1, 4, c[4]);
	opwatch_stats_event_counts(&s, 0, true, 1, 1, 5, c[5]);
	opwatch_stats_finish(&s);
	out = csv(&s);
	check(strstr(out, ",task-clock_min,task-clock_p50,task-clock_mean,"
		     "task-clock_max,task-clock_total,context-switches_min,") != NULL,
	      "CSV: five columns per counted event");
	/* growths: inner 100 and 2, outer 300 and 2, last 10 and 0 */
	check(strstr(out, "bin:rec,,3,1,2,3,1,1,3,3,10,100,136.667,300,410,"
		     "0,2,1.333,2,4\n") != NULL,
	      "per call: min, p50, mean, max, total of each event's growth");
	if (check_failed)
		check_note("%s", out);
	free(out);
	opwatch_stats_free(&s);
}

static char const *tmpdir;

static char *tmp_path(char const *name)
{
	return op_xasprintf("%s/%s", tmpdir, name);
}

/* buf + len grown to hold n more bytes at an offset that is 1 mod 8. */
static size_t append_odd(unsigned char **buf, size_t *len, void const *p,
			 size_t n)
{
	size_t at = ((*len + 7) & ~(size_t)7) + 1;

	*buf = op_xrealloc(*buf, at + n);
	memset(*buf + *len, 0, at - *len);
	memcpy(*buf + at, p, n);
	*len = at + n;
	return at;
}

/*
 * This test's own binary with its program headers, section headers,
 * symbol table and string table copied to offsets that are not 8-byte
 * aligned (as a file may have them): the lookup copies every field out
 * rather than casting a pointer into the file, so under UBSan it runs
 * without a misaligned access, and the offset is the same.
 */
static void test_opwatch__elf_misaligned(uint64_t want)
{
	size_t len = 0;
	unsigned char *buf = (unsigned char *)op_read_file("/proc/self/exe", 0, &len,
							   NULL, 0);
	Elf64_Ehdr eh;
	Elf64_Shdr *shs;
	size_t sym = 0;
	char err[512], *path = tmp_path("odd.elf");
	uint64_t off = 0;
	int fd, rc;

	check_assert(buf && len > sizeof(eh), "read this test's binary");
	memcpy(&eh, buf, sizeof(eh));
	shs = op_xcalloc(eh.e_shnum, sizeof(*shs));
	memcpy(shs, buf + eh.e_shoff, eh.e_shnum * sizeof(*shs));
	for (size_t i = 0; i < eh.e_shnum; i++)
		if (shs[i].sh_type == SHT_SYMTAB)
			sym = i;
	check_assert(sym && shs[sym].sh_link < eh.e_shnum, "it has a .symtab");
	{
		Elf64_Shdr *st = &shs[sym], *str = &shs[st->sh_link];
		unsigned char *copy = op_xmalloc(st->sh_size + str->sh_size);

		memcpy(copy, buf + st->sh_offset, st->sh_size);
		memcpy(copy + st->sh_size, buf + str->sh_offset, str->sh_size);
		st->sh_offset = append_odd(&buf, &len, copy, st->sh_size);
		str->sh_offset = append_odd(&buf, &len, copy + st->sh_size,
					    str->sh_size);
		free(copy);
	}
	{
		size_t n = eh.e_phnum * sizeof(Elf64_Phdr);
		unsigned char *ph = op_xmalloc(n);

		memcpy(ph, buf + eh.e_phoff, n);
		eh.e_phoff = append_odd(&buf, &len, ph, n);
		free(ph);
	}
	eh.e_shoff = append_odd(&buf, &len, shs, eh.e_shnum * sizeof(*shs));
	memcpy(buf, &eh, sizeof(eh));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	check_assert(fd >= 0 && write(fd, buf, len) == (ssize_t)len,
		     "write the misaligned copy");
	close(fd);
	rc = opwatch_elf_func(path, "opwatch_test_target", &off, err, sizeof(err));
	check(rc == 0 && off == want,
	      "headers and symbols at odd offsets: the same offset %#llx",
	      (unsigned long long)off);
	unlink(path);
	free(path);
	free(shs);
	free(buf);
}

/* Only a regular file is read: a FIFO (whose open would wait for a
 * writer), a device (/dev/zero never ends), a directory, and a file
 * larger than the bound are refused, naming the file. */
static void test_opwatch__elf_not_regular(void)
{
	char err[512], *fifo = tmp_path("fifo"), *huge = tmp_path("huge");
	uint64_t off;
	int fd;

	alarm(60);		/* a hang fails the test rather than stalling it */
	check_assert(mkfifo(fifo, 0600) == 0, "mkfifo");
	check(opwatch_elf_func(fifo, "main", &off, err, sizeof(err)) < 0 &&
	      strstr(err, "not a regular file") && strstr(err, fifo),
	      "a FIFO is refused at once: %s", err);
	check(opwatch_elf_func("/dev/zero", "main", &off, err, sizeof(err)) < 0 &&
	      strstr(err, "cannot read binary '/dev/zero': not a regular file"),
	      "/dev/zero is refused: %s", err);
	check(opwatch_elf_func(tmpdir, "main", &off, err, sizeof(err)) < 0 &&
	      strstr(err, "not a regular file"),
	      "a directory is refused: %s", err);
	fd = open(huge, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	check_assert(fd >= 0 && ftruncate(fd, (1ll << 30) + 1) == 0,
		     "a sparse file of 1 GiB + 1 byte");
	close(fd);
	check(opwatch_elf_func(huge, "main", &off, err, sizeof(err)) < 0 &&
	      strstr(err, "is too large") && strstr(err, huge),
	      "a binary over 1 GiB is refused unread: %s", err);
	alarm(0);
	unlink(fifo);
	unlink(huge);
	free(fifo);
	free(huge);
}

int opwatch_test_target(int x);

__attribute__((noinline, used)) int opwatch_test_target(int x)
{
	return x + 1;
}

static void test_opwatch__elf(void)
{
	char err[512];
	uint64_t off = 0;
	int rc = opwatch_elf_func("/proc/self/exe", "opwatch_test_target", &off,
				  err, sizeof(err));

	check(rc == 0 && off > 0, "a function of this test: file offset %#llx",
	      (unsigned long long)off);
	test_opwatch__elf_misaligned(off);
	check(opwatch_elf_func("/proc/self/exe", "no_such_fn", &off, err,
			       sizeof(err)) < 0 &&
	      strstr(err, "no function 'no_such_fn' in '/proc/self/exe'"),
	      "an unknown function is named: %s", err);
	check(opwatch_elf_func("/proc/self/status", "main", &off, err,
			       sizeof(err)) < 0 && strstr(err, "is not an ELF binary"),
	      "a file that is no ELF binary is named: %s", err);
	check(opwatch_elf_func("/no/such/file", "main", &off, err, sizeof(err)) < 0 &&
	      strstr(err, "cannot read binary '/no/such/file'"),
	      "a missing binary is named: %s", err);
}

/* A probe on a path with ESC, a C1 control in UTF-8 and an invalid byte:
 * escaped (op_escape.h) in every format. */
static void test_opwatch__hostile_names(void)
{
	static struct opwatch_probe bad[1] = {
		{ .spec = "/tmp/E\033[2J\xc2\x9b\xff,x:f" },
	};
	static char const *const fmt_name[] = { "text", "csv", "json" };
	enum opwatch_format fmt[] = { OPWATCH_TEXT, OPWATCH_CSV, OPWATCH_JSON };
	struct opwatch_stats s;

	opwatch_stats_init(&s, 1, OPWATCH_BY_NONE);
	opwatch_stats_event(&s, 0, false, 1, 1, 0);
	opwatch_stats_event(&s, 0, true, 1, 1, 10);
	opwatch_stats_finish(&s);
	for (size_t i = 0; i < 3; i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		opwatch_report(f, &s, bad, fmt[i]);
		fclose(f);
		/* JSON quotes the escape's backslash once more */
		check(!strpbrk(buf, "\033\x9b\xff") &&
		      strstr(buf, fmt[i] == OPWATCH_JSON ?
			     "E\\\\x1b[2J\\\\xc2\\\\x9b\\\\xff" :
			     "E\\x1b[2J\\xc2\\x9b\\xff"),
		      "%s: the probe's path escaped", fmt_name[i]);
		free(buf);
	}
	opwatch_stats_free(&s);
}

int main(void)
{
	test_opwatch__recursion_and_fork();
	test_opwatch__pair();
	test_opwatch__percentiles();
	test_opwatch__counts();
	tmpdir = check_tmpdir();
	test_opwatch__elf();
	test_opwatch__elf_not_regular();
	test_opwatch__hostile_names();
	rmdir(tmpdir);
	return check_done();
}
