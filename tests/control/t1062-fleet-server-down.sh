#!/bin/sh
# The ClickHouse server down for three rotations and more, then back: the
# daemon rotates on time all along (sampling never waits on the network),
# the spool holds the closed sessions and opcontrol --status says so; once
# the server is back the shipper empties the spool oldest first and every
# session is in the fleet exactly once.
. "${abs_top_srcdir:?}/tests/control/lib.sh"
. "$abs_top_srcdir/tests/control/fleet.sh"

ch_start one
fleet_create --url "$(ch_url one)"
fleet_conf "$(ch_url one)" "fleet_timeout = 5s"

step "the server stops after the first session"
fleet_daemon_start
"$SPIN" 1.5
ch_kill one
before=$(grep -c 'rotated: session' "$S/samples/oprofiled.log")
"$SPIN" 4.5
after=$(grep -c 'rotated: session' "$S/samples/oprofiled.log")
[ $((after - before)) -ge 3 ] && test_ok "the daemon rotated $((after - before)) times with the server down" ||
	test_not_ok "the daemon rotated only $((after - before)) times in 4.5 s with the server down"
wait_for sh -c "[ \"\$(sed -n 's/^spool_entries=//p' '$FLEET/stats')\" -ge 3 ]" &&
	test_ok "the spool holds the sessions: $(fleet_stat spool_entries) entries, $(fleet_stat spool_bytes) bytes" ||
	{ test_show "$FLEET/stats"; test_not_ok "the spool does not hold three sessions"; }
ctl --status >"$T/status" 2>&1
check_grep "$T/status" "^Fleet spool: [3-9][0-9]* entries" "opcontrol --status shows the spool"
check_grep "$T/status" "^Fleet last error: '$(ch_url one)': .*(onnect|refused)" "and the last error, naming the URL"
check_no_grep "$T/status" "$CH_SHIP_PW" "and never the password"

step "the server back"
ch_launch one
"$SPIN" 1
ctl --shutdown >/dev/null || fail "--shutdown failed"
wait_shipped 60 || { test_show "$FLEET/stats"; fail "the spool was not emptied in 60 s"; }
check_exactly_once one
check_no_sample_lost
check_eq "$(fleet_stat dropped)" 0 "nothing dropped"
test_done
