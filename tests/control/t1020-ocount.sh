#!/bin/sh
# ocount against perf stat on the same process in the same run: both
# attach to a stopped shell, which is then let go and runs a spin, an ls
# and a sleep; task-clock agrees within 1 %, context switches and page
# faults exactly. Then a command with -i: the interval rows sum to the
# total; the exit status; bad input named; a command's hostile name
# escaped.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

OCOUNT=$B/utils/ocount
EV=task-clock,context-switches,page-faults
command -v perf >/dev/null || skip "no perf (linux-perf) to compare with"
cp "$B/tests/workloads/hot_main" "$T/hm" || fail "cannot copy hot_main"

step "ocount --process-list and perf stat -p on one process"
sh -c "kill -STOP \$\$; exec sh -c '\"$T/hm\" 0.3; ls -R /usr/include >/dev/null; sleep 0.1'" & p=$!
for _ in $(seq 50); do
	grep -q '^[^)]*) T' "/proc/$p/stat" 2>/dev/null && break
	sleep 0.1
done
grep -q '^[^)]*) T' "/proc/$p/stat" || fail "the workload did not stop"
perf stat -x, -o "$T/perf.csv" -e $EV -p $p & pp=$!
"$OCOUNT" -b -f "$T/oc.csv" -e $EV --process-list=$p & op=$!
sleep 1
kill -CONT $p
wait $p
wait $pp || fail "perf stat failed"
wait $op || fail "ocount failed"
sed 's/^/# perf: /' "$T/perf.csv"
sed 's/^/# ocount: /' "$T/oc.csv"
perf_val() { awk -F, -v e="$1" '$3 == e { print $1 }' "$T/perf.csv"; }
oc_val() { awk -F, -v e="$1" '$1 == e { print $2 }' "$T/oc.csv"; }
# perf stat prints task-clock in ms with decimals
pt=$(perf_val task-clock) ot=$(oc_val task-clock)
[ -n "$pt" ] && [ -n "$ot" ] || fail "a task-clock count is missing"
awk -v p="$pt" -v o="$ot" 'BEGIN { p *= 1e6; d = p - o; if (d < 0) d = -d; exit !(d <= 0.01 * p) }' ||
	fail "task-clock: ocount $ot ns, perf stat $pt ms: not within 1 %"
test_ok "task-clock: ocount $ot ns, perf stat $pt ms"
for e in context-switches page-faults; do
	check_eq "$(oc_val $e)" "$(perf_val $e)" "$e: ocount and perf stat agree"
done

step "-i: the interval rows sum to the total"
"$OCOUNT" -b -i 50 -e $EV "$T/hm" 0.3 >"$T/int.csv" || fail "ocount -i failed"
"$OCOUNT" -b -e $EV "$T/hm" 0.3 >/dev/null || fail "ocount failed"
rows=$(grep -c '^[0-9.]*,task-clock,' "$T/int.csv")
[ "$rows" -ge 4 ] || { cat "$T/int.csv"; fail "only $rows interval rows"; }
test_ok "$rows interval rows"
# the totals of the same events, counted again from the rows' last line
"$OCOUNT" -i 50 -e $EV "$T/hm" 0.2 >"$T/int.txt" || fail "ocount -i (text) failed"
for e in task-clock context-switches page-faults; do
	sum=$(awk -v e="$e" 'NF >= 3 && $2 == e && $1 ~ /^[0-9.]+$/ { s += $3 } END { print s + 0 }' "$T/int.txt")
	tot=$(awk -v e="$e" '$1 == e { print $2 }' "$T/int.txt")
	check_eq "$sum" "$tot" "$e: the interval rows sum to the total"
done

step "status and bad input"
"$OCOUNT" sh -c 'exit 4' >/dev/null 2>&1
check_eq "$?" 4 "ocount exits with the command's status"
"$OCOUNT" -e no-such-event true >"$T/out" 2>&1
check_eq "$?" 2 "unknown event: usage error"
check_grep "$T/out" "unknown event 'no-such-event'" "the error names the event"
if [ ! -e /sys/bus/event_source/devices/cpu ]; then
	"$OCOUNT" -e cycles true >"$T/out" 2>&1
	check_grep "$T/out" "event 'cycles' needs a hardware PMU, and this host has none" \
		"a hardware event on a host without a PMU says so"
fi
"$OCOUNT" "$T/no-such-program" >"$T/out" 2>&1
check_eq "$?" 127 "a command that cannot run: 127"
check_grep "$T/out" "cannot run '$T/no-such-program'" "the error names the command"
"$OCOUNT" --process-list=999999999 >"$T/out" 2>&1
check_grep "$T/out" "no process or thread 999999999" "a missing pid is named"

step "a command named with terminal escapes and a C1 control"
esc=$(printf '\033')
bad="$T/h${esc}]0;t$(printf '\007\302\233')m"
cp "$T/hm" "$bad" || fail "cannot copy hot_main"
"$OCOUNT" -e task-clock "$bad" 0.05 >"$T/esc" 2>&1 || fail "ocount failed"
check_grep "$T/esc" "while '.*/h\\\\x1b\\]0;t\\\\x07\\\\xc2\\\\x9bm' ran" \
	"the command is named escaped"
check_no_grep "$T/esc" "$esc" "no raw ESC"
test_done
