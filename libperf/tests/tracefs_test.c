/*
 * Unit tests of the tracepoint lookup (perf_tracefs.h) on a tracefs-like
 * tree of our own: a field found by its name in the kernel's format text
 * (not by a prefix, arrays by their name), malformed and hostile formats
 * and ids refused with an error naming the file, a FIFO or a huge file
 * never waited on or read whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "perf_tracefs.h"

/* sched_switch's format on Linux 6.x, as tracefs prints it */
static char const sched_switch[] =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_state=%s\", REC->prev_comm\n";

static void test_tracefs__format(void)
{
	struct perf_tp_field f;

	check(perf_tp_format_field(sched_switch, "prev_state", &f) == 0 &&
	      f.offset == 32 && f.size == 8 && f.is_signed,
	      "prev_state at 32, 8 bytes, signed");
	check(perf_tp_format_field(sched_switch, "prev_comm", &f) == 0 &&
	      f.offset == 8 && f.size == 16 && !f.is_signed,
	      "an array by its name: prev_comm at 8, 16 bytes");
	check(perf_tp_format_field(sched_switch, "next_pid", &f) == 0 &&
	      f.offset == 56 && f.size == 4, "next_pid at 56");
	check(perf_tp_format_field(sched_switch, "prev", &f) == -ENOENT,
	      "a prefix of a name is no field");
	check(perf_tp_format_field(sched_switch, "state", &f) == -ENOENT,
	      "a suffix of a name is no field");
	check(perf_tp_format_field("", "prev_state", &f) == -ENOENT,
	      "an empty format has no field");
}

static void test_tracefs__bad_format(void)
{
	static char const *const bad[] = {
		"\tfield:long prev_state;\toffset:x;\tsize:8;\tsigned:1;\n",
		"\tfield:long prev_state;\toffset:32;\tsize:0;\tsigned:1;\n",
		"\tfield:long prev_state;\toffset:99999999999999999999;\tsize:8;\tsigned:1;\n",
		"\tfield:long prev_state;\toffset:32;\tsize:8;\n",
		"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:7;\n",
		"\tfield:long prev_state;\toffset:-4;\tsize:8;\tsigned:1;\n",
		"\tfield:long prev_state;\toffset:32\tsize:8;\tsigned:1;\n",
	};
	struct perf_tp_field f;
	char line[512];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check(perf_tp_format_field(bad[i], "prev_state", &f) == -EINVAL,
		      "malformed field line %zu refused", i);
	/* a line far longer than a format's, and escape bytes */
	memset(line, 'a', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	memcpy(line, "field:long prev_state;", 22);
	check(perf_tp_format_field(line, "prev_state", &f) == -EINVAL,
	      "an overlong field line refused");
	check(perf_tp_format_field("field:\x1b[2J prev_state;\toffset:1;\tsize:1;\tsigned:0;",
				   "prev_state", &f) == 0 && f.offset == 1,
	      "escape bytes in a type do not matter");
}

static void put(char const *path, char const *text)
{
	FILE *f = fopen(path, "w");

	check_assert(f != NULL, "setting up the tree failed");
	fputs(text, f);
	fclose(f);
}

static void test_tracefs__tree(void)
{
	char const *dir = check_tmpdir();
	char path[4096], err[512] = "";
	struct perf_tp_field f;
	uint64_t id = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/events", dir);
	check_assert(!mkdir(path, 0755), "setting up the tree failed");
	snprintf(path, sizeof(path), "%s/events/sched", dir);
	check_assert(!mkdir(path, 0755), "setting up the tree failed");
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch", dir);
	check_assert(!mkdir(path, 0755), "setting up the tree failed");
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id", dir);
	put(path, "372\n");
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/format", dir);
	put(path, sched_switch);
	check(perf_tracepoint(dir, "sched", "sched_switch", "prev_state", &id, &f,
			      err, sizeof(err)) == 0 && id == 372 && f.offset == 32,
	      "id 372 and prev_state at 32 from the tree (%s)", err);
	check(perf_tracepoint(dir, "sched", "sched_switch", "nope", &id, &f,
			      err, sizeof(err)) == -ENOENT && strstr(err, "format") &&
	      strstr(err, "'nope'"), "a missing field named with its file (%s)", err);
	check(perf_tracepoint(dir, "sched", "sched_nope", NULL, &id, NULL,
			      err, sizeof(err)) == -ENOENT,
	      "a missing tracepoint: -ENOENT");

	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id", dir);
	put(path, "37x2\n");
	check(perf_tracepoint(dir, "sched", "sched_switch", NULL, &id, NULL,
			      err, sizeof(err)) == -EINVAL && strstr(err, "/id'"),
	      "a bad id refused naming its file (%s)", err);
	put(path, "");
	check(perf_tracepoint(dir, "sched", "sched_switch", NULL, &id, NULL,
			      err, sizeof(err)) == -EINVAL, "an empty id refused");
	/* a FIFO in its place: refused, not waited on */
	check_assert(!unlink(path) && !mkfifo(path, 0600), "setting up the tree failed");
	check(perf_tracepoint(dir, "sched", "sched_switch", NULL, &id, NULL,
			      err, sizeof(err)) < 0, "a FIFO id refused (%s)", err);
	/* an id that is a link to a huge file: read no further than a bound */
	check_assert(!unlink(path), "setting up the tree failed");
	snprintf(path, sizeof(path), "%s/huge", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	check_assert(fd >= 0 && !ftruncate(fd, 1 << 30), "setting up the tree failed");
	close(fd);
	{
		char link[4096];

		snprintf(link, sizeof(link), "%s/events/sched/sched_switch/id", dir);
		check_assert(!symlink(path, link), "setting up the tree failed");
	}
	check(perf_tracepoint(dir, "sched", "sched_switch", NULL, &id, NULL,
			      err, sizeof(err)) == -EINVAL, "a huge id file refused (%s)", err);
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/format", dir);
	check_assert(!unlink(path) && !symlink("../../../huge", path), "setting up the tree failed");
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id", dir);
	check_assert(!unlink(path), "setting up the tree failed");
	put(path, "372\n");
	check(perf_tracepoint(dir, "sched", "sched_switch", "prev_state", &id, &f,
			      err, sizeof(err)) == -EINVAL, "a huge format refused (%s)", err);
}

int main(void)
{
	test_tracefs__format();
	test_tracefs__bad_format();
	test_tracefs__tree();
	return check_done();
}
