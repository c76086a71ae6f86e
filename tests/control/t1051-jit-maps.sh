#!/bin/sh
# JIT code by name through perf maps: node --perf-basic-prof runs two hot
# JS functions (control/jit_two.js: hotA does twice hotB's work per call
# and measures the time spent in each) while the daemon samples; after
# node has exited and its /tmp/perf-PID.map is deleted, the session's
# session/jit/PID.map names them: opreport -l with shares within 3 sigma
# (binomial) of the measured ones; -c, --stacks, --folded, --flame and
# --pprof name both, and the stacks go on past the JIT frames to their
# callers (V8 keeps frame pointers, followed where there is no CFI).
# Then hostile maps at /tmp/perf-PID.map of a JIT-like process
# (workloads/jit_spin): a symbolic link, a FIFO, another user's map, a
# huge sparse one, one left from before the process started, lines
# without newline and escape bytes: a warning, no hang, no crash,
# nothing read through the link.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

command -v node >/dev/null || skip "no node (Debian package nodejs)"
# a failed run leaves no map of its own in /tmp (a success removes them)
test_fail_hook() {
	[ -f "$T/pids" ] && while read -r p; do rm -f "/tmp/perf-$p.map"; done <"$T/pids"
	if [ -f "$S/samples/oprofiled.log" ]; then
		test_note "--- oprofiled.log"
		tail -30 "$S/samples/oprofiled.log" | sed 's/^/# /'
	fi
}
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
echo "$pid" >>"$T/pids"
wait $pid || fail "node failed"
map=/tmp/perf-$pid.map
[ -f "$map" ] || fail "node wrote no $map"
grep -q 'hotA' "$map" || fail "$map does not name hotA"
# the daemon reads it when the process is gone (within a flush, no dump
# needed); then the map goes, as it would on a real host
saved=$C/session/jit/$pid.map
wait_for test -s "$saved" || fail "node's map not kept at its exit in $saved"
rm -f "$map"
ctl --dump || fail "--dump failed"
ctl --shutdown || fail "--shutdown failed"
cat "$T/truth"
set -- $(cat "$T/truth")
ta=$2 tb=$4
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
# callers across JIT frames: V8 keeps frame pointers, which the unwinder
# follows where there is no CFI (JIT code, V8's builtins in node's .text)
awk '{ n = split($0, f, ";"); c = $NF; sub(/ [0-9]+$/, "", f[n])
	if (f[n] !~ /^JS:\*hotA/) next
	t += c; if (n >= 3 && f[n - 1] !~ /unwinding stopped/) k += c }
	END { printf "# hotA: %d of %d samples with a caller\n", k, t
	      exit !(t > 0 && k >= 0.9 * t) }' "$T/folded" ||
	fail "opreport --folded: hotA's callers not found across its JIT frame"
check_grep "$T/folded" 'Builtins_(JSEntry|InterpreterEntryTrampoline)[^;]*;.*JS:\*hotA' \
	"--folded: hotA's callers are V8's entry and interpreter frames"
"$OPREPORT" --session-dir="$S" --stacks >"$T/stacks" 2>"$T/err" ||
	{ cat "$T/err"; fail "opreport --stacks failed"; }
grep -q 'JS:\*hotA' "$T/stacks" && grep -q 'JS:\*hotB' "$T/stacks" ||
	fail "opreport --stacks does not name both functions"
"$OPREPORT" --session-dir="$S" -c "image:$(command -v node)" >"$T/cg" 2>"$T/err" ||
	{ cat "$T/err"; fail "opreport -c failed"; }
grep -q 'JS:\*hotA' "$T/cg" && grep -q 'JS:\*hotB' "$T/cg" ||
	fail "opreport -c does not name both functions"
"$OPREPORT" --session-dir="$S" --flame="$T/flame.html" 2>"$T/err" ||
	{ cat "$T/err"; fail "opreport --flame failed"; }
grep -q 'JS:\*hotA' "$T/flame.html" && grep -q 'JS:\*hotB' "$T/flame.html" ||
	fail "opreport --flame does not name both functions"
"$OPREPORT" --session-dir="$S" --pprof="$T/p.pb.gz" 2>"$T/err" ||
	{ cat "$T/err"; fail "opreport --pprof failed"; }
gzip -dc "$T/p.pb.gz" | grep -aq 'JS:\*hotA' || fail "opreport --pprof does not name hotA"
echo "-c, --flame, --pprof name them too"
"$SFCHECK" "$C" || fail "sample files fail the structural check"
stats_balance "$C"

step "hostile maps at /tmp/perf-PID.map of jit_spin (code in an anonymous region)"
ctl --reset >/dev/null 2>&1
ctl --separate=none --callgraph=0 >"$T/out" 2>&1 || { cat "$T/out"; fail "opcontrol refused"; }
ctl --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
# jit_spin under a shell that plants the map for its own pid first
# ($$ is jit_spin's pid after exec); each map claims the whole address
# space under a name that must not be shown
hostile() {
	sh -c "$1"' ; exec "$0" 0.3 >/dev/null' "$T/jit_spin" &
	eval "pid_$2=\$!"
	echo "$!" >>"$T/pids"
	wait $! || fail "jit_spin under the $2 map failed"
}
printf '0 7fffffffffff LINKED\n' >"$T/target.map"
hostile 'ln -s '"$T"'/target.map /tmp/perf-$$.map' link
hostile 'mkfifo /tmp/perf-$$.map' fifo
hostile 'printf "0 7fffffffffff NOT_MINE\n" >/tmp/perf-$$.map; chown 65534 /tmp/perf-$$.map' other
hostile 'printf "0 7fffffffffff HUGE_FIRST\n" >/tmp/perf-$$.map; truncate -s 1G /tmp/perf-$$.map' huge
hostile 'printf "0 7fffffffffff STALE\n" >/tmp/perf-$$.map; touch -d "1 hour ago" /tmp/perf-$$.map' stale
hostile 'printf "0 7fffffffffff esc\033]0;pwned\007name\n1 2 no newline" >/tmp/perf-$$.map' esc
ctl --dump || fail "--dump failed (or hung)"
ctl --shutdown || fail "--shutdown failed"
log=$S/samples/oprofiled.log
for w in link fifo other huge stale esc; do rm -f "/tmp/perf-$(eval echo \$pid_$w).map"; done
grep "perf-$pid_link.map.*symbolic link" "$log" || fail "no warning about the link"
grep "perf-$pid_fifo.map.*not a regular file" "$log" || fail "no warning about the FIFO"
grep "perf-$pid_other.map' ignored: owned by uid 65534" "$log" || fail "no warning about another user's map"
grep "perf-$pid_huge.map': only its first 64 MiB read" "$log" || fail "no warning about the huge map"
grep "perf-$pid_stale.map' ignored: last written before process" "$log" || fail "no warning about the stale map"
grep "perf-$pid_esc.map': 1 line that does not parse" "$log" || fail "no warning about the line without newline"
for w in link fifo other stale; do
	[ ! -e "$C/session/jit/$(eval echo \$pid_$w).map" ] || fail "the $w map was kept"
done
"$OPREPORT" --session-dir="$S" -l "image:$T/jit_spin" >"$T/hostile" 2>"$T/err" ||
	{ cat "$T/err"; fail "opreport -l failed"; }
cat "$T/hostile"
! grep -q 'LINKED\|NOT_MINE\|STALE' "$T/hostile" ||
	fail "a map was read through a link, from another user or from before its process"
grep -q 'HUGE_FIRST' "$T/hostile" || fail "the huge map's first line does not name its region"
grep -qF 'esc\x1b]0;pwned\x07name' "$T/hostile" || fail "the name with escape bytes is not shown escaped"
! grep -q "$(printf '\033')" "$T/hostile" || fail "a raw escape byte in opreport's output"
"$OPREPORT" --session-dir="$S" --folded >"$T/hfolded" 2>"$T/err" ||
	{ cat "$T/err"; fail "opreport --folded failed"; }
! grep -q "$(printf '\033')" "$T/hfolded" || fail "a raw escape byte in --folded"
echo "stats: jit_maps_read $(counter "$C" jit_maps_read), refused $(counter "$C" jit_maps_refused), cut $(counter "$C" jit_maps_cut)"
[ "$(counter "$C" jit_maps_refused)" -ge 4 ] || fail "fewer than 4 maps counted refused"
[ "$(counter "$C" jit_maps_cut)" -ge 1 ] || fail "the huge map not counted cut"
test_done
