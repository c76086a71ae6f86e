/*
 * Kernel and module symbols from a session's saved kallsyms and kernel
 * image list (see pp_kernel.h). kallsyms is parsed once per session, the
 * first time a kernel image of that session is symbolised.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "op_message.h"

#include "pp_kernel.h"
#include "pp_notes.h"

static void add_image(struct pp_kernel *k, char const *name, uint64_t start,
		      uint64_t end)
{
	k->v = op_xrealloc(k->v, (k->n + 1) * sizeof(*k->v));
	k->v[k->n] = (struct pp_kimage){
		.name = op_xstrdup(name), .start = start, .end = end,
	};
	k->n++;
}

int pp_kernel_load(struct pp_kernel *k, char const *session_dir,
		   char *err, size_t errlen)
{
	char path[4096], name[4096], line[8192];
	unsigned lineno = 0;
	FILE *f;

	memset(k, 0, sizeof(*k));
	snprintf(path, sizeof(path), "%s/session", session_dir);
	k->dir = op_xstrdup(path);
	snprintf(path, sizeof(path), "%s/kernel_images", k->dir);
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "cannot open '%s': %s", path,
			 strerror(errno));
		pp_kernel_free(k);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		uint64_t start, end;

		lineno++;
		if (line[strspn(line, " \t\n")] == '\0')
			continue;
		if (sscanf(line, "%4095s %" SCNx64 " %" SCNx64, name, &start,
			   &end) != 3 || end < start) {
			snprintf(err, errlen, "%s:%u: expected 'NAME 0xSTART "
				 "0xEND'", path, lineno);
			fclose(f);
			pp_kernel_free(k);
			return -1;
		}
		add_image(k, name, start, end);
	}
	fclose(f);
	return 0;
}

static bool is_kernel_proper(char const *name)
{
	return !strcmp(name, "vmlinux") || strchr(name, '/');
}

/* The image a kallsyms symbol belongs to: [mod], or the kernel proper. */
static struct pp_kimage *owner(struct pp_kernel *k, char const *mod)
{
	for (size_t i = 0; i < k->n; i++) {
		if (mod ? !strcmp(k->v[i].name, mod) :
			  is_kernel_proper(k->v[i].name))
			return &k->v[i];
	}
	return NULL;
}

static bool is_text_type(char t)
{
	return t == 'T' || t == 't' || t == 'W' || t == 'w';
}

/* "ADDR TYPE NAME[\t[MOD]]" */
static void parse_line(struct pp_kernel *k, char *line, bool *nonzero)
{
	char *end, *name, *mod, *save;
	struct pp_kimage *img;
	uint64_t addr;
	char type;

	addr = strtoull(line, &end, 16);
	if (end == line || *end != ' ')
		return;
	type = end[1];
	if (!type || end[2] != ' ')
		return;
	name = strtok_r(end + 3, " \t\n", &save);
	mod = strtok_r(NULL, " \t\n", &save);
	if (!name)
		return;
	if (addr)
		*nonzero = true;
	if (mod) {
		size_t len = strlen(mod);
		if (mod[0] != '[' || mod[len - 1] != ']')
			return;
		mod[len - 1] = '\0';
		mod++;
	}
	img = owner(k, mod);
	if (!img || !is_text_type(type) || addr < img->start ||
	    addr >= img->end)
		return;
	pp_symtab_add(&img->syms, name, addr, img->end,
		      type == 'T' ? 2 : type == 'W' ? 1 : 0, false);
}

static void load_kallsyms(struct pp_kernel *k)
{
	char path[4096], line[8192];
	bool nonzero = false;
	gzFile f;

	k->loaded = true;
	/* the daemon saves it gzipped; gzopen reads a plain copy as well */
	snprintf(path, sizeof(path), "%s/kallsyms.gz", k->dir);
	f = gzopen(path, "rb");
	if (!f) {
		snprintf(path, sizeof(path), "%s/kallsyms", k->dir);
		f = gzopen(path, "rb");
	}
	if (!f) {
		k->no_kallsyms = true;
		return;
	}
	while (gzgets(f, line, sizeof(line)))
		parse_line(k, line, &nonzero);
	gzclose(f);
	k->no_addresses = !nonzero;
	for (size_t i = 0; i < k->n; i++)
		pp_symtab_finish(&k->v[i].syms);
}

static void copy_symtab(struct pp_symtab *dst, struct pp_symtab const *src)
{
	for (size_t i = 0; i < src->n; i++)
		pp_symtab_add(dst, src->v[i].name, src->v[i].start,
			      src->v[i].limit, src->v[i].rank, false);
	pp_symtab_finish(dst);
}

int pp_kernel_binary(struct pp_kernel *k, char const *name,
		     struct pp_binary *b, char *err, size_t errlen)
{
	struct pp_kimage *img = NULL;

	memset(b, 0, sizeof(*b));
	for (size_t i = 0; i < k->n && !img; i++)
		if (!strcmp(k->v[i].name, name))
			img = &k->v[i];
	if (!img) {
		snprintf(err, errlen, "no kernel image '%s' in %s/kernel_images",
			 name, k->dir);
		return -1;
	}
	if (!k->loaded)
		load_kallsyms(k);
	b->keymap = PP_KEY_BASE;
	b->base = img->start;
	if (k->no_kallsyms) {
		snprintf(err, errlen, "no saved kallsyms in %s", k->dir);
		return -1;
	}
	if (k->no_addresses) {
		snprintf(err, errlen, "%s/kallsyms was saved with hidden "
			 "addresses (kernel.kptr_restrict)", k->dir);
		return -1;
	}
	copy_symtab(&b->symtab, &img->syms);
	return 0;
}

void pp_kernel_free(struct pp_kernel *k)
{
	for (size_t i = 0; i < k->n; i++) {
		free(k->v[i].name);
		pp_symtab_free(&k->v[i].syms);
	}
	free(k->v);
	free(k->dir);
	memset(k, 0, sizeof(*k));
}

void pp_kernels_init(struct pp_kernels *k, struct pp_filelist const *files,
		     struct pp_strlist *notes)
{
	*k = (struct pp_kernels){
		.files = files, .notes = notes,
		.v = op_xcalloc(files->nr_sessions + 1, sizeof(*k->v)),
		.state = op_xcalloc(files->nr_sessions + 1, sizeof(int)),
	};
}

struct pp_kernel *pp_kernels_get(struct pp_kernels *k, size_t s)
{
	char err[1024];

	if (!k->state[s]) {
		k->state[s] = 1;
		if (pp_kernel_load(&k->v[s], k->files->sessions[s].dir, err,
				   sizeof(err))) {
			pp_note(k->notes, "no kernel symbols for session "
				"'%s': %s", k->files->sessions[s].name, err);
			k->state[s] = -1;
		}
	}
	return k->state[s] > 0 ? &k->v[s] : NULL;
}

void pp_kernels_free(struct pp_kernels *k)
{
	for (size_t s = 0; k->files && s < k->files->nr_sessions; s++)
		if (k->state[s] > 0)
			pp_kernel_free(&k->v[s]);
	free(k->v);
	free(k->state);
	memset(k, 0, sizeof(*k));
}
