/* opreport --processes: Prospect's process summary (pp_procsum.h); see
 * opreport.h. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_message.h"
#include "opreport.h"
#include "pp_procsum.h"

/*
 * One process's profile: the specification and the process's word
 * ("tgid:N" or "image:APP"), which takes the place of the user's own
 * words of that tag: the process is one of those they select, and a tag
 * may be given once.
 */
static int process_profile(struct run *run, struct pp_proc const *proc,
			   int argc, char const *const *argv)
{
	char const **args = op_xcalloc((size_t)argc + 2, sizeof(*args));
	char *word = pp_procsum_spec(proc);
	size_t tag = strchr(word, ':') - word + 1;
	struct side s = { 0 };
	int n = 0, rc;

	for (int i = 0; i < argc; i++)
		if (strncmp(argv[i], word, tag))
			args[n++] = argv[i];
	args[n] = word;
	rc = opreport_build(run, &s, n + 1, args);
	if (!rc)
		pp_procsum_print_portions(stdout, proc, &s.profile, &s.files,
					  opts.threshold);
	opreport_side_free(&s);
	free(word);
	free(args);
	return rc;
}

void opreport_processes_usage(void)
{
	if (opts.xml || opts.callgraph || opts.output)
		usage_error("%s", "--processes is a text report on stdout: no --xml, --callgraph or --output-file");
}

int opreport_processes(struct run *run, int argc, char const *const *argv)
{
	struct pp_procsum sum;
	struct side s = { 0 };
	uint64_t all;
	char err[512];
	int rc;

	opreport_processes_usage();
	run->merge = (struct pp_merge){ .cpu = true, .tid = true, .tgid = true,
					.unitmask = true };
	run->populate.symbols = true;
	rc = opreport_build(run, &s, argc, argv);
	if (!rc && pp_procsum_build(&sum, &s.files, &run->notes, err, sizeof(err)))
		rc = op_error("%s", err);
	if (rc) {
		opreport_side_free(&s);
		return rc;
	}
	pp_procsum_print(stdout, &sum, opts.threshold);
	all = sum.user + sum.sys;
	for (size_t i = 0; !rc && i < sum.n; i++)
		if (100.0 * (double)(sum.v[i].user + sum.v[i].sys) >=
		    opts.threshold * (double)all)
			rc = process_profile(run, &sum.v[i], argc, argv);
	if (!rc)
		pp_procsum_print_kernel(stdout, &s.profile, &s.files,
					opts.threshold);
	pp_procsum_free(&sum);
	opreport_side_free(&s);
	return rc;
}
