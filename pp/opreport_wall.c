/* opreport --wall: on-CPU and off-CPU time per thread (pp_wall.h); see
 * opreport.h. */
#include "config.h"

#include <stdio.h>

#include "op_message.h"
#include "opreport.h"
#include "pp_wall.h"

int opreport_wall(struct run *run, int argc, char const *const *argv)
{
	struct pp_wall w;
	struct side s = { 0 };
	char err[512];
	int rc;

	if (opts.xml || opts.callgraph || opts.output || opts.processes)
		usage_error("%s", "--wall is a text report on stdout: no --xml, "
			    "--callgraph, --output-file or --processes");
	/* one class per event: the rows come from the files' names */
	run->merge = (struct pp_merge){ .cpu = true, .tid = true, .tgid = true,
					.unitmask = true };
	rc = opreport_build(run, &s, argc, argv);
	if (!rc && pp_wall_build(&w, &s.files, &run->notes, err, sizeof(err)))
		rc = op_error("%s", err);
	if (!rc) {
		pp_wall_print(stdout, &w, opts.threshold);
		for (size_t i = 0; i < run->notes.n; i++)
			printf("Note: %s\n", run->notes.v[i]);
		pp_wall_free(&w);
	}
	opreport_side_free(&s);
	return rc;
}
