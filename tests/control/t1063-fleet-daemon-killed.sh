#!/bin/sh
# The daemon (and its shipper with it: the whole process group, as the
# OOM killer or a crash would) killed while an upload hangs half-way: the
# samples rows are in, the manifest row never answered. Restarted, the
# daemon saves the live session it finds, its shipper resumes from the
# spool, asks the manifest first, and every session is in the fleet
# exactly once, the one live at the kill too.
. "${abs_top_srcdir:?}/tests/control/lib.sh"
. "$abs_top_srcdir/tests/control/fleet.sh"

ch_start one
fleet_create --url "$(ch_url one)"
proxy_start one
fleet_conf "$PROXY_URL" "fleet_timeout = 30s"
proxy_mode hold "INSERT%20INTO%20oprofile.sessions"

step "an upload hangs as its manifest row is sent; the daemon is killed"
fleet_daemon_start
"$SPIN" 2.5
wait_for grep -q '^held' "$PROXY_LOG" || fail "no upload reached its manifest row"
pid=$(cat "$S/lock")
pgid=$(ps -o pgid= -p "$pid" | tr -d ' ')
[ -n "$pgid" ] && [ "$pgid" != "$(ps -o pgid= -p $$ | tr -d ' ')" ] ||
	fail "the daemon has no process group of its own"
ps -o pid=,args= -g "$pgid" >"$T/group"
check_grep "$T/group" "opfleet ship" "the shipper runs in the daemon's process group"
kill -s KILL -- "-$pgid"
# gone, or a zombie whose parent (init here) has not reaped it yet
gone() { case "$(ps -o stat= -p "$1" 2>/dev/null)" in ""|Z*) return 0;; esac; return 1; }
wait_for gone "$pid" || fail "the daemon survived SIGKILL"
test_note "left in the spool: $(ls "$FLEET/spool" | wc -l) entries"

step "the daemon restarted"
proxy_mode forward
fleet_daemon_start
"$SPIN" 1.5
ctl --shutdown >/dev/null || fail "--shutdown failed"
wait_shipped 60 || { test_show "$FLEET/stats"; fail "the spool was not emptied in 60 s"; }
[ "$(orphan_uploads one)" -ge 1 ] && test_ok "the hung attempt's rows are there, named by no manifest row" ||
	test_not_ok "no rows of the hung attempt"
check_exactly_once one
check_no_sample_lost
test_done
