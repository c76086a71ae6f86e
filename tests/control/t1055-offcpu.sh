#!/bin/sh
# Off-CPU time (OFF_CPU, doc/offcpu.md) end to end with operf, against
# the times tests/workloads/offcpu_places measures itself:
#  (a) places: its main thread blocks in wait_sleep (nanosleep),
#      wait_pipe (a pipe a feeder writes 4 ms later) and wait_mutex (a
#      mutex a holder keeps 10 ms more). operf --event=OFF_CPU:1
#      --callgraph, then after it exited, opreport --folded: each
#      place's share of the three places' off-CPU time is within 2
#      points of the share the program timed, found under the place's
#      own function (its user-space caller), and its microseconds within
#      5 % of the program's;
#      The stats balance and count microseconds, as the files do;
#  (b) every output reads it, and the header and columns say
#      microseconds, not samples: -l, -c, --stacks, --pprof (sample type
#      off-cpu/microseconds), --flame, --processes, a differential
#      {} {} report;
#  (c) OFF_CPU:7 records one blocking switch in 7 and weights it by 7:
#      a thread's one place (mixed_sleep) stays within 3 standard
#      deviations (from the sleeps the program reports: every 7th for
#      the perf mechanism, 1 in 7 at random for eBPF) + 3 % of the time
#      it timed;
#  (d) the combined view: a thread that computes (4 ms of cpu) and sleeps
#      (6 ms) in turn, sampled with CPU_CLOCK:1000000 and OFF_CPU:1
#      (-t): opreport --wall's on-CPU share of its on + off time is within
#      3 points of the program's own cpu / (cpu + sleep). (On-CPU time is
#      counted in 1 ms samples: each 4 ms stint is 4 +- 1 samples, which
#      averages out over the ~300 stints of 3 s to well under a point;
#      the program's own clock reads sit a few microseconds inside each
#      stint. 3 points leaves room for a loaded machine's scheduling.)
#  (e) the same places under the daemon (opcontrol --event=OFF_CPU:1,
#      system-wide, SWITCH_CPU_WIDE records): the same 2 points;
#  (f) without the tracepoint (OPROFILE_TRACEFS somewhere else) operf
#      fails with one line naming what is missing.
# Every step runs with the mechanism $OFFCPU_MECH (OPROFILE_OFFCPU):
# perf here, bpf in t1056; (f) is the perf mechanism's (eBPF needs no
# tracefs: t1056 checks that instead).
. "${abs_top_srcdir:?}/tests/control/lib.sh"
OFFCPU_MECH=${OFFCPU_MECH:-perf}
OPROFILE_OFFCPU=$OFFCPU_MECH
export OPROFILE_OFFCPU
case $OFFCPU_MECH in
bpf) MECH_LINE="event OFF_CPU: eBPF on sched_switch" ;;
*) MECH_LINE="event OFF_CPU: the perf tracepoint" ;;
esac
if [ "$OFFCPU_MECH" = bpf ]; then
	"$B/utils/operf" --event=OFF_CPU:1 -d "$T/probe" true >"$T/probe.out" 2>&1 || {
		sed 's/^/# /' "$T/probe.out"
		grep -q "no eBPF mechanism\|cannot [a-z ]*the eBPF program" "$T/probe.out" &&
			skip "the eBPF mechanism is not built or does not load here"
		fail "operf OFF_CPU by eBPF failed"
	}
fi

OPERF=$B/utils/operf
W=$T/offcpu_places
cp "$B/tests/workloads/offcpu_places" "$W" || fail "cannot copy offcpu_places"

# a kernel without tracefs cannot: skip. Else operf mounts it (root)
# when the host booted without it, and any failure is a failure.
[ -d /sys/kernel/tracing ] || [ -d /sys/kernel/debug/tracing ] ||
	skip "this kernel has no tracefs (sched:sched_switch)"
"$OPERF" --event=OFF_CPU:1 -d "$T/probe" true >"$T/probe.out" 2>&1 ||
	{ cat "$T/probe.out"; fail "operf --event=OFF_CPU:1 failed"; }
test -e /sys/kernel/tracing/events/sched/sched_switch/id ||
	test -e /sys/kernel/debug/tracing/events/sched/sched_switch/id ||
	fail "tracefs is not mounted after operf ran as root"

step "ophelp lists OFF_CPU; its count is a ratio, the same with a callgraph"
"$B/utils/ophelp" >"$T/ophelp" 2>&1 || fail "ophelp failed"
check_grep "$T/ophelp" "^OFF_CPU: " "ophelp lists OFF_CPU"
test_expect "ophelp --callgraph=1 -e OFF_CPU:1 is valid" "$B/utils/ophelp" --callgraph=1 -e OFF_CPU:1
"$B/utils/ophelp" -e OFF_CPU:0 >"$T/out" 2>&1 && fail "ophelp -e OFF_CPU:0 was accepted"
check_grep "$T/out" "OFF_CPU:0.: count must be positive" "OFF_CPU:0 is refused"

step "(a) three places, each timed by the program"
"$OPERF" --event=OFF_CPU:1 --callgraph -d "$T/s" "$W" places 3 \
	>"$T/truth" 2>"$T/operf.err" || { cat "$T/operf.err"; fail "operf failed"; }
sed 's/^/# truth: /' "$T/truth"
check_grep "$T/operf.err" "^operf: $MECH_LINE" "one line says the mechanism: $OFFCPU_MECH"
# the stats count what the files count (microseconds): still balanced,
# and the stacks' counts sum to stack_samples_written
stats_balance "$T/s/samples/current"
sum=$("$B/tests/control/stackcheck" --sum "$T/s/samples/current") || fail "stackcheck --sum failed"
check_eq "${sum%% *}" "$(counter "$T/s/samples/current" stack_samples_written)" \
	"the stacks' microseconds sum to stats/stack_samples_written"
"$OPREPORT" --session-dir="$T/s" --folded >"$T/folded" 2>"$T/err" ||
	{ cat "$T/err"; fail "opreport --folded failed"; }
# place PLACE: the off-CPU microseconds of the stacks through PLACE
place() {
	awk -v p="$1" '{ n = split($0, a, " "); f = ";" a[1] ";"
		if (index(f, ";" p ";")) s += a[n] } END { printf "%d\n", s }' "$T/folded"
}
tt=0 tp=0
for p in wait_sleep wait_pipe wait_mutex; do
	t=$(awk -v p="$p" '$1 == p { print $2 }' "$T/truth")
	[ -n "$t" ] || fail "the program printed no time for $p"
	eval "t_$p=$t"
	v=$(place "$p")
	eval "p_$p=$v"
	tt=$((tt + t)) tp=$((tp + v))
done
for p in wait_sleep wait_pipe wait_mutex; do
	eval "t=\$t_$p v=\$p_$p"
	awk -v p="$p" -v t="$t" -v tt="$tt" -v v="$v" -v tp="$tp" 'BEGIN {
		st = 100 * t / tt; sp = tp ? 100 * v / tp : 0
		d = sp - st; if (d < 0) d = -d
		printf "# %s: profile %d us (%.2f %%), program %d us (%.2f %%)\n",
			p, v, sp, t, st
		exit !(d <= 2) }' ||
		fail "$p: its share is not within 2 points of the program's"
	test_ok "$p: share within 2 points of the program's ($v us profiled, $t us timed)"
	awk -v t="$t" -v v="$v" 'BEGIN { exit !(v >= t * 0.95 && v <= t * 1.05) }' ||
		fail "$p: $v us profiled, $t us timed: not within 5 %"
done
# each place's stacks name it as the caller of its libc call
for pair in "wait_sleep nanosleep" "wait_pipe read" "wait_mutex pthread_mutex_lock"; do
	set -- $pair
	check_grep "$T/folded" ";main;$1;[^;]*$2" "$1 calls $2 in the stacks"
done

step "(b) every output: microseconds, not samples"
"$OPREPORT" --session-dir="$T/s" -l >"$T/l" 2>"$T/err" || { cat "$T/err"; fail "opreport -l failed"; }
check_grep "$T/l" "^Off-CPU time \(OFF_CPU\): .*microseconds \(us\), not samples" "-l: the header says microseconds"
check_grep "$T/l" "^us +%" "-l: the column is us"
"$OPREPORT" --session-dir="$T/s" -c >"$T/c" 2>"$T/err" || { cat "$T/err"; fail "opreport -c failed"; }
check_grep "$T/c" "offcpu_places +wait_mutex" "-c: the places are in the call graph"
"$OPREPORT" --session-dir="$T/s" --stacks >"$T/st" 2>"$T/err" || { cat "$T/err"; fail "opreport --stacks failed"; }
check_grep "$T/st" "^Stacks of event OFF_CPU.1.0: [0-9]+ us," "--stacks: counts in us"
"$OPREPORT" --session-dir="$T/s" --pprof="$T/p.pb.gz" 2>"$T/err" || { cat "$T/err"; fail "opreport --pprof failed"; }
# the string table, each string after its tag and length bytes
zcat "$T/p.pb.gz" | tr -c '[:print:]' '\n' >"$T/p.txt"
check_grep "$T/p.txt" "off-cpu" "--pprof: sample type off-cpu"
check_grep "$T/p.txt" "microseconds" "--pprof: unit microseconds"
check_no_grep "$T/p.txt" "samples" "--pprof: no samples type"
"$OPREPORT" --session-dir="$T/s" --flame="$T/f.html" 2>"$T/err" || { cat "$T/err"; fail "opreport --flame failed"; }
check_grep "$T/f.html" "wait_mutex" "--flame: the places are in the graph"
"$OPREPORT" --session-dir="$T/s" --processes >"$T/pr" 2>"$T/err" || { cat "$T/err"; fail "opreport --processes failed"; }
check_grep "$T/pr" "^Process summary \(event OFF_CPU; counts are microseconds off the cpu" "--processes: microseconds"
check_grep "$T/pr" "KERNEL portion: [0-9]+ us$" "--processes: portions in us"
"$OPREPORT" --session-dir="$T/s" -l "{" "}" "{" "}" >"$T/d" 2>"$T/err" ||
	{ cat "$T/err"; fail "opreport { } { } failed"; }
check_grep "$T/d" "Off-CPU time" "{ } { }: reads it"

step "(c) OFF_CPU:7 weights one switch in 7 by 7"
# one place, so that every 7th of its switches is a fair sample: with
# three places in a fixed cycle the period aliases with the cycle
# (doc/offcpu.md: 67 % to 128 % of the truth, by cpu placement)
"$OPERF" --event=OFF_CPU:7 --callgraph -d "$T/s7" "$W" mixed 3 \
	>"$T/truth7" 2>"$T/operf.err" || { cat "$T/operf.err"; fail "operf OFF_CPU:7 failed"; }
"$OPREPORT" --session-dir="$T/s7" --folded >"$T/folded" 2>"$T/err" ||
	{ cat "$T/err"; fail "opreport --folded failed"; }
tp=$(place mixed_sleep)
# one sleep in 7 times 7. Every 7th (perf): the spread is sqrt(7 n var)
# for n sleeps whose lengths vary (the machine's wake-up delays); 1 in 7
# at random (eBPF): sqrt(6 sum of squares), the number taken varies too.
# 3 of it, plus 3 % for the clock reads around each sleep
set -- $(awk -v rnd="$([ "$OFFCPU_MECH" = bpf ] && echo 1 || echo 0)" \
	'$1 == "sleep" { t = $2 } $1 == "sleeps" { n = $2 } $1 == "sleep_sq" { q = $2 }
	END { v = q / n - (t / n) ^ 2; if (v < 0) v = 0
	      s = rnd ? sqrt(6 * q) : sqrt(7 * n * v)
	      printf "%d %.0f\n", t, 3 * s + 0.03 * t }' "$T/truth7")
tt=$1 tol=$2
echo "# OFF_CPU:7: mixed_sleep $tp us profiled, $tt us timed, tolerance $tol us"
awk -v t="$tt" -v v="$tp" -v e="$tol" 'BEGIN { d = v - t; if (d < 0) d = -d
	exit !(t > 0 && d <= e) }' ||
	fail "OFF_CPU:7: $tp us profiled, $tt us timed: not within $tol us"
test_ok "OFF_CPU:7: within 3 sigma (+3 %) of the time the program timed"

step "(d) the combined view: compute 40 %, sleep 60 %"
"$OPERF" --events=CPU_CLOCK:1000000,OFF_CPU:1 --callgraph -t -d "$T/m" "$W" mixed 3 \
	>"$T/mtruth" 2>"$T/operf.err" || { cat "$T/operf.err"; fail "operf (mixed) failed"; }
sed 's/^/# truth: /' "$T/mtruth"
"$OPREPORT" --session-dir="$T/m" --wall >"$T/wall" 2>"$T/err" ||
	{ cat "$T/err"; fail "opreport --wall failed"; }
sed 's/^/# /' "$T/wall"
check_grep "$T/wall" "on-CPU = CPU_CLOCK samples x 1000000 ns / 1000, off-CPU = OFF_CPU" "--wall says how it counts"
cpu=$(awk '$1 == "cpu" { print $2 }' "$T/mtruth")
slp=$(awk '$1 == "sleep" { print $2 }' "$T/mtruth")
# the computing thread: the row with the most on-CPU time (the main
# thread only starts it and waits)
on=$(awk '$1 ~ /^[0-9]+$/ && $4 > max { max = $4; on = $5 } END { print on }' "$T/wall")
[ -n "$on" ] || fail "--wall shows no thread with on-CPU time"
awk -v c="$cpu" -v s="$slp" -v on="$on" 'BEGIN { t = 100 * c / (c + s)
	d = on - t; if (d < 0) d = -d
	printf "# on-CPU %.2f %% in --wall, %.2f %% by the program\n", on, t
	exit !(d <= 3) }' || fail "--wall: on-CPU $on %: not within 3 points of the program's"
test_ok "--wall: the thread's on/off split within 3 points of its own"

step "(e) the daemon: opcontrol --event=OFF_CPU:1, system-wide"
# a ring of 16 MiB a cpu: every blocking switch of the machine comes
# with a 16 KiB stack copy, and the default ring (512 KiB) overflows in
# bursts when other tests or builds run beside this one
ctl --event=OFF_CPU:1 --callgraph=16 --separate=thread \
	--cpu-buffer-size=262144 >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "opcontrol --event=OFF_CPU:1 refused"; }
ctl --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
# the daemon says its mechanism as it starts (opcontrol shows it)
check_grep "$T/out" "^oprofiled: .*$MECH_LINE" "the daemon says the mechanism: $OFFCPU_MECH"
"$W" places 2 >"$T/dtruth" || fail "the workload failed under the daemon"
ctl --dump || fail "--dump failed"
ctl --shutdown || fail "--shutdown failed"
stats_balance "$S/samples/current"
"$OPREPORT" --session-dir="$S" --folded >"$T/folded.all" 2>"$T/err" ||
	{ cat "$T/err"; fail "opreport --folded on the daemon's session failed"; }
# the machine's other processes are in it too: ours by its name
grep "^offcpu_places;" "$T/folded.all" >"$T/folded"
tt=0 tp=0
for p in wait_sleep wait_pipe wait_mutex; do
	t=$(awk -v p="$p" '$1 == p { print $2 }' "$T/dtruth")
	eval "t_$p=$t"
	v=$(place "$p")
	eval "p_$p=$v"
	tt=$((tt + t)) tp=$((tp + v))
done
for p in wait_sleep wait_pipe wait_mutex; do
	eval "t=\$t_$p v=\$p_$p"
	awk -v p="$p" -v t="$t" -v tt="$tt" -v v="$v" -v tp="$tp" 'BEGIN {
		st = 100 * t / tt; sp = tp ? 100 * v / tp : 0
		d = sp - st; if (d < 0) d = -d
		printf "# daemon, %s: profile %d us (%.2f %%), program %d us (%.2f %%)\n",
			p, v, sp, t, st
		exit !(d <= 2) }' ||
		fail "daemon: $p's share is not within 2 points of the program's"
	test_ok "daemon: $p's share within 2 points of the program's"
done

if [ "$OFFCPU_MECH" = bpf ]; then
	step "(f) eBPF needs no tracefs; a bad OPROFILE_OFFCPU: one line"
	OPROFILE_TRACEFS=$T/none "$OPERF" --event=OFF_CPU:1 -d "$T/x" true \
		>"$T/out" 2>"$T/err" || { cat "$T/err"; fail "operf OFF_CPU by eBPF needed tracefs"; }
	test_ok "eBPF: OFF_CPU without tracefs"
	OPROFILE_OFFCPU="$(printf 'x\033[2J')" "$OPERF" --event=OFF_CPU:1 -d "$T/x" true \
		>"$T/out" 2>"$T/err" && fail "operf took a bad OPROFILE_OFFCPU"
	sed 's/^/# /' "$T/err"
	check_grep "$T/err" "OPROFILE_OFFCPU is .*it must be auto, bpf or perf" \
		"a bad OPROFILE_OFFCPU: refused, named"
	check_eq "$(wc -l <"$T/err")" 1 "one line"
	check_no_grep "$T/err" "$(printf '\033')" "no escape byte reaches the terminal"
	test_done
	exit 0
fi
step "(f) no tracepoint: one line that says why"
OPROFILE_TRACEFS=$T/none "$OPERF" --event=OFF_CPU:1 -d "$T/x" true >"$T/out" 2>"$T/err" &&
	fail "operf ran OFF_CPU without its tracepoint"
sed 's/^/# /' "$T/err"
check_eq "$(wc -l <"$T/err")" 1 "one line"
check_grep "$T/err" "^operf: error: event OFF_CPU needs the tracepoint sched:sched_switch .*'$T/none/events/sched/sched_switch/id'" \
	"it names the tracepoint and the file"
mkdir -p "$T/bad/events/sched/sched_switch"
printf '37\033[2J\n' >"$T/bad/events/sched/sched_switch/id"
OPROFILE_TRACEFS=$T/bad "$OPERF" --event=OFF_CPU:1 -d "$T/x" true >"$T/out" 2>"$T/err" &&
	fail "operf ran OFF_CPU with a bad tracepoint id"
check_grep "$T/err" "is not a tracepoint id" "a bad id: refused, named"
check_no_grep "$T/err" "$(printf '\033')" "no escape byte reaches the terminal"
test_done
