/*
 * Kernel and module symbols from a session's saved kallsyms and kernel
 * image list (see pp_kernel.h). kallsyms is parsed once per session, the
 * first time a kernel image of that session is symbolised.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_config.h"
#include "op_message.h"
#include "op_session.h"
#include "op_session_kernel.h"

#include "pp_bfd.h"
#include "pp_kernel.h"
#include "pp_notes.h"

int pp_kernel_load(struct pp_kernel *k, char const *session_dir,
		   char *err, size_t errlen)
{
	struct op_kernel_image *v;
	size_t n;

	memset(k, 0, sizeof(*k));
	k->dir = op_session_path(session_dir, OP_META_DIR);
	if (op_session_kernel_images(k->dir, &v, &n, err, errlen)) {
		pp_kernel_free(k);
		return -1;
	}
	k->v = op_xcalloc(n + 1, sizeof(*k->v));
	for (size_t i = 0; i < n; i++)
		k->v[i] = (struct pp_kimage){
			.name = v[i].name, .start = v[i].start, .end = v[i].end,
		};
	k->n = n;
	free(v);  /* the names now belong to k */
	return 0;
}

bool pp_kernel_is_proper(char const *name)
{
	return !strcmp(name, OP_VMLINUX_IMAGE) || strchr(name, '/');
}

/* The image a kallsyms symbol belongs to: [mod], or the kernel proper. */
static struct pp_kimage *owner(struct pp_kernel *k, char const *mod)
{
	for (size_t i = 0; i < k->n; i++) {
		if (mod ? !strcmp(k->v[i].name, mod) :
			  pp_kernel_is_proper(k->v[i].name))
			return &k->v[i];
	}
	return NULL;
}

/* A module's symbols come in one run: the last answer is usually right. */
struct owner_memo {
	struct pp_kernel *k;
	struct pp_kimage *img;
	char mod[256];           /* "" with img: the kernel proper */
	bool known;
};

static struct pp_kimage *owner_of(struct owner_memo *m, char const *mod)
{
	if (m->known && (mod ? !strcmp(m->mod, mod) && m->mod[0] : !m->mod[0]))
		return m->img;
	m->img = owner(m->k, mod);
	m->known = !mod || (mod[0] && strlen(mod) < sizeof(m->mod));
	if (m->known)
		snprintf(m->mod, sizeof(m->mod), "%s", mod ? mod : "");
	return m->img;
}

static bool is_text_type(char t)
{
	return t == 'T' || t == 't' || t == 'W' || t == 'w';
}

/* A saved kallsyms symbol into the symbols of its image, if text. */
static void add_ksym(struct op_ksym const *sym, void *arg)
{
	char t = sym->type;
	struct pp_kimage *img;

	if (!is_text_type(t))
		return;
	img = owner_of(arg, sym->module);
	if (!img || sym->addr < img->start || sym->addr >= img->end)
		return;
	pp_symtab_add(&img->syms, sym->name, sym->addr, img->end,
		      t == 'T' ? 2 : t == 'W' ? 1 : 0, false);
}

static void load_kallsyms(struct pp_kernel *k)
{
	struct owner_memo memo = { .k = k };
	struct pp_strpool *pool = pp_strpool_new();
	bool any_address;
	int rc;

	k->loaded = true;
	/* 100k+ names: one pool for all images, shared by their copies */
	for (size_t i = 0; i < k->n; i++)
		pp_symtab_use_pool(&k->v[i].syms, pool);
	pp_strpool_unref(pool);
	rc = op_session_kallsyms(k->dir, add_ksym, &memo, &any_address);
	if (rc) {
		k->no_kallsyms = rc == -1;
		k->bad_kallsyms = rc == -2;
		if (rc == -1)
			return;
	}
	k->no_addresses = !any_address;
	for (size_t i = 0; i < k->n; i++)
		pp_symtab_finish(&k->v[i].syms);
}

int pp_kernel_binary(struct pp_kernel *k, char const *name,
		     struct pp_binary *b, char *err, size_t errlen)
{
	struct pp_kimage *img = NULL;

	memset(b, 0, sizeof(*b));
	for (size_t i = 0; i < k->n && !img; i++)
		if (!strcmp(k->v[i].name, name))
			img = &k->v[i];
	/* "vmlinux" is also the kernel proper of sessions that name it as
	 * OProfile 1.x does (/proc/kallsyms: pp_files.c) */
	if (!img && !strcmp(name, OP_VMLINUX_IMAGE))
		img = owner(k, NULL);
	if (!img) {
		snprintf(err, errlen, "no kernel image '%s' in %s/%s",
			 name, k->dir, OP_META_KERNEL_IMAGES);
		return -1;
	}
	if (!k->loaded)
		load_kallsyms(k);
	b->keymap = PP_KEY_BASE;
	b->base = img->start;
	if (!strcmp(name, OP_NO_VMLINUX_IMAGE)) {
		snprintf(err, errlen, "the daemon could not read kallsyms "
			 "while sampling (unreadable, or addresses hidden by "
			 "kernel.kptr_restrict)");
		return -1;
	}
	if (k->no_kallsyms) {
		snprintf(err, errlen, "no saved kallsyms in %s", k->dir);
		return -1;
	}
	if (k->bad_kallsyms) {
		snprintf(err, errlen, "%s/%s is not a kallsyms file (damaged "
			 "gzip data or no symbol line)", k->dir, OP_META_KALLSYMS);
		return -1;
	}
	if (k->no_addresses) {
		snprintf(err, errlen, "%s/%s was saved with hidden "
			 "addresses (kernel.kptr_restrict)", k->dir,
			 OP_META_KALLSYMS_PLAIN);
		return -1;
	}
	pp_symtab_copy(&b->symtab, &img->syms);
	return 0;
}

/* How many of img's kallsyms functions start at their place in b. */
static size_t matching_symbols(struct pp_kimage const *img,
			       struct pp_binary const *b)
{
	size_t ok = 0;

	for (size_t i = 0; i < img->syms.n; i++) {
		uint64_t vma = img->syms.v[i].start - img->start + b->base;
		struct pp_symbol const *s = pp_symtab_find(&b->symtab, vma);

		ok += s && s->start == vma;
	}
	return ok;
}

int pp_kernel_vmlinux(struct pp_kernel *k, char const *name,
		      char const *file, struct pp_binary *b, char *err,
		      size_t errlen)
{
	struct pp_kimage *img = NULL;
	size_t ok;

	for (size_t i = 0; i < k->n && !img; i++)
		if (!strcmp(k->v[i].name, name))
			img = &k->v[i];
	if (!img) {
		snprintf(err, errlen, "no kernel image '%s' in %s/%s",
			 name, k->dir, OP_META_KERNEL_IMAGES);
		return -1;
	}
	if (!k->loaded)
		load_kallsyms(k);
	if (pp_bfd_open(b, file, true, err, errlen))
		return -1;
	/* without kallsyms addresses the file cannot be checked: trusted */
	if (k->no_kallsyms || k->no_addresses || !img->syms.n)
		return 0;
	ok = matching_symbols(img, b);
	if (ok * 10 >= img->syms.n * 9)
		return 0;
	snprintf(err, errlen, "it is not the sampled kernel: %zu of the %zu "
		 "functions of the session's kallsyms are at their places in "
		 "it", ok, img->syms.n);
	pp_binary_free(b);
	return -1;
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
