#!/bin/sh
# Whole stacks, unwound with the binaries' CFI, end to end:
# opcontrol --callgraph=16 samples, while these run one after the other
# (built here with the system's gcc, Debian's GCC 12):
#  (a) leafs: main calls three small leaf functions, -O2 -g
#      -fno-omit-frame-pointer (GCC gives leaves no frame, so a
#      frame-pointer walk names libc as their caller): >= 99 % of each
#      leaf's samples have main as caller in the stack table (read back
#      with op_stacks by stackcheck) and in its {cg} arcs (sfrange), and
#      opreport -c names main the caller of >= 99 % of each leaf's arcs;
#  (b) qs: qsort and bsearch calling back into the program, -O2 -g
#      -fomit-frame-pointer: >= 95 % of its stacks reach main;
#  (c) the same stripped (.eh_frame stays), and built without .eh_frame
#      (-fno-asynchronous-unwind-tables: its CFI is only in .debug_frame)
#      then stripped, its debug file found by .gnu_debuglink (qs_link,
#      no build-id note) or by build-id below $OPROFILE_DEBUG_DIRS
#      (qs_bid): each >= 95 % too; without its debug file such a binary
#      does not unwind (no_cfi), which shows the debug file was used.
# The stack counts sum to stack_samples_written; stats balance.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

STACKCHECK=$B/tests/control/stackcheck
WS=$abs_top_srcdir/tests/workloads
C=$S/samples/current
EV=CPU_CLOCK.1000000.0.all.all.all
command -v gcc >/dev/null || skip "no gcc to build the workloads"

step "build the workloads"
gcc -O2 -g -fno-omit-frame-pointer "$WS/leafs.c" -o "$T/leafs" ||
	fail "cannot build leafs"
gcc -O2 -g -fomit-frame-pointer "$WS/qsort_cb.c" -o "$T/qs" ||
	fail "cannot build qs"
cp "$T/qs" "$T/qs_strip" && strip "$T/qs_strip" || fail "cannot strip qs"
gcc -O2 -g -fomit-frame-pointer -fno-asynchronous-unwind-tables \
	-fno-unwind-tables "$WS/qsort_cb.c" -o "$T/qs_full" ||
	fail "cannot build qs without .eh_frame"
# qs_link: its debug file next to it, named by .gnu_debuglink only
cp "$T/qs_full" "$T/qs_link"
objcopy --only-keep-debug "$T/qs_link" "$T/qs_link.debug" &&
	strip "$T/qs_link" &&
	objcopy --remove-section=.note.gnu.build-id "$T/qs_link" &&
	objcopy --add-gnu-debuglink="$T/qs_link.debug" "$T/qs_link" ||
	fail "cannot make qs_link"
# qs_bid: its debug file by build-id below our debug directory
cp "$T/qs_full" "$T/qs_bid"
bid=$(build_id_of "$T/qs_bid")
[ -n "$bid" ] || fail "qs has no build-id"
rest=${bid#??}
mkdir -p "$T/debug/.build-id/${bid%"$rest"}"
objcopy --only-keep-debug "$T/qs_bid" "$T/debug/.build-id/${bid%"$rest"}/$rest.debug" &&
	strip "$T/qs_bid" || fail "cannot make qs_bid"
for b in qs_link qs_bid; do
	readelf -S "$T/$b" | grep -q debug_frame && fail "$b still has .debug_frame"
done
OPROFILE_DEBUG_DIRS=$T/debug
export OPROFILE_DEBUG_DIRS

step "sample them with --callgraph=16"
ctl --callgraph=16 --event=CPU_CLOCK:1000000 >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "opcontrol --callgraph=16 refused"; }
ctl --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
for w in leafs qs qs_strip qs_link qs_bid; do
	"$T/$w" 1.2 || fail "$w failed"
done
ctl --dump || fail "--dump failed"
ctl --shutdown || fail "--shutdown failed"
stats_balance "$C"
[ -d "$C/stacks" ] || fail "no stacks/ in the session"
sum=$("$STACKCHECK" --sum "$C") || fail "stackcheck --sum failed"
written=$(counter "$C" stack_samples_written)
echo "stacks: $sum; stack_samples_written $written, dropped $(counter "$C" stack_samples_dropped)"
check_eq "${sum%% *}" "$written" "the stack counts sum to stats/stack_samples_written"

step "(a) leafs: main calls each leaf"
"$OPREPORT" --session-dir="$S" -c "$T/leafs" >"$T/cg" 2>"$T/cg.err" ||
	{ cat "$T/cg.err"; fail "opreport -c failed"; }
for leaf in leaf_a leaf_b leaf_c; do
	r=$("$STACKCHECK" "$C" "$T/leafs" "$T/leafs" "$leaf" main) ||
		fail "stackcheck $leaf failed"
	set -- $r
	echo "$leaf: $1 samples, $2 with main as caller in the stack table, $4 stopped before the root"
	[ "$1" -ge 100 ] || fail "only $1 samples in $leaf"
	[ $(($2 * 100)) -ge $(($1 * 99)) ] || fail "main calls only $2 of $1 $leaf samples' stacks"
	[ $(($4 * 100)) -le $1 ] || fail "$4 of $1 $leaf stacks stop before the root"
	f="$C/{root}$T/leafs/{dep}/{root}$T/leafs/{cg}/{root}$T/leafs/$EV"
	r=$("$SFRANGE" --arcs "$f" "$T/leafs:$leaf" "$T/leafs:main") ||
		fail "sfrange --arcs on $leaf failed"
	set -- $r
	echo "$leaf: $2 arcs into it, $1 from main"
	[ "$2" -ge 100 ] && [ $(($1 * 100)) -ge $(($2 * 99)) ] ||
		fail "{cg}: only $1 of $2 arcs into $leaf come from main"
	pct=$(awk -v sym="$leaf" '
		/^-+$/ { n = 0; seen = 0; next }
		/^  / { if (!seen) buf[n++] = $0; next }
		{ seen = 1
		  if ($NF == sym) for (i = 0; i < n; i++) {
			split(buf[i], f); if (f[length(f)] == "main") print f[2] } }' "$T/cg")
	[ -n "$pct" ] || { cat "$T/cg"; fail "opreport -c: no caller main for $leaf"; }
	awk -v p="$pct" 'BEGIN { exit !(p >= 99) }' ||
		fail "opreport -c: main has $pct % of $leaf's incoming arcs"
	test_ok "$leaf: main is the caller (opreport -c: $pct %)"
done

step "(b, c) qsort/bsearch callbacks through libc reach main"
for w in "qs qs" "qs_strip qs" "qs_link qs_full" "qs_bid qs_full"; do
	set -- $w
	r=$("$STACKCHECK" --reach "$C" "$T/$1" "$T/$2" main) ||
		fail "stackcheck --reach $1 failed"
	set -- "$1" $r
	echo "$1: $3 of $2 stacks reach main"
	[ "$2" -ge 200 ] || fail "only $2 stacks of $1"
	[ $(($3 * 100)) -ge $(($2 * 95)) ] || fail "only $3 of $2 stacks of $1 reach main"
	test_ok "$1: $(($3 * 100 / $2)) % of its stacks reach main"
done
"$STACKCHECK" --dump "$C" | grep "{root}$T/qs_link+" | sort -rn | head -5 | sed 's/^/# /'

step "without its debug file qs_link does not unwind"
mv "$T/qs_link.debug" "$T/qs_link.away"
OPERF=$B/utils/operf
"$OPERF" -g -d "$T/op" "$T/qs_link" 0.5 >"$T/out" 2>&1 || { cat "$T/out"; fail "operf failed"; }
r=$("$STACKCHECK" --reach "$T/op/samples/current" "$T/qs_link" "$T/qs_full" main) ||
	fail "stackcheck on operf's session failed"
set -- $r
echo "without the debug file: $2 of $1 stacks reach main; $("$STACKCHECK" --sum "$T/op/samples/current")"
[ "$1" -gt 0 ] && [ $(($2 * 100)) -lt $(($1 * 95)) ] ||
	fail "qs_link unwound without its debug file: the test proves nothing"
test_done
