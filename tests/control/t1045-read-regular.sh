#!/bin/sh
# Every file read from input is a regular file, of a sane size, or it is
# refused naming it: never waited on. A FIFO (no writer: a read of it
# blocks for ever), a character device (/dev/zero's: endless), a directory
# and, at the small metadata files, a 100 GB sparse file are planted one
# at a time at session/kernel_images, session/kallsyms.gz,
# session/build-ids, session/segments, session.conf and stacks/table of a
# recorded session (and of an archive of it), and at the separate debug
# files of a stripped program (its build-id path under
# $OPROFILE_DEBUG_DIRS and its .gnu_debuglink). opreport (plain, -l,
# --stacks, --folded, --pprof, --flame, -c), opreport archive:DIR,
# oparchive, opannotate and opgprof each finish within 20 s with a report
# or an error naming the file; the daemon starts on the planted session,
# meets the plant again while it runs, and answers --dump and --shutdown,
# its log naming the files it refused. Also a FIFO or a device at a
# sample file, and a FIFO at the daemon's log, lock, complete_dump and
# opcontrol's daemonrc.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

command -v cc >/dev/null || skip "no C compiler to build the workload"
command -v objcopy >/dev/null || skip "no objcopy"
command -v truncate >/dev/null || skip "no truncate"
OPANNOTATE=$B/pp/opannotate
OPARCHIVE=$B/pp/oparchive
OPGPROF=$B/pp/opgprof
C=$S/samples/current
P=$T/prog
DBG=$T/debug
unset DEBUGINFOD_URLS
OPROFILE_DEBUG_DIRS=$DBG
export OPROFILE_DEBUG_DIRS

# prog: user time in spin_user, kernel time in read(2) of /dev/zero;
# stripped of its DWARF (its symbols stay), so the tools look for its
# debug file: by build-id in $DBG, then by .gnu_debuglink next to it
cat >"$T/prog.c" <<'EOF'
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static volatile unsigned long n;
__attribute__((noinline)) static void spin_user(void)
{
	for (int i = 0; i < 100000; i++)
		n++;
}
int main(int argc, char **argv)
{
	static char buf[1 << 16];
	clock_t end = clock() + atof(argc > 1 ? argv[1] : "0.3") * CLOCKS_PER_SEC;
	int fd = open("/dev/zero", O_RDONLY);

	while (clock() < end) {
		spin_user();
		if (read(fd, buf, sizeof(buf)) < 0)
			return 1;
	}
	return 0;
}
EOF
cc -O1 -g -Wl,--build-id -o "$T/prog.full" "$T/prog.c" || bail "cannot compile prog"
objcopy --only-keep-debug "$T/prog.full" "$T/prog.debug" || bail objcopy
objcopy --strip-debug --add-gnu-debuglink="$T/prog.debug" "$T/prog.full" "$P" ||
	bail "objcopy --strip-debug"
id=$(build_id_of "$P")
[ -n "$id" ] || bail "the compiler wrote no build-id"
BYID=$DBG/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
mkdir -p "${BYID%/*}"
cp "$T/prog.debug" "$BYID"

step "a session of prog with its stacks, and an archive of it"
ctl --separate=none --callgraph=8 --image="$P" --start >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "--start failed"; }
"$P" 0.4 || fail "prog failed"
ctl --dump || fail "--dump failed"
ctl --shutdown || fail "--shutdown failed"
for f in session/kernel_images session/kallsyms.gz session/build-ids \
	 session/segments session.conf stacks/table; do
	[ -f "$C/$f" ] || fail "the session has no $f"
done
"$OPREPORT" --session-dir="$S" -l >"$T/rep" 2>"$T/rep.err" ||
	{ cat "$T/rep.err"; fail "opreport -l failed on the session as recorded"; }
grep -q spin_user "$T/rep" || { cat "$T/rep"; fail "no spin_user in opreport -l"; }
grep -q vmlinux "$T/rep" || { cat "$T/rep"; fail "no kernel samples in opreport -l"; }
test_ok "prog recorded: user and kernel samples, a stack table"
"$OPARCHIVE" --session-dir="$S" -o "$T/arch" >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "oparchive failed on the session as recorded"; }
# the archived session: wherever the archive's layout puts it
A=$(find "$T/arch" -path "*/current/session.conf" | head -n 1)
A=${A%/session.conf}
[ -f "$A/session/kernel_images" ] || fail "no session/ in the archive '$T/arch'"
cp -a "$C" "$T/pristine"

# plant KIND PATH: PATH (saved as it was with keep) becomes a KIND
plant() {
	rm -rf "$2"
	case $1 in
	fifo) mkfifo "$2" ;;
	dev) mknod "$2" c 1 5 ;;	# /dev/zero's numbers
	dir) mkdir "$2" ;;
	huge) truncate -s 100G "$2" ;;
	esac || bail "cannot plant a $1 at $2"
}
kind_is() {
	case $1 in
	fifo) [ -p "$2" ] ;;
	dev) [ -c "$2" ] ;;
	dir) [ -d "$2" ] ;;
	huge) [ -f "$2" ] && [ "$(stat -c %s "$2")" -gt 1000000000 ] ;;
	esac
}

# run WHAT CMD...: CMD within 20 s; a failure must name $name (the
# planted file); $T/run.err has its messages
runs=0
run() {
	_what=$1
	shift
	timeout 20 "$@" >"$T/run.out" 2>"$T/run.err"
	rc=$?
	runs=$((runs + 1))
	[ $rc -ne 124 ] || fail "$_what: timed out (20 s) with a $kind at $name"
	cat "$T/run.err" >>"$T/all.err"
	[ $rc -eq 0 ] || grep -qF "$name" "$T/run.err" ||
		{ cat "$T/run.err"; fail "$_what failed (exit $rc) without naming $name"; }
}

report_some() {  # the tools that read each of the session files
	run "opreport -l" "$OPREPORT" --session-dir="$S" -l
	run "opreport --pprof" "$OPREPORT" --session-dir="$S" --pprof="$T/p.pb.gz"
	run "opreport archive:" "$OPREPORT" --session-dir="$S" "archive:$T/arch" -l
}

report_all() {  # every report tool once, over $S and the archive
	run "opreport" "$OPREPORT" --session-dir="$S"
	run "opreport -l" "$OPREPORT" --session-dir="$S" -l
	run "opreport --stacks" "$OPREPORT" --session-dir="$S" --stacks
	run "opreport --folded" "$OPREPORT" --session-dir="$S" --folded
	run "opreport --pprof" "$OPREPORT" --session-dir="$S" --pprof="$T/p.pb.gz"
	run "opreport --flame" "$OPREPORT" --session-dir="$S" --flame="$T/f.html"
	run "opreport -c" "$OPREPORT" --session-dir="$S" -c
	run "opreport archive:" "$OPREPORT" --session-dir="$S" "archive:$T/arch" -l
	rm -rf "$T/arch2"
	run "oparchive" "$OPARCHIVE" --session-dir="$S" -o "$T/arch2"
	run "opannotate" "$OPANNOTATE" --session-dir="$S" -s "image:$P"
	run "opgprof" "$OPGPROF" --session-dir="$S" -o "$T/gmon.out" "$P"
}

# daemon_cycle: start on the planted session, meet the plant again while
# running (the start may have replaced it), dump, shut down; its log
# goes to $T/all.err
daemon_cycle() {
	: >"$S/samples/oprofiled.log"
	run "opcontrol --start" "$OPCONTROL" --session-dir="$S" --start
	if [ $rc -ne 0 ]; then	# refused, naming the file (run checked)
		[ ! -f "$S/lock" ] || fail "--start failed, but a daemon runs"
		cat "$T/run.err" "$S/samples/oprofiled.log" >>"$T/all.err"
		return
	fi
	kind_is "$kind" "$target" || plant "$kind" "$target"
	"$P" 0.05
	run "opcontrol --dump" "$OPCONTROL" --session-dir="$S" --dump
	[ $rc -eq 0 ] || fail "--dump failed with a $kind at $name"
	run "opcontrol --shutdown" "$OPCONTROL" --session-dir="$S" --shutdown
	[ $rc -eq 0 ] || fail "--shutdown failed with a $kind at $name"
	[ ! -f "$S/lock" ] || fail "the daemon still runs after --shutdown"
	cat "$S/samples/oprofiled.log" >>"$T/all.err"
}

FILES="session/kernel_images session/kallsyms.gz session/build-ids
session/segments session.conf stacks/table"
t0=$(date +%s)
for kind in fifo dev dir huge; do
	step "a $kind at each session file"
	for f in $FILES; do
		name=$f target=$C/$f
		: >"$T/all.err"
		plant "$kind" "$C/$f"
		# (oparchive leaves stacks/ out)
		in_arch=false
		[ ! -e "$A/$f" ] || { in_arch=true; plant "$kind" "$A/$f"; }
		# every tool meets the FIFOs; the tools that read each file
		# the other kinds
		if [ $kind = fifo ]; then report_all; else report_some; fi
		# (the daemon reads build-ids and segments; it replaces the
		# other files whole)
		case $kind:$f in
		huge:session/build-ids|huge:session/segments|[!h]*) daemon_cycle ;;
		esac
		# each is read by some tool or the daemon, which said what it
		# refused (the daemon replaces the files it writes whole)
		case $kind in
		huge) why="larger than" ;;
		*) why="not a regular file" ;;
		esac
		grep -F "$f" "$T/all.err" | grep -qF "$why" ||
			{ cat "$T/all.err"; fail "no tool said '$why' of $f"; }
		# the daemon added samples: the session as recorded again
		rm -rf "$C"
		cp -a "$T/pristine" "$C"
		! $in_arch || { rm -rf "$A/$f"; cp -a "$T/pristine/$f" "$A/$f"; }
	done
	test_ok "a $kind at each session file: every tool finished, naming it"
	echo "$runs runs so far, $(($(date +%s) - t0)) s"
done
echo "$runs runs in $(($(date +%s) - t0)) s"

step "a fifo and a device at prog's sample file"
# the flat file, which every report reads: not a call graph file ({cg}),
# which find may list first (whether a tool then reads it is chance)
sf=$(find "$C" -path "*{root}$P/*" ! -path '*{cg}*' -type f | head -n 1)
[ -n "$sf" ] || fail "no sample file of prog under $C"
for kind in fifo dev; do
	name=${sf#"$C/"} target=$sf
	: >"$T/all.err"
	plant "$kind" "$sf"
	run "opreport -l" "$OPREPORT" --session-dir="$S" -l
	run "opreport image:" "$OPREPORT" --session-dir="$S" -l "image:$P"
	daemon_cycle
	grep -F "$name" "$T/all.err" | grep -qF "not a regular file" ||
		{ cat "$T/all.err"; fail "no tool said its sample file ($kind) is not a regular file"; }
	rm -rf "$C"
	cp -a "$T/pristine" "$C"
	test_ok "a $kind at prog's sample file: refused, naming it"
done

step "a FIFO at the daemon's own files: the log, the lock, the answer, daemonrc"
cp "$S/daemonrc" "$T/daemonrc"
for f in samples/oprofiled.log lock complete_dump daemonrc; do
	name=$f kind=fifo
	plant fifo "$S/$f"
	# a start refused must name the file (run checks); else it works
	run "opcontrol --start" "$OPCONTROL" --session-dir="$S" --start
	echo "a FIFO at $f: --start exit $rc $(grep -F "$f" "$T/run.err" | head -n 1)"
	if [ $rc -eq 0 ]; then
		"$P" 0.05
		run "opcontrol --dump" "$OPCONTROL" --session-dir="$S" --dump
		[ $rc -eq 0 ] || fail "--dump failed with a FIFO at $f"
		run "opcontrol --shutdown" "$OPCONTROL" --session-dir="$S" --shutdown
		[ $rc -eq 0 ] || fail "--shutdown failed with a FIFO at $f"
	fi
	[ ! -p "$S/$f" ] || rm -f "$S/$f"
	[ -f "$S/daemonrc" ] || cp "$T/daemonrc" "$S/daemonrc"
done
test_ok "a FIFO at the log, the lock, complete_dump or daemonrc: no command waits"

step "the debug file of prog: by build-id and by .gnu_debuglink"
for kind in fifo dev dir; do
	name=$BYID target=$BYID
	: >"$T/all.err"
	plant "$kind" "$BYID"
	plant "$kind" "$T/prog.debug"
	if [ $kind = fifo ]; then report_all; else report_some; fi
	grep -F "$BYID" "$T/all.err" | grep -qF "not a regular file" ||
		{ cat "$T/all.err"; fail "no tool said its build-id debug file ($kind) is not a regular file"; }
	grep -F "$T/prog.debug" "$T/all.err" | grep -qF "not a regular file" ||
		{ cat "$T/all.err"; fail "no tool said its debuglink file ($kind) is not a regular file"; }
	daemon_cycle
	rm -rf "$BYID" "$T/prog.debug"
	objcopy --only-keep-debug "$T/prog.full" "$T/prog.debug" || bail objcopy
	cp "$T/prog.debug" "$BYID"
	test_ok "a $kind at prog's debug files: every tool finished, naming them"
done
echo "$runs runs in all, $(($(date +%s) - t0)) s"
test_done
