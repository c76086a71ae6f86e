#!/bin/sh
# Trace history: tests/control/phases burns 1 s of CPU in phase_a, then
# 1 s in phase_b, under operf --record-stream. The stream carries time
# codes (ESC TIME), and opreport --stream reports any window of it:
# the first half second is phase_a's, the window phase_b printed as its
# own (absolute CLOCK_MONOTONIC ns) is phase_b's; --timeline=250 puts the
# switch in the interval the program saw it in, and its rows add up to
# the whole stream's report. Then --separate and a profile specification
# on a window, and bad input.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

OPERF=$B/utils/operf
P=$T/phases
cp "$B/tests/control/phases" "$P" || fail "cannot copy the workload"

step "operf --record-stream on two phases"
(cd "$T" && "$OPERF" --session-dir="$T/od" --record-stream="$T/p.ops" "$P" 1) \
	>"$T/truth" 2>"$T/err" || { cat "$T/err"; fail "operf failed"; }
sed 's/^/# /' "$T/truth"
pid=$(awk '$1 == "pid" { print $2 }' "$T/truth")
a0=$(awk '$1 == "phase_a" { print $2 }' "$T/truth")
a1=$(awk '$1 == "phase_a" { print $3 }' "$T/truth")
b0=$(awk '$1 == "phase_b" { print $2 }' "$T/truth")
b1=$(awk '$1 == "phase_b" { print $3 }' "$T/truth")
[ -n "$pid" ] && [ -n "$a1" ] && [ -n "$b1" ] || fail "the workload printed no phases"
"$B/daemon/opstream" dump "$T/p.ops" >"$T/dump" 2>&1 || fail "opstream dump failed"
n=$(grep -c ' time$' "$T/dump")
[ "$n" -gt 100 ] || fail "the recorded stream has $n time codes, not one per busy ms"
test_ok "the recorded stream has $n time codes"

# samples REPORT SYMBOL: the samples column of SYMBOL's row in opreport -l
samples() { awk -v s="$2" '$NF == s { n += $1 } END { print n + 0 }' "$1"; }

# window NAME ARGS...: opreport --stream -l with ARGS into $T/NAME
window() {
	name=$1
	shift
	"$OPREPORT" --stream="$T/p.ops" -l "$@" >"$T/$name" 2>"$T/$name.err" ||
		{ cat "$T/$name.err" "$T/$name"; fail "opreport --stream $* failed"; }
	sed 's/^/# /' "$T/$name.err"
}

step "the whole stream: the session's report"
window all
"$OPREPORT" --session-dir="$T/od" -l >"$T/session" 2>&1 || fail "opreport on the session failed"
cmp -s "$T/all" "$T/session" || { diff "$T/all" "$T/session" | head; fail "--stream reports otherwise than the session"; }
test_ok "opreport --stream=FILE equals the session's report"

step "--time: the first half second, then phase_b's own window"
window first --time=0,0.5
a=$(samples "$T/first" phase_a) b=$(samples "$T/first" phase_b)
first_a=$a
# phase_a takes at least 1 s of wall time: the first 0.5 s is all its
# own, however little cpu a loaded machine gave it then
[ "$a" -ge 20 ] && [ "$b" -eq 0 ] || fail "first 0.5 s: phase_a $a, phase_b $b samples"
test_ok "0 .. 0.5 s: phase_a $a samples, phase_b $b"
# phase_b's window, 10 ms in from each end (time codes are 1 ms apart)
window second "--time=$((b0 + 10000000))ns,$((b1 - 10000000))ns"
a=$(samples "$T/second" phase_a) b=$(samples "$T/second" phase_b)
[ "$b" -ge 200 ] && [ "$b" -ge $((20 * a)) ] || fail "phase_b's window: phase_a $a, phase_b $b samples"
test_ok "phase_b's window (absolute ns): phase_b $b samples, phase_a $a"

step "--timeline=250: the switch in its interval, the rows sum to the total"
"$OPREPORT" --stream="$T/p.ops" --timeline=250 >"$T/tl" 2>"$T/tl.err" ||
	{ cat "$T/tl.err"; fail "opreport --timeline failed"; }
sed 's/^/# /' "$T/tl"
# the columns of phase_a and phase_b (legend "  #N  symbol  image")
ca=$(awk '$1 ~ /^#/ && $2 == "phase_a" { print substr($1, 2) }' "$T/tl")
cb=$(awk '$1 ~ /^#/ && $2 == "phase_b" { print substr($1, 2) }' "$T/tl")
[ -n "$ca" ] && [ -n "$cb" ] || fail "phase_a and phase_b are not columns"
# the stream starts at its first time code: the first sample, at about a0;
# the switch is at a1 (the interval holding it may have both)
awk -v ca="$ca" -v cb="$cb" -v sw="$(( (a1 - a0) / 1000000 ))" '
	$1 ~ /^[0-9.]+$/ && NF > 3 {
		start = $1 * 1000; end = start + 250
		a = $(2 + ca); b = $(2 + cb); sum += $2
		if (end < sw - 20 && b > 0) bad = bad " " $1 ": phase_b before the switch"
		if (start > sw + 20 && a > 0) bad = bad " " $1 ": phase_a after the switch"
		if (start <= sw && sw < end) hit = $1
	}
	$1 == "total" { total = $2 }
	END {
		if (bad != "") { print "wrong:" bad; exit 1 }
		if (hit == "") { print "no interval holds the switch at " sw " ms"; exit 1 }
		if (sum != total) { print "rows sum to " sum ", total " total; exit 1 }
		print "switch at " sw " ms in the interval from " hit " s; rows sum to " total
	}' "$T/tl" >"$T/tlcheck" || { cat "$T/tlcheck"; fail "the timeline is wrong"; }
test_ok "$(cat "$T/tlcheck")"
whole=$(awk '/^[0-9]+ / { n += $1 } END { print n }' "$T/all")
total=$(awk '$1 == "total" { print $2 }' "$T/tl")
check_eq "$total" "$whole" "the timeline's total equals the whole stream report's samples"

step "a window split by thread and selected by a profile specification"
window sep --time=0,0.5 --separate=thread "tgid:$pid"
# the stream is the one process's: the same window's samples, split by
# thread (a wall-time window holds as many as the cpu it got, not 100)
a=$(samples "$T/sep" phase_a)
check_eq "$a" "$first_a" "tgid:$pid in the first 0.5 s: phase_a has the window's $first_a samples"
"$OPREPORT" --stream="$T/p.ops" --time=0,0.5 --separate=thread tgid:1 >"$T/out" 2>&1
check_eq "$?" 1 "tgid:1 selects nothing in that window"
check_grep "$T/out" "tgids present: $pid" "the one process of the stream is named"

step "bad input"
"$OPREPORT" --time=0,1 >"$T/out" 2>&1
check_eq "$?" 2 "--time without --stream is a usage error"
"$OPREPORT" --stream="$T/p.ops" --time=soon,1 >"$T/out" 2>&1
check_eq "$?" 2 "a bad --time is a usage error"
check_grep "$T/out" "soon" "the error names the bad bound"
"$OPREPORT" --stream="$T/no-such.ops" >"$T/out" 2>&1
check_eq "$?" 1 "a missing stream file fails"
check_grep "$T/out" "no-such.ops" "the error names the file"
printf 'OPSTREAM\010\000\000\000\001\000\000\000' >"$T/empty.ops"
"$OPREPORT" --stream="$T/empty.ops" --timeline=100 >"$T/out" 2>&1
check_eq "$?" 1 "a stream without time codes cannot have a timeline"
check_grep "$T/out" "no time codes" "and says so"
test_done
