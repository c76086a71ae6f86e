/*
 * The daemon's jitdumps (opd_jit.h) on a dump this process writes and
 * maps (as a JIT does) outside the perf map directory: it is found by
 * its mapping, read at the save, and the loads over the sampled region
 * become an ELF image, session/jit/PID.so, with their names and code; a
 * load outside the region is not kept (until its region is sampled: the
 * dump is read again then, not before); a dump with a record past its end
 * is kept up to it; a process with neither a mapping nor a dump in the
 * map directory has no image.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_jitdump.h"
#include "op_message.h"
#include "op_util.h"
#include "opd_core.h"
#include "opd_jit.h"
#include "check.h"

static void quiet(void *ctx, enum op_message_kind kind, char const *text)
{
	(void)ctx;
	(void)kind;
	(void)text;
}

static void put(FILE *f, void const *v, size_t len)
{
	if (fwrite(v, 1, len, f) != len)
		check_bail("cannot write a dump");
}

static void load(FILE *f, uint64_t addr, uint64_t size, char const *name)
{
	uint32_t w[2] = { OP_JITDUMP_CODE_LOAD, 0 };
	uint64_t q[6] = { 0, 0, addr, addr, size, 1 };
	size_t nl = strlen(name) + 1;
	unsigned char code[64];

	w[1] = (uint32_t)(OP_JITDUMP_LOAD_SIZE + nl + size);
	put(f, w, sizeof(w));
	put(f, &q[0], 8);               /* timestamp */
	put(f, &(uint32_t[2]){ 1, 1 }, 8);
	put(f, &q[2], 32);
	memset(code, 0xc3, sizeof(code));
	put(f, name, nl);
	put(f, code, (size_t)size);
}

int main(void)
{
	unsigned long me = (unsigned long)getpid();
	struct opd_stats st = { 0 };
	char dir[CHECK_TMPDIR_MAX + 16], maps[CHECK_TMPDIR_MAX + 16];
	char meta[CHECK_TMPDIR_MAX + 16], dump[CHECK_TMPDIR_MAX + 64];
	char so[CHECK_TMPDIR_MAX + 64];
	struct opd_jit *j;
	uint32_t hdr[10] = { OP_JITDUMP_MAGIC, 1, OP_JITDUMP_HEADER_SIZE, 62,
			     0, 0 };
	size_t len;
	char *elf;
	void *mapped;
	FILE *f;
	int fd;

	op_set_message_sink(quiet, NULL);
	snprintf(dir, sizeof(dir), "%s/cwd", check_tmpdir());
	snprintf(maps, sizeof(maps), "%s/tmp", check_tmpdir());
	snprintf(meta, sizeof(meta), "%s/session", check_tmpdir());
	snprintf(dump, sizeof(dump), "%s/jit-%lu.dump", dir, me);
	snprintf(so, sizeof(so), "%s/jit/%lu.so", meta, me);
	if (mkdir(dir, 0755) || mkdir(maps, 0755) || mkdir(meta, 0755))
		check_bail("cannot make %s", dir);
	hdr[5] = (uint32_t)me;
	f = fopen(dump, "w");
	if (!f)
		check_bail("cannot write %s", dump);
	put(f, hdr, sizeof(hdr));
	load(f, 0x10000, 32, "JS:*inRegion");
	load(f, 0x90000, 32, "JS:*outside");
	/* then a record that says it is longer than the file */
	put(f, &(uint32_t[4]){ OP_JITDUMP_CODE_LOAD, 4096, 0, 0 }, 16);
	if (fclose(f))
		check_bail("cannot write %s", dump);
	fd = open(dump, O_RDONLY);
	mapped = fd < 0 ? MAP_FAILED :
		 mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	if (mapped == MAP_FAILED)
		check_bail("cannot map %s", dump);

	j = opd_jit_new(maps);
	opd_jit_region(j, me, 0x10000, 0x20000);
	opd_jit_save(j, meta, true, &st);
	check_int((long long)st.jit_dumps_read, 1, "the mapped dump read");
	elf = op_read_file(so, 0, &len, NULL, 0);
	check(elf && len > 64 && !memcmp(elf, "\177ELF", 4),
	      "an ELF image of it kept in session/jit/PID.so");
	check(elf && memmem(elf, len, "JS:*inRegion", 12),
	      "the load over the sampled region named in it");
	check(elf && !memmem(elf, len, "JS:*outside", 11),
	      "the load outside the sampled regions not kept");
	check(elf && memmem(elf, len, "\xc3\xc3\xc3\xc3", 4),
	      "its code kept");
	free(elf);
	opd_jit_save(j, meta, true, &st);
	check_int((long long)st.jit_dumps_read, 1, "unchanged, no new region: "
		  "not read again at the next save");
	opd_jit_region(j, me, 0x90000, 0x91000);
	opd_jit_save(j, meta, true, &st);
	elf = op_read_file(so, 0, &len, NULL, 0);
	check(st.jit_dumps_read == 2 && elf && memmem(elf, len, "JS:*outside", 11),
	      "a new sampled region: read again, its load kept");
	free(elf);
	opd_jit_free(j);
	munmap(mapped, 4096);
	close(fd);

	/* not mapped, and none in the map directory: nothing */
	unlink(so);
	j = opd_jit_new(maps);
	opd_jit_region(j, me, 0x10000, 0x20000);
	opd_jit_save(j, meta, true, &st);
	check(access(so, F_OK) && st.jit_dumps_read == 2,
	      "no mapping, no dump in the map directory: no image");
	opd_jit_free(j);

	/* in the map directory (a JVM agent's default, /tmp) */
	{
		char moved[CHECK_TMPDIR_MAX + 64];

		snprintf(moved, sizeof(moved), "%s/jit-%lu.dump", maps, me);
		if (rename(dump, moved))
			check_bail("cannot move %s", dump);
		j = opd_jit_new(maps);
		opd_jit_region(j, me, 0x10000, 0x20000);
		opd_jit_save(j, meta, true, &st);
		check(!access(so, F_OK) && st.jit_dumps_read == 3,
		      "a dump in the map directory read without a mapping");
		opd_jit_free(j);
	}
	return check_done();
}
