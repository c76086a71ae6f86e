/*
 * The ELF image the daemon keeps of a jitdump (session/jit/TGID.so),
 * made from a dump by the same library calls (op_jitdump.h), for the
 * report tests: mkjitimage DUMP OUT. All the dump's loads are kept.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "op_jitdump.h"

int main(int argc, char **argv)
{
	struct op_jitdump d = { 0 };
	char err[256];
	unsigned char *elf;
	size_t len, left;
	FILE *f;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: mkjitimage DUMP OUT\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || op_jitdump_read_fd(&d, fd, NULL, 0, NULL, err,
					 sizeof(err))) {
		fprintf(stderr, "mkjitimage: cannot read '%s'\n", argv[1]);
		return 1;
	}
	close(fd);
	if (d.problem[0])
		fprintf(stderr, "mkjitimage: '%s': %s at offset %llu\n",
			argv[1], d.problem, (unsigned long long)d.problem_at);
	elf = op_jitdump_elf(&d, &len, &left);
	f = fopen(argv[2], "wb");
	if (!f || fwrite(elf, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "mkjitimage: cannot write '%s'\n", argv[2]);
		return 1;
	}
	free(elf);
	op_jitdump_free(&d);
	return 0;
}
