#!/bin/sh
# A server that accepts connections and never answers (a black hole): each
# request ends at fleet_timeout, the shipper counts the failure and backs
# off, the daemon rotates on time and loses no sample; when the port
# answers again every session reaches the fleet exactly once.
. "${abs_top_srcdir:?}/tests/control/lib.sh"
. "$abs_top_srcdir/tests/control/fleet.sh"

ch_start one
fleet_create --url "$(ch_url one)"
proxy_start one
fleet_conf "$PROXY_URL" "fleet_timeout = 2s"
proxy_mode blackhole

step "the port accepts and never answers"
fleet_daemon_start
before=$(date +%s)
"$SPIN" 5
rotated=$(grep -c 'rotated: session' "$S/samples/oprofiled.log")
[ "$rotated" -ge 4 ] && test_ok "the daemon rotated $rotated times in 5 s meanwhile" ||
	test_not_ok "the daemon rotated only $rotated times in 5 s"
wait_for grep -q '^failures=[1-9]' "$FLEET/stats" ||
	fail "no failed attempt counted"
check_grep "$FLEET/stats" "^last_error=.*'$PROXY_URL': .*[Tt]imed out" "the failure says the request timed out"
check_eq "$(fleet_stat uploaded)" 0 "nothing uploaded"

step "the port answers again"
proxy_mode forward
wait_uploaded 40 || { test_show "$FLEET/stats"; fail "no upload within 40 s of the port answering"; }
ctl --shutdown >/dev/null || fail "--shutdown failed"
wait_shipped 60 || { test_show "$FLEET/stats"; fail "the spool was not emptied in 60 s"; }
check_exactly_once one
check_no_sample_lost
test_note "$(($(date +%s) - before)) s in all"
test_done
