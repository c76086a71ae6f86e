/*
 * operf: profile one command (and every process it starts), running
 * processes, or the whole system, into a session directory that opreport
 * reads unchanged. It runs the daemon's core (opd_core.h) and the perf
 * source (opd_perf.h) in its own process: no daemon, no opcontrol.
 * operf.c turns the options into this configuration; operf_run.c samples.
 */
#ifndef OPERF_H
#define OPERF_H

#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "opd_core.h"

enum operf_target {
	OPERF_COMMAND,		/* argv: run it, follow its children */
	OPERF_PID,		/* a running process and its threads */
	OPERF_SYSTEM,		/* every process on every cpu */
};

struct operf_options {
	enum operf_target target;
	char **argv;		/* OPERF_COMMAND */
	pid_t pid;		/* OPERF_PID */
	char *session_dir;	/* absolute */
	unsigned callgraph;	/* depth, 0: none */
	int stack_size;		/* --stack-size: -1 default, 0 FP only */
	bool kernel_hidden;	/* kernel mode dropped: not allowed */
	int verbose;
	char *record_stream;	/* also write the stream words here, or NULL */
	struct opd_config cfg;	/* the core's; session_dir points above */
};

/* What happened to the command. */
struct operf_result {
	int status;		/* wait4 status of the command */
	struct rusage ru;	/* its and its waited-for children's */
	double elapsed;		/* seconds */
};

/*
 * Sample as o says until the command exits (OPERF_COMMAND), the process
 * is gone (OPERF_PID), or SIGINT/SIGTERM. 0, or -1 with a message.
 */
int operf_run(struct operf_options const *o, struct operf_result *res);

#endif /* OPERF_H */
