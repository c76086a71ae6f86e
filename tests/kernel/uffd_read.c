/*
 * Guest helper for scenarios/16-uffd.sh: a reader of /dev/oprofile/buffer
 * whose destination page faults and stays faulting. The page is
 * registered with userfaultfd and served only after SECONDS, so read()'s
 * copy to user space stalls that long in the fault; meanwhile the
 * scenario checks that the driver's writers and its sync do not wait.
 * Usage: uffd_read BUFFER SECONDS. Prints "uffd_read: ..." lines; exit 0
 * when the read returned words after the page was served.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int uffd;
static char *page;
static long page_size;
static unsigned int stall_s;

/* After stall_s, serve the page (zeros) and wake the faulting read. */
static void *serve_later(void *arg)
{
	struct uffdio_zeropage z = {
		.range = { .start = (unsigned long)page, .len = page_size },
	};

	(void)arg;
	sleep(stall_s);
	printf("uffd_read: serving the page after %u s\n", stall_s);
	fflush(stdout);
	if (ioctl(uffd, UFFDIO_ZEROPAGE, &z) < 0 && errno != EEXIST)
		perror("uffd_read: UFFDIO_ZEROPAGE");
	return NULL;
}

static int fail(char const *what)
{
	printf("uffd_read: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	pthread_t server;
	ssize_t n;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: uffd_read BUFFER SECONDS\n");
		return 2;
	}
	stall_s = (unsigned int)atoi(argv[2]);
	page_size = sysconf(_SC_PAGESIZE);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return fail(argv[1]);
	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	if (uffd < 0)
		return fail("userfaultfd");
	if (ioctl(uffd, UFFDIO_API, &api) < 0)
		return fail("UFFDIO_API");
	page = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return fail("mmap");
	reg = (struct uffdio_register){
		.range = { .start = (unsigned long)page, .len = page_size },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	if (ioctl(uffd, UFFDIO_REGISTER, &reg) < 0)
		return fail("UFFDIO_REGISTER");
	if (pthread_create(&server, NULL, serve_later, NULL))
		return fail("pthread_create");
	printf("uffd_read: reading into a page nobody serves for %u s\n", stall_s);
	fflush(stdout);
	n = read(fd, page, page_size);
	if (n < 0)
		return fail("read");
	printf("uffd_read: read %zd bytes\n", n);
	pthread_join(server, NULL);
	return n > 0 ? 0 : 1;
}
