/*
 * Build-ids without libbfd (op_build_id.h): this test's own executable
 * against readelf's "Build ID:" and its LOAD segments, a file that is not
 * ELF, a note cut in its padding, and the lines of the session's
 * build-ids and segments files both ways, and those files read back with
 * their bad lines left out.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op_build_id.h"
#include "check.h"

/* A new file in the test's scratch directory, its name in path. */
static int scratch_file(char *path, size_t len)
{
	snprintf(path, len, "%s/f.XXXXXX", check_tmpdir());
	return mkstemp(path);
}

/*
 * An ELF file whose only PT_NOTE ends inside its note's padding (17
 * bytes: a 12-byte header, "GNU\0", 1 byte of desc): no build-id, and
 * nothing read past the segment (under ASan, make check-unit, the reader
 * before the fix read beyond its 17-byte buffer).
 */
static void check_cut_note(void)
{
	char path[CHECK_TMPDIR_MAX + 16], hex[OP_BUILD_ID_HEX_MAX];
	unsigned char note[17] = { 4, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0,
				   'G', 'N', 'U', 0, 0xab };
	Elf64_Ehdr e = { .e_type = ET_EXEC, .e_machine = EM_X86_64,
			 .e_version = EV_CURRENT, .e_phoff = sizeof(e),
			 .e_ehsize = sizeof(e), .e_phentsize = sizeof(Elf64_Phdr),
			 .e_phnum = 1 };
	Elf64_Phdr ph = { .p_type = PT_NOTE,
			  .p_offset = sizeof(e) + sizeof(ph),
			  .p_filesz = sizeof(note), .p_memsz = sizeof(note) };
	int fd = scratch_file(path, sizeof(path));

	memcpy(e.e_ident, ELFMAG, SELFMAG);
	e.e_ident[EI_CLASS] = ELFCLASS64;
	e.e_ident[EI_DATA] = *(uint16_t const *)"\1\0" == 1 ? ELFDATA2LSB :
							     ELFDATA2MSB;
	e.e_ident[EI_VERSION] = EV_CURRENT;
	if (fd < 0 || write(fd, &e, sizeof(e)) != sizeof(e) ||
	    write(fd, &ph, sizeof(ph)) != sizeof(ph) ||
	    write(fd, note, sizeof(note)) != sizeof(note))
		check_bail("cannot write %s", path);
	close(fd);
	check_int(op_build_id_of(path, hex), -1,
		  "a note cut in its padding: no build-id, nothing read past it");
	unlink(path);
}

/* readelf -lW's LOAD segments with file contents against ours. */
static void check_segments(char const *self)
{
	struct op_segment v[OP_SEGMENTS_MAX], want[OP_SEGMENTS_MAX];
	char buf[512], *cmd;
	int n = op_elf_segments(self, v, OP_SEGMENTS_MAX), nw = 0;
	FILE *f;

	cmd = malloc(strlen(self) + 64);
	sprintf(cmd, "readelf -lW '%s' 2>/dev/null", self);
	f = popen(cmd, "r");
	free(cmd);
	while (f && fgets(buf, sizeof(buf), f) && nw < OP_SEGMENTS_MAX) {
		unsigned long long o, va, pa, fs;

		if (sscanf(buf, " LOAD 0x%llx 0x%llx 0x%llx 0x%llx", &o, &va,
			   &pa, &fs) == 4 && fs)
			want[nw++] = (struct op_segment){ o, va, fs };
	}
	if (f)
		pclose(f);
	check(n > 0 && n == nw, "LOAD segments: %d, readelf shows %d", n, nw);
	for (int i = 0; i < n && i < nw; i++)
		check(!memcmp(&v[i], &want[i], sizeof(v[i])),
		      "segment %d: offset, vaddr and filesz are readelf's", i);
}

/*
 * A session's build-ids and segments files as a restarted daemon reads
 * them: the good lines kept, a malformed one, one with a NUL byte and a
 * torn last line (no newline) left out.
 */
static void check_file_read(void)
{
	static char const ids[] = "ab01 1 /bin/a\nnot a line\nab02 2 /bin/\0b\n"
				  "ab03 3 /bin/c\nab04 4 /bin/d";
	static char const segs[] = "ab01 0x0 0x0 0x10\nab01 0x1000 0x1000 0x2";
	char path[CHECK_TMPDIR_MAX + 16], *text;
	int fd = scratch_file(path, sizeof(path));

	if (fd < 0 || write(fd, ids, sizeof(ids) - 1) != sizeof(ids) - 1)
		check_bail("cannot write %s", path);
	close(fd);
	text = op_build_id_file_read(path, false);
	check_str(text, "ab01 1 /bin/a\nab03 3 /bin/c\n",
		  "build-ids: the good lines kept, the bad and the torn left out");
	free(text);
	text = op_build_id_file_read(path, true);
	check_str(text, "", "build-ids read as segments: no line is one");
	free(text);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0 || write(fd, segs, sizeof(segs) - 1) != sizeof(segs) - 1)
		check_bail("cannot write %s", path);
	close(fd);
	text = op_build_id_file_read(path, true);
	check_str(text, "ab01 0x0 0x0 0x10\n",
		  "segments: a torn 0x2 (of 0x20, say) is not taken");
	free(text);
	unlink(path);
	text = op_build_id_file_read(path, false);
	check_str(text, "", "no file: no line, no error");
	free(text);
}

int main(int argc, char **argv)
{
	char hex[OP_BUILD_ID_HEX_MAX], want[OP_BUILD_ID_HEX_MAX] = "", *cmd, *line;
	char path[CHECK_TMPDIR_MAX + 16];
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

	fd = scratch_file(path, sizeof(path));
	if (fd < 0 || write(fd, "not ELF at all, just text\n", 26) != 26)
		check_bail("cannot write %s", path);
	close(fd);
	check_int(op_build_id_of(path, hex), -1, "a file that is not ELF has none");
	check_str(hex, "", "and the hex is empty");
	unlink(path);
	check_int(op_build_id_of("/nonexistent/file", hex), -1, "a missing file has none");
	check_int(op_elf_segments("/nonexistent/file", NULL, 0), -1, "a missing file has no segments");
	check_segments(argv[0]);
	check_cut_note();
	{
		struct op_segment seg = { 0x1000, 0x401000, 0x2a5 }, back;
		char bad1[] = "abcd 0x1 0x2", bad2[] = "abcd 1 2 3",
		     bad3[] = "abcd 0x1 0x2 0x3 x";

		line = op_segment_line("abcd01", &seg);
		check_str(line, "abcd01 0x1000 0x401000 0x2a5", "a segment line: hex, offset, vaddr, filesz");
		check_int(op_segment_parse_line(line, hex, &back), 0, "it parses back");
		check_str(hex, "abcd01", "hex");
		check(!memcmp(&seg, &back, sizeof(seg)), "the same segment");
		free(line);
		check(op_segment_parse_line(bad1, hex, &back) == -1, "two numbers refused");
		check(op_segment_parse_line(bad2, hex, &back) == -1, "numbers without 0x refused");
		check(op_segment_parse_line(bad3, hex, &back) == -1, "trailing text refused");
	}

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
	check_file_read();
	check(op_debuglink_name_ok("prog.debug") && op_debuglink_name_ok("..debug"),
	      "a debuglink file name is looked for");
	check(!op_debuglink_name_ok("../../../../tmp/victim/out.debug") &&
	      !op_debuglink_name_ok("/etc/shadow") && !op_debuglink_name_ok("..") &&
	      !op_debuglink_name_ok(".") && !op_debuglink_name_ok("") &&
	      !op_debuglink_name_ok("sub/x.debug"),
	      "a debuglink name with '/', or \"..\", \".\" or empty, is not");
	check(!op_debug_file_by_debuglink("/usr/bin/true", "../../../etc/passwd", 0),
	      "op_debug_file_by_debuglink looks for no such name");
	return check_done();
}
