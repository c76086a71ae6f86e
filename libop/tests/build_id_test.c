/*
 * Build-ids without libbfd (op_build_id.h): this test's own executable
 * against readelf's "Build ID:", a file that is not ELF, and the lines of
 * the session's build-ids file both ways.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op_build_id.h"
#include "check.h"

int main(int argc, char **argv)
{
	char hex[OP_BUILD_ID_HEX_MAX], want[OP_BUILD_ID_HEX_MAX] = "", *cmd, *line;
	char path[] = "/tmp/build_id_test.XXXXXX";
	char const *p;
	uint64_t mtime;
	FILE *f;
	int fd;

	(void)argc;
	cmd = malloc(strlen(argv[0]) + 64);
	sprintf(cmd, "readelf -n '%s' 2>/dev/null", argv[0]);
	f = popen(cmd, "r");
	free(cmd);
	if (f) {
		char buf[512];

		while (fgets(buf, sizeof(buf), f))
			if (sscanf(buf, " Build ID: %128s", want) == 1)
				break;
		pclose(f);
	}
	if (!want[0])
		check_skip("readelf shows no build-id for this executable");
	check_int(op_build_id_of(argv[0], hex), 0, "the build-id of this executable is read");
	check_str(hex, want, "it is readelf's");

	fd = mkstemp(path);
	if (fd < 0 || write(fd, "not ELF at all, just text\n", 26) != 26)
		check_bail("cannot write %s", path);
	close(fd);
	check_int(op_build_id_of(path, hex), -1, "a file that is not ELF has none");
	check_str(hex, "", "and the hex is empty");
	unlink(path);
	check_int(op_build_id_of("/nonexistent/file", hex), -1, "a missing file has none");

	line = op_build_id_line("abcd01", 1700000000, "/usr/bin/with space");
	check_str(line, "abcd01 1700000000 /usr/bin/with space", "a line: hex, mtime, path");
	check_int(op_build_id_parse_line(line, hex, &mtime, &p), 0, "it parses back");
	check_str(hex, "abcd01", "hex");
	check(mtime == 1700000000, "mtime");
	check_str(p, "/usr/bin/with space", "the path to the end of the line");
	free(line);
	{
		char bad1[] = "abc 1 /x", bad2[] = "abcd x /x", bad3[] = "abcd 1 x",
		     bad4[] = "ABCD 1 /x", bad5[] = "";

		check(op_build_id_parse_line(bad1, hex, &mtime, &p) == -1, "odd hex refused");
		check(op_build_id_parse_line(bad2, hex, &mtime, &p) == -1, "no mtime refused");
		check(op_build_id_parse_line(bad3, hex, &mtime, &p) == -1, "a relative path refused");
		check(op_build_id_parse_line(bad4, hex, &mtime, &p) == -1, "upper-case hex refused");
		check(op_build_id_parse_line(bad5, hex, &mtime, &p) == -1, "an empty line refused");
	}
	return check_done();
}
