/* libopcodes in the process; see pp_disasm.h. */
#include "config.h"

#include <bfd.h>
#include <dis-asm.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_util.h"
#include "pp_disasm.h"
#include "pp_symtab.h"

/* A code section's bytes, read on first use. */
struct code {
	asection *sec;
	uint64_t vma, size;
	bfd_byte *bytes;
	bool tried;
};

struct pp_disasm {
	bfd *abfd;
	struct pp_symtab const *syms;
	disassembler_ftype fn;
	struct disassemble_info info;
	struct code *code;
	size_t nr_code;
	char *out;              /* the instruction's text so far */
	size_t outlen, outsize;
};

static void vappend(struct pp_disasm *d, char const *fmt, va_list ap)
{
	int n;

	if (d->outlen + 1 >= d->outsize)
		return;
	n = vsnprintf(d->out + d->outlen, d->outsize - d->outlen, fmt, ap);
	if (n > 0)
		d->outlen = d->outlen + (size_t)n < d->outsize ?
			    d->outlen + (size_t)n : d->outsize - 1;
}

static int print_plain(void *stream, char const *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vappend(stream, fmt, ap);
	va_end(ap);
	return 0;
}

static int print_styled(void *stream, enum disassembler_style style,
			char const *fmt, ...)
{
	va_list ap;

	(void)style;
	va_start(ap, fmt);
	vappend(stream, fmt, ap);
	va_end(ap);
	return 0;
}

static struct code *code_at(struct pp_disasm *d, uint64_t vma)
{
	for (size_t i = 0; i < d->nr_code; i++) {
		struct code *c = &d->code[i];

		if (vma < c->vma || vma - c->vma >= c->size)
			continue;
		if (!c->tried) {
			c->tried = true;
			if (!bfd_malloc_and_get_section(d->abfd, c->sec,
							&c->bytes))
				c->bytes = NULL;
		}
		return c->bytes ? c : NULL;
	}
	return NULL;
}

static int read_memory(bfd_vma addr, bfd_byte *buf, unsigned len,
		       struct disassemble_info *info)
{
	struct pp_disasm *d = info->application_data;
	struct code *c = code_at(d, addr);

	if (!c || len > c->size - (addr - c->vma))
		return -1;
	memcpy(buf, c->bytes + (addr - c->vma), len);
	return 0;
}

static void print_address(bfd_vma addr, struct disassemble_info *info)
{
	struct pp_disasm *d = info->application_data;
	struct pp_symbol const *s;

	if (d->outsize < 2)
		return;  /* pp_disasm_length: no text wanted */
	s = d->syms ? pp_symtab_find(d->syms, addr) : NULL;
	print_plain(d, "%" PRIx64, (uint64_t)addr);
	if (s && addr == s->start)
		print_plain(d, " <%s>", s->name);
	else if (s)
		print_plain(d, " <%s+0x%" PRIx64 ">", s->name,
			    (uint64_t)addr - s->start);
}

static void add_code_sections(struct pp_disasm *d)
{
	size_t alloc = 0;

	for (asection *sec = d->abfd->sections; sec; sec = sec->next) {
		flagword f = bfd_section_flags(sec);

		if (!(f & SEC_CODE) || !(f & SEC_HAS_CONTENTS))
			continue;
		OP_ALLOC_GROW(d->code, d->nr_code + 1, alloc);
		d->code[d->nr_code++] = (struct code){
			.sec = sec, .vma = bfd_section_vma(sec),
			.size = bfd_section_size(sec),
		};
	}
}

struct pp_disasm *pp_disasm_new(bfd *abfd, struct pp_symtab const *syms,
				char *err, size_t errlen)
{
	struct pp_disasm *d;
	disassembler_ftype fn;

	fn = disassembler(bfd_get_arch(abfd), bfd_big_endian(abfd),
			  bfd_get_mach(abfd), abfd);
	if (!fn) {
		snprintf(err, errlen, "libopcodes cannot disassemble %s code",
			 bfd_printable_name(abfd));
		return NULL;
	}
	d = op_xcalloc(1, sizeof(*d));
	d->abfd = abfd;
	d->syms = syms;
	d->fn = fn;
	init_disassemble_info(&d->info, d, print_plain, print_styled);
	d->info.application_data = d;
	d->info.flavour = bfd_get_flavour(abfd);
	d->info.arch = bfd_get_arch(abfd);
	d->info.mach = bfd_get_mach(abfd);
	d->info.endian = bfd_big_endian(abfd) ? BFD_ENDIAN_BIG :
						BFD_ENDIAN_LITTLE;
	d->info.endian_code = d->info.endian;
	d->info.read_memory_func = read_memory;
	d->info.print_address_func = print_address;
	disassemble_init_for_target(&d->info);
	add_code_sections(d);
	if (!d->nr_code) {
		/* a separate debug file: the code stayed in the binary */
		snprintf(err, errlen, "'%s' has no code, only its addresses",
			 bfd_get_filename(abfd));
		pp_disasm_free(d);
		return NULL;
	}
	return d;
}

unsigned pp_disasm_insn(struct pp_disasm *d, uint64_t vma, char *buf,
			size_t len)
{
	int n;

	buf[0] = '\0';
	if (!code_at(d, vma) || len < 2)
		return 0;
	d->out = buf;
	d->outlen = 0;
	d->outsize = len;
	n = d->fn((bfd_vma)vma, &d->info);
	d->out = NULL;
	return n > 0 ? (unsigned)n : 0;
}

unsigned pp_disasm_length(struct pp_disasm *d, uint64_t vma)
{
	char none[1] = "";
	int n;

	if (!code_at(d, vma))
		return 0;
	/* a one-byte buffer: the print callbacks return at once */
	d->out = none;
	d->outlen = 0;
	d->outsize = 1;
	n = d->fn((bfd_vma)vma, &d->info);
	d->out = NULL;
	return n > 0 ? (unsigned)n : 0;
}

void pp_disasm_free(struct pp_disasm *d)
{
	if (!d)
		return;
	disassemble_free_target(&d->info);
	for (size_t i = 0; i < d->nr_code; i++)
		free(d->code[i].bytes);
	free(d->code);
	free(d);
}
