#!/bin/sh
# Code written at run time into anonymous executable memory (tests/
# workloads/jit_spin, as a JIT does: mmap, copy, mprotect PROT_EXEC) has no
# file behind it: its samples must land in an anonymous region of the
# process, "anon (PID:jit_spin)" in reports, in a {anon:anon} sample file
# under the application whose name has the region's range, START the
# address jit_spin printed -- not be dropped as unmapped.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

C=$S/samples/current
W=$B/tests/workloads
cp "$W/jit_spin" "$T/" || fail "cannot copy jit_spin"

step "jit_spin 1.5 s CPU under the perf source"
ctl --separate=none --event=CPU_CLOCK:1000000 --start >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "--start failed"; }
"$T/jit_spin" 1.5 >"$T/jit" &
jp=$!
wait "$jp" || fail "jit_spin failed"
ctl --dump || fail "--dump failed"
ctl --shutdown || fail "--shutdown failed"
at=$(sed -n 's/^jit_spin: code at 0x//p' "$T/jit")
[ -n "$at" ] || fail "jit_spin did not say where its code is"
"$OPREPORT" --session-dir="$S" -l "image:$T/jit_spin" >"$T/rep" 2>"$T/err" ||
	{ cat "$T/err"; fail "opreport failed"; }
cat "$T/rep"
# rows: samples % image [app] symbol; the anon image is two words
set -- $(awk -v me="($jp:jit_spin)" '/^[0-9]/ {tot += $1}
	$3 == "anon" && $4 == me {hot += $1}
	END {printf "%d %d\n", hot, tot}' "$T/rep")
echo "jit_spin: $1 of $2 samples in its anonymous region at 0x$at"
[ "$2" -ge 300 ] || fail "only $2 samples of jit_spin"
[ $(($1 * 100)) -ge $(($2 * 90)) ] || fail "less than 90 % of jit_spin's samples in its code region"
ls -d "$C/{root}$T/jit_spin/{dep}/{anon:anon}/$jp.0x$at.0x"* >/dev/null ||
	fail "no {anon:anon}/$jp.0x$at.0x... sample file"
"$SFCHECK" "$C" || fail "sample files fail the structural check"
stats_balance "$C"
test_done
