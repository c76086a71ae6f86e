#!/bin/sh
# kill -9 in the middle of sampling: every sample file still passes the
# structural check, and the next start replaces the stale lock.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

ctl --separate=thread --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
pid=$(cat "$S/lock")
"$SPIN" 2 & s1=$!
"$SPIN" 2 & s2=$!
# many short processes: many files being created when the daemon dies
for i in $(seq 40); do "$SPIN" 0.01; done
sleep 0.5
kill -KILL "$pid"
wait $s1 $s2
wait_gone "$pid" || fail "daemon survived kill -9"
C=$S/samples/current
"$SFCHECK" "$C" || fail "sample files fail the check after kill -9"
check_headers "$C"
ctl --status | grep -q "^Daemon not running" || fail "status after kill -9"

ctl --start >"$T/out" 2>&1 || { cat "$T/out"; fail "restart after kill -9 failed"; }
cat "$T/out"
grep -q "stale lock" "$T/out" || fail "no stale lock warning on restart"
"$SPIN" 0.5
ctl --dump || fail "--dump failed"
"$SFCHECK" "$C" || fail "sample files bad after restart"
ctl --shutdown || fail "--shutdown failed"
echo "PASS"
