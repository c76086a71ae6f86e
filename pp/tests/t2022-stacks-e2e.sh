#!/bin/sh
# Whole stacks end to end: opcontrol --callgraph records a real program
# whose main calls three leaf functions (funcs.c built -O2 -g
# -fno-omit-frame-pointer: GCC 12 gives its leaves no frame), and
#   - opreport --stacks shows main -> leaf as the most common path into
#     each leaf, and --folded has main as the caller of >= 99% of each
#     leaf's samples;
#   - --folded sums to opreport -l's sample total, for the program and
#     for the whole session (kernel stacks included);
#   - go tool pprof -top on --pprof lists the same functions with the
#     same counts as opreport -l.
# And a frame-less program calling through Debian's libc
# (tests/workloads/qsort_cb.c: qsort and bsearch calling back into
# cmp_long, -O2 without frame pointers): >= 95% of its samples' stacks
# reach main.
# Needs root and perf_event_open (skips with 77 otherwise, as t2009).
. "$SRCDIR/tests/lib.sh"
: "${abs_top_builddir:?}"
live_session

$CC -O2 -g -fno-omit-frame-pointer -fno-inline -o "$tmp/leaves" \
	"$SRCDIR/tests/funcs.c" || fail "cannot build funcs.c"
prog=$tmp/leaves
$CC -O2 -g -fomit-frame-pointer -o "$tmp/qsort_cb" \
	"$abs_top_srcdir/tests/workloads/qsort_cb.c" || fail "cannot build qsort_cb.c"

# On a failure, the evidence stays in the output: the report's notes,
# the heaviest folded lines, the build-ids the session and the stack
# table recorded for the program and the one it has, where the whole
# session's profile put the programs' samples (another name for the
# binary, "(deleted)", anonymous memory?) and what --start said.
test_fail_hook() {
	local f
	[ -f "$tmp/start" ] && { test_note "opcontrol --start said:"
		sed 's/^/#   /' "$tmp/start"; }
	[ -f "$tmp/all" ] && { test_note "whole session (-l), lines of the programs:"
		grep -e leaves -e qsort_cb "$tmp/all" | head -20 | sed 's/^/#   /'; }
	for f in "$tmp/folded" "$tmp/allfolded"; do
		[ -f "$f" ] || continue
		test_note "${f##*/}: heaviest lines"
		sort -k2 -n -r -t' ' "$f" | head -15 | sed 's/^/#   /'
		test_note "${f##*/}.err:"
		sed 's/^/#   /' "$f.err"
	done
	test_note "build-id of $prog: $(readelf -n "$prog" 2>/dev/null |
		sed -n 's/.*Build ID: *//p')"
	f=$S/samples/current/session/build-ids
	[ -f "$f" ] && { test_note "session build-ids of $prog:"
		grep -F "$prog" "$f" | sed 's/^/#   /'; }
	f=$S/samples/current/stacks/table
	[ -f "$f" ] && { test_note "stack table images (name, build-id):"
		LC_ALL=C grep -a -o '{[a-z]*}/[[:print:]]*' "$f" |
			grep -F "${prog##*/}" | sed 's/^/#   /'; }
	test_note "sample files of ${prog##*/}:"
	find "$S/samples/current" -path "*${prog##*/}*" -type f | sed 's/^/#   /'
	[ -f "$S/samples/oprofiled.log" ] &&
		tail -20 "$S/samples/oprofiled.log" | sed 's/^/#   /'
	for f in "$S"/samples/current/stats/*; do
		[ -f "$f" ] && [ "$(cat "$f")" != 0 ] &&
			test_note "stats/${f##*/}: $(cat "$f")"
	done
	# T0022_KEEP=DIR: the whole $tmp (session, binaries) kept there
	[ -n "${T0022_KEEP:-}" ] && cp -a "$tmp" "$T0022_KEEP/" &&
		test_note "kept in $T0022_KEEP/${tmp##*/}"
	:
}

ctl_start --event=CPU_CLOCK:150000 --callgraph=32
"$prog" 600000000 >/dev/null || fail "the workload failed"
"$tmp/qsort_cb" 1.5 >/dev/null || fail "the qsort workload failed"
ctl --dump || fail "opcontrol --dump failed"
ctl --shutdown || fail "opcontrol --shutdown failed"
[ -d "$S/samples/current/stacks" ] || fail "the session has no stacks/"

# the whole session (kernel, libraries, every process): as many samples
# in the stacks as in the sample files
run_report "$tmp/all" -l
run_report "$tmp/allfolded" --folded
check_eq "$(awk '{ s += $NF } END { print s + 0 }' "$tmp/allfolded")" \
	"$(awk '/^[0-9]/ { s += $1 } END { print s + 0 }' "$tmp/all")" \
	"whole session: --folded sums to opreport -l's total"

run_report "$tmp/flat" -l image:"$prog"
head -12 "$tmp/flat"
total=$(awk '/^[0-9]/ { s += $1 } END { print s + 0 }' "$tmp/flat")

run_report "$tmp/folded" --folded image:"$prog"
check_eq "$(awk '{ s += $NF } END { print s + 0 }' "$tmp/folded")" "$total" \
	"--folded sums to opreport -l's total ($total samples)"
# folded_sum FILE SUFFIX: the samples of the folded lines whose stack
# ends with SUFFIX. A stack is all before the last space: names may hold
# spaces ("[unwinding stopped: no_cfi]", C++ signatures).
folded_sum() {
	awk -v f="$2" '{ k = $0; sub(/ [0-9]+$/, "", k) }
		substr(k, length(k) - length(f) + 1) == f { s += $NF }
		END { print s + 0 }' "$1"
}

# Margins: CPU_CLOCK samples whatever runs on the cpu, so a program's
# samples follow its CPU time, not the wall time a loaded machine
# stretches: each leaf's 6e8 iterations (0.3-0.6 s of CPU) give
# 1800-2500 samples at 150 us, 36 times the 50 asked; qsort_cb's 1.5 s
# give 3700 in the program itself (the rest is in libc), 18 times 200.
for f in alpha beta gamma_fn; do
	all=$(folded_sum "$tmp/folded" ";$f")
	via=$(folded_sum "$tmp/folded" ";main;$f")
	[ "$all" -ge 50 ] || fail "$f: only $all samples"
	awk -v a="$all" -v v="$via" 'BEGIN { exit !(v >= 0.99 * a) }' ||
		{ grep ";$f " "$tmp/folded"; fail "$f: main is the caller of $via of $all samples (< 99%)"; }
	test_ok "$f: main is the caller of $via of its $all samples (>= 99%)"
done

run_report "$tmp/st" --stacks image:"$prog"
sed -n '1,20p' "$tmp/st"
for f in alpha beta gamma_fn; do
	sed -n "/^$f (/,/^\$/p" "$tmp/st" | sed -n 2p >"$tmp/top.$f"
	check_grep "$tmp/top.$f" "main -> $f\$" "--stacks: main -> $f is the most common path into $f"
	pct=$(awk '{ sub("%", "", $2); print $2 }' "$tmp/top.$f")
	awk -v p="$pct" 'BEGIN { exit !(p >= 99) }' ||
		fail "--stacks: main -> $f has only $pct% of $f"
	test_ok "--stacks: main -> $f has $pct% of $f's samples"
done

# qsort_cb: samples in the callback and in libc under the program
run_report "$tmp/qfolded" --folded image:"$tmp/qsort_cb"
qall=$(awk '{ s += $NF } END { print s + 0 }' "$tmp/qfolded")
qmain=$(awk '{ k = $0; sub(/ [0-9]+$/, "", k) } k ~ /;main(;|$)/ { s += $NF } END { print s + 0 }' "$tmp/qfolded")
qcb=$(folded_sum "$tmp/qfolded" ";cmp_long")
sort -k2 -n -r -t' ' "$tmp/qfolded" | head -8
[ "$qall" -ge 200 ] || fail "qsort_cb: only $qall samples"
awk -v a="$qall" -v m="$qmain" 'BEGIN { exit !(m >= 0.95 * a) }' ||
	fail "qsort_cb: $qmain of $qall samples' stacks reach main (< 95%)"
test_ok "qsort_cb: $qmain of $qall samples' stacks reach main through libc (>= 95%)"
check_grep "$tmp/qfolded" ';main;(qsort|__qsort|bsearch)[^;]*;.*cmp_long ' \
	"qsort_cb: main -> qsort ... -> cmp_long paths"

run_report "$tmp/pp" --pprof="$tmp/prof.pb.gz" image:"$prog"
if command -v go >/dev/null 2>&1; then
	export GOCACHE=$tmp/gocache GOPATH=$tmp/gopath GOPROXY=off \
		GOTOOLCHAIN=local HOME=$tmp PPROF_TMPDIR=$tmp/pprof
	go tool pprof -top -noinlines -nodecount=100000 -nodefraction=0 -edgefraction=0 -symbolize=none \
		-sample_index=samples "$tmp/prof.pb.gz" >"$tmp/top" 2>"$tmp/top.err" ||
		{ cat "$tmp/top.err"; fail "go tool pprof cannot read the profile"; }
	# symbols with samples on both sides; images without symbols are
	# "(no symbols)" in -l and "[image]" in pprof
	awk '$1 ~ /^[0-9]+$/ && $1 > 0 && $6 !~ /^\[/ { s[$6] += $1 }
	     END { for (k in s) print k, s[k] }' "$tmp/top" | sort >"$tmp/top.flat"
	awk '/^[0-9]/ && $NF != "symbols)" { s[$NF] += $1 }
	     END { for (k in s) print k, s[k] }' "$tmp/flat" | sort >"$tmp/flat.flat"
	grep -q '^alpha ' "$tmp/flat.flat" || fail "opreport -l has no alpha"
	diff -u "$tmp/flat.flat" "$tmp/top.flat" || fail "pprof -top differs from opreport -l"
	test_ok "go tool pprof -top: the same functions with the same counts as opreport -l ($(wc -l <"$tmp/flat.flat") functions)"
else
	test_note "go (golang-go) not installed: go tool pprof check skipped"
fi
test_done
