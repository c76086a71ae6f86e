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
	/* no warning: a size the RAM cannot hold is ENOMEM, not a stack dump */
	ebuf = __vmalloc(array_size(ebuf_size, sizeof(unsigned long)),
			 GFP_KERNEL | __GFP_NOWARN);
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

unsigned long op_event_buffer_used(void)
{
	return ebuf_used();
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

/*
 * What a blocking read waits for, and what poll reports: words to read
 * that the reader should take now (the buffer within op_buffer_watershed
 * of full, or a dump asked for them), or the end of the stream (sampling
 * stopped, nothing left). An empty buffer is never "ready": a read that
 * woke for it would find nothing and wait again without sleeping.
 */
static bool ebuf_ready(void)
{
	unsigned long used = READ_ONCE(ebuf_head) - READ_ONCE(ebuf_tail);

	if (!used)
		return READ_ONCE(op_stopped);
	return READ_ONCE(op_dump) || READ_ONCE(op_stopped) ||
		used >= ebuf_size - min(READ_ONCE(op_buffer_watershed), ebuf_size);
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
 * Take the words at the tail for a reader (op_mutex held): *at and the
 * returned count say where they are. The tail does not move yet: the
 * writers only ever write past the head, so the words stay where they are
 * while read() copies them to user space without op_mutex.
 */
static unsigned long ebuf_peek(unsigned long max, unsigned long *at)
{
	*at = ebuf_tail % ebuf_size;
	return min3(max, ebuf_used(), ebuf_size - *at);
}

/* The reader copied n words: they are free for the writers now. */
static void ebuf_consume(unsigned long n)
{
	mutex_lock(&op_mutex);
	ebuf_tail += n;
	if (!ebuf_used())
		op_dump = false;        /* the dump's words are all read */
	mutex_unlock(&op_mutex);
}

/*
 * Wait (op_mutex not held) until ebuf_ready(); 0, -EAGAIN for O_NONBLOCK
 * with nothing to read, or -ERESTARTSYS on a signal. A non-blocking read
 * takes whatever there is.
 */
static int ebuf_wait(struct file *file)
{
	if (file->f_flags & O_NONBLOCK)
		return READ_ONCE(ebuf_head) != READ_ONCE(ebuf_tail) ||
			READ_ONCE(op_stopped) ? 0 : -EAGAIN;
	return wait_event_interruptible(op_buffer_wait, ebuf_ready());
}

/*
 * Whole words, as many as fit in count (count must hold at least one).
 * Blocks (O_NONBLOCK: -EAGAIN) until ebuf_ready(): there are words and the
 * buffer is within op_buffer_watershed of full or dump was written, or
 * sampling stopped; a signal ends the wait (-ERESTARTSYS). A non-blocking
 * read returns whatever there is. 0 (end of file) once sampling was
 * enabled and then disabled and everything was read; a dump with nothing
 * to flush does not end a blocking read (see doc/driver.md).
 *
 * The copy to user space runs without op_mutex (a page fault there may
 * take any time: userfaultfd, a stalled file): only read_mutex is held,
 * which nobody but another reader of this file waits for, killably.
 */
static ssize_t buffer_read(struct file *file, char __user *buf, size_t count, loff_t *off)
{
	static DEFINE_MUTEX(read_mutex);
	unsigned long n, at, done = 0, max = count / sizeof(unsigned long);
	ssize_t ret;

	if (!max)
		return -EINVAL;
	if (mutex_lock_killable(&read_mutex))
		return -EINTR;
	ret = ebuf_wait(file);
	while (!ret && done < max) {
		mutex_lock(&op_mutex);
		n = ebuf_peek(max - done, &at);
		mutex_unlock(&op_mutex);
		if (!n)
			break;          /* empty: the end, or all there was */
		if (copy_to_user(buf + done * sizeof(long), ebuf + at, n * sizeof(long)))
			ret = -EFAULT;
		else
			ebuf_consume(n);
		done += ret ? 0 : n;
	}
	mutex_unlock(&read_mutex);
	return done ? (ssize_t)(done * sizeof(long)) : ret;
}

static __poll_t buffer_poll(struct file *file, poll_table *wait)
{
	__poll_t mask = 0;

	poll_wait(file, &op_buffer_wait, wait);
	mutex_lock(&op_mutex);
	if (ebuf_ready())       /* words to take, or end of file */
		mask |= EPOLLIN | EPOLLRDNORM;
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
