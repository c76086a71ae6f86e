/*
 * Opening a sampled image's symbols from wherever they come from: a
 * located user binary (libbfd), a kernel image (vmlinux or the session's
 * kallsyms), the sampled build's kept copy or debug file (see pp_image.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_build_id.h"
#include "op_mangle.h"
#include "op_perf_map.h"
#include "op_session.h"
#include "op_util.h"
#include "pp_bfd.h"
#include "pp_debuginfo.h"
#include "pp_image.h"
#include "pp_kernel.h"
#include "pp_locate.h"
#include "pp_notes.h"

void pp_image_locate(struct pp_image *im, struct pp_image_ref const *ref,
		     struct pp_locate *locate)
{
	struct stat st;

	if (ref->kern || ref->anon)
		return;
	im->path = pp_locate_image(locate, ref->name, im->why, sizeof(im->why));
	if (im->path && !stat(im->path, &st)) {
		im->have_mtime = true;
		im->mtime = (uint64_t)st.st_mtime;
	}
}

/* Keys through recorded segments: a debug file's sections have no file
 * contents, so its own file positions say nothing. */
static void map_segments(struct pp_binary *b, struct op_segment const *segs,
			 size_t n)
{
	b->nr_secs = 0;
	for (size_t i = 0; i < n; i++) {
		OP_ALLOC_GROW(b->secs, b->nr_secs + 1, b->alloc_secs);
		b->secs[b->nr_secs++] = (struct pp_section_map){
			.filepos = segs[i].offset,
			.size = segs[i].filesz,
			.vma = segs[i].vaddr,
		};
	}
}

/* The session's copy of one process's perf map is at most this big (the
 * daemon keeps 65536 entries of a process, each name at most 1 KiB). */
#define PP_JIT_MAP_MAX (80u << 20)

static bool has_symbol_in(struct pp_symtab const *t, uint64_t start,
			  uint64_t end)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].start < end && start < t->v[i].end)
			return true;
	return false;
}

/*
 * An anonymous region's symbols and code: the ELF image the daemon wrote
 * of its process's jitdump (session/jit/TGID.so, symbols and code at
 * their addresses) when it has functions in the region, else the
 * entries of its process's perf map that the daemon kept
 * (session/jit/TGID.map) inside the region; keys
 * are offsets from the region's start. The regions merged past the
 * daemon's bound (tgid 0) cannot be named: their offsets are from each
 * region's own start. No file: no symbols, nothing to say.
 */
static enum pp_image_failure anon_open(struct pp_image *im,
				       struct pp_image_ref const *ref,
				       struct pp_kernels *kernels,
				       char *what, size_t whatlen)
{
	struct op_perf_map_range r = { ref->anon_start, ref->anon_end };
	struct op_perf_map m = { 0 };
	char err[1024], *path, *text;
	size_t len;

	if (ref->anon_tgid <= 0 || !kernels || !kernels->files ||
	    ref->session >= kernels->files->nr_sessions)
		return PP_IMAGE_OK;
	/* the image written of the process's jitdump: names and code */
	path = op_xasprintf("%s/%s/%s/%d.so",
			    kernels->files->sessions[ref->session].dir,
			    OP_META_DIR, OP_META_JIT, ref->anon_tgid);
	if (!access(path, F_OK)) {
		if (pp_bfd_open(&im->bin, path, false, err, sizeof(err))) {
			snprintf(what, whatlen, "no JIT symbols for '%s': "
				 "'%s': %s", ref->display, path, err);
			free(path);
			return PP_IMAGE_UNREADABLE;
		}
		/* none in this region (cut by the daemon's bounds): the
		 * perf map may have some */
		if (has_symbol_in(&im->bin.symtab, ref->anon_start,
				  ref->anon_end)) {
			im->path = path;
			im->bin.keymap = PP_KEY_BASE;
			im->bin.base = ref->anon_start;
			return PP_IMAGE_OK;
		}
		pp_binary_free(&im->bin);
	}
	free(path);
	path = op_xasprintf("%s/%s/%s/%d.map",
			    kernels->files->sessions[ref->session].dir,
			    OP_META_DIR, OP_META_JIT, ref->anon_tgid);
	text = op_read_file(path, PP_JIT_MAP_MAX, &len, err, sizeof(err));
	free(path);
	if (!text) {
		if (errno == ENOENT)
			return PP_IMAGE_OK;
		snprintf(what, whatlen, "no JIT symbols for '%s': %s",
			 ref->display, err);
		return PP_IMAGE_UNREADABLE;
	}
	op_perf_map_parse(&m, text, len, &r, 1, 0);
	free(text);
	for (size_t i = 0; i < m.n; i++)
		pp_symtab_add(&im->bin.symtab, m.v[i].name, m.v[i].start,
			      m.v[i].start + m.v[i].size, 0, false);
	pp_symtab_finish(&im->bin.symtab);
	op_perf_map_free(&m);
	im->bin.keymap = PP_KEY_BASE;
	im->bin.base = ref->anon_start;
	im->bin.jit_map = true;
	return PP_IMAGE_OK;
}

enum pp_image_failure pp_image_open(struct pp_image *im,
				    struct pp_image_ref const *ref,
				    bool is_kernel, struct pp_kernels *kernels,
				    char *what, size_t whatlen)
{
	char err[1024];

	if (ref->anon)
		return anon_open(im, ref, kernels, what, whatlen);
	if (ref->kern || (is_kernel && !im->path)) {
		struct pp_kernel *k = pp_kernels_get(kernels, ref->session);

		if (k && kernels->vmlinux && pp_kernel_is_proper(ref->name)) {
			if (!pp_kernel_vmlinux(k, ref->name, kernels->vmlinux,
					       &im->bin, err, sizeof(err))) {
				im->path = op_xstrdup(kernels->vmlinux);
				return PP_IMAGE_OK;
			}
			pp_note(kernels->notes, "--vmlinux '%s' not used for "
				"kernel image '%s': %s; its symbols come from "
				"the session's kallsyms", kernels->vmlinux,
				ref->display, err);
		}

		if (!k || !pp_kernel_binary(k, ref->name, &im->bin, err,
					    sizeof(err)))
			return PP_IMAGE_OK;
		snprintf(what, whatlen, "no symbols for kernel image '%s': %s",
			 ref->display, err);
		return PP_IMAGE_NO_KERNEL_SYMBOLS;
	}
	if (!im->path) {
		snprintf(what, whatlen, "cannot find binary '%s' (%s)",
			 ref->display, im->why);
		return PP_IMAGE_NOT_FOUND;
	}
	if (!pp_bfd_open(&im->bin, im->path, is_kernel, err, sizeof(err))) {
		if (im->nr_segs)
			map_segments(&im->bin, im->segs, im->nr_segs);
		return PP_IMAGE_OK;
	}
	snprintf(what, whatlen, "cannot read symbols of '%s': %s", im->path,
		 err);
	return PP_IMAGE_UNREADABLE;
}

void pp_image_free(struct pp_image *im)
{
	pp_binary_free(&im->bin);
	free(im->segs);
	free(im->path);
	memset(im, 0, sizeof(*im));
}

/*
 * The binary at the sampled path is another build (or gone): when the
 * session recorded the sampled build's segments and its debug file is
 * found by build-id, symbols and lines come from that file, its keys
 * mapped through the recorded segments.
 */
static bool use_sampled_debug(struct pp_image *im,
			      struct pp_image_ref const *ref,
			      char const *dir, char const *want,
			      char const *have, struct pp_strlist *notes)
{
	struct op_segment *segs;
	struct pp_build_id id;
	enum pp_debug_how how;
	size_t n;
	char *dpath;

	if (!pp_build_id_parse(want, &id))
		return false;
	n = pp_session_segments(dir, want, &segs);
	if (!n)
		return false;
	dpath = pp_debuginfo_find_id(&id, &how);
	if (!dpath) {
		free(segs);
		return false;
	}
	if (im->quiet)
		;
	else if (im->path)
		pp_note(notes, "'%s' is another build than the one "
			"sampled (build-id %s, the session recorded %s): "
			"symbols and lines come from the sampled build's debug "
			"file '%s' (found by %s)", im->path,
			have[0] ? have : "none", want, dpath,
			pp_debug_how_name(how));
	else
		pp_note(notes, "'%s' is gone: symbols and lines come "
			"from the sampled build's debug file '%s' (found by "
			"%s)", ref->name, dpath, pp_debug_how_name(how));
	free(im->path);
	im->path = dpath;
	im->have_mtime = false;
	im->segs = segs;
	im->nr_segs = n;
	return true;
}

bool pp_image_check_build(struct pp_image *im,
			  struct pp_image_ref const *ref,
			  char const *session_dir, char const *want,
			  struct pp_strlist *notes)
{
	char have[OP_BUILD_ID_HEX_MAX] = "";
	struct stat st;
	char *kept;

	if (im->path && !op_build_id_of(im->path, have) && !strcmp(want, have))
		return false;
	kept = op_xasprintf("%s/%s/%s/%s", session_dir, OP_META_DIR,
			    OP_META_BINARIES, want);
	if (!stat(kept, &st) && S_ISREG(st.st_mode)) {
		free(im->path);
		im->path = kept;
		im->have_mtime = true;
		im->mtime = (uint64_t)st.st_mtime;
		return false;
	}
	free(kept);
	if (use_sampled_debug(im, ref, session_dir, want, have, notes))
		return false;
	if (!im->path) {
		char *why = op_xasprintf("binary for build %s not found: "
					 "%s; no copy in %s/%s, no debug file "
					 "by build-id", want,
					 im->why, OP_META_DIR,
					 OP_META_BINARIES);

		snprintf(im->why, sizeof(im->why), "%s", why);
		free(why);
		return false;
	}
	if (!im->quiet)
		pp_note(notes, "binary for build %s not found (no copy in "
			"%s/%s, no debug file by build-id): '%s' is "
			"not the binary that was sampled: its build-id is %s, "
			"the session recorded %s; its samples are shown "
			"without symbols", want, OP_META_DIR,
			OP_META_BINARIES, im->path, have[0] ? have : "none",
			want);
	return true;
}

bool pp_image_find(struct pp_image *im, struct pp_image_ref const *ref,
		   struct pp_locate *locate, char const *session_dir,
		   char const *want, struct pp_strlist *notes)
{
	struct pp_image_ref at = *ref;
	char hex[OP_BUILD_ID_HEX_MAX];
	char *path = NULL;
	char const *id;
	size_t plen, idlen;
	bool rebuilt = false;

	if (ref->kern || ref->anon)
		return false;
	/* a later build of its path names itself: PATH/{build:ID} */
	plen = op_build_tag_split(ref->name, &id, &idlen);
	if (plen) {
		path = op_xasprintf("%.*s", (int)plen, ref->name);
		at.name = path;
		want = NULL;	/* 'm': no build-id, the mtime tells */
		if (id[0] != 'm' && idlen < sizeof(hex)) {
			snprintf(hex, sizeof(hex), "%.*s", (int)idlen, id);
			want = hex;
		}
	}
	pp_image_locate(im, &at, locate);
	if (!plen && !want && session_dir &&
	    pp_session_build_id(session_dir, at.name, im->mtime, hex,
				sizeof(hex)))
		want = hex;
	if (want && session_dir)
		rebuilt = pp_image_check_build(im, &at, session_dir, want,
					       notes);
	free(path);
	return rebuilt;
}
