#!/bin/sh
# The fleet on a two-shard cluster (two servers, each naming both in its
# remote_servers): opfleet create --cluster makes the *_local tables and
# the Distributed ones on each shard; the shipper inserts through the
# Distributed tables with insert_distributed_sync=1. All of the host's
# rows and its manifest rows land on one shard. The shard that stores
# them is killed for a while, behind the server the shipper talks to: the
# synchronous inserts fail, the spool holds, and once it is back every
# session is in the fleet exactly once, read through either server.
. "${abs_top_srcdir:?}/tests/control/lib.sh"
. "$abs_top_srcdir/tests/control/fleet.sh"

ch_cluster c
fleet_create --url "$(ch_url c1)" --url "$(ch_url c2)" --cluster c
check_eq "$(fleet_sql c2 'SHOW TABLES FROM oprofile' | tr '\n' ' ')" \
	"samples samples_local sessions sessions_local stacks stacks_local " \
	"each shard has the local and the Distributed tables"
# which shard stores host web1 (shards in remote_servers order)
if [ "$(fleet_sql c1 "SELECT cityHash64('web1') % 2")" = 0 ]; then
	store=c1 entry=c2
else
	store=c2 entry=c1
fi
test_note "web1's rows go to $store; the shipper talks to $entry"
fleet_conf "$(ch_url $entry)" "fleet_cluster = c" "fleet_timeout = 5s"

step "shipping through the Distributed tables"
fleet_daemon_start
"$SPIN" 2

step "the storing shard down for a while"
ch_kill $store
"$SPIN" 3
wait_for grep -q '^failures=[1-9]' "$FLEET/stats" &&
	test_ok "inserts fail while the storing shard is down ($(fleet_stat spool_entries) spooled)" ||
	test_not_ok "no failure counted with the storing shard down"
ch_launch $store
ctl --shutdown >/dev/null || fail "--shutdown failed"
wait_shipped 60 || { test_show "$FLEET/stats"; fail "the spool was not emptied in 60 s"; }

step "read back"
check_exactly_once c1
CHECK_WHAT="read through the other server, every session" check_exactly_once c2
check_no_sample_lost
check_eq "$(fleet_sql $entry 'SELECT count() FROM oprofile.samples_local')/$(fleet_sql $entry 'SELECT count() FROM oprofile.sessions_local')" \
	"0/0" "the entry server stores none of web1's rows"
[ "$(fleet_sql $store 'SELECT count() FROM oprofile.sessions_local')" -ge 1 ] &&
	test_ok "the storing shard holds web1's manifest and rows" ||
	test_not_ok "the storing shard holds no manifest row"
test_done
