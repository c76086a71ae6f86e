#!/bin/sh
# The ClickHouse server killed (SIGKILL) in the middle of an upload: after
# a session's samples and stacks rows went in, as its manifest row is
# sent. The shipper retries with backoff while the server is down, the
# spool keeps the sessions, sampling goes on; once the server is back
# every session is in the fleet exactly once: the rows of the cut attempt
# are there, but no manifest row names them, so no reader counts them.
# Then a manifest row that lands but whose answer is lost: the shipper
# asks the manifest before it tries again, and sends nothing twice. And
# a samples insert the server took but whose answer is lost: the attempt
# fails (nothing re-sends it under the same upload_id behind the
# shipper's back) and the next one has a new upload_id.
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

step "a manifest row that lands but whose answer is lost"
proxy_mode cut "INSERT%20INTO%20oprofile.sessions"
"$SPIN" 2
wait_for grep -q '^cut: the answer was dropped' "$PROXY_LOG" || fail "no manifest answer was cut"
wait_for grep -q '^already_shipped=[1-9]' "$FLEET/stats" &&
	test_ok "the next attempt asked the manifest first: already there, not sent again" ||
	{ test_show "$FLEET/stats"; test_not_ok "the session whose answer was lost was not found in the manifest"; }
step "a samples insert taken by the server whose answer is lost"
proxy_mode cut "INSERT%20INTO%20oprofile.samples"
"$SPIN" 2
wait_for sh -c "[ \$(grep -c '^cut: the answer was dropped' '$PROXY_LOG') -ge 2 ]" ||
	fail "no samples answer was cut"
ctl --shutdown >/dev/null || fail "--shutdown failed"
wait_shipped 60 || { test_show "$FLEET/stats"; fail "the spool was not emptied in 60 s"; }
check_eq "$(orphan_uploads one)" 2 "the two cut attempts left their rows, named by no manifest row"
check_exactly_once one
check_no_sample_lost
test_done
