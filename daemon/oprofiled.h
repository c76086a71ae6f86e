/*
 * oprofiled's state and the functions its files share (oprofiled.c keeps
 * main, the options and the order of things: start and shutdown; one job
 * per file around it).
 */
#ifndef OPROFILED_H
#define OPROFILED_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>

#include "op_message.h"
#include "op_session_control.h"
#include "opd_core.h"
#include "opd_options.h"
#include "opd_rotate.h"
#include "opd_source.h"
#include "opd_stream_file.h"

/* Shipper processes at once (oprofiled_fleet.c): a few, as each takes
 * the spool's lock or leaves at once. */
#define FLEET_MAX_SHIPPERS 4

struct daemon {
	struct opd_options opt;
	struct opd_config cfg;
	struct opd_core *core;
	char *session_dir;              /* absolute */
	struct opd_source src;
	struct op_control ctl;
	int sigfd;
	int timerfd;
	uint64_t flushed_ns;            /* when samples last reached the files */
	int log_fd;                     /* -1 with --no-daemon */
	int log_broken;                 /* the log cannot be written: syslog */
	pid_t lock_pid;                 /* the pid the lock file names */
	struct stream_writer rec;       /* --record-stream */
	int recording;
	int sampling;
	int quit;
	struct opd_rotation rot;        /* --rotate's clock */
	struct opd_retention retain;    /* --keep, --keep-size, off the loop */
	uint64_t total_received;        /* samples of the sessions saved or reset */
	rlim_t nofile;                  /* the open-file limit it runs with */
	int fds_released;               /* sample files closed for want of fds */
	pid_t shippers[FLEET_MAX_SHIPPERS];  /* opfleet ship children; 0: free */
};

/* oprofiled_log.c */
void log_sink(void *ctx, enum op_message_kind kind, char const *text);
void log_msg(char const *fmt, ...) __attribute__((format(printf, 1, 2)));
int log_open(struct daemon *d);
void log_redirect(struct daemon *d);

/* oprofiled_session.c */
int write_stats(struct daemon *d);
int flush_to(struct daemon *d, uint64_t until_ns);
void deliver(unsigned long const *words, size_t n, void *arg);
int start_sampling(struct daemon *d);
int begin_sampling(struct daemon *d);
int stop_sampling(struct daemon *d);
int do_reset(struct daemon *d);
int do_save(struct daemon *d, char const *name, char *err, size_t errlen,
	    struct opd_stats *saved);

/* oprofiled_rotate.c */
void rotate(struct daemon *d, time_t start);
void rotate_on_time(struct daemon *d);
void rotate_setup(struct daemon *d);

/* oprofiled_fleet.c */
void fleet_setup(struct daemon *d);
/* queue session name for the shipper; fleet_closed also starts it */
void fleet_queue(struct daemon *d, char const *name);
void fleet_closed(struct daemon *d, char const *name);
void fleet_poll(struct daemon *d);
void fleet_log_stats(struct daemon *d);

/* oprofiled_control.c */
void handle_command(struct daemon *d, struct op_command const *c);
void handle_signals(struct daemon *d);
void handle_timer(struct daemon *d);
sigset_t daemon_signals(void);
int setup_fds(struct daemon *d);

/* oprofiled_loop.c */
int main_loop(struct daemon *d);

/* oprofiled_daemonise.c */
void daemonise(int *ready_fd);
void detach_stdio(struct daemon *d);
void tell_ready(int ready_fd);

/* oprofiled_fds.c */
void raise_fd_limit(struct daemon *d);
void fit_fd_limit(struct daemon *d);
void log_fd_limit(struct daemon *d);
void release_fds(void *arg);

/* oprofiled_replay.c */
int replay(struct daemon *d);

#endif /* OPROFILED_H */
