/*
 * What operf, ocount and opwatch share about the processes they watch: a
 * command forked stopped until its events are open, then exec'ed (an
 * exec failure comes back as the errno through a close-on-exec pipe), its
 * words and its exit status; the command line; the stop signals; whether
 * a pid still runs; the threads of a process; whether the user may see
 * kernel mode.
 */
#ifndef OP_CHILD_H
#define OP_CHILD_H

#include <popt.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct op_child {
	pid_t pid;		/* 0: none */
	int go_fd, err_fd;	/* the parent's ends of the two pipes */
};

/* Fork argv; the child waits for op_child_start. 0 or -1 (said). */
int op_child_fork(struct op_child *c, char **argv);

/* Let the child exec argv; -1 with the exec's error said, naming argv[0]. */
int op_child_start(struct op_child *c, char const *name);

/* Kill and reap a child not waited for yet; close the pipes. */
void op_child_kill(struct op_child *c);

/*
 * argv through popt for tool name, options first (POSIXMEHARDER: the
 * command's own options stay its own). Each option with a val goes to
 * take(ctx, val, arg) (take NULL: there is none); a bad option is a usage
 * error (exit 2). The caller frees the context.
 */
poptContext op_child_options(char const *name, int argc, char const **argv,
			     struct poptOption const *options,
			     void (*take)(poptContext ctx, int val, void *arg),
			     void *arg);

/* The command words popt left (NULL-ended) copied, or NULL for none. */
char **op_child_argv(char const *const *words);

/* Free what op_child_argv returned (NULL: nothing). */
void op_child_argv_free(char **argv);

/* The command's wait status as a shell gives it: its exit code, or 128 +
 * the signal that killed it. */
int op_child_exit_status(int status);

/* Set by SIGTERM, and by SIGINT unless a command is watched. */
extern volatile sig_atomic_t op_child_stop;

/*
 * Catch SIGTERM and SIGINT into op_child_stop, without SA_RESTART (a poll
 * returns). With a command, SIGINT is ignored: the terminal's Ctrl-C
 * reaches the command, and its exit ends the run.
 */
void op_child_catch_stop(bool command);

/* Whether pid exists and is no zombie (a parent may not have waited). */
bool op_pid_running(pid_t pid);

/* The threads of pid, pid first, in a malloc'ed array: the count, or -1
 * with a message naming the process. */
int op_pid_threads(pid_t pid, pid_t **out);

/*
 * Whether this user's events on their own tasks may include kernel mode:
 * root, or kernel.perf_event_paranoid <= 1.
 */
bool op_kernel_visible(void);

#endif /* OP_CHILD_H */
