#!/bin/sh
# Retention (--keep, --keep-size) removes only the sessions the daemon
# rotated (rotated=NAME in their session.conf), never one saved by hand,
# even under a name of the rotated form, nor a copy of a rotated session
# under another name; and --keep-size, as --keep, spares the newest
# rotated session: the one saved at the stop. Rotation every second, the
# shortest interval.
. "${abs_top_srcdir:?}/tests/control/lib.sh"
SAMPLES=$S/samples
LOG=$SAMPLES/oprofiled.log
# names of the rotated form, saved by hand: an hour's form long ago, and
# the seconds' form of a minute ago (the form a rotation gives now)
HAND1=2021-05-05T05
HAND2=$(date -u -d '-1 minute' +%Y-%m-%dT%H:%M:%S)
COPY=2020-01-01T00

# wait_long CMD...: up to 20 s
wait_long() {
	for _ in $(seq 200); do "$@" && return 0; sleep 0.1; done
	return 1
}
rotated_names() { ls "$SAMPLES" | grep '^20[0-9-]*T' | grep -vx -e "$HAND1" -e "$HAND2" -e "$COPY"; }
hand_kept() {
	for name in "$@"; do
		[ -d "$SAMPLES/$name" ] || fail "the session '$name' saved by hand was removed by retention"
		grep -q "retention: removed session '$name'" "$LOG" &&
			fail "retention says it removed '$name'"
	done
	return 0
}

step "two sessions saved by hand under names of the rotated form"
ctl --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
"$SPIN" 0.5
ctl --save="$HAND1" || fail "--save=$HAND1 failed"
"$SPIN" 0.5
ctl --save="$HAND2" || fail "--save=$HAND2 failed"
ctl --shutdown >/dev/null || fail "--shutdown failed"
grep -q '^rotated=' "$SAMPLES/$HAND1/session.conf" "$SAMPLES/$HAND2/session.conf" &&
	fail "a session saved by hand carries the rotation's mark"
test_ok "saved by hand: $HAND1, $HAND2"

step "--rotate=1s --keep=1s"
"$SPIN" 6 & spin=$!
ctl --rotate=1s --keep=1s --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
wait_long grep -q "retention: removed session '20[^']*' (ended more than --keep=1s ago)" "$LOG" ||
	fail "no rotated session removed by --keep=1s"
ctl --shutdown >/dev/null || fail "--shutdown failed"
wait "$spin"
hand_kept "$HAND1" "$HAND2"
first=$(rotated_names | head -1)
[ -n "$first" ] || fail "no rotated session left after --keep=1s"
grep -qx "rotated=$first" "$SAMPLES/$first/session.conf" ||
	fail "rotated session '$first' lacks the line rotated=$first"
test_ok "--keep=1s removed rotated sessions, kept those saved by hand"

step "--keep-size=1K: every rotated session but the newest goes"
# a copy of a rotated session under another name: its mark names another
cp -a "$SAMPLES/$first" "$SAMPLES/$COPY" || fail "cannot copy $first"
sed -i '/^keep=/d' "$S/daemonrc"
"$SPIN" 6 & spin=$!
ctl --keep-size=1K --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
wait_long grep -q "retention: removed session '20[^']*' (rotated sessions took [0-9]* bytes, over --keep-size=1024)" "$LOG" ||
	fail "no rotated session removed by --keep-size=1K"
ctl --shutdown >/dev/null || fail "--shutdown failed"
wait "$spin"
hand_kept "$HAND1" "$HAND2" "$COPY"
newest=$(sed -n "s/.*rotated: session '\([^']*\)' holds.*/\1/p" "$LOG" | tail -1)
rotated_names >"$T/left"
[ "$(cat "$T/left")" = "$newest" ] ||
	{ cat "$T/left"; fail "after the stop, not only the newest rotated session '$newest' is left"; }
test_ok "--keep-size=1K kept the newest rotated session '$newest' and those saved by hand"

# the log: every line its prefix and time (the exit statistics too), the
# next rotation as a UTC date, not epoch seconds
check_no_grep "$LOG" '^[^o]|^o[^p]|^oprofiled: [^2]' "every log line starts 'oprofiled: DATE'"
check_grep "$LOG" 'next at 20[0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9:]{8} UTC$' "the next rotation is a UTC date"
test_done
