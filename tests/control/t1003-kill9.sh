#!/bin/sh
# kill -9 in the middle of sampling, while the daemon is writing sample
# files: every sample file still passes the structural check, and the next
# start replaces the stale lock.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

# --separate=thread and many short processes: many files, many of them new,
# and dumps back to back so that the daemon writes to them all the time
"$OPROFILED" --session-dir="$S" --separate=thread --sync-interval=1 ||
	fail "oprofiled failed to start"
pid=$(cat "$S/lock")
"$SPIN" 2 & s1=$!
(for i in $(seq 60); do "$SPIN" 0.01; done) & s2=$!
(while alive "$pid"; do ctl --dump >/dev/null 2>&1; done) & dumper=$!
sleep 1.2
kill -KILL "$pid"
wait $s1 $s2
wait $dumper
wait_gone "$pid" || fail "daemon survived kill -9"
C=$S/samples/current
# New files are created complete (odb_create), so every file must be sound,
# including those whose creation the kill interrupted.
"$SFCHECK" "$C" >"$T/out" 2>&1 || { cat "$T/out"; fail "sample files fail the check after kill -9"; }
cat "$T/out"
n=$(sed -n 's/^\([0-9]*\) sample files ok.*/\1/p' "$T/out")
[ "${n:-0}" -gt 10 ] || fail "only ${n:-0} sound sample files: the kill came before any writing"
ctl --status | grep -q "^Daemon not running" || fail "status after kill -9"

ctl --start >"$T/out" 2>&1 || { cat "$T/out"; fail "restart after kill -9 failed"; }
cat "$T/out"
grep -q "stale lock" "$T/out" || fail "no stale lock warning on restart"
"$SPIN" 0.5
ctl --dump || fail "--dump failed"
"$SFCHECK" "$C" || fail "sample files bad after restart"
ctl --shutdown || fail "--shutdown failed"
test_done
