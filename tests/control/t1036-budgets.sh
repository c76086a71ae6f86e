#!/bin/sh
# Budgets flat: ~60 s of process churn (short programs in the
# vDSO, programs with JIT code, /bin/true), hundreds of processes, while
# the daemon samples. Every 10 s: the sample files of this test's
# workloads, the daemon's RSS and the decoder's definitions. They must not
# grow with the number of processes: the workloads' files stay within the
# bound (one [vdso] image, at most 64 anonymous regions per app plus the
# folded file), and after a 20 s warm-up the daemon's RSS grows by less
# than a few kB per process and its definitions by no more than the new
# sample files of the whole session (the daemon samples the machine:
# binaries other tests build meanwhile are new definitions and files by
# right; the churn's JIT regions, one per jit_spin, must not be).
. "${abs_top_srcdir:?}/tests/control/lib.sh"

cp "$B/tests/control/vdso_loop" "$T/vdso_loop" || fail "cannot copy vdso_loop"
cp "$B/tests/workloads/jit_spin" "$T/jit_spin" || fail "cannot copy jit_spin"
C=$S/samples/current
SECONDS_RUN=${BUDGETS_SECONDS:-60}

ctl --separate=none --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
pid=$(cat "$S/lock")
: >"$T/procs"
(
	while [ ! -e "$T/stop" ]; do
		"$T/vdso_loop" 5; "$T/jit_spin" 0.01 >/dev/null; /bin/true
		echo 3 >>"$T/procs"
	done
) &
churn=$!

rss() { awk '/^VmRSS/ { print $2 }' "/proc/$pid/status"; }
procs() { awk '{ n += $1 } END { print n + 0 }' "$T/procs"; }
files() { find "$C/{root}$T" -type f 2>/dev/null | wc -l; }
all_files() { find "$C" -path "$C/{*" -type f | wc -l; }

t=0
echo "t_s processes files rss_kb definitions session_files"
while [ $t -lt "$SECONDS_RUN" ]; do
	sleep 10; t=$((t + 10))
	ctl --dump || fail "--dump failed"
	alive "$pid" || fail "the daemon died"
	row="$t $(procs) $(files) $(rss) $(counter "$C" decoder_cookies) $(all_files)"
	echo "$row"
	echo "$row" >>"$T/rows"
done
touch "$T/stop"
wait "$churn"
ctl --dump || fail "--dump failed"

set -- $(awk '$1 == 20' "$T/rows")
p0=$2 r0=$4 d0=$5 a0=$6
set -- $(tail -n 1 "$T/rows")
p1=$2 f1=$3 r1=$4 d1=$5 a1=$6
n=$((p1 - p0))
echo "after the warm-up: $n processes; files $f1; RSS $r0 -> $r1 kB; definitions $d0 -> $d1; session files $a0 -> $a1"
[ "$p1" -ge 150 ] || fail "only $p1 processes ran: the churn did not run"
# vdso_loop: itself and [vdso]; jit_spin: itself, [vdso], <= 64 regions
# and the folded file
[ "$f1" -le 70 ] || fail "$f1 sample files for $p1 processes (bound: 70)"
[ $((r1 - r0)) -le $((n * 4 + 2048)) ] ||
	fail "the daemon's RSS grew by $((r1 - r0)) kB for $n processes"
[ $((d1 - d0)) -le $((a1 - a0 + 20)) ] ||
	fail "the decoder's definitions grew by $((d1 - d0)) for $n processes, the session's files by $((a1 - a0))"
"$SFCHECK" "$C" || fail "sample files fail the structural check"
stats_balance "$C"
ctl --shutdown || fail "--shutdown failed"
test_done
