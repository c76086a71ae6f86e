// SPDX-License-Identifier: GPL-2.0
/*
 * The event buffer: one ring of words that the sync fills with whole
 * escape-coded records and /dev/oprofile/buffer hands to the daemon.
 * Opening buffer allocates every buffer (one reader at a time); closing it
 * stops sampling and frees them.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "buffer_sync.h"
#include "compat.h"
#include "event_buffer.h"
#include "oprof.h"

static unsigned long buffer_opened;     /* bit 0: buffer has its one reader */
DECLARE_WAIT_QUEUE_HEAD(op_buffer_wait);
static unsigned long *ebuf;             /* ring of op_buffer_size words */
static unsigned long ebuf_size, ebuf_head, ebuf_tail; /* head - tail words used */

int op_event_buffer_alloc(void)
{
	ebuf_size = op_buffer_size;
	ebuf_head = ebuf_tail = 0;
	ebuf = vmalloc(array_size(ebuf_size, sizeof(unsigned long)));
	return ebuf ? 0 : -ENOMEM;
}

void op_event_buffer_free(void)
{
	vfree(ebuf);
	ebuf = NULL;
}

static unsigned long ebuf_used(void)
{
	return ebuf_head - ebuf_tail;
}

/* Add a whole record or nothing (so the decoder never sees half of one).
 * The caller counts what a failure loses. */
bool op_event_buffer_add(unsigned long const *w, unsigned long n)
{
	unsigned long i;

	if (!ebuf || ebuf_size - ebuf_used() < n)
		return false;
	for (i = 0; i < n; i++)
		ebuf[(ebuf_head + i) % ebuf_size] = w[i];
	ebuf_head += n;
	if (ebuf_used() >= ebuf_size - min(op_buffer_watershed, ebuf_size))
		wake_up_interruptible(&op_buffer_wait);
	return true;
}

static bool ebuf_ready(void)
{
	return op_dump || op_stopped ||
		ebuf_used() >= ebuf_size - min(op_buffer_watershed, ebuf_size);
}
static int buffer_open(struct inode *inode, struct file *file)
{
	int err;

	if (!perfmon_capable())
		return -EPERM;
	if (test_and_set_bit_lock(0, &buffer_opened))
		return -EBUSY;
	mutex_lock(&op_mutex);
	err = op_alloc_buffers();
	if (!err) {
		op_setup = true;
		op_stopped = false;
		op_dump = false;
	}
	mutex_unlock(&op_mutex);
	if (err) {
		clear_bit_unlock(0, &buffer_opened);
		return err;
	}
	return nonseekable_open(inode, file);
}

static int buffer_release(struct inode *inode, struct file *file)
{
	mutex_lock(&op_mutex);
	op_stop();
	op_setup = false;
	op_free_buffers();
	mutex_unlock(&op_mutex);
	op_sync_cancel_wait();
	clear_bit_unlock(0, &buffer_opened);
	return 0;
}

/*
 * Whole words, as many as fit in count (count must hold at least one).
 * Blocks (unless O_NONBLOCK: -EAGAIN) until there are words and the buffer
 * is within op_buffer_watershed of full, or dump was written, or sampling
 * stopped (a non-blocking read returns whatever there is). 0 (end of file)
 * once sampling was enabled and then disabled, and everything was read;
 * before the first enable a read waits.
 */
static ssize_t buffer_read(struct file *file, char __user *buf, size_t count, loff_t *off)
{
	unsigned long n, done = 0;
	ssize_t ret;

	if (count < sizeof(unsigned long))
		return -EINVAL;
	for (;;) {
		mutex_lock(&op_mutex);
		if (ebuf_used() && (ebuf_ready() || (file->f_flags & O_NONBLOCK)))
			break;
		if (op_stopped && !ebuf_used()) {
			mutex_unlock(&op_mutex);
			return 0;
		}
		mutex_unlock(&op_mutex);
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(op_buffer_wait, READ_ONCE(op_dump) ||
					     READ_ONCE(op_stopped) ||
					     ebuf_used() >= ebuf_size - min(op_buffer_watershed, ebuf_size)))
			return -ERESTARTSYS;
	}
	n = min_t(unsigned long, count / sizeof(unsigned long), ebuf_used());
	ret = 0;
	while (done < n) {
		unsigned long at = ebuf_tail % ebuf_size;
		unsigned long chunk = min(n - done, ebuf_size - at);

		if (copy_to_user(buf + done * sizeof(long), ebuf + at, chunk * sizeof(long))) {
			ret = -EFAULT;
			break;
		}
		done += chunk;
		ebuf_tail += chunk;
	}
	if (!ebuf_used())
		op_dump = false;
	mutex_unlock(&op_mutex);
	return done ? (ssize_t)(done * sizeof(long)) : ret;
}

static __poll_t buffer_poll(struct file *file, poll_table *wait)
{
	__poll_t mask = 0;

	poll_wait(file, &op_buffer_wait, wait);
	mutex_lock(&op_mutex);
	if (ebuf_used() && ebuf_ready())
		mask |= EPOLLIN | EPOLLRDNORM;
	else if (op_stopped && !ebuf_used())
		mask |= EPOLLIN | EPOLLRDNORM; /* end of file */
	mutex_unlock(&op_mutex);
	return mask;
}

const struct file_operations op_buffer_fops = {
	.owner = THIS_MODULE,
	.open = buffer_open,
	.release = buffer_release,
	.read = buffer_read,
	.poll = buffer_poll,
	.llseek = OP_NO_LLSEEK,
};
