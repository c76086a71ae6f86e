/* opreport: the report of one profile (image summary, -l, -c; text or
 * -X), written to stdout or -o; see opreport.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "op_file.h"
#include "op_message.h"
#include "opreport.h"
#include "pp_output_text.h"
#include "pp_output_xml.h"

int opreport_write(struct run *run, struct pp_profile const *p,
		   struct pp_classes const *c, char const *spec)
{
	struct pp_report r = { p, c, &run->notes, spec,
			       run->fleet.n ? &run->fleet : NULL };
	FILE *out = stdout;
	char err[512];
	int rc = 0;

	if (opts.output && !(out = op_fopen_output(opts.output)))
		return op_error("cannot write '%s': %s", opts.output,
				op_file_strerror(errno));
	if (opts.xml)
		rc = pp_output_xml(out, &r, &run->output, err, sizeof(err));
	else
		pp_output_text(out, &r, &run->output);
	if (rc)
		op_error("%s", err);
	if ((out != stdout ? fclose(out) : fflush(out)) && !rc)
		rc = op_error_errno("writing the report failed");
	return rc;
}

int opreport_single(struct run *run, int argc, char const *const *argv)
{
	struct side s = { 0 };
	int rc = opreport_build(run, &s, argc, argv);

	if (!rc)
		rc = opreport_write(run, &s.profile, &s.classes, s.text);
	opreport_side_free(&s);
	return rc;
}
