/*
 * What operf, ocount and opwatch share about the processes they watch: a
 * command forked stopped until its events are open, then exec'ed (an
 * exec failure comes back as the errno through a close-on-exec pipe);
 * whether a pid still runs; the threads of a process; whether the user
 * may see kernel mode.
 */
#ifndef OP_CHILD_H
#define OP_CHILD_H

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
