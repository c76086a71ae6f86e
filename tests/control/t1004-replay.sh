#!/bin/sh
# --record-stream during a live run, then --replay of that file into
# another session: the same sample files with the same counts.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

# in the foreground (--no-daemon), stats every second without any dump
"$OPROFILED" --session-dir="$S" --separate=lib --record-stream="$T/run.ops" \
	--no-daemon --sync-interval=1 2>"$T/fg.log" &
fg=$!
wait_for [ -p "$S/opd_pipe" ] || fail "foreground oprofiled did not start"
"$SPIN" 1.5
[ "$(cat "$S/lock")" = "$fg" ] || fail "lock does not hold the foreground pid"
received() { [ "$(cat "$S/samples/current/stats/sample_received" 2>/dev/null || echo 0)" -gt 0 ]; }
wait_for received || fail "no stats written by the sync timer"
# SIGINT (Ctrl-C in the foreground) ends it as cleanly as SIGTERM
kill -INT "$fg"
wait $fg || { cat "$T/fg.log"; fail "foreground oprofiled exited $? on SIGINT"; }
[ ! -e "$S/lock" ] || fail "SIGINT left the lock"
grep -q "exiting" "$T/fg.log" || fail "no exit message on stderr with --no-daemon"
[ -s "$T/run.ops" ] || fail "no recorded stream"
head -c 8 "$T/run.ops" | grep -q OPSTREAM || fail "recorded file lacks the OPSTREAM magic"

R=$T/replay
"$OPROFILED" --session-dir="$R" --separate=lib --replay="$T/run.ops" ||
	{ cat "$R/samples/oprofiled.log" 2>/dev/null; fail "--replay failed"; }
[ ! -e "$R/lock" ] || fail "--replay left its lock"
grep -q '^source=replay$' "$R/samples/current/session.conf" || fail "replay session.conf"

"$SFCHECK" --dump "$S/samples/current" >"$T/live" || fail "live files bad"
"$SFCHECK" --dump "$R/samples/current" >"$T/replayed" || fail "replayed files bad"
grep -c '^file ' "$T/live"
# Headers hold the binary's mtime when its file was created: a binary
# deleted since the live run (another test's) has none at replay. So the
# files of our own workload are compared whole, the others without mtime.
grep -q "^file .*$SPIN/{dep}" "$T/live" || fail "no live file of $SPIN"
own() { awk -v p="$SPIN/{dep}" '/^file /{keep = index($0, p) > 0} keep' "$1"; }
own "$T/live" >"$T/live.own"
own "$T/replayed" >"$T/replayed.own"
diff -u "$T/live.own" "$T/replayed.own" || fail "replay differs from the live run for $SPIN"
sed 's/ mtime [0-9]*//' "$T/live" >"$T/live.all"
sed 's/ mtime [0-9]*//' "$T/replayed" >"$T/replayed.all"
# Nor has such a binary its build at replay when the stream carries none
# for it (the kernel's MMAP2 record gave none, or was lost and the
# mapping re-read from /proc/PID/maps): the live daemon read it from the
# file, and a second build of the path was tagged {build:ID}; the replay
# puts it with the path's first build. So the others are compared per
# path, builds merged: (file, offset) -> count.
by_path() {
	sed '/^file /s|/{build:[0-9a-f]*}||g' "$1" |
		awk '/^file / { f = substr($0, 6); next }
		     $1 ~ /^0x/ { n[f "\t" $1] += $2; next }
		     { h[f "\t" $0] = 1 }
		     END { for (k in n) print k "\t" n[k]; for (k in h) print k }' |
		LC_ALL=C sort
}
by_path "$T/live.all" >"$T/live.paths"
by_path "$T/replayed.all" >"$T/replayed.paths"
diff -u "$T/live.paths" "$T/replayed.paths" >"$T/diff" ||
	{ head -40 "$T/diff"; fail "replay differs from the live run"; }
# again with at most 2 files open at once: the LRU closes and reopens
# files all the time, and the result must not change
R2=$T/replay2
"$OPROFILED" --session-dir="$R2" --separate=lib --max-open-files=2 --replay="$T/run.ops" ||
	fail "--replay --max-open-files=2 failed"
"$SFCHECK" --dump "$R2/samples/current" | sed 's/ mtime [0-9]*//' >"$T/replayed2"
diff -u "$T/replayed.all" "$T/replayed2" >"$T/diff" ||
	{ head -40 "$T/diff"; fail "--max-open-files=2 changed the files"; }

for f in sample_received sample_written; do
	a=$(cat "$S/samples/current/stats/$f") b=$(cat "$R/samples/current/stats/$f")
	[ "$a" -eq "$b" ] || fail "$f: live $a, replayed $b"
done
stats_balance "$R/samples/current"
test_done
