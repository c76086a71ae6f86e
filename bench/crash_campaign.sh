#!/usr/bin/env bash
# Crash campaign (samples survive a killed daemon): N random kill -9 of a sampling daemon, a
# third of them during an `opcontrol --dump`, with short processes making
# new sample files (--separate=thread) all the time. After each kill the
# daemon is restarted (which completes any growth the kill cut short),
# paused so that nothing writes, and every sample file gets the strict
# independent check (tests/control/sfstrict: length == size field, as
# OProfile 1.x's odb_open wants, chains, keys). Prints the figures; exit 1
# on any corrupt file or failed restart.
#
# Usage (root): bench/crash_campaign.sh BUILD [N] [SESSION_DIR]
set -uo pipefail
build=$(cd "${1:?usage: crash_campaign.sh BUILD [N] [SESSION_DIR]}" && pwd)
n=${2:-200}
S=${3:-$(mktemp -d /tmp/crash-campaign.XXXXXX)/session}
top=$(cd "$(dirname "$0")/.." && pwd)
export OPROFILE_EVENTS_DIR=${OPROFILE_EVENTS_DIR:-$top/events}
ctl() { "$build/utils/opcontrol" --session-dir="$S" "$@"; }
spin=$build/tests/control/spin
sfstrict=$build/tests/control/sfstrict
[ -x "$spin" ] && [ -x "$sfstrict" ] ||
	{ echo "build the test helpers first: make -C $build/tests check TESTS=" >&2; exit 2; }

# random milliseconds in [lo, hi)
rnd_ms() { echo $(($1 + RANDOM % ($2 - $1))); }
sleep_ms() { sleep "$(printf '0.%03d' "$1")"; }

ctl --separate=thread --start >/dev/null || { echo "first start failed" >&2; exit 1; }
kills=0 in_dump=0 corrupt=0 bad_restarts=0 checked=0 t0=$(date +%s)
for i in $(seq "$n"); do
	(for _ in $(seq 20); do "$spin" 0.01; ls / >/dev/null; done) & work=$!
	"$spin" 0.8 & hot=$!
	sleep_ms "$(rnd_ms 100 900)"
	pid=$(cat "$S/lock" 2>/dev/null)
	if [ $((i % 3)) -eq 0 ]; then
		ctl --dump >/dev/null 2>&1 & dumper=$!
		sleep_ms "$(rnd_ms 0 40)"
		in_dump=$((in_dump + 1))
	else
		dumper=
	fi
	kill -KILL "$pid" 2>/dev/null && kills=$((kills + 1))
	wait $work $hot ${dumper:+$dumper} 2>/dev/null
	if ! ctl --start >/dev/null 2>"$S.err" || ! ctl --stop >/dev/null 2>>"$S.err"; then
		bad_restarts=$((bad_restarts + 1))
		echo "kill $i: restart failed: $(cat "$S.err")"
		ctl --start >/dev/null 2>&1
	fi
	if out=$("$sfstrict" "$S/samples/current"); then
		checked=$(echo "$out" | sed -n 's/^\([0-9]*\) sample files ok/\1/p')
	else
		bad=$(echo "$out" | grep -vc 'sample files ok')
		corrupt=$((corrupt + bad))
		echo "kill $i: $bad corrupt files:"
		echo "$out" | head -5
	fi
	[ $((i % 20)) -ne 0 ] || echo "after $i kills: $corrupt corrupt, $bad_restarts failed restarts, $checked files"
done
ctl --shutdown >/dev/null 2>&1
echo "crash campaign: $kills kill -9 ($in_dump during --dump) in $(($(date +%s) - t0)) s;" \
	"$corrupt corrupt files, $bad_restarts failed restarts; last check: $checked sample files"
[ "$corrupt" -eq 0 ] && [ "$bad_restarts" -eq 0 ]
