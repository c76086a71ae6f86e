/*
 * The agent's writer without a JVM: the jitdump header and records laid
 * out as perf's specification says, byte by byte; the perf map's lines;
 * planted links, FIFOs and hard links refused; a write that fails (a file
 * size limit, as a full disk) cuts the dump back to its last whole record
 * with one warning.
 */
#include "check.h"
#include "jitdump.h"

#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

static char const *dir;

static char *slurp(char const *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	*len = 0;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0) {
		rewind(f);
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
			buf[n] = '\0';
			*len = (size_t)n;
		} else {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

static uint32_t u32(char const *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t u64(char const *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* stderr into a file while @c fn runs; what it said, in @c out */
static int err_fd = -1;
static char err_path[CHECK_TMPDIR_MAX + 32];

static void capture_start(void)
{
	int fd;

	snprintf(err_path, sizeof(err_path), "%s/stderr", dir);
	fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	check_assert(fd >= 0, "open '%s'", err_path);
	fflush(stderr);
	err_fd = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
}

static char *capture_end(void)
{
	size_t len;

	fflush(stderr);
	dup2(err_fd, STDERR_FILENO);
	close(err_fd);
	return slurp(err_path, &len);
}

static int count_lines(char const *s)
{
	int n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

/* code the tests "load": its bytes are read from its address */
static unsigned char code[16384];

static void test_jitdump__layout(void)
{
	struct jd_writer w;
	char path[CHECK_TMPDIR_MAX + 64];
	struct jd_line lines[] = {
		{ (uintptr_t)code + 16, 7, "pkg/A.java" },
		{ (uintptr_t)code + 4, 6, "pkg/A.java" },
	};
	uint64_t before = jd_timestamp();
	size_t len, off;
	char *f;

	for (size_t i = 0; i < sizeof(code); i++)
		code[i] = (unsigned char)(i * 7 + 1);
	check_assert(jd_open(&w, dir, 4242) == 0, "jd_open");
	jd_debug_info(&w, (uintptr_t)code, lines, 2);
	jd_code_load(&w, 4242, 17, "pkg.A.f(I)J", (uintptr_t)code, 100);
	jd_code_load(&w, 4242, 18, "bad\nname\x01", (uintptr_t)code, 3);
	jd_close(&w);
	check_int(w.fd, -1, "closed");

	snprintf(path, sizeof(path), "%s/jit-4242.dump", dir);
	f = slurp(path, &len);
	check_assert(f && len >= 40, "the dump is there");
	check_int(u32(f), 0x4A695444, "magic");
	check_int(u32(f + 4), 1, "version");
	check_int(u32(f + 8), 40, "header size");
#if defined(__x86_64__)
	check_int(u32(f + 12), EM_X86_64, "e_machine");
#endif
	check_int(u32(f + 16), 0, "pad1");
	check_int(u32(f + 20), 4242, "pid");
	check(u64(f + 24) >= before && u64(f + 24) <= jd_timestamp(), "header timestamp: now, monotonic");
	check_int((long long)u64(f + 32), 0, "flags");

	/* debug info: header, code_addr, nr, 2 entries, padding to 8 */
	off = 40;
	check_int(u32(f + off), JIT_CODE_DEBUG_INFO, "debug info first");
	uint32_t dsize = u32(f + off + 4);
	check_int(dsize % 8, 0, "debug info padded to 8 bytes");
	check_int(dsize, 16 + 16 + 2 * (16 + 11) + 2, "debug info size");
	check(u64(f + off + 16) == (uintptr_t)code, "debug info code_addr");
	check_int((long long)u64(f + off + 24), 2, "debug info nr_entry");
	check(u64(f + off + 32) == (uintptr_t)code + 16, "entries in the order given");
	check_int(u32(f + off + 40), 7, "first entry line");
	check_str(f + off + 48, "pkg/A.java", "first entry file");
	uint64_t ts = u64(f + off + 8);
	off += dsize;

	check_int(u32(f + off), JIT_CODE_LOAD, "load");
	uint32_t lsize = u32(f + off + 4);
	check_int(lsize, 16 + 40 + 12 + 100, "load size: header, fields, name, code");
	check(u64(f + off + 8) >= ts, "timestamps do not go back");
	check_int(u32(f + off + 16), 4242, "load pid");
	check_int(u32(f + off + 20), 17, "load tid");
	check(u64(f + off + 24) == (uintptr_t)code && u64(f + off + 32) == (uintptr_t)code,
	      "vma and code_addr");
	check_int((long long)u64(f + off + 40), 100, "code_size");
	check_int((long long)u64(f + off + 48), 0, "code_index 0");
	check_str(f + off + 56, "pkg.A.f(I)J", "name");
	check(!memcmp(f + off + lsize - 100, code, 100), "the code's bytes end the record");
	off += lsize;

	check_int(u32(f + off), JIT_CODE_LOAD, "second load");
	check_str(f + off + 56, "bad?name?", "control bytes in a name written as '?'");
	check_int((long long)u64(f + off + 48), 1, "code_index 1");
	off += u32(f + off + 4);

	check_int(u32(f + off), JIT_CODE_CLOSE, "close last");
	check_int(u32(f + off + 4), 16, "close is a bare header");
	check_int((long long)(off + 16), (long long)len, "nothing after the close");
	free(f);
}

static void test_jitdump__planted(void)
{
	struct jd_writer w;
	char link[CHECK_TMPDIR_MAX + 64], target[CHECK_TMPDIR_MAX + 64];
	struct stat st;
	char *err;

	snprintf(link, sizeof(link), "%s/jit-77.dump", dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	check_assert(symlink(target, link) == 0, "plant a link");
	capture_start();
	int r = jd_open(&w, dir, 77);
	jd_code_load(&w, 77, 1, "x", (uintptr_t)code, 8);
	jd_close(&w);
	err = capture_end();
	check_int(r, -1, "a link at the dump's name is refused");
	check(lstat(target, &st) != 0, "its target is not created");
	check(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "the link is left alone");
	check_contains(err, "jvmti_oprofile: cannot create '", "warned");
	check_contains(err, "jit-77.dump': File exists: no jitdump\n", "... naming the file and why");
	check_int(count_lines(err), 1, "once");
	free(err);

	char longdir[5000];
	memset(longdir, 'd', sizeof(longdir) - 1);
	longdir[sizeof(longdir) - 1] = '\0';
	capture_start();
	r = jd_open(&w, longdir, 78);
	err = capture_end();
	check_int(r, -1, "a directory name too long is refused");
	check_contains(err, "...' is too long (4999 bytes): no jitdump\n", "... said, the name cut short");
	free(err);
}

/* A write refused half way (RLIMIT_FSIZE: EFBIG, as ENOSPC on a full
 * disk): the dump is cut back to its last whole record, one warning. */
static void test_jitdump__write_fails(void)
{
	struct jd_writer w;
	struct rlimit old, lim;
	char path[CHECK_TMPDIR_MAX + 64];
	size_t len, off, whole = 0;
	char *err, *f;
	int i;

	check_assert(jd_open(&w, dir, 99) == 0, "jd_open");
	getrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_IGN);
	lim = old;
	lim.rlim_cur = 1 << 20;
	setrlimit(RLIMIT_FSIZE, &lim);
	capture_start();
	for (i = 0; i < 100; i++)
		jd_code_load(&w, 99, 1, "big", (uintptr_t)code, sizeof(code));
	jd_close(&w);
	err = capture_end();
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);

	check_int(count_lines(err), 1, "one warning for all the records lost");
	check_contains(err, "jit-99.dump': File too large: the jitdump stops here", "... naming the file and why");
	free(err);
	snprintf(path, sizeof(path), "%s/jit-99.dump", dir);
	f = slurp(path, &len);
	check_assert(f != NULL, "the dump is there");
	for (off = 40; off + 16 <= len; off += u32(f + off + 4))
		whole++;
	check_int((long long)off, (long long)len, "the file ends on a whole record");
	check(whole > 10 && whole < 100, "%zu whole loads kept, the rest refused", whole);
	free(f);
}

static void test_perfmap__lines_and_planted(void)
{
	struct pm_writer w;
	char path[CHECK_TMPDIR_MAX + 64], other[CHECK_TMPDIR_MAX + 64];
	size_t len;
	char *f, *err;

	check_assert(pm_open(&w, dir, 501) == 0, "pm_open");
	pm_write(&w, 0x7f0000001000ull, 0x40, "Hot.hotA(I)J");
	pm_write(&w, 0x7f0000002000ull, 0x8, "evil\nline");
	pm_close(&w);
	snprintf(path, sizeof(path), "%s/perf-501.map", dir);
	f = slurp(path, &len);
	check_str(f, "7f0000001000 40 Hot.hotA(I)J\n7f0000002000 8 evil?line\n",
		  "START SIZE NAME lines, a newline in a name as '?'");
	free(f);

	/* our own stale map: taken over */
	check_assert(pm_open(&w, dir, 501) == 0, "pm_open over our stale map");
	pm_write(&w, 0x10, 0x1, "new");
	pm_close(&w);
	f = slurp(path, &len);
	check_str(f, "10 1 new\n", "the stale map is truncated and rewritten");
	free(f);

	/* a hard link to another file: refused, the file untouched */
	snprintf(other, sizeof(other), "%s/other", dir);
	FILE *o = fopen(other, "w");
	check_assert(o && fputs("keep\n", o) >= 0 && fclose(o) == 0, "write other");
	snprintf(path, sizeof(path), "%s/perf-502.map", dir);
	check_assert(link(other, path) == 0, "plant a hard link");
	capture_start();
	int r = pm_open(&w, dir, 502);
	err = capture_end();
	check_int(r, -1, "a hard link at the map's name is refused");
	f = slurp(other, &len);
	check_str(f, "keep\n", "the linked file is untouched");
	free(f);
	check_contains(err, "perf-502.map': File exists: no perf map", "warned");
	free(err);

	/* a FIFO: refused, without waiting for a reader */
	snprintf(path, sizeof(path), "%s/perf-503.map", dir);
	check_assert(mkfifo(path, 0600) == 0, "plant a FIFO");
	capture_start();
	r = pm_open(&w, dir, 503);
	err = capture_end();
	check_int(r, -1, "a FIFO at the map's name is refused, not waited on");
	free(err);
}

/* the map on a full disk: whole lines only, one warning */
static void test_perfmap__write_fails(void)
{
	struct pm_writer w;
	struct rlimit old, lim;
	char path[CHECK_TMPDIR_MAX + 64], name[300];
	size_t len;
	char *err, *f;

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	check_assert(pm_open(&w, dir, 601) == 0, "pm_open");
	getrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_IGN);
	lim = old;
	lim.rlim_cur = 1 << 20;
	setrlimit(RLIMIT_FSIZE, &lim);
	capture_start();
	for (int i = 0; i < 5000; i++)
		pm_write(&w, 0x1000, 0x10, name);
	pm_close(&w);
	err = capture_end();
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
	check_int(count_lines(err), 1, "one warning for all the lines lost");
	free(err);
	snprintf(path, sizeof(path), "%s/perf-601.map", dir);
	f = slurp(path, &len);
	check_assert(f != NULL, "the map is there");
	check(len > 0 && len % (strlen(name) + 9) == 0 && f[len - 1] == '\n',
	      "the map ends on a whole line (%zu bytes)", len);
	free(f);
}

int main(void)
{
	dir = check_tmpdir();
	test_jitdump__layout();
	test_jitdump__planted();
	test_jitdump__write_fails();
	test_perfmap__lines_and_planted();
	test_perfmap__write_fails();
	return check_done();
}
