/*
 * libFuzzer target for the jitdump parser and its ELF writer
 * (libop/op_jitdump.h), which read what a JIT's user wrote in
 * jit-PID.dump (the daemon). The input is a dump; it is read whole with
 * no range and the default bounds, then with a range from its bytes 8-9
 * (the header's size field, so a seed keeps it), and bounds of 8 loads,
 * 256 code bytes and 4 KiB read. What is kept must be sane: sorted by
 * address, none overlapping, a size that does not wrap, a name not
 * empty and at most OP_PERF_MAP_NAME_MAX, each found again at its
 * address, its lines sorted, inside it, of a known file, the bounds
 * kept; the ELF file written of it has its sections
 * inside it. Anything else aborts.
 */
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "op_jitdump.h"

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size);

static void check_sane(struct op_jitdump const *d,
		       struct op_jitdump_limits const *lim,
		       struct op_perf_map_range const *r)
{
	uint64_t bytes = 0, lines = 0;

	if (d->n > lim->max_loads)
		abort();
	for (size_t i = 0; i < d->n; i++) {
		struct op_jitdump_load const *l = &d->v[i];
		size_t len = strlen(l->name);

		if (!l->size || l->addr + l->size < l->addr || !len ||
		    len > OP_PERF_MAP_NAME_MAX || !l->code)
			abort();
		if (i && d->v[i - 1].addr + d->v[i - 1].size > l->addr)
			abort();
		if (op_jitdump_find(d, l->addr) != l ||
		    op_jitdump_find(d, l->addr + l->size - 1) != l)
			abort();
		if (r && !op_perf_map_overlaps(l->addr, l->size, r, 1))
			abort();
		bytes += l->size;
		for (size_t k = 0; k < l->nr_lines; k++) {
			struct op_jitdump_line const *e = &l->lines[k];

			if (e->addr - l->addr >= l->size || !e->line ||
			    e->file >= d->nr_files ||
			    (k && l->lines[k - 1].addr > e->addr))
				abort();
		}
		lines += l->nr_lines;
	}
	if (bytes != d->code_bytes || bytes > lim->max_code ||
	    lines != d->nr_lines || lines > OP_JITDUMP_MAX_LINES)
		abort();
}

static void check_elf(struct op_jitdump const *d)
{
	size_t len, left;
	unsigned char *elf = op_jitdump_elf(d, &len, &left);
	Elf64_Ehdr eh;

	if (len < sizeof(eh))
		abort();
	memcpy(&eh, elf, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_shoff > len ||
	    len - eh.e_shoff != (size_t)eh.e_shnum * sizeof(Elf64_Shdr))
		abort();
	for (size_t i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr sh;

		memcpy(&sh, elf + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		if (sh.sh_offset > len || sh.sh_size > len - sh.sh_offset)
			abort();
	}
	free(elf);
}

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size)
{
	struct op_jitdump_limits def = { OP_JITDUMP_MAX_BYTES,
					 OP_JITDUMP_MAX_LOADS,
					 OP_JITDUMP_MAX_CODE };
	struct op_jitdump_limits small = { 4096, 8, 256 };
	struct op_jitdump d = { 0 };
	struct op_perf_map_range r = { 0, UINT64_MAX };
	char err[256];

	if (!op_jitdump_read_mem(&d, data, size, NULL, 0, NULL, err,
				 sizeof(err))) {
		check_sane(&d, &def, NULL);
		check_elf(&d);
	} else if (d.n) {
		abort();
	}
	op_jitdump_free(&d);
	if (size < 10)
		return 0;
	r.start = (uint64_t)data[8] << 8;
	r.end = r.start + ((uint64_t)data[9] << 12) + 1;
	if (!op_jitdump_read_mem(&d, data, size, &r, 1, &small, err,
				 sizeof(err))) {
		check_sane(&d, &small, &r);
		check_elf(&d);
	}
	op_jitdump_free(&d);
	return 0;
}
