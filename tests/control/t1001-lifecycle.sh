#!/bin/sh
# opcontrol and oprofiled through a whole session: start, status, dump,
# sample files and stats, stop/start, reset, save, HUP, shutdown.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

step "start"
ctl --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
cat "$T/out"
grep -qi "using the perf_events source (no /dev/oprofile)" "$T/out" ||
	fail "--start does not say which source it uses"
pid=$(cat "$S/lock") && kill -0 "$pid" || fail "no daemon pid in lock"
[ -p "$S/opd_pipe" ] || fail "no control FIFO"
ctl --status >"$T/status" || fail "--status failed"
cat "$T/status"
grep -q "^Daemon running: pid $pid" "$T/status" || fail "status does not say running"
grep -q "^Events: CPU_CLOCK:1000000" "$T/status" || fail "status lacks the default event"

step "workload and dump"
"$SPIN" 1.5
ctl --dump || fail "--dump failed"
C=$S/samples/current
check_headers "$C"
find "$C" -path "*spin*" -type f | grep -q . || fail "no sample file for the spin workload"
"$SFCHECK" "$C" || fail "sample files fail the structural check"
[ -f "$C/session.conf" ] || fail "no session.conf"
grep -q '^events=CPU_CLOCK:1000000:0:1:1$' "$C/session.conf" || fail "session.conf lacks events"

# spin has exited before the dump: every one of its samples is in by now
spin_dir=$C/{root}$SPIN
at_dump=$("$SFCHECK" --total "$spin_dir") || fail "cannot total $spin_dir"
[ "$at_dump" -gt 100 ] || fail "only $at_dump samples of spin at the dump"

step "stop: stats final and balanced"
ctl --stop || fail "--stop failed"
at_stop=$("$SFCHECK" --total "$spin_dir")
check_eq "$at_stop" "$at_dump" \
	"spin's samples after stop are those of the dump (it did not return early)"
ctl --status | grep -q "^Daemon paused: pid $pid" || fail "status does not say paused"
stats_balance "$C"
before=$(cat "$C/stats/sample_received")
[ "$before" -gt 100 ] || fail "only $before samples in 1.5 s of spinning"
"$SPIN" 0.3
ctl --dump || fail "--dump while paused failed"
check_eq "$(cat "$C/stats/sample_received")" "$before" "no sample received while stopped"

step "start again"
ctl --start >"$T/out" 2>&1 || { cat "$T/out"; fail "second --start failed"; }
grep -q "already running" "$T/out" || fail "second --start does not say already running"
"$SPIN" 0.5
ctl --dump || fail "--dump failed"
[ "$(cat "$C/stats/sample_received")" -gt "$before" ] || fail "no samples after restart"

# Paused for the checks of reset and save: while sampling, any process
# on the machine may create new files at once.
step "reset"
ctl --stop --reset || fail "--reset failed"
[ -z "$(find "$C" -path "$C/{*" -type f)" ] || fail "reset left sample files"
[ -f "$C/session.conf" ] || fail "reset removed session.conf"
[ -d "$C/session" ] || fail "reset removed the kernel data"
check_eq "$(cat "$C/stats/sample_received")" 0 "reset clears the stats"
ctl --start >/dev/null || fail "--start after reset failed"
"$SPIN" 0.5
ctl --dump || fail "--dump after reset failed"
check_headers "$C"
stats_balance "$C"

step "save"
ctl --stop || fail "--stop failed"
before=$("$SFCHECK" --total "$C") || fail "cannot total $C"
spin_before=$("$SFCHECK" --total "$spin_dir")
ctl --save=run1 || fail "--save failed"
[ -d "$S/samples/run1" ] || fail "no samples/run1"
check_headers "$S/samples/run1"
# the saved session holds every sample current had, spin's among them
check_eq "$("$SFCHECK" --total "$S/samples/run1")" "$before" \
	"run1 holds every sample current had"
check_eq "$("$SFCHECK" --total "$S/samples/run1/{root}$SPIN")" "$spin_before" \
	"run1 holds all of spin's samples"
echo "save: run1 holds all $before samples ($spin_before of spin)"
[ -f "$S/samples/run1/session.conf" ] || fail "saved session lacks session.conf"
[ -z "$(find "$C" -path "$C/{*" -type f)" ] || fail "current not empty after save"
[ -f "$C/session.conf" ] || fail "new current lacks session.conf"
[ -d "$C/session" ] || fail "new current lacks the kernel data"
ctl --save=run1 >"$T/out" 2>&1 && fail "saving over run1 succeeded"
grep -q "already exists" "$T/out" || { cat "$T/out"; fail "no 'already exists' error"; }
ctl --start >/dev/null || fail "--start after save failed"

step "USR2 / USR1"
# the daemon answers a signal at its next loop turn: up to 10 s on a
# loaded machine (stopping flushes every sample file)
status_is() { ctl --status | grep -q "^Daemon $1: pid $pid"; }
kill -USR2 "$pid"
wait_for status_is paused || fail "not paused after SIGUSR2"
kill -USR1 "$pid"
wait_for status_is running || fail "not running after SIGUSR1"

step "HUP: log rotation, files reopen"
"$SPIN" 0.3
ctl --dump || fail "--dump failed"
before=$("$SFCHECK" --total "$spin_dir")
mv "$S/samples/oprofiled.log" "$S/samples/oprofiled.log.1"
kill -HUP "$pid"
sleep 0.3
alive "$pid" || fail "daemon died on HUP"
grep -q "SIGHUP" "$S/samples/oprofiled.log" || fail "HUP not logged in a new log"
"$SPIN" 0.5
ctl --dump || fail "--dump after HUP failed"
after=$("$SFCHECK" --total "$spin_dir")
[ "$after" -gt "$before" ] || fail "no new samples in the reopened files ($before, $after)"
check_headers "$C"
"$SFCHECK" "$C" || fail "files bad after HUP"
# HUP closed every file: the trees can be moved away, and the samples
# that follow go to new files, none into the moved ones. Sampling is
# paused around it: samples still on their way when HUP is taken (the
# spin's last ones, other processes') would open new files that the move
# below takes along.
ctl --stop >/dev/null || fail "--stop before the second HUP failed"
kill -HUP "$pid"
hups() { [ "$(grep -c SIGHUP "$S/samples/oprofiled.log")" -ge "$1" ]; }
wait_for hups 2 || fail "second HUP not logged"
alive "$pid" || fail "daemon died on the second HUP"
mkdir "$T/moved"
for d in "$C"/{*; do mv "$d" "$T/moved/"; done
moved=$("$SFCHECK" --total "$T/moved")
ctl --start >/dev/null || fail "--start after the second HUP failed"
"$SPIN" 0.5
ctl --dump || fail "--dump after HUP and move failed"
check_eq "$("$SFCHECK" --total "$T/moved")" "$moved" \
	"no sample went into the files moved away after HUP"
new=$("$SFCHECK" --total "$spin_dir") || fail "no new spin file after HUP"
[ "$new" -gt 20 ] || fail "only $new samples in spin's new file"
echo "HUP: $moved samples moved away unchanged; $new of spin in a new file"
check_headers "$C"

step "shutdown"
ctl --shutdown || fail "--shutdown failed"
alive "$pid" && fail "daemon still running"
[ ! -e "$S/lock" ] || fail "lock left behind"
stats_balance "$C"
"$SFCHECK" "$C" || fail "files bad after shutdown"
ctl --status | grep -q "^Daemon not running" || fail "status after shutdown"

step "TERM: pending samples flushed, no lock"
ctl --reset --start >/dev/null || fail "--start failed"
pid=$(cat "$S/lock")
"$SPIN" 0.5
kill -TERM "$pid"
wait_gone "$pid" || fail "daemon still running 5 s after SIGTERM"
[ ! -e "$S/lock" ] || fail "SIGTERM left the lock"
# no dump: the samples spin took before the TERM are in its file
n=$("$SFCHECK" --total "$spin_dir") || fail "no spin file after SIGTERM"
[ "$n" -gt 20 ] || fail "only $n samples of spin flushed at SIGTERM"
echo "TERM: lock removed, $n samples of spin flushed"
stats_balance "$C"
"$SFCHECK" "$C" || fail "files bad after SIGTERM"
ctl --status | grep -q "^Daemon not running" || fail "status after SIGTERM"

step "save and reset with no daemon: on the files"
ctl --save=run2 || fail "--save with no daemon failed"
[ -d "$S/samples/run2/{root}" ] || fail "no samples in samples/run2"
[ -f "$C/session.conf" ] || fail "no session.conf in the new current"
"$SFCHECK" "$S/samples/run2" || fail "saved files bad"
cp -r "$S/samples/run2/{root}" "$C/"
ctl --reset || fail "--reset with no daemon failed"
[ -z "$(find "$C" -path "$C/{*" -type f)" ] || fail "reset left sample files"
test_done
