#!/bin/sh
# kill -9 loses at most the flush window: samples reach
# the mmap'ed sample files every --flush-interval (500 ms by default), and
# those outlive the daemon. 4 s of a one-thread CPU-bound program at 1 kHz
# (~4000 samples), then kill -9 with no dump: at least 3000 on disk, or,
# on a loaded machine where it got less than 4 s of CPU, at least 75 % of
# the milliseconds of CPU it got.
. "${abs_top_srcdir:?}/tests/control/lib.sh"
C=$S/samples/current

"$OPROFILED" --session-dir="$S" --events=CPU_CLOCK:1000000 --separate=none ||
	fail "oprofiled failed to start"
pid=$(cat "$S/lock")
ms=$("$SPIN" 4 cpu) || fail "spin failed"
kill -KILL "$pid"
wait_gone "$pid" || fail "daemon survived kill -9"
f="$C/{root}$SPIN/{dep}/{root}$SPIN/CPU_CLOCK.1000000.0.all.all.all"
[ -f "$f" ] || fail "no sample file for spin after kill -9 (samples stayed in memory)"
n=$("$SFRANGE" "$f" 2>/dev/null) || fail "sfrange cannot read $f"
echo "spin: $n samples on disk after 4 s ($ms ms of CPU) and kill -9"
want=$((ms * 3 / 4))
[ "$want" -le 3000 ] || want=3000
[ "$n" -ge "$want" ] || fail "only $n samples of $ms ms of CPU survived kill -9 (want >= $want)"
test_ok "$n samples of $ms ms of CPU survived kill -9"

step "--flush-interval is checked"
"$OPROFILED" --session-dir="$T/s2" --flush-interval=0 >"$T/out" 2>&1 &&
	fail "--flush-interval=0 accepted"
check_grep "$T/out" "flush-interval=0: must be 1 to 60000" "--flush-interval=0 is refused, naming the value"
test_done
