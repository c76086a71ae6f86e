/*
 * Separate debug info (pp_debuginfo.h) checked against an oracle: this
 * test's own executable, whose build-id note is read here by hand from
 * the ELF section headers. A copy of the executable stands for its debug
 * file (same build-id, valid ELF) at the build-id path of a private debug
 * directory; a file that is not ELF there is refused, and a FIFO at once;
 * a .gnu_debuglink that is a path is not followed out of the directories.
 */
#include "config.h"

#include <bfd.h>
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_util.h"
#include "pp_debuginfo.h"
#include "check.h"

/*
 * A .gnu_debuglink that is a path ("../esc.debug"), not a file name: the
 * binary (this executable with that section added by objcopy) is
 * profiled, so the name is input; a debug file planted where it leads,
 * outside the binary's and the debug directories, with the right CRC
 * and build-id, must not be taken.
 */
static void debuglink_escape(char const *self, char const *dir)
{
	char *bindir = op_xasprintf("%s/bin", dir);
	char *prog = op_xasprintf("%s/prog", bindir);
	char *esc = op_xasprintf("%s/esc.debug", dir);
	char *sec = op_xasprintf("%s/link", dir), *cmd, err[512];
	unsigned char buf[65536], link[20] = "../esc.debug";
	unsigned long crc = 0;
	enum pp_debug_how how;
	char *found;
	size_t n;
	FILE *f;
	bfd *abfd;

	mkdir(bindir, 0755);
	if (op_copy_file(self, esc, err, sizeof(err)))
		check_bail("%s", err);
	f = fopen(esc, "rb");
	while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		crc = bfd_calc_gnu_debuglink_crc32(crc, buf, n);
	if (f)
		fclose(f);
	/* name, NUL, padded to 4, then the CRC (little-endian here) */
	memcpy(link + 16, &(uint32_t){ (uint32_t)crc }, 4);
	f = fopen(sec, "wb");
	if (!f || fwrite(link, 1, sizeof(link), f) != sizeof(link) || fclose(f))
		check_bail("cannot write %s", sec);
	cmd = op_xasprintf("objcopy --remove-section .gnu_debuglink "
			   "--add-section .gnu_debuglink='%s' '%s' '%s'",
			   sec, self, prog);
	if (system(cmd))
		check_skip("objcopy cannot add a .gnu_debuglink");
	abfd = bfd_openr(prog, NULL);
	if (!abfd || !bfd_check_format(abfd, bfd_object))
		check_bail("libbfd cannot read %s", prog);
	found = pp_debuginfo_find(abfd, prog, NULL, &how);
	check(!found, "a .gnu_debuglink '../esc.debug' is not followed out "
	      "of the binary's directory (found: %s)", found ? found : "none");
	free(found);
	bfd_close(abfd);
	unlink(prog);
	unlink(esc);
	unlink(sec);
	rmdir(bindir);
	free(cmd);
	free(sec);
	free(esc);
	free(prog);
	free(bindir);
}

/* The build-id of path from its .note.gnu.build-id section, as hex. */
static int oracle_build_id(char const *path, char *hex, size_t hexlen)
{
	FILE *f = fopen(path, "rb");
	Elf64_Ehdr eh;
	Elf64_Shdr sh, str;
	int rc = -1;

	if (!f || fread(&eh, sizeof(eh), 1, f) != 1)
		goto out;
	fseek(f, (long)(eh.e_shoff + (uint64_t)eh.e_shstrndx * eh.e_shentsize), SEEK_SET);
	if (fread(&str, sizeof(str), 1, f) != 1)
		goto out;
	for (int i = 0; i < eh.e_shnum && rc; i++) {
		char name[32] = "";
		unsigned char note[256];

		fseek(f, (long)(eh.e_shoff + (uint64_t)i * eh.e_shentsize), SEEK_SET);
		if (fread(&sh, sizeof(sh), 1, f) != 1)
			break;
		fseek(f, (long)(str.sh_offset + sh.sh_name), SEEK_SET);
		if (!fgets(name, sizeof(name), f) || strcmp(name, ".note.gnu.build-id") ||
		    sh.sh_size > sizeof(note))
			continue;
		fseek(f, (long)sh.sh_offset, SEEK_SET);
		if (fread(note, sh.sh_size, 1, f) != 1)
			break;
		{
			uint32_t namesz, descsz;

			memcpy(&namesz, note, 4);
			memcpy(&descsz, note + 4, 4);
			for (uint32_t k = 0; k < descsz && 2 * k + 2 < hexlen; k++)
				sprintf(hex + 2 * k, "%02x", note[12 + ((namesz + 3) & ~3u) + k]);
			rc = 0;
		}
	}
out:
	if (f)
		fclose(f);
	return rc;
}

int main(int argc, char **argv)
{
	char want[2 * PP_BUILD_ID_MAX + 1] = "", got[2 * PP_BUILD_ID_MAX + 1];
	char const *dir;
	char err[512];
	struct pp_build_id id, parsed;
	enum pp_debug_how how;
	char *top, *sub, *dbg, *found;
	bfd *abfd;

	(void)argc;
	if (oracle_build_id(argv[0], want, sizeof(want)) || strlen(want) < 4)
		check_skip("this executable has no build-id note");
	bfd_init();
	abfd = bfd_openr(argv[0], NULL);
	if (!abfd || !bfd_check_format(abfd, bfd_object))
		check_bail("libbfd cannot read %s", argv[0]);
	check(pp_build_id_read(abfd, &id), "the build-id note is read");
	pp_build_id_hex(&id, got);
	check_str(got, want, "it is the one in the ELF section");
	check(pp_build_id_parse(want, &parsed) && parsed.len == id.len &&
	      !memcmp(parsed.v, id.v, id.len), "hex parses back to the same id");
	check(!pp_build_id_parse("abc", &parsed), "odd hex is refused");
	check(!pp_build_id_parse("zz", &parsed), "non-hex is refused");
	check(pp_bfd_has_dwarf(abfd), "this test is built with -g: it has DWARF");

	dir = check_tmpdir();
	setenv("OPROFILE_DEBUG_DIRS", dir, 1);
	unsetenv("DEBUGINFOD_URLS");
	found = pp_debuginfo_find(abfd, argv[0], NULL, &how);
	check(!found && how == PP_DEBUG_NONE, "an empty debug dir: no debug file");
	free(found);

	top = op_xasprintf("%s/.build-id", dir);
	sub = op_xasprintf("%s/%.2s", top, want);
	dbg = op_xasprintf("%s/%s.debug", sub, want + 2);
	mkdir(top, 0755);
	mkdir(sub, 0755);
	if (op_copy_file(argv[0], dbg, err, sizeof(err)))
		check_bail("%s", err);
	found = pp_debuginfo_find(abfd, argv[0], NULL, &how);
	check_str(found ? found : "(none)", dbg, "found at DIR/.build-id/ab/cdef....debug");
	check_str(pp_debug_how_name(how), "build-id", "found by build-id");
	free(found);

	id.v[0] ^= 0xff;
	found = pp_debuginfo_find(abfd, argv[0], &id, &how);
	check(!found, "another wanted build-id: not this file");
	free(found);

	FILE *f = fopen(dbg, "w");
	fputs("not an ELF file\n", f);
	fclose(f);
	found = pp_debuginfo_find(abfd, argv[0], NULL, &how);
	check(!found, "a file that is not ELF at the build-id path is refused");
	free(found);

	/* a FIFO there, with no writer: SIGALRM ends a hang as a failure */
	unlink(dbg);
	if (mkfifo(dbg, 0600))
		check_bail("mkfifo failed");
	alarm(20);
	found = pp_debuginfo_find(abfd, argv[0], NULL, &how);
	alarm(0);
	check(!found, "a FIFO at the build-id path is refused without waiting");
	free(found);

	unlink(dbg);
	rmdir(sub);
	rmdir(top);
	debuglink_escape(argv[0], dir);
	rmdir(dir);
	free(sub);
	free(top);
	free(dbg);
	bfd_close(abfd);
	return check_done();
}
