/*
 * The CFI unwinder (libopd/opd_unwind.c) on a real stack: this process's own,
 * copied in a leaf reached through three calls, as perf_events copies a
 * sampled task's. The return addresses each function saw
 * (__builtin_return_address) are the truth the unwound pcs must equal;
 * the walk must then go on to main and the root. A short copy stops with
 * stack_end, an unknown pc with no_mapping.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "check.h"
#include "op_hashmap.h"
#include "op_stacks.h"
#include "op_stream.h"
#include "op_util.h"
#include "opd_perf_int.h"
#include "opd_unwind.h"

#define COPY 16384

static struct unwind_regs regs;
static unsigned char copy[COPY];
static size_t copied;
static uint64_t truth[3];	/* return addresses into chain_2, _1, main */

/* The mapping holding pc, from /proc/self/maps. */
static bool self_map(void *arg, uint64_t pc, struct unwind_map *m)
{
	static char path[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4400];
	bool found = false;

	(void)arg;
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long start, end, off;
		int pos = 0;

		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s%n", &start, &end, &off,
			   &pos) != 3 || pc < start || pc >= end)
			continue;
		while (line[pos] == ' ')
			pos++;
		line[strcspn(line, "\n")] = '\0';
		snprintf(path, sizeof(path), "%s", line + pos);
		m->start = start;
		m->pgoff = off;
		m->path = path[0] == '/' ? path : NULL;
		m->key = m->path ? op_hash_str(path) + 1ul : 0;
		found = true;
	}
	fclose(f);
	return found;
}

/* self_map, under the lowered fd limit of test_unwind__unreadable: reading
 * /proc/self/maps needs an fd, so the mapping is looked up with the
 * limit raised for that moment only. */
static bool self_map_nofd(void *arg, uint64_t pc, struct unwind_map *m)
{
	struct rlimit low, high;
	bool found;

	getrlimit(RLIMIT_NOFILE, &low);
	high = low;
	high.rlim_cur = high.rlim_max;
	setrlimit(RLIMIT_NOFILE, &high);
	found = self_map(arg, pc, m);
	setrlimit(RLIMIT_NOFILE, &low);
	return found;
}

static bool no_map(void *arg, uint64_t pc, struct unwind_map *m)
{
	(void)arg;
	(void)pc;
	(void)m;
	return false;
}

/* self_map for this test's own executable only: its callers in libc are
 * in no mapping. */
static bool exe_map(void *arg, uint64_t pc, struct unwind_map *m)
{
	static char exe[4096];
	ssize_t n;

	if (!exe[0]) {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0)
			return false;
		exe[n] = '\0';
	}
	return self_map(arg, pc, m) && m->path && !strcmp(m->path, exe);
}

/* Every pc in "JIT code": a mapping with no file, so no CFI. */
static bool jit_map(void *arg, uint64_t pc, struct unwind_map *m)
{
	(void)arg;
	if (pc < 0x10000000 || pc >= 0x10010000)
		return false;
	m->start = 0x10000000;
	m->pgoff = 0;
	m->path = NULL;
	m->key = 0;
	return true;
}

static void put_word(unsigned char *buf, size_t at, uint64_t v)
{
	memcpy(buf + at, &v, 8);
}

/*
 * Code without CFI (a JIT's) is walked by its frame pointer, when that is
 * plausible: a chain of two JIT frames to a zero return address (the
 * root); rbp below sp, rbp past the copy, a frame pointing at itself:
 * each stops with no_cfi, never a loop or a read outside the copy.
 */
static void test_unwind__jit_frame_pointers(void)
{
	struct unwind_cache *uc = opd_unwind_cache_new();
	unsigned char buf[256] = { 0 };
	uint64_t sp = 0x7ff000, pcs[16];
	struct unwind_stack stk = { sp, buf, sizeof(buf) };
	struct unwind_regs r = { 0x10000010, sp, sp + 32 };
	unsigned n, reason;

	/* frame 1 at sp + 32: caller's rbp sp + 96, return into JIT code;
	 * frame 2 at sp + 96: rbp 0, return address 0 (the outermost) */
	put_word(buf, 32, sp + 96);
	put_word(buf, 40, 0x10000200);
	reason = opd_unwind_user(uc, &r, &stk, jit_map, NULL, pcs, 16, &n);
	check(reason == OP_UNWIND_ROOT && n == 2 && pcs[0] == 0x10000010 &&
	      pcs[1] == 0x10000200, "two JIT frames by rbp, then the root "
	      "(%s, %u frames)", op_unwind_stop_name(reason), n);
	check(opd_unwind_cache_stats(uc)->fp_steps == 2,
	      "two frame pointer steps counted (%llu)",
	      (unsigned long long)opd_unwind_cache_stats(uc)->fp_steps);

	r.bp = sp - 64;
	reason = opd_unwind_user(uc, &r, &stk, jit_map, NULL, pcs, 16, &n);
	check(reason == OP_UNWIND_NO_CFI && n == 1, "rbp below sp: no_cfi");
	r.bp = sp + sizeof(buf) - 8;
	reason = opd_unwind_user(uc, &r, &stk, jit_map, NULL, pcs, 16, &n);
	check(reason == OP_UNWIND_NO_CFI && n == 1,
	      "rbp whose return address is past the copy: no_cfi");
	r.bp = UINT64_MAX - 4;
	reason = opd_unwind_user(uc, &r, &stk, jit_map, NULL, pcs, 16, &n);
	check(reason == OP_UNWIND_NO_CFI && n == 1, "rbp near the top of "
	      "the address space: no_cfi, no wrap");
	/* a frame pointing at itself: the next step's sp is above it */
	put_word(buf, 32, sp + 32);
	r.bp = sp + 32;
	reason = opd_unwind_user(uc, &r, &stk, jit_map, NULL, pcs, 16, &n);
	check(reason == OP_UNWIND_NO_CFI && n == 2,
	      "a frame pointing at itself: one step, then no_cfi (%s, %u)",
	      op_unwind_stop_name(reason), n);
	opd_unwind_cache_free(uc);
}

/* The descriptors this process has open. */
static int open_fds(void)
{
	int n = 0;
	char path[64];

	for (int fd = 0; fd < 4096; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n += !access(path, F_OK);
	}
	return n;
}

/* The end of the mapping holding the stack pointer (the stack's top). */
static uint64_t stack_top(uint64_t sp)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4400];
	uint64_t top = 0;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long start, end;

		if (sscanf(line, "%lx-%lx", &start, &end) == 2 && sp >= start &&
		    sp < end)
			top = end;
	}
	if (f)
		fclose(f);
	return top;
}

/* The copy, as the kernel makes it: ASan must not see it read other
 * frames' redzones. */
__attribute__((no_sanitize_address, noinline))
static void copy_stack(uint64_t sp, size_t n)
{
	unsigned char const volatile *from =
		(unsigned char const volatile *)(uintptr_t)sp;

	for (size_t i = 0; i < n; i++)
		copy[i] = from[i];
}

__attribute__((noinline)) static void leaf(void)
{
	uint64_t sp, bp, ip, top;

	/* the three registers at one instruction, as a sample has them */
	__asm__ volatile("lea 0(%%rip), %2\n\tmov %%rsp, %0\n\tmov %%rbp, %1"
			 : "=r"(sp), "=r"(bp), "=r"(ip));
	regs = (struct unwind_regs){ .ip = ip, .sp = sp, .bp = bp };
	top = stack_top(sp);
	copied = top > sp && top - sp < COPY ? top - sp : COPY;
	copy_stack(sp, copied);
	truth[0] = (uint64_t)(uintptr_t)__builtin_return_address(0);
}

__attribute__((noinline)) static void chain_2(void)
{
	leaf();
	truth[1] = (uint64_t)(uintptr_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void chain_1(void)
{
	chain_2();
	truth[2] = (uint64_t)(uintptr_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

/* Caches bounded to one binary and two rows: the same walk, twice, with
 * the evictions counted. */
static void test_unwind__bounds(void)
{
	struct unwind_cache *uc = opd_unwind_cache_new_bounded(1, 2);
	struct unwind_stack stk = { regs.sp, copy, copied };
	uint64_t pcs[64];
	struct unwind_taken t;
	unsigned n, reason;

	for (int round = 0; round < 2; round++) {
		reason = opd_unwind_user(uc, &regs, &stk, self_map, NULL, pcs, 64,
				     &n);
		check(reason == OP_UNWIND_ROOT && n >= 5 &&
		      pcs[1] == truth[0] && pcs[2] == truth[1] &&
		      pcs[3] == truth[2],
		      "bounded caches, walk %d: the same callers, to the root "
		      "(%u frames, %s)", round + 1, n,
		      op_unwind_stop_name(reason));
	}
	opd_unwind_cache_take(uc, &t);
	check(t.binaries_evicted >= 2 &&
	      t.binaries_evicted == opd_unwind_cache_stats(uc)->binaries_evicted,
	      "binaries closed for others are counted (%llu)",
	      (unsigned long long)t.binaries_evicted);
	check(t.rules_flushed >= 1, "full rule tables emptied are counted (%llu)",
	      (unsigned long long)t.rules_flushed);
	opd_unwind_cache_take(uc, &t);
	check(!t.binaries_evicted && !t.rules_flushed,
	      "taken evictions are not taken again");
	opd_unwind_cache_free(uc);
}

/*
 * A binary that cannot be opened at its first frame (the daemon out of
 * fds under load: EMFILE) stops that walk with no_cfi, and is opened
 * again later: the next walk reaches the root. Kept as a binary without
 * CFI, it would stop every stack through it for the cookie's life.
 */
static void test_unwind__unreadable(void)
{
	struct unwind_cache *uc = opd_unwind_cache_new();
	struct unwind_stack stk = { regs.sp, copy, copied };
	struct rlimit was, low;
	uint64_t pcs[64];
	unsigned n, reason;
	int fd = open("/dev/null", O_RDONLY);

	if (fd < 0 || getrlimit(RLIMIT_NOFILE, &was)) {
		check(false, "open /dev/null, getrlimit: %s", strerror(errno));
		opd_unwind_cache_free(uc);
		return;
	}
	close(fd);
	low = was;
	low.rlim_cur = (rlim_t)fd;	/* the lowest free fd: none left */
	if (setrlimit(RLIMIT_NOFILE, &low)) {
		check(false, "setrlimit: %s", strerror(errno));
		opd_unwind_cache_free(uc);
		return;
	}
	reason = opd_unwind_user(uc, &regs, &stk, self_map_nofd, NULL, pcs, 64,
			     &n);
	setrlimit(RLIMIT_NOFILE, &was);
	check(reason == OP_UNWIND_NO_CFI && n == 1,
	      "out of fds: the walk stops at the first frame (%s, %u)",
	      op_unwind_stop_name(reason), n);
	check(opd_unwind_cache_stats(uc)->unreadable >= 1 &&
	      !opd_unwind_cache_stats(uc)->no_cfi,
	      "counted as unreadable (%llu), not as without CFI",
	      (unsigned long long)opd_unwind_cache_stats(uc)->unreadable);
	reason = opd_unwind_user(uc, &regs, &stk, self_map, NULL, pcs, 64, &n);
	check(reason == OP_UNWIND_ROOT && n >= 5 && pcs[1] == truth[0] &&
	      pcs[2] == truth[1] && pcs[3] == truth[2],
	      "fds back: the next walk opens the binary again and reaches "
	      "the root (%s, %u frames)", op_unwind_stop_name(reason), n);
	opd_unwind_cache_free(uc);
}

/*
 * A binary kept in the cache holds no descriptor (its ELF is
 * mmap'ed and the file closed), so a daemon under a low fd limit is not
 * run out of them by the binaries it unwinds through.
 */
static void test_unwind__no_fds_held(void)
{
	struct unwind_cache *uc = opd_unwind_cache_new();
	struct unwind_stack stk = { regs.sp, copy, copied };
	uint64_t pcs[64];
	unsigned n, reason;
	int before = open_fds(), after;

	reason = opd_unwind_user(uc, &regs, &stk, self_map, NULL, pcs, 64, &n);
	after = open_fds();
	check(reason == OP_UNWIND_ROOT &&
	      opd_unwind_cache_stats(uc)->binaries >= 2,
	      "the walk opened its binaries (%llu) and reached the root (%s)",
	      (unsigned long long)opd_unwind_cache_stats(uc)->binaries,
	      op_unwind_stop_name(reason));
	check(after == before, "the cached binaries hold no fd (%d open "
	      "before the walk, %d after)", before, after);
	reason = opd_unwind_user(uc, &regs, &stk, self_map, NULL, pcs, 64, &n);
	check(reason == OP_UNWIND_ROOT && pcs[1] == truth[0] &&
	      pcs[3] == truth[2], "their CFI is read from the mappings "
	      "after the fds are closed (%s, %u frames)",
	      op_unwind_stop_name(reason), n);
	opd_unwind_cache_free(uc);
}

/*
 * A walk that reaches a caller in no mapping stops with no_mapping, the
 * frames before it kept, and is counted for bt_lost_no_mapping once.
 */
static void test_unwind__no_mapping_counted(void)
{
	struct unwind_cache *uc = opd_unwind_cache_new();
	struct unwind_stack stk = { regs.sp, copy, copied };
	uint64_t pcs[64];
	struct unwind_taken t;
	unsigned n, reason;

	reason = opd_unwind_user(uc, &regs, &stk, exe_map, NULL, pcs, 64, &n);
	check(reason == OP_UNWIND_NO_MAPPING && n >= 4 &&
	      pcs[1] == truth[0] && pcs[2] == truth[1] && pcs[3] == truth[2],
	      "libc unmapped: the walk keeps chain_2, chain_1, main and stops "
	      "with no_mapping (%s, %u frames)", op_unwind_stop_name(reason),
	      n);
	opd_unwind_user(uc, &regs, &stk, self_map, NULL, pcs, 64, &n);
	opd_unwind_cache_take(uc, &t);
	check(t.no_mapping == 1 && opd_unwind_cache_stats(uc)->no_mapping == 1,
	      "one no_mapping stop counted (%llu), none for the walk to the "
	      "root", (unsigned long long)t.no_mapping);
	opd_unwind_cache_take(uc, &t);
	check(t.no_mapping == 0, "a taken count is not taken again");
	opd_unwind_cache_free(uc);
}

/* The executable mapping of this test's own code, from /proc/self/maps. */
static bool own_text(uint64_t *start, uint64_t *end, uint64_t *pgoff,
		     char *path, size_t len)
{
	struct unwind_map m;
	FILE *f;
	char line[4400];
	bool found = false;

	if (!self_map(NULL, regs.ip, &m) || !m.path)
		return false;
	snprintf(path, len, "%s", m.path);
	f = fopen("/proc/self/maps", "r");
	while (f && !found && fgets(line, sizeof(line), f)) {
		unsigned long s, e, off;

		if (sscanf(line, "%lx-%lx %*s %lx", &s, &e, &off) == 3 &&
		    regs.ip >= s && regs.ip < e) {
			*start = s;
			*end = e;
			*pgoff = off;
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

static size_t put(unsigned char *rec, size_t at, void const *v, size_t n)
{
	memcpy(rec + at, v, n);
	return at + n;
}

/* A perf MMAP2 record of this process (sample_id_all trailer). */
static size_t mmap2_record(unsigned char *rec, uint64_t start, uint64_t end,
			   uint64_t pgoff, char const *path)
{
	struct perf_event_header h = { PERF_RECORD_MMAP2, 0, 0 };
	uint32_t pid = (uint32_t)getpid(), zero32 = 0;
	uint64_t len = end - start, zero = 0, time = 1;
	size_t at = sizeof(h), n = strlen(path) + 1;

	at = put(rec, at, &pid, 4);
	at = put(rec, at, &pid, 4);
	at = put(rec, at, &start, 8);
	at = put(rec, at, &len, 8);
	at = put(rec, at, &pgoff, 8);
	for (int i = 0; i < 4; i++)	/* maj min, ino, ino_gen, prot flags */
		at = put(rec, at, &zero, 8);
	at = put(rec, at, path, n);
	at = (at + 7) & ~(size_t)7;
	at = put(rec, at, &pid, 4);	/* trailer: pid/tid, time, cpu, id */
	at = put(rec, at, &pid, 4);
	at = put(rec, at, &time, 8);
	at = put(rec, at, &zero32, 4);
	at = put(rec, at, &zero32, 4);
	at = put(rec, at, &zero, 8);
	h.size = (uint16_t)at;
	put(rec, 0, &h, sizeof(h));
	return at;
}

/* A user sample of this process: the registers and stack copy of leaf(),
 * no callchain (opd_perf.c's layout with a stack copy). */
static size_t sample_record(unsigned char *rec)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE,
				       PERF_RECORD_MISC_USER, 0 };
	uint32_t pid = (uint32_t)getpid(), zero32 = 0;
	uint64_t id = 1, time = 2, zero = 0, abi = PERF_SAMPLE_REGS_ABI_64;
	uint64_t len = COPY, dyn = copied;
	size_t at = sizeof(h);

	at = put(rec, at, &id, 8);
	at = put(rec, at, &regs.ip, 8);
	at = put(rec, at, &pid, 4);
	at = put(rec, at, &pid, 4);
	at = put(rec, at, &time, 8);
	at = put(rec, at, &zero32, 4);
	at = put(rec, at, &zero32, 4);
	at = put(rec, at, &zero, 8);		/* callchain: nr 0 */
	at = put(rec, at, &abi, 8);
	at = put(rec, at, &regs.bp, 8);
	at = put(rec, at, &regs.sp, 8);
	at = put(rec, at, &regs.ip, 8);
	at = put(rec, at, &len, 8);
	at = put(rec, at, copy, COPY);
	at = put(rec, at, &dyn, 8);
	h.size = (uint16_t)at;
	put(rec, 0, &h, sizeof(h));
	return at;
}

/* The reason of the stream's last ESC UNWIND_STOP, or -1. */
static long last_stop(struct word_buffer const *wb)
{
	long r = -1;

	for (size_t i = 0; i + 2 < wb->len; i++)
		if (wb->w[i] == OP_ESCAPE_CODE &&
		    wb->w[i + 1] == OP_CODE_UNWIND_STOP)
			r = (long)wb->w[i + 2];
	return r;
}

/*
 * The perf source on a sample of this process whose libc mapping's
 * record was lost (only the test's own MMAP2 arrived): the samples all
 * land in the test's code, so none asks for a re-read, and the unwinder
 * meets libc (__libc_start_call_main) as a caller. Without a re-read of
 * its own, every such stack stopped there with no_mapping.
 */
static void test_unwind__lost_caller_mapping(void)
{
	static unsigned char rec[COPY + 4096];
	struct perf_source *ps = op_xcalloc(1, sizeof(*ps));
	struct ps_id one = { .id = 1, .event = 0 };
	uint64_t start, end, pgoff;
	char path[4096];
	long stop;

	if (!own_text(&start, &end, &pgoff, path, sizeof(path))) {
		check(false, "this test's code is in /proc/self/maps");
		free(ps);
		return;
	}
	ps->ids = &one;
	ps->nr_ids = 1;
	ps->depth = 32;
	ps->stack_size = COPY;
	ps->unw = opd_unwind_cache_new();
	ps->pcs = op_xcalloc(ps->depth + 1, sizeof(*ps->pcs));
	opd_maps_reread_init(&ps->reread, 100 * 1000000ull, 200);
	ps->now = 1000000000ull;
	opd_perf_state_init(ps);

	mmap2_record(rec, start, end, pgoff, path);
	opd_perf_handle_record(ps, rec);
	sample_record(rec);
	opd_perf_handle_record(ps, rec);
	stop = last_stop(&ps->out);
	check(ps->stats.user_samples == 1 && stop == OP_UNWIND_ROOT,
	      "libc's record lost: the walk re-reads the maps and reaches "
	      "the root (stop: %s)", stop < 0 ? "none" :
	      op_unwind_stop_name((unsigned)stop));
	check(ps->count[OP_COUNT_MAPS_REREAD] == 1 &&
	      ps->count[OP_COUNT_MAPS_REREAD_HIT] == 1,
	      "one re-read, a hit (%llu, %llu)",
	      (unsigned long long)ps->count[OP_COUNT_MAPS_REREAD],
	      (unsigned long long)ps->count[OP_COUNT_MAPS_REREAD_HIT]);

	opd_perf_state_free(ps);
	free(ps->pcs);
	opd_unwind_cache_free(ps->unw);
	free(ps);
}

int main(void)
{
	struct unwind_cache *uc = opd_unwind_cache_new();
	struct unwind_stack stk;
	uint64_t pcs[64];
	unsigned n, reason;

	test_unwind__jit_frame_pointers();

	chain_1();
	stk = (struct unwind_stack){ regs.sp, copy, copied };
	reason = opd_unwind_user(uc, &regs, &stk, self_map, NULL, pcs, 64, &n);
	check(n >= 5, "unwound %u frames (stop: %s)", n,
	      op_unwind_stop_name(reason));
	check(n >= 4 && pcs[0] == regs.ip && pcs[1] == truth[0] &&
	      pcs[2] == truth[1] && pcs[3] == truth[2],
	      "the callers are chain_2, chain_1, main: their return addresses");
	check_int(reason, OP_UNWIND_ROOT, "the walk reaches the root (_start)");
	check(opd_unwind_cache_stats(uc)->binaries >= 2,
	      "this test and libc were opened (%llu binaries)",
	      (unsigned long long)opd_unwind_cache_stats(uc)->binaries);

	/* again: the rules compiled the first time are used */
	opd_unwind_user(uc, &regs, &stk, self_map, NULL, pcs, 64, &n);
	check(opd_unwind_cache_stats(uc)->rule_hits >= 4,
	      "a second walk hits compiled rules (%llu)",
	      (unsigned long long)opd_unwind_cache_stats(uc)->rule_hits);

	reason = opd_unwind_user(uc, &regs, &stk, self_map, NULL, pcs, 3, &n);
	check(reason == OP_UNWIND_DEPTH_LIMIT && n == 3, "depth limit at 3");

	stk.size = 8;
	reason = opd_unwind_user(uc, &regs, &stk, self_map, NULL, pcs, 64, &n);
	check(reason == OP_UNWIND_STACK_END && n == 1,
	      "an 8-byte copy stops with stack_end (%s, %u)",
	      op_unwind_stop_name(reason), n);

	stk.size = copied;
	reason = opd_unwind_user(uc, &regs, &stk, no_map, NULL, pcs, 64, &n);
	check(reason == OP_UNWIND_NO_MAPPING && n == 1,
	      "an unknown pc stops with no_mapping");
	opd_unwind_cache_free(uc);

	test_unwind__bounds();
	test_unwind__unreadable();
	test_unwind__no_fds_held();
	test_unwind__no_mapping_counted();
	test_unwind__lost_caller_mapping();
	return check_done();
}
