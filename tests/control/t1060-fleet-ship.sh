#!/bin/sh
# The fleet end to end on one server: opfleet create makes the schema
# (twice: it may run again), the daemon rotates every second and saves a
# session by hand, the shipper symbolises each closed session and ships
# it; every session is in ClickHouse exactly once with the totals of its
# local opreport -l, its rows carry the host, the sorted labels and the
# build-ids, its stacks are there with their frames, and the stats say
# what was shipped. A save while sampling is stopped is shipped too, and
# its shipper does not stay a zombie. The read-only user cannot write.
. "${abs_top_srcdir:?}/tests/control/lib.sh"
. "$abs_top_srcdir/tests/control/fleet.sh"

step "a server and the schema"
ch_start one
fleet_create --url "$(ch_url one)"
fleet_create --url "$(ch_url one)"
check_eq "$(fleet_sql one 'SHOW TABLES FROM oprofile' | tr '\n' ' ')" "samples sessions stacks " \
	"opfleet create makes the three tables, and may run again"
fleet_conf "$(ch_url one)"

step "rotation every second, a session saved by hand, stacks"
ctl --rotate=1s --callgraph=16 --event=CPU_CLOCK:10000000 --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
"$SPIN" 2.5
ctl --save=by-hand >/dev/null || fail "--save failed"
"$SPIN" 1.5
ctl --shutdown >/dev/null || fail "--shutdown failed"
wait_shipped 60 || { test_show "$FLEET/stats"; fail "the spool was not emptied in 60 s"; }
n=$(closed_sessions | wc -l)
[ "$n" -ge 3 ] || fail "only $n sessions closed"
check_exactly_once one
check_no_sample_lost
check_eq "$(fleet_stat uploaded)" "$n" "stats: every closed session uploaded"
check_eq "$(fleet_stat failures)/$(fleet_stat dropped)/$(fleet_stat spool_entries)" "0/0/0" \
	"stats: no failure, nothing dropped, the spool empty"
check_grep "$S/samples/oprofiled.log" "statistic fleet_uploaded [0-9]" "the daemon's statistics at exit say the fleet's"

step "what the rows say"
check_eq "$(fleet_sql one "SELECT DISTINCT host, labels FROM oprofile.samples FORMAT TabSeparated")" \
	"web1	['team=web','zone=a']" "host and labels, sorted"
check_eq "$(fleet_sql one "SELECT count() FROM oprofile.sessions WHERE session_id = 'web1/by-hand'")" 1 \
	"the session saved by hand is in the manifest"
spin_id=$(build_id_of "$SPIN")
# its own copy: other tests' copies of spin run on this machine too
check_eq "$(fleet_sql one "SELECT DISTINCT build_id FROM oprofile.samples WHERE image = '$SPIN'")" \
	"$spin_id" "the workload's rows carry its build-id"
# the session with most of the workload (with rotation every second, the
# one saved by hand may hold little of it on a busy machine)
sid=$(fleet_sql one "SELECT session_id FROM oprofile.samples WHERE image = '$SPIN' GROUP BY session_id ORDER BY sum(samples) DESC LIMIT 1")
hot=$(fleet_sql one "SELECT symbol FROM oprofile.samples WHERE image = '$SPIN' AND session_id = '$sid' GROUP BY symbol ORDER BY sum(samples) DESC LIMIT 1")
"$OPREPORT" --session-dir="$S" -l "session:${sid#web1/}" image:"$SPIN" >"$T/local" 2>"$T/local.err" ||
	{ cat "$T/local" "$T/local.err"; fail "opreport -l session:${sid#web1/} failed"; }
check_eq "$hot" "$(awk '$1 ~ /^[0-9]+$/ { print $NF; exit }' "$T/local")" \
	"the hottest symbol of the workload is opreport -l's"
check_eq "$(fleet_sql one "SELECT count() > 0, min(length(frames)) > 0 FROM oprofile.stacks WHERE has(arrayMap(f -> splitByChar('\t', f)[2], frames), '$hot')" | tr '\t' ' ')" \
	"1 1" "stacks rows hold the hot symbol in their frames"
st=$(fleet_sql one "SELECT sum(samples) FROM oprofile.stacks WHERE session_id = 'web1/by-hand'")
check_eq "$st" "$(local_total by-hand)" "the session's stacks add up to its samples"

step "sampling stopped: a save is shipped, and its shipper reaped"
# the daemon idle polls without a timeout: the shipper's end must wake it,
# or the shipper stays a zombie until the next command
ctl --rotate=0 --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
"$SPIN" 0.5
ctl --stop >/dev/null || fail "--stop failed"
ctl --save=idle >/dev/null || fail "--save failed"
wait_shipped 60 || { test_show "$FLEET/stats"; fail "the idle daemon's save was not shipped in 60 s"; }
dpid=$(cat "$S/lock")
zombies() { ps -o stat= --ppid "$dpid" 2>/dev/null | grep -c '^Z'; }
for _ in $(seq 30); do [ "$(zombies)" = 0 ] && break; sleep 0.1; done
check_eq "$(zombies)" 0 "no shipper left a zombie under the idle daemon"
check_eq "$(fleet_sql one "SELECT count() FROM oprofile.sessions WHERE session_id = 'web1/idle'")" 1 \
	"the idle daemon's save is in the manifest"
ctl --shutdown >/dev/null || fail "--shutdown failed"

step "the read-only user cannot write"
if fleet_sql one "INSERT INTO oprofile.sessions (host) VALUES ('x')" >"$T/ro.out" 2>&1; then
	test_not_ok "the read user inserted a row"
else
	check_grep "$T/ro.out" "readonly" "the read user's INSERT is refused (readonly=1)"
fi
test_done
