/*
 * oparchive -o DIR [spec]: the sample files a profile specification
 * selects, every binary they name, their debug files, the sessions'
 * saved kernel symbols and settings, copied into DIR in OProfile's
 * archive layout (pp_archive.h), so that "opreport archive:DIR" and
 * "opannotate archive:DIR" report the same on any machine. --list-files
 * names the files instead of copying them; -x leaves out libraries,
 * kernel and modules of applications. The work is libpp's pp_archive.
 * Exit 0 on success, 1 on a runtime failure, 2 on a usage error.
 */
#include "config.h"

#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_config.h"
#include "op_file.h"
#include "op_message.h"
#include "pp_archive.h"
#include "pp_run.h"

static struct oparchive_opts {
	int list_files, exclude_dependent;
	char *output_dir, *session_dir, *image_path, *root;
} opts;

enum { OPT_SESSION_DIR = 256 };

static struct poptOption const options[] = {
	{ "output-directory", 'o', POPT_ARG_STRING, NULL, 'o', "the archive directory (created)", "dir" },
	{ "list-files", 'l', POPT_ARG_NONE, &opts.list_files, 0, "name the files that would be archived, copy nothing", NULL },
	{ "exclude-dependent", 'x', POPT_ARG_NONE, &opts.exclude_dependent, 0, "leave out libraries, kernel and modules of applications", NULL },
	PP_RUN_OPT_SESSION_DIR(OPT_SESSION_DIR),
	PP_RUN_OPT_IMAGE_PATH,
	PP_RUN_OPT_ROOT,
	POPT_AUTOHELP
	POPT_TABLEEND
};

#define usage_error(...) \
	op_usage_error("oparchive --help lists the options", __VA_ARGS__)

static void take_string(poptContext ctx, int val)
{
	char *arg = poptGetOptArg(ctx);
	char **field = val == 'o' ? &opts.output_dir :
		       val == 'p' ? &opts.image_path :
		       val == 'R' ? &opts.root :
		       val == OPT_SESSION_DIR ? &opts.session_dir : NULL;

	pp_run_keep(field, arg);
}

static int archive(int argc, char const *const *argv)
{
	struct pp_run_opts ro = {
		.session_dir = opts.session_dir, .image_path = opts.image_path,
		.root = opts.root, .exclude_dependent = opts.exclude_dependent,
		.callgraph = true,
	};
	struct pp_run r = { 0 };
	struct pp_archive_opts ao = {
		.dir = opts.output_dir, .session_dir = opts.session_dir,
		.locate = &r.locate,
		.list = opts.list_files ? stdout : NULL,
	};
	int rc;

	for (int i = 0; i < argc; i++)
		if (!strncmp(argv[i], "archive:", 8))
			usage_error("%s", "archive: cannot be archived again; copy the directory");
	rc = pp_run_select(&r, &ro, argc, argv,
			   "oparchive --help lists the options");
	if (!rc)
		rc = pp_archive(&r.files, &ao);
	pp_run_free(&r);
	return rc;
}

int main(int argc, char const **argv)
{
	char const *const *args;
	int nargs, rc;
	poptContext ctx = pp_run_options(argc, argv, options, take_string,
					 "oparchive --help lists the options",
					 &args, &nargs);

	if (!opts.output_dir && !opts.list_files)
		usage_error("%s", "say where to: --output-directory=DIR (-o), or --list-files");
	if (!opts.session_dir)
		opts.session_dir = op_xstrdup(OP_SESSION_DIR_DEFAULT);
	/* the session's files go to DIR at their own paths: a '..' would
	 * put them outside DIR, which nothing is written to */
	if (opts.output_dir && !opts.list_files &&
	    op_path_escapes(opts.session_dir))
		usage_error("--session-dir '%s' has a '..' component: its files "
			    "would be archived outside '%s'", opts.session_dir,
			    opts.output_dir);
	rc = archive(nargs, args);
	free(opts.output_dir);
	free(opts.session_dir);
	free(opts.image_path);
	free(opts.root);
	poptFreeContext(ctx);
	return rc ? 1 : 0;
}
