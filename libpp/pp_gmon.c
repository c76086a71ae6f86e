/* gprof's gmon.out; see pp_gmon.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_file.h"
#include "op_util.h"
#include "pp_gmon.h"

enum { TAG_TIME_HIST = 0, TAG_CG_ARC = 1 };

void pp_gmon_init(struct pp_gmon *g, uint64_t lowpc, uint64_t highpc,
		  uint32_t rate)
{
	memset(g, 0, sizeof(*g));
	g->lowpc = lowpc;
	g->nr_bins = (highpc - lowpc + PP_GMON_BIN_BYTES - 1) /
		     PP_GMON_BIN_BYTES;
	g->highpc = lowpc + g->nr_bins * PP_GMON_BIN_BYTES;
	g->bins = op_xcalloc(g->nr_bins ? g->nr_bins : 1, sizeof(*g->bins));
	g->rate = rate ? rate : 100;
}

void pp_gmon_add(struct pp_gmon *g, uint64_t vma, uint64_t count)
{
	if (vma < g->lowpc || vma >= g->highpc) {
		g->outside += count;
		return;
	}
	g->bins[(vma - g->lowpc) / PP_GMON_BIN_BYTES] += count;
}

void pp_gmon_add_arc(struct pp_gmon *g, uint64_t from, uint64_t self,
		     uint64_t count)
{
	OP_ALLOC_GROW(g->arcs, g->nr_arcs + 1, g->alloc_arcs);
	g->arcs[g->nr_arcs++] = (struct pp_gmon_arc){ from, self, count };
}

static void put_pc(FILE *f, uint64_t pc)
{
	void *p = (void *)(uintptr_t)pc;

	fwrite(&p, sizeof(p), 1, f);
}

static void put_u32(FILE *f, uint64_t v)
{
	uint32_t u = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;

	fwrite(&u, sizeof(u), 1, f);
}

int pp_gmon_write(struct pp_gmon const *g, char const *path,
		  uint64_t *scale, char *err, size_t errlen)
{
	char hdr[20] = "gmon";
	int32_t version = 1;
	char dimen[15] = "seconds";
	uint64_t max = 0;
	FILE *f = op_fopen_output(path);

	if (!f) {
		snprintf(err, errlen, "cannot write '%s': %s", path,
			 op_file_strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < g->nr_bins; i++)
		max = g->bins[i] > max ? g->bins[i] : max;
	*scale = max > UINT16_MAX ? (max + UINT16_MAX - 1) / UINT16_MAX : 1;
	memcpy(hdr + 4, &version, sizeof(version));
	fwrite(hdr, sizeof(hdr), 1, f);
	fputc(TAG_TIME_HIST, f);
	put_pc(f, g->lowpc);
	put_pc(f, g->highpc);
	put_u32(f, g->nr_bins);
	put_u32(f, g->rate);
	fwrite(dimen, sizeof(dimen), 1, f);
	fputc('s', f);
	for (size_t i = 0; i < g->nr_bins; i++) {
		uint16_t b = (uint16_t)(g->bins[i] / *scale);

		fwrite(&b, sizeof(b), 1, f);
	}
	for (size_t i = 0; i < g->nr_arcs; i++) {
		fputc(TAG_CG_ARC, f);
		put_pc(f, g->arcs[i].from);
		put_pc(f, g->arcs[i].self);
		put_u32(f, g->arcs[i].count);
	}
	if (ferror(f) | fclose(f)) {
		snprintf(err, errlen, "cannot write '%s': %s", path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

void pp_gmon_free(struct pp_gmon *g)
{
	free(g->bins);
	free(g->arcs);
	memset(g, 0, sizeof(*g));
}
