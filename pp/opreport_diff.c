/* opreport "{ old } { new }": a differential profile; see opreport.h. */
#include "config.h"

#include "op_message.h"
#include "opreport.h"
#include "pp_diff.h"

/* "{ old } { new }": both sides, matched, with a diff % column. */
int opreport_diff(struct run *run, int const first[2],
		  int const count[2], char const *const *argv)
{
	struct side s[2] = { 0 };
	struct pp_classes classes = { 0 };
	struct pp_profile diff = { 0 };
	char err[1024];
	int rc;

	if (opts.details || opts.xml || opts.callgraph)
		usage_error("%s", "differential profiles cannot be shown with --details, --xml or --callgraph");
	run->output.diff = true;
	rc = opreport_build(run, &s[0], count[0], argv + first[0]);
	if (!rc)
		rc = opreport_build(run, &s[1], count[1], argv + first[1]);
	if (!rc && pp_diff_classes(&classes, &s[0].classes, &s[1].classes, err, sizeof(err)))
		rc = op_error("%s", err);
	if (!rc) {
		pp_diff_profiles(&diff, &s[0].profile, &s[1].profile, opts.long_names);
		rc = opreport_write(run, &diff, &classes, s[1].text);
	}
	pp_profile_free(&diff);
	pp_classes_free(&classes);
	opreport_side_free(&s[0]);
	opreport_side_free(&s[1]);
	return rc;
}
