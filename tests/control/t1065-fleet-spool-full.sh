#!/bin/sh
# A full spool: the server down and fleet_spool_size small, so the oldest
# spooled sessions are dropped, counted in the stats, and the spool never
# holds more than its bound. Once the server is back, the sessions kept are
# in the fleet exactly once, and exactly the dropped ones are missing.
. "${abs_top_srcdir:?}/tests/control/lib.sh"
. "$abs_top_srcdir/tests/control/fleet.sh"

ch_start one
fleet_create --url "$(ch_url one)"
fleet_conf "$(ch_url one)" "fleet_timeout = 5s" "fleet_spool_size = 64K"
ch_kill one

step "the server down, the spool bounded at 64 KiB"
fleet_daemon_start
"$SPIN" 6
wait_for grep -q '^dropped=[1-9]' "$FLEET/stats" || { test_show "$FLEET/stats"; fail "nothing dropped"; }
bytes=$(fleet_stat spool_bytes)
[ "$bytes" -le 65536 ] && test_ok "the spool holds $bytes bytes, within its bound" ||
	test_not_ok "the spool holds $bytes bytes, over its bound of 65536"
ctl --status >"$T/status" 2>&1
check_grep "$T/status" "^Fleet spool: .*dropped [1-9]" "opcontrol --status counts the drops"

step "the server back"
ch_launch one
ctl --shutdown >/dev/null || fail "--shutdown failed"
wait_shipped 60 || { test_show "$FLEET/stats"; fail "the spool was not emptied in 60 s"; }
closed=$(closed_sessions | wc -l)
dropped=$(fleet_stat dropped)
fleet_sql one "SELECT substring(session_id, 6) FROM oprofile.sessions ORDER BY session_id" >"$T/in_fleet"
kept=$(wc -l <"$T/in_fleet")
check_eq "$kept + $dropped" "$((closed - dropped)) + $dropped" "sessions in the fleet: all closed ($closed) but the dropped ($dropped)"
sed -n "s|.*the spool is full: session 'web1/\([^']*\)'.*|\1|p" "$S/samples/oprofiled.log" | sort >"$T/said_dropped"
closed_sessions | grep -vxF -f "$T/in_fleet" >"$T/missing"
test_cmp "$T/said_dropped" "$T/missing" "the sessions missing are those the log says were dropped"
check_grep "$S/samples/oprofiled.log" "the spool is full: session 'web1/[^']*' \([0-9]* bytes\) dropped, the oldest" \
	"the log says the oldest went"
CHECK_WHAT="every session kept" check_exactly_once one $(cat "$T/in_fleet")
check_no_sample_lost
test_done
