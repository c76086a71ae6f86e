#!/bin/sh
# opwatch --count: per call, what the calling thread itself counted from
# entry to return (per-thread groups: the counts are virtualised, not the
# cpu's). tests/control/counted: c_sleep sleeps 5 ms (next to no CPU, at
# least one context switch per call), c_spin burns 5 ms of thread CPU
# time (task-clock's median within 2 % + 50 us of the program's median),
# c_fault touches 64 new pages (at least 64 page faults per call). Then
# --count with --all or --pair, and an unknown event, are refused.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

opwatch_workload "$B/tests/control/counted"

step "sleep, spin and fault, counted per call"
"$OPWATCH" -P "$P:c_sleep" -P "$P:c_spin" -P "$P:c_fault" \
	--count task-clock,context-switches,page-faults -f csv -o "$T/w.csv" "$P" \
	>"$T/truth" 2>"$T/err" || { cat "$T/err"; fail "opwatch --count failed"; }
sed 's/^/# /' "$T/truth" "$T/w.csv"
head -1 "$T/w.csv" | grep -q ',task-clock_min,task-clock_p50,task-clock_mean,task-clock_max,task-clock_total,context-switches_min,' ||
	fail "the CSV header lacks the counted events' columns"
# col FUNC N: field N of FUNC's row (11: task-clock min, 12 p50, 13 mean,
# 14 max, 16 context-switches min, 21 page-faults min)
col() { awk -F, -v f="$P:$1" -v n="$2" '$1 == f { print $n }' "$T/w.csv"; }
truth() { awk -v f="$1" -v n="$2" '$1 == "truth" && $2 == f { print $n }' "$T/truth"; }
for f in c_sleep c_spin c_fault; do
	check_eq "$(col $f 3)" 10 "$f: 10 calls"
done
tc=$(col c_sleep 13) cs=$(col c_sleep 16)
awk -v t="$tc" 'BEGIN { exit !(t < 500000) }' || fail "c_sleep: task-clock $tc ns per call, not ~0"
[ "$cs" -ge 1 ] || fail "c_sleep: $cs context switches in a call that sleeps"
test_ok "c_sleep (5 ms asleep): task-clock $tc ns per call, at least $cs context switch"
# the median call against the program's median (not its mean: under load
# a call can take 12 ms of thread CPU, seen alike by both, and lift the
# mean alone): under load one call in a few runs read about 2.6 ms
# high (not understood; see doc/opwatch.1), so the mean gets 10 %
tc=$(col c_spin 12) mean=$(col c_spin 13)
want50=$(truth c_spin 7) want=$(truth c_spin 5)
awk -v t="$tc" -v w="$want50" 'BEGIN { d = t - w; if (d < 0) d = -d; exit !(d <= 0.02 * w + 50000) }' ||
	fail "c_spin: task-clock p50 $tc ns per call, the program measured a median of $want50 ns"
awk -v t="$mean" -v w="$want" 'BEGIN { d = t - w; if (d < 0) d = -d; exit !(d <= 0.1 * w) }' ||
	fail "c_spin: task-clock mean $mean ns per call, the program measured $want ns"
test_ok "c_spin (5 ms of CPU): task-clock p50 $tc, mean $mean ns per call; the program's $want50 and $want ns"
pf=$(col c_fault 21)
[ "$pf" -ge 64 ] || fail "c_fault: $pf page faults in a call that touches 64 new pages"
test_ok "c_fault: at least $pf page faults per call (64 pages touched)"

step "the text report"
"$OPWATCH" -P "$P:c_sleep" --count cs "$P" >"$T/text" 2>&1 || { cat "$T/text"; fail "opwatch failed"; }
check_grep "$T/text" "context-switches per call: min [1-9]" "text: context switches per call"

step "bad input"
"$OPWATCH" -P "$P:c_sleep" --count task-clock --all -d 0.1 >"$T/out" 2>&1
check_eq "$?" 2 "--count with --all is a usage error"
"$OPWATCH" -P "$P:c_sleep" --count no-such-event "$P" >"$T/out" 2>&1
check_eq "$?" 2 "an unknown event is a usage error"
check_grep "$T/out" "no-such-event" "the error names the event"
if [ ! -e /sys/bus/event_source/devices/cpu ]; then
	"$OPWATCH" -P "$P:c_sleep" --count cycles "$P" >"$T/out" 2>&1
	check_grep "$T/out" "needs a hardware PMU, and this host has none" \
		"cycles on a host without a PMU says so"
fi
test_done
