#!/bin/sh
# --separate=thread, cpu and all: the TGID.TID.CPU part of the sample file
# names (doc/formats.md section 3) holds the real ids.
#  thread: a two-thread process gets one file per thread under its tgid,
#          tid1 == tgid, each thread's samples in thread_hot;
#  cpu:    one binary run twice at once, pinned to cpu 0 (0.5 s of CPU) and
#          to cpu 1 (1 s), gets .all.all.0 and .all.all.1 with samples in
#          that ratio, and nothing else;
#  all:    lib, kernel, thread and cpu at once, with pinned processes of
#          known pids.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

W=$B/tests/workloads
cp "$B/tests/control/twothreads" "$W/hot_main" "$W/hot_lib" "$W/libhot.so" "$T/" ||
	fail "cannot copy the workloads"
cp /bin/dd "$T/dd"
LD_LIBRARY_PATH=$T
export LD_LIBRARY_PATH
C=$S/samples/current
EV=CPU_CLOCK.1000000.0
[ "$(nproc)" -ge 2 ] || skip "needs two cpus"

# sfile APP IMAGE TGID.TID.CPU
sfile() { echo "$C/{root}$1/{dep}/$2/$EV.$3"; }
# total FILE: its samples
total() { [ -f "$1" ] || fail "no sample file ${1#"$C/"}"; "$SFRANGE" "$1" || fail "cannot read $1"; }
# files_of APP: the names of APP's sample files, relative to $C
files_of() { find "$C/{root}$1/{dep}" -type f | sed "s|^$C/||" | sort; }
restart() {
	ctl --shutdown || fail "--shutdown failed"
	ctl --separate="$1" --reset --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
	grep -q "^separate=$2\$" "$C/session.conf" || fail "session.conf: $(grep separate "$C/session.conf"), not $2"
}

step "--separate=thread: a two-thread process"
ctl --separate=thread --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
ids=$("$T/twothreads" 0.8) || fail "twothreads failed"
set -- $ids
tgid=$1 tid1=$2 tid2=$3
echo "twothreads: tgid $tgid, tids $tid1 $tid2"
[ "$tid1" = "$tgid" ] && [ "$tid2" != "$tgid" ] || fail "twothreads printed '$ids'"
ctl --dump || fail "--dump failed"
app=$T/twothreads
files_of "$app" | tee "$T/files"
for tid in $tid1 $tid2; do
	f=$(sfile "$app" "{root}$app" "$tgid.$tid.all")
	check_header "$f" 0 "$app"
	in_range "$f" "$app" thread_hot 90
done
# the process's own image: exactly those two files
grep "^{root}$app/{dep}/{root}$app/" "$T/files" | grep -v "/$EV\.$tgid\.\($tid1\|$tid2\)\.all$" &&
	fail "other files of twothreads' own image"
# anonymous regions of that process only, with its tgid in the name, and
# the vDSO (one image for all processes)
grep -v "^{root}$app/{dep}/{root}$app/" "$T/files" |
	grep -v "^{root}$app/{dep}/\({anon:[^}]*}/$tgid\.0x[0-9a-f]*\.0x[0-9a-f]*\|{root}/\[vdso\]\)/$EV\.$tgid\.\($tid1\|$tid2\)\.all$" &&
	fail "unexpected files of twothreads"
"$SFCHECK" "$C" || fail "sample files fail the structural check"
stats_balance "$C"

step "opreport on that session: two thread columns, -m tid merges them"
# image:APP selects the process's own image, its anonymous regions and
# the vDSO (under the application): a thread's column sums all its files
thread_total() {
	t=0
	for f in $(find "$C/{root}$app/{dep}" -type f -name "$EV.$tgid.$1.all"); do
		n=$(total "$f")
		t=$((t + ${n##* }))
	done
	echo $t
}
n1=$(thread_total $tid1) n2=$(thread_total $tid2)
"$OPREPORT" --session-dir="$S" -l image:"$app" >"$T/rep" 2>&1 || { cat "$T/rep"; fail "opreport -l failed"; }
cat "$T/rep"
grep -q "^Processes with a thread ID of $tid1\$" "$T/rep" && grep -q "^Processes with a thread ID of $tid2\$" "$T/rep" ||
	fail "opreport shows no class per thread"
grep -Eq '^samples +% +samples +% ' "$T/rep" || fail "opreport shows no two sample columns"
# each column's sum equals its thread's sample file total
sums=$(sed -n '/symbol name$/,$p' "$T/rep" | sed 1d | awk '{ a += $1; b += $3 } END { print a, b }')
check_eq "$sums" "$n1 $n2" "each thread's column sums to its sample file's total"
"$OPREPORT" --session-dir="$S" -l -m tid image:"$app" >"$T/merged" 2>&1 || { cat "$T/merged"; fail "opreport -m tid failed"; }
grep -q 'thread ID' "$T/merged" && fail "-m tid still shows thread classes"
merged=$(sed -n '/symbol name$/,$p' "$T/merged" | sed 1d | awk '{ a += $1 } END { print a }')
check_eq "$merged" "$((n1 + n2))" "-m tid sums the two threads"
echo "ok: two columns ($n1 + $n2 samples), merged by -m tid into $merged"

step "opreport -X on that session: OProfile's <process>/<thread> form"
"$OPREPORT" --session-dir="$S" -X -l image:"$app" >"$T/rep.xml" 2>"$T/rep.xml.err" ||
	{ cat "$T/rep.xml.err"; fail "opreport -X failed"; }
if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout --schema "$abs_top_srcdir/doc/opreport.xsd" "$T/rep.xml" ||
		{ cat "$T/rep.xml"; fail "opreport -X does not validate against doc/opreport.xsd"; }
	P="/profile/process[@pid='$tgid']"
	xp() { xmllint --xpath "$1" "$T/rep.xml" 2>/dev/null; }
	got="$(xp "string($P/@name)")|$(xp "string($P/count)")|$(xp "string($P/thread[@tid='$tid1']/count)")|$(xp "string($P/thread[@tid='$tid2']/count)")"
	[ "$got" = "$app|$((n1 + n2))|$n1|$n2" ] ||
		{ cat "$T/rep.xml"; fail "process|total|thread 1|thread 2: '$got', not '$app|$((n1 + n2))|$n1|$n2'"; }
	echo "ok: <process pid=$tgid> with <thread tid=$tid1> ($n1) and <thread tid=$tid2> ($n2), valid"
else
	echo "xmllint not found (Debian: libxml2-utils): -X not validated"
fi

step "--separate=cpu: one binary pinned to cpu 0 (0.5 s) and to cpu 1 (1 s)"
restart cpu cpu
app=$T/hot_main
taskset -c 0 "$app" 0.5 & p0=$!
taskset -c 1 "$app" 1.0 & p1=$!
wait $p0 || fail "hot_main on cpu 0 failed"
wait $p1 || fail "hot_main on cpu 1 failed"
ctl --dump || fail "--dump failed"
files_of "$app" | tee "$T/files"
f0=$(sfile "$app" "{root}$app" all.all.0)
f1=$(sfile "$app" "{root}$app" all.all.1)
check_header "$f0" 0 "$app"
check_header "$f1" 0 "$app"
in_range "$f0" "$app" hot_main_loop 90
in_range "$f1" "$app" hot_main_loop 90
n0=$(total "$f0") n1=$(total "$f1")
echo "cpu 0: $n0 samples, cpu 1: $n1 samples (CPU time 0.5 s and 1 s)"
# 2:1 built in; >= 1.5 allows for noise
[ $((n1 * 2)) -ge $((n0 * 3)) ] || fail "cpu 1 has $n1 samples, not ~2x cpu 0's $n0"
grep -v "/$EV\.all\.all\.[01]$" "$T/files" && fail "hot_main files not per cpu 0/1"
"$SFCHECK" "$C" || fail "sample files fail the structural check"
stats_balance "$C"

step "--separate=all: lib, kernel, thread and cpu together"
restart all "lib,kernel,thread,cpu"
taskset -c 1 "$T/twothreads" 0.4 >"$T/ids" & p2=$!
taskset -c 0 "$T/hot_lib" 0.6 & p3=$!
taskset -c 0 "$T/dd" if=/dev/zero of=/dev/null bs=1M count=8000 status=none & p4=$!
wait $p2 || fail "twothreads failed"
wait $p3 || fail "hot_lib failed"
wait $p4 || fail "dd failed"
ctl --dump || fail "--dump failed"
set -- $(cat "$T/ids")
tgid=$1 tid1=$2 tid2=$3
check_eq "$tgid" "$p2" "twothreads' tgid is its pid"
echo "twothreads (cpu 1): tgid $tgid, tids $tid1 $tid2; hot_lib (cpu 0): $p3; dd (cpu 0): $p4"
for tid in $tid1 $tid2; do
	in_range "$(sfile "$T/twothreads" "{root}$T/twothreads" "$tgid.$tid.1")" \
		"$T/twothreads" thread_hot 90
done
# libhot.so under hot_lib (lib), with hot_lib's pid and cpu 0
f=$(sfile "$T/hot_lib" "{root}$T/libhot.so" "$p3.$p3.0")
check_header "$f" 0 "$T/libhot.so"
in_range "$f" "$T/libhot.so" hot_lib_loop 90
# the kernel under dd (kernel), with dd's pid and cpu 0
f=$(sfile "$T/dd" "{root}/proc/kallsyms" "$p4.$p4.0")
check_header "$f" 1
n=$(total "$f")
echo "dd: $n kernel samples in ${f#"$C/"}"
[ "$n" -ge 100 ] || fail "only $n kernel samples of dd"
for a in twothreads hot_lib dd; do files_of "$T/$a"; done >"$T/files"
cat "$T/files"
# (a sample of a thread already torn down at exit has no tid: perf says
# -1, and it goes to TGID.all -- its kernel exit path, a few samples)
grep -v "\.$tgid\.\($tid1\|$tid2\)\.1$" "$T/files" | grep -v "\.$p3\.$p3\.0$" |
	grep -v "\.$p4\.$p4\.0$" | grep -v "/{root}/proc/kallsyms/$EV\.$tgid\.all\.1$" &&
	fail "files with other tgid/tid/cpu"
"$SFCHECK" "$C" || fail "sample files fail the structural check"
stats_balance "$C"
ctl --shutdown || fail "--shutdown failed"
test_done
