#!/bin/sh
# Bounded files for short processes: 60 runs of a short program
# that lives in clock_gettime (control/vdso_loop) give ONE [vdso] sample
# file under the app (--separate=lib: {root}APP/{dep}/{root}/[vdso]; with
# --separate=none it is {root}/[vdso]'s own, one for the whole machine),
# not one {anon:[vdso]} per process; the vDSO's bytes
# are saved in the session by build-id and opreport -l shows its symbols
# (__vdso_clock_gettime). Then 90 runs of jit_spin (code in a fresh
# anonymous region each): at most 64 regions get files of their own, the
# rest are folded into {anon:anon}/0.0x0.0x0, counted in
# stats/anon_regions_folded, and the stats balance.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

cp "$B/tests/control/vdso_loop" "$T/vdso_loop" || fail "cannot copy vdso_loop"
cp "$B/tests/workloads/jit_spin" "$T/jit_spin" || fail "cannot copy jit_spin"
C=$S/samples/current
EV=CPU_CLOCK.1000000.0

step "60 short processes in clock_gettime: one [vdso] file"
ctl --separate=lib --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
run_times 60 "$T/vdso_loop" 30
ctl --dump || fail "--dump failed"
find "$C/{root}$T/vdso_loop" -type f >"$T/files"
cat "$T/files" | sed "s|^$C/||"
grep -q "{anon:" "$T/files" && fail "per-process anonymous [vdso] files"
f=$C/{root}$T/vdso_loop/{dep}/{root}/[vdso]/$EV.all.all.all
[ -f "$f" ] || fail "no [vdso] sample file $f"
set -- $(grep ' /\[vdso\]$' "$C/session/build-ids")
[ $# -eq 3 ] && [ "$2" = 0 ] || fail "no '/[vdso]' line in session/build-ids"
copy=$C/session/binaries/$1
[ -f "$copy" ] || fail "the vDSO's bytes are not saved as $copy"
r=$("$SFRANGE" "$f" "$copy" __vdso_clock_gettime) || fail "sfrange on the [vdso] file failed"
set -- $r
echo "[vdso]: $2 samples, $1 in __vdso_clock_gettime (by the saved copy's symbols)"
[ "$2" -ge 30 ] || fail "only $2 samples in the [vdso] file"
[ $(($1 * 100)) -ge $(($2 * 50)) ] || fail "only $1 of $2 [vdso] samples in __vdso_clock_gettime"
"$OPREPORT" --session-dir="$S" -l image:"$T/vdso_loop" >"$T/rep" 2>&1 || { cat "$T/rep"; fail "opreport -l failed"; }
cat "$T/rep"
n=$(awk '$3 == "[vdso]" && $NF ~ /clock_gettime/ { n += $1 } END { print n + 0 }' "$T/rep")
[ "$n" -ge $(($1 / 2)) ] || fail "opreport -l shows $n [vdso] samples in clock_gettime symbols, the file has $1"

step "90 processes with JIT code: at most 64 regions of their own, the rest folded"
run_times 90 "$T/jit_spin" 0.03
ctl --dump || fail "--dump failed"
d=$C/{root}$T/jit_spin/{dep}
own=$(find "$d" -path "$d/{anon:*}/*" -type f ! -path "*/0.0x0.0x0/*" | wc -l)
folded=$d/{anon:anon}/0.0x0.0x0/$EV.all.all.all
nfold=$(counter "$C" anon_regions_folded)
echo "jit_spin: $own regions with files of their own, $nfold folded"
[ "$own" -le 64 ] || fail "$own anonymous region files for one app (bound: 64)"
[ "$own" -ge 40 ] || fail "only $own anonymous region files: the workload did not run"
[ "$nfold" -ge 1 ] && [ -f "$folded" ] || fail "nothing folded into $folded ($nfold)"
t=$("$SFRANGE" "$folded") || fail "cannot read $folded"
[ "$t" -ge 1 ] || fail "no samples in $folded"
echo "$t samples in the folded file"
# the merged regions are named so, not as a region of tgid 0 at 0x0-0x0
"$OPREPORT" --session-dir="$S" -l "image:$T/jit_spin" >"$T/anon.l" 2>&1 ||
	{ cat "$T/anon.l"; fail "opreport -l failed"; }
grep -q 'anon (regions past the bound, merged)' "$T/anon.l" ||
	{ cat "$T/anon.l"; fail "opreport -l does not name the merged regions"; }
! grep -q 'tgid:0 range:0x0-0x0' "$T/anon.l" || fail "opreport -l names a region tgid:0 range:0x0-0x0"
grep -Eq '^[0-9].* anon \([1-9][0-9]*:jit_spin\) ' "$T/anon.l" ||
	{ cat "$T/anon.l"; fail "opreport -l does not name the regions anon (PID:jit_spin)"; }
! grep -q 'tgid:\|range:0x' "$T/anon.l" || fail "opreport -l names a region by tgid: or range:"
"$SFCHECK" "$C" || fail "sample files fail the structural check"
stats_balance "$C"
ctl --shutdown || fail "--shutdown failed"

step "--separate=thread: the merged region's files carry each process's TGID"
# the merged region has no owner of its own: named 0.0x0.0x0, its files
# still name the process the samples came from, and --processes lists
# those processes, never a process 0
ctl --reset >/dev/null 2>&1
ctl --separate=thread --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
run_times 90 "$T/jit_spin" 0.03
ctl --dump || fail "--dump failed"
ctl --shutdown || fail "--shutdown failed"
d=$C/{root}$T/jit_spin/{dep}/{anon:anon}/0.0x0.0x0
ls "$d" >"$T/merged" 2>/dev/null
echo "$(wc -l <"$T/merged") files in the merged region"
[ -s "$T/merged" ] || fail "no files in the merged region $d"
grep -v "^$EV\.[1-9][0-9]*\.[1-9][0-9]*\.all\$" "$T/merged" &&
	fail "merged-region files without the process's TGID and TID (above)"
"$OPREPORT" --session-dir="$S" --processes >"$T/procs" 2>&1 ||
	{ cat "$T/procs"; fail "opreport --processes failed"; }
awk '$2 == "jit_spin"' "$T/procs" >"$T/jit.procs"
echo "$(wc -l <"$T/jit.procs") jit_spin processes listed"
[ "$(wc -l <"$T/jit.procs")" -ge 40 ] || { cat "$T/procs"; fail "few jit_spin processes listed"; }
awk '$1 !~ /^[1-9][0-9]*$/' "$T/jit.procs" | grep . &&
	fail "jit_spin listed without its process id (above)"
"$SFCHECK" "$C" || fail "sample files fail the structural check"
stats_balance "$C"
test_done
