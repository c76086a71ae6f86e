/* SPDX-License-Identifier: GPL-2.0 */
/* The sync (buffer_sync.c): cpu rings -> the event buffer's stream. */
#ifndef OP_BUFFER_SYNC_H
#define OP_BUFFER_SYNC_H

void op_sync_init(void);
/* Its record buffer, and a new stream (nothing known, nothing reported). */
int op_sync_alloc(void);
void op_sync_free(void);
/* Start the stream over: the next record says the whole context. */
void op_sync_reset_stream(void);

/* Move everything in the cpu rings to the event buffer. op_mutex held. */
void op_sync(void);
/* The periodic sync while sampling (HZ/10). */
void op_sync_schedule(void);
/* Stop it; op_mutex held, so a running one waits and does not re-arm. */
void op_sync_cancel(void);
/* Stop it and wait for a running one; op_mutex not held. */
void op_sync_cancel_wait(void);

#endif
