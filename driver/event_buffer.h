/* SPDX-License-Identifier: GPL-2.0 */
/* The event buffer and /dev/oprofile/buffer (event_buffer.c). */
#ifndef OP_EVENT_BUFFER_H
#define OP_EVENT_BUFFER_H

#include <linux/fs.h>
#include <linux/wait.h>

extern const struct file_operations op_buffer_fops;
extern wait_queue_head_t op_buffer_wait;

/* The buffer of op_buffer_size words, empty. */
int op_event_buffer_alloc(void);
void op_event_buffer_free(void);
/* Add a whole record or nothing; false: it did not fit. */
bool op_event_buffer_add(unsigned long const *w, unsigned long n);
/* Words not read yet (op_mutex held). */
unsigned long op_event_buffer_used(void);

#endif
