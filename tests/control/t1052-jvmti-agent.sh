#!/bin/bash
# The JVMTI agent (agents/jvmti, doc/jvmti.md) on a real JVM: a Java program
# with two hot methods (tests/control/java/Hot.java, a 2:1 split) runs
# with -agentpath:libjvmti_oprofile.so; its jit-PID.dump is read by an
# independent checker written from perf's jitdump specification
# (jitdump_check.py): header, whole records, monotonic timestamps, both
# hot methods loaded with their code, lines of Hot.java inside each
# method; the dump mapped r-xp while the JVM runs (how perf finds it);
# the agent loaded into a running JVM (jcmd) names what was compiled.
# Its perf map (option perfmap) names both. A hostile directory
# (read-only, a planted symlink or FIFO, a full disk) costs the profile,
# never the program: it finishes, and the agent warns once; a noexec
# directory refuses the executable mapping (said). Then perf
# itself: perf record -k 1 + perf inject --jit + perf report name both
# methods, about 2:1. Then our tools: operf with the agent's perf map
# (opreport -l after the map is gone), and with its jitdump alone: the
# session's image of it names both methods after the dump is deleted,
# each time with hotA's share within 3 sigma of the time Hot measured
# in it,
# opannotate -a shows their instructions summing to their opreport -l
# rows, and opannotate -s puts the samples on Hot.java's lines.
# Needs: the agent (configure found jvmti.h), java, javac, python3; root
# for the read-only, noexec and full-disk mounts and for perf (else those
# skip).
. "${abs_top_srcdir:?}/tests/lib/test-lib.sh"
B=$abs_top_builddir
AGENT=$B/agents/jvmti/libjvmti_oprofile.so
CHECK=$abs_top_srcdir/tests/control/jitdump_check.py
SRC=$abs_top_srcdir/tests/control/java/Hot.java

# within_3sigma OUT A B WHAT: hotA's share of A+B samples within 3 sigma
# (binomial) of the share of time Hot measured in hotA (its "truth" line)
within_3sigma() {
	read -r _ ta tb < <(grep '^truth ' "$1")
	test_expect "$4: hotA's share of $2:$3 within 3 sigma of Hot's own $ta:$tb ns" \
		awk -v a="$2" -v b="$3" -v ta="${ta:-0}" -v tb="${tb:-0}" 'BEGIN {
			if (a + b == 0 || ta + tb == 0) exit 1
			p = ta / (ta + tb); q = a / (a + b); s = sqrt(p * (1 - p) / (a + b))
			printf "# share %.4f, truth %.4f, sigma %.4f: %.2f sigma off\n", q, p, s, (q - p) / s
			d = q - p; if (d < 0) d = -d
			exit !(d <= 3 * s) }'
}

[ -f "$AGENT" ] || skip "the JVMTI agent was not built: configure found no jvmti.h (install default-jdk-headless)"
for t in java javac python3; do
	command -v $t >/dev/null || skip "no $t (install default-jdk-headless, python3)"
done
unset JAVA_TOOL_OPTIONS _JAVA_OPTIONS JDK_JAVA_OPTIONS JITDUMPDIR

test_tmpdir jvmti-test
T=$tmp
MOUNTS=
PLANTED=
test_cleanup_hook() {
	for m in $MOUNTS; do umount "$m" 2>/dev/null || umount -l "$m"; done
	for f in $PLANTED; do rm -f "$f"; done
}

javac -d "$T/cls" "$SRC" || fail "javac cannot compile '$SRC'"
# the ELF machine the dump must name: this machine's, from a binary of it
MACHINE=$(od -An -tu2 -j18 -N2 "$(command -v java)" | tr -d ' ')
read -r A1 A2 < <(awk '/static long hotA/{a=NR} a&&!e&&/^    }$/{e=NR} END{print a, e}' "$SRC")
read -r B1 B2 < <(awk '/static long hotB/{a=NR} a&&!e&&/^    }$/{e=NR} END{print a, e}' "$SRC")

# run_java NAME AGENT_OPTIONS MS [PLANT]: Hot for MS ms with the agent;
# PLANT is shell run just before, in the process that becomes the JVM
# ($$ is the JVM's pid). Leaves $T/NAME.{out,err,pid,rc}.
run_java() {
	local name=$1 opts=$2 ms=$3 plant=${4:-:}
	timeout 120 sh -c 'echo $$ > "$0.pid"; '"$plant"'; exec "$@"' "$T/$name" \
		java -XX:+UseSerialGC -Xmx128m \
		-agentpath:"$AGENT"${opts:+=$opts} -cp "$T/cls" Hot "$ms" \
		>"$T/$name.out" 2>"$T/$name.err"
	echo $? >"$T/$name.rc"
	PID=$(cat "$T/$name.pid")
}
# the program ran to its end whatever the agent met
check_ran() {
	check_eq "$(cat "$T/$1.rc")" 0 "$1: java exits 0"
	check_eq "$(tail -1 "$T/$1.out")" done "$1: Hot ran to its end"
}
warnings() { grep -c '^jvmti_oprofile: ' "$T/$1.err"; }

test_note "--- a normal run: jitdump and perf map"
mkdir "$T/d1"
run_java d1 "perfmap,dir=$T/d1" 2000
PLANTED="$PLANTED /tmp/perf-$PID.map"
check_ran d1
check_eq "$(warnings d1)" 0 "no warning on a normal run"
DUMP=$T/d1/jit-$PID.dump
check_eq "$(stat -c '%F %a' "$DUMP" 2>&1)" "regular file 600" "jit-PID.dump is a private regular file"
python3 "$CHECK" "$DUMP" --pid "$PID" --machine "$MACHINE" >"$T/d1.check"
check_eq $? 0 "the checker finds the dump well formed"
sed 's/^/# /' "$T/d1.check" | grep -v '^# load \|^# lines ' | head -5
grep '^# \(load\|lines\) Hot\.' <(sed 's/^/# /' "$T/d1.check")
check_grep "$T/d1.check" "^header pid=$PID machine=$MACHINE version=1\$" "header: pid, e_machine, version"
check_grep "$T/d1.check" '^records [0-9]* loads [0-9]* debug [1-9][0-9]* close 1$' "debug-info records and one close"
# HotSpot's replay of its stubs at VMInit is not written twice (nothing
# is unloaded in this short run, so no address is reused)
check_grep "$T/d1.check" '^loaded again 0$' "no code written twice"
check_grep "$T/d1.check" '^load Hot\.hotA\(I\)J [1-9][0-9]* [1-9]' "hotA compiled and loaded, with its code"
check_grep "$T/d1.check" '^load Hot\.hotB\(I\)J [1-9][0-9]* [1-9]' "hotB compiled and loaded, with its code"
check_grep "$T/d1.check" '^load Interpreter ' "the interpreter, a stub, by its name"
check_grep "$T/d1.check" '^lines Hot\.hotA\(I\)J Hot\.java ' "hotA has lines of Hot.java"
check_grep "$T/d1.check" '^lines Hot\.hotB\(I\)J Hot\.java ' "hotB has lines of Hot.java"
# lines of each method lie inside its own body (nothing here is inlined
# into hotA or hotB)
read -r _ _ _ lo hi _ < <(grep -F 'lines Hot.hotA(I)J Hot.java ' "$T/d1.check")
test_expect "hotA's lines $lo-$hi inside its body ($A1-$A2)" test "${lo:-0}" -gt "$A1" -a "${hi:-0}" -lt "$A2"
read -r _ _ _ lo hi _ < <(grep -F 'lines Hot.hotB(I)J Hot.java ' "$T/d1.check")
test_expect "hotB's lines $lo-$hi inside its body ($B1-$B2)" test "${lo:-0}" -gt "$B1" -a "${hi:-0}" -lt "$B2"
MAP=/tmp/perf-$PID.map
check_grep "$MAP" '^[0-9a-f]* [0-9a-f]* Hot\.hotA\(I\)J$' "the perf map names hotA"
check_grep "$MAP" '^[0-9a-f]* [0-9a-f]* Hot\.hotB\(I\)J$' "the perf map names hotB"
check_eq "$(grep -cv '^[0-9a-f][0-9a-f]* [0-9a-f][0-9a-f]* [^[:cntrl:]][^[:cntrl:]]*$' "$MAP")" 0 \
	"every perf map line is START SIZE NAME"
rm -f "$MAP"

test_note "--- the dump mapped executable while the JVM runs (how perf finds it)"
mkdir "$T/d5"
java -XX:+UseSerialGC -Xmx128m -agentpath:"$AGENT=dir=$T/d5" -cp "$T/cls" Hot 1500 \
	>"$T/d5.out" 2>"$T/d5.err" &
jpid=$!
line=
for _ in $(seq 100); do
	line=$(grep " $T/d5/jit-$jpid.dump\$" "/proc/$jpid/maps" 2>/dev/null) && break
	sleep 0.05
done
wait "$jpid"
test_note "maps: $line"
check_eq "$(echo "$line" | awk '{print $2}')" r-xp "jit-PID.dump is mapped r-xp in the JVM"

test_note "--- loaded into a running JVM (jcmd PID JVMTI.agent_load)"
if ! command -v jcmd >/dev/null; then
	test_ok "attach # SKIP no jcmd (default-jdk-headless)"
else
	mkdir "$T/d6"
	java -XX:+UseSerialGC -Xmx128m -cp "$T/cls" Hot 2500 >"$T/d6.out" 2>"$T/d6.err" &
	jpid=$!
	for _ in $(seq 50); do
		timeout 10 jcmd "$jpid" VM.version >/dev/null 2>&1 && break
		sleep 0.1
	done
	# jcmd splits key=value arguments: the options go quoted
	timeout 30 jcmd "$jpid" JVMTI.agent_load "$AGENT" "\"dir=$T/d6,perfmap\"" >"$T/d6.jcmd" 2>&1
	wait "$jpid"
	PLANTED="$PLANTED /tmp/perf-$jpid.map"
	check_eq "$(tail -1 "$T/d6.out")" done "attach: Hot ran to its end"
	python3 "$CHECK" "$T/d6/jit-$jpid.dump" --pid "$jpid" --machine "$MACHINE" >"$T/d6.check"
	check_eq $? 0 "attach: the dump is well formed"
	check_grep "$T/d6.check" '^load Hot\.hotA\(I\)J ' "attach: hotA, compiled before the agent came, is written"
	check_grep "$T/d6.check" '^load Hot\.hotB\(I\)J ' "attach: hotB too"
	check_grep "/tmp/perf-$jpid.map" ' Hot\.hotA\(I\)J$' "attach: the perf map names hotA"
	rm -f "/tmp/perf-$jpid.map"
fi

test_note "--- the checker refuses what the specification refuses"
size=$(stat -c %s "$DUMP")
# 3 bytes short of the record before the close
head -c $((size - 19)) "$DUMP" >"$T/cut.dump"
python3 "$CHECK" "$T/cut.dump" --pid "$PID" --no-close >"$T/cut.check"
check_eq $? 1 "a dump cut inside a record is refused"
check_grep "$T/cut.check" '^error: record at [0-9]*: total_size' "... naming the record"
{ printf 'XXXX'; tail -c +5 "$DUMP"; } >"$T/magic.dump"
python3 "$CHECK" "$T/magic.dump" >"$T/magic.check"
check_eq $? 1 "a bad magic is refused"

test_note "--- a symlink and a FIFO planted at the paths"
mkdir "$T/d2"
echo keep >"$T/victim"
run_java d2 "perfmap,dir=$T/d2" 300 \
	'ln -s "'"$T"'/victim" "'"$T"'/d2/jit-$$.dump"; mkfifo /tmp/perf-$$.map'
PLANTED="$PLANTED /tmp/perf-$PID.map"
check_ran d2
check_eq "$(stat -c %F "$T/d2/jit-$PID.dump")" "symbolic link" "the planted link is left alone"
check_eq "$(cat "$T/victim")" keep "the link's target is not written"
check_eq "$(stat -c %F "/tmp/perf-$PID.map")" "fifo" "the planted FIFO is left alone (and did not block)"
check_eq "$(warnings d2)" 2 "one warning for each file refused"
check_grep "$T/d2.err" "^jvmti_oprofile: cannot create '$T/d2/jit-$PID.dump': File exists: no jitdump\$" \
	"the warning names the dump and why"
rm -f "/tmp/perf-$PID.map"

test_note "--- a stale perf map of our own is taken over, a link to one is not"
mkdir "$T/d3"
run_java d3 "perfmap,nojitdump" 300 'echo stale-line > /tmp/perf-$$.map'
PLANTED="$PLANTED /tmp/perf-$PID.map"
check_ran d3
check_eq "$(warnings d3)" 0 "our own stale map: no warning"
check_no_grep "/tmp/perf-$PID.map" stale-line "the stale lines are gone"
check_grep "/tmp/perf-$PID.map" ' Interpreter$' "the new map is written"
check_eq "$(ls "$T/d3" | wc -l)" 0 "nojitdump: no dump"
rm -f "/tmp/perf-$PID.map"
# in /tmp, the map's file system: a hard link cannot cross to $TMPDIR's
V2=$(mktemp /tmp/t1052-victim.XXXXXX) || bail "mktemp in /tmp failed"
PLANTED="$PLANTED $V2"
echo stale-line >"$V2"
run_java d3b "perfmap,nojitdump" 300 'ln "'"$V2"'" /tmp/perf-$$.map'
check_eq "$(stat -c %h "$V2")" 2 "the hard link was planted"
PLANTED="$PLANTED /tmp/perf-$PID.map"
check_ran d3b
check_eq "$(cat "$V2")" stale-line "a hard link to another file is not truncated"
check_eq "$(warnings d3b)" 1 "... and warned about"
rm -f "/tmp/perf-$PID.map"

test_note "--- options: an unknown one is named and ignored"
mkdir "$T/d4"
run_java d4 "dir=$T/d4,bogus" 200
check_ran d4
check_grep "$T/d4.err" "^jvmti_oprofile: unknown option 'bogus' ignored" "the unknown option is named"
test_expect "the dump is still written" test -f "$T/d4/jit-$PID.dump"
long=$(head -c 5000 /dev/zero | tr '\0' x)
run_java d4b "dir=$T/$long" 200
check_ran d4b
check_grep "$T/d4b.err" "^jvmti_oprofile: the directory of dir= is too long: no jitdump\$" \
	"a directory too long is said, not cut short"


if [ "$(id -u)" -ne 0 ]; then
	test_ok "read-only and full disk # SKIP the mounts need root"
else
	test_note "--- a read-only directory"
	mkdir "$T/ro"
	mount -t tmpfs -o ro,size=1m tmpfs "$T/ro" && MOUNTS="$T/ro $MOUNTS"
	run_java ro "dir=$T/ro" 300
	check_ran ro
	check_eq "$(warnings ro)" 1 "one warning"
	check_grep "$T/ro.err" "cannot create '$T/ro/jit-$PID.dump': Read-only file system" "... saying why"

	test_note "--- a noexec directory: the dump is written, perf cannot find it, said"
	mkdir "$T/noexec"
	mount -t tmpfs -o noexec,size=8m tmpfs "$T/noexec" && MOUNTS="$T/noexec $MOUNTS"
	run_java noexec "dir=$T/noexec" 300
	check_ran noexec
	check_grep "$T/noexec.err" "cannot map '$T/noexec/jit-$PID.dump' executable: Operation not permitted: perf will not find the jitdump" \
		"the mapping refused, said"
	check_eq "$(warnings noexec)" 1 "once"
	python3 "$CHECK" "$T/noexec/jit-$PID.dump" --pid "$PID" --machine "$MACHINE" >/dev/null
	check_eq $? 0 "the dump is written all the same"

	test_note "--- a full disk"
	mkdir "$T/full"
	mount -t tmpfs -o size=192k tmpfs "$T/full" && MOUNTS="$T/full $MOUNTS"
	run_java full "dir=$T/full" 1500
	check_ran full
	check_eq "$(warnings full)" 1 "one warning however many records are lost"
	check_grep "$T/full.err" "cannot write '$T/full/jit-$PID.dump': No space left on device: the jitdump stops here" \
		"... saying why"
	python3 "$CHECK" "$T/full/jit-$PID.dump" --pid "$PID" --machine "$MACHINE" --no-close >"$T/full.check"
	check_eq $? 0 "the cut dump still ends on a whole record"
	grep '^records' "$T/full.check" | sed 's/^/# full disk: /'
fi

test_note "--- perf record -k 1, perf inject --jit, perf report"
if [ "$(id -u)" -ne 0 ] || ! command -v perf >/dev/null; then
	test_ok "perf's side # SKIP needs root and perf (linux-perf)"
elif ! msg=$("$B/tests/control/perfprobe"); then
	test_ok "perf's side # SKIP $msg"
else
	mkdir "$T/p"
	# --no-bpf-event: perf 6.1 aborts on some kernels' BPF events
	# ("assertion failed at util/build-id.c"), whatever the workload;
	# --buildid-mmap: so it does while another tool's event that asks
	# for build-ids (our daemon's, in a test beside this one) is open:
	# the mapping records then carry the build-id flag for perf's
	# event too, and perf 6.1 reads them only when it asked for it
	(cd "$T/p" && timeout 120 perf record --no-bpf-event --buildid-mmap \
		-k 1 -e cpu-clock \
		-o perf.data java -XX:+UseSerialGC -Xmx128m \
		-agentpath:"$AGENT=dir=$T/p" -cp "$T/cls" Hot 3000) \
		>"$T/p.out" 2>"$T/p.err"
	check_eq "$(tail -1 "$T/p.out")" done "Hot ran under perf record"
	(cd "$T/p" && perf inject --jit -i perf.data -o perf.jit.data) >"$T/inject.err" 2>&1
	check_eq $? 0 "perf inject --jit reads the dump"
	perf report -i "$T/p/perf.jit.data" --stdio --sort sym -n 2>/dev/null >"$T/report"
	# a method compiled more than once is a row per compiled copy
	a=$(awk '/\] Hot\.hotA\(I\)J$/ {s += $2} END {print s + 0}' "$T/report")
	b=$(awk '/\] Hot\.hotB\(I\)J$/ {s += $2} END {print s + 0}' "$T/report")
	test_note "perf report: Hot.hotA(I)J $a samples, Hot.hotB(I)J $b samples"
	test_expect "perf report names both methods" test "$a" -gt 100 -a "$b" -gt 50
	# a 2:1 split; wide bounds: a compile's own time lands on either side
	test_expect "hotA/hotB = $a/$b, about 2" \
		test $((a * 10)) -ge $((b * 15)) -a $((a * 10)) -le $((b * 27))
fi

test_note "--- our tools: operf, the agent's perf map, opreport -l after the map is gone"
if [ "$(id -u)" -ne 0 ]; then
	test_ok "operf's side # SKIP needs root (system perf_event_paranoid)"
elif ! msg=$("$B/tests/control/perfprobe"); then
	test_ok "operf's side # SKIP $msg"
else
	"$B/utils/operf" -d "$T/op" java -XX:+UseSerialGC -Xmx128m \
		-agentpath:"$AGENT=perfmap,nojitdump" -cp "$T/cls" Hot 3000 \
		>"$T/op.out" 2>"$T/op.err"
	check_eq "$(grep -c '^done$' "$T/op.out")" 1 "Hot ran under operf"
	kept=$(ls "$T/op/samples/current/session/jit/" 2>/dev/null | head -1)
	test_expect "the session keeps the JVM's map ($kept)" test -n "$kept"
	jpid=${kept%.map}
	PLANTED="$PLANTED /tmp/perf-$jpid.map"
	rm -f "/tmp/perf-$jpid.map"
	"$OPREPORT" --session-dir="$T/op" -l >"$T/op.l" 2>"$T/op.l.err"
	# a method compiled more than once is a row per compiled copy
	a=$(awk '$NF == "Hot.hotA(I)J" {s += $1} END {print s + 0}' "$T/op.l")
	b=$(awk '$NF == "Hot.hotB(I)J" {s += $1} END {print s + 0}' "$T/op.l")
	test_note "opreport -l: Hot.hotA(I)J $a samples, Hot.hotB(I)J $b samples"
	test_expect "opreport -l names both methods, the map deleted" test "$a" -gt 100 -a "$b" -gt 50
	within_3sigma "$T/op.out" "$a" "$b" "opreport -l, perf map"

	test_note "--- our tools: operf, the agent's jitdump kept as an image, opannotate -a and -s"
	mkdir "$T/jd"
	"$B/utils/operf" -d "$T/jop" java -XX:+UseSerialGC -Xmx128m \
		-agentpath:"$AGENT=dir=$T/jd" -cp "$T/cls" Hot 3000 \
		>"$T/jop.out" 2>"$T/jop.err"
	check_eq "$(grep -c '^done$' "$T/jop.out")" 1 "Hot ran under operf, jitdump only"
	so=$(ls "$T/jop/samples/current/session/jit/" 2>/dev/null | grep '\.so$' | head -1)
	test_expect "the session keeps an image of the JVM's dump ($so)" test -n "$so"
	rm -f "$T"/jd/jit-*.dump
	"$OPREPORT" --session-dir="$T/jop" -l >"$T/jop.l" 2>"$T/jop.l.err"
	a=$(awk '$NF == "Hot.hotA(I)J" {s += $1} END {print s + 0}' "$T/jop.l")
	b=$(awk '$NF == "Hot.hotB(I)J" {s += $1} END {print s + 0}' "$T/jop.l")
	test_note "opreport -l: Hot.hotA(I)J $a samples, Hot.hotB(I)J $b samples"
	test_expect "opreport -l names both methods from the image, the dump deleted" \
		test "$a" -gt 100 -a "$b" -gt 50
	within_3sigma "$T/jop.out" "$a" "$b" "opreport -l, jitdump image"
	"$B/pp/opannotate" --session-dir="$T/jop" -a >"$T/jop.a" 2>"$T/jop.a.err"
	# each compiled copy: its header's total and its instructions' sum
	awk '/ total: / { if (n != "") print t, s; n = ""
			if ($0 !~ /Hot\.hot[AB]\(I\)J total:/) next
			n = $0; t = $0; sub(/.* total: +/, "", t); sub(/ .*/, "", t); s = 0; next }
		/^ +[0-9]+ +[0-9.]+ +:/ { if (n != "") s += $1 }
		END { if (n != "") print t, s }' "$T/jop.a" >"$T/jop.sums"
	test_note "opannotate -a: $(tr '\n' ' ' <"$T/jop.sums")(total sum, per compiled copy)"
	test_expect "opannotate -a shows the methods' instructions, summing to their totals" \
		awk 'NF == 2 && $1 == $2 { ok++ } NF != 2 || $1 != $2 { bad++ }
			END { exit !(ok > 0 && !bad) }' "$T/jop.sums"
	ta=$(awk '{ s += $1 } END { print s + 0 }' "$T/jop.sums")
	check_eq "$ta" "$((a + b))" "the annotated totals are opreport -l's rows"
	"$B/pp/opannotate" --session-dir="$T/jop" -s \
		--search-dirs="$(dirname "$SRC")" >"$T/jop.s" 2>"$T/jop.s.err"
	l=$(awk '/:.*s \+= \(s \^ i\)/ && $1 ~ /^[0-9]+$/ { s += $1 } END { print s + 0 }' "$T/jop.s")
	test_note "opannotate -s: $l samples on Hot.java's loop bodies"
	test_expect "opannotate -s puts the samples on Hot.java's lines" test "$l" -gt 100
fi

test_done
