#!/bin/sh
# The ClickHouse server killed (SIGKILL) in the middle of an upload: after
# a session's samples and stacks rows went in, as its manifest row is
# sent. The shipper retries with backoff while the server is down, the
# spool keeps the sessions, sampling goes on; once the server is back
# every session is in the fleet exactly once: the rows of the cut attempt
# are there, but no manifest row names them, so no reader counts them.
. "${abs_top_srcdir:?}/tests/control/lib.sh"
. "$abs_top_srcdir/tests/control/fleet.sh"

ch_start one
fleet_create --url "$(ch_url one)"
proxy_start one
fleet_conf "$PROXY_URL" "fleet_timeout = 5s"
proxy_mode kill "INSERT%20INTO%20oprofile.sessions" "$CH_DIR/one/pid"

step "the server dies as the first manifest row is sent"
fleet_daemon_start
"$SPIN" 3
wait_for grep -q '^killed' "$PROXY_LOG" || fail "the server was not killed in mid-upload"
"$SPIN" 2
check_grep "$FLEET/stats" '^failures=[1-9]' "the shipper counted failed attempts while the server was down"
test_note "$(grep -c 'rotated: session' "$S/samples/oprofiled.log") sessions rotated so far"

step "the server back"
ch_launch one
"$SPIN" 1
ctl --shutdown >/dev/null || fail "--shutdown failed"
wait_shipped 60 || { test_show "$FLEET/stats"; fail "the spool was not emptied in 60 s"; }
check_eq "$(orphan_uploads one)" 1 "the cut attempt left its rows, named by no manifest row"
check_exactly_once one
check_no_sample_lost
test_done
