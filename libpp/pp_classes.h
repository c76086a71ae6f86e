/*
 * Classes: the columns of a report. Sample files are grouped by what
 * separates them (event, unit mask, thread, cpu) minus what --merge folds
 * together; a report can show one such axis side by side, never two, so
 * a second varying axis is refused with the choices to resolve it.
 */
#ifndef PP_CLASSES_H
#define PP_CLASSES_H

#include <stdbool.h>
#include <stddef.h>

#include "op_sample_file.h"
#include "pp_files.h"

/* --merge=cpu,lib,tid,tgid,unitmask,all */
struct pp_merge {
	bool cpu, lib, tid, tgid, unitmask;
};

/* Parse a --merge list; tgid implies tid. 0 or -1 with err. */
int pp_merge_parse(char const *text, struct pp_merge *m,
		   char *err, size_t errlen);

enum pp_axis {
	PP_AXIS_NONE,        /* one class */
	PP_AXIS_EVENT,       /* event name or count (and unit mask with them) */
	PP_AXIS_UNIT_MASK,   /* only the unit mask differs */
	PP_AXIS_TGID,
	PP_AXIS_TID,
	PP_AXIS_CPU,
};

struct pp_class {
	char *event;             /* event name */
	int count;               /* sampling period */
	int unit_mask;           /* -1: merged */
	int tgid, tid, cpu;      /* -1: "all" or merged */
	char *label;             /* short column name: "tid:123", "cpu:2" */
	bool has_header;         /* header below is from one of its files */
	struct opd_header header;
};

struct pp_classes {
	struct pp_class *v;
	size_t n, alloc;
	enum pp_axis axis;
};

/*
 * Group files into classes (setting each file's cls). Callgraph files
 * (files->cg) get the class of the sample files they match, or -1 when
 * none does: they never make a class of their own. Returns 0, or -1 with
 * err when more than one axis varies.
 */
int pp_classify(struct pp_filelist *files, struct pp_merge const *merge,
		struct pp_classes *out, char *err, size_t errlen);
void pp_classes_free(struct pp_classes *c);

/* A line describing class i for report headers ("" for event axes). */
char *pp_class_describe(struct pp_classes const *c, size_t i);

#endif /* PP_CLASSES_H */
