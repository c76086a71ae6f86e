#!/bin/sh
# Fifteen simultaneous --start on one session: one
# starts the daemon, the others say "Daemon already running" and succeed;
# none fails on a control FIFO that is not there yet.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

for round in 1 2; do
	step "round $round: 15 starts at once"
	i=0 pids=""
	while [ $i -lt 15 ]; do
		i=$((i + 1))
		(ctl --start >"$T/o$i" 2>&1; echo "rc=$?" >>"$T/o$i") &
		pids="$pids $!"
	done
	# shellcheck disable=SC2086
	wait $pids	# not the watchdog
	cat "$T"/o* >"$T/all"
	n=$(grep -c '^Daemon started' "$T/all")
	check_eq "$n" 1 "one start started the daemon"
	n=$(grep -c '^Daemon already running' "$T/all")
	check_eq "$n" 14 "fourteen say the daemon is already running"
	check_no_grep "$T/all" "control FIFO|timed out" "no start fails on the control channel"
	n=$(grep -c '^rc=0$' "$T/all")
	check_eq "$n" 15 "every start succeeds"
	ctl --shutdown >/dev/null || fail "--shutdown failed"
done
test_done
