#!/bin/sh
# opgprof: a synthetic session of a program (three functions with known
# shares, {cg} arcs from main) written as gmon.out; GNU gprof ranks the
# functions in opreport -l's order with the same shares (within 1
# point) and shows the arcs; a bin over 65535 samples is scaled (said);
# bad use.
. "$SRCDIR/tests/lib.sh"
: "${OPGPROF:?}"
command -v gprof >/dev/null || skip "no gprof (binutils)"

build funcs.c prog
prog=$tmp/prog
EV=CPU_CLOCK.100000.0.all.all.all
cgfile() {
	printf '%s/samples/current/%s/{dep}/%s/{cg}/%s/%s' "$SD" \
		"$(mangle "$1")" "$(mangle "$2")" "$(mangle "$3")" "$EV"
}
o() { symoff "$@"; }
"$MKSAMPLE" "$(sfile "$prog" "$prog")" --mtime-of "$prog" \
	"$(o $prog alpha)=300" "$(o $prog alpha 4)=2700" "$(o $prog beta 2)=1500" \
	"$(o $prog gamma_fn 3)=500" || fail mksample
"$MKSAMPLE" "$(cgfile "$prog" "$prog" "$prog")" --mtime-of "$prog" \
	"$(o $prog main 8):$(o $prog alpha 4)=30" \
	"$(o $prog main 12):$(o $prog beta 2)=20" \
	"$(o $prog main 16):$(o $prog gamma_fn)=5" || fail mksample

run_report "$tmp/l" -l
cat "$tmp/l"
cd "$tmp" || bail "cd $tmp"
"$OPGPROF" --session-dir="$SD" "$prog" >"$tmp/g.out" 2>"$tmp/g.err" ||
	{ cat "$tmp/g.err"; fail "opgprof failed"; }
test -s "$tmp/gmon.out" || fail "no gmon.out written"
test_ok "gmon.out written in the current directory"
gprof -b -p "$prog" "$tmp/gmon.out" >"$tmp/flat" 2>"$tmp/flat.err" ||
	{ cat "$tmp/flat.err"; fail "gprof cannot read it"; }
cat "$tmp/flat"
rank_op=$(sed -n '/symbol name$/,$p' "$tmp/l" | sed 1d | awk '{print $NF}' | tr '\n' ' ')
rank_gp=$(awk '$1 ~ /^[0-9.]+$/ && NF >= 4 {print $NF}' "$tmp/flat" | tr '\n' ' ')
check_eq "$rank_gp" "$rank_op" "gprof ranks the functions as opreport -l"
for f in alpha beta gamma_fn; do
	a=$(awk -v f=$f '$NF == f {print $2}' "$tmp/l")
	b=$(awk -v f=$f '$NF == f {print $1}' "$tmp/flat")
	awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; exit !(d <= 1 && d >= -1) }' ||
		fail "$f: gprof $b% vs opreport $a%"
	test_ok "$f: gprof $b% and opreport $a% within 1 point"
done
check_grep "$tmp/flat" 'Each sample counts as 0.0001 seconds' "the sampling period (100000 ns) as gprof's rate"

gprof -b -q "$prog" "$tmp/gmon.out" >"$tmp/cg" 2>&1 || fail "gprof -q"
cat "$tmp/cg"
check_grep "$tmp/cg" '^ +[0-9.]+ +[0-9.]+ +30/[0-9]+ +main ' "gprof's call graph: alpha called 30 times from main ({cg} arcs)"

# -o, a too-full bin
"$MKSAMPLE" "$(sfile "$prog" "$prog")" --mtime-of "$prog" \
	"$(o $prog alpha)=100000" "$(o $prog beta 2)=50000" || fail mksample
"$OPGPROF" --session-dir="$SD" -o "$tmp/big.out" prog 2>"$tmp/big.err" ||
	{ cat "$tmp/big.err"; fail "opgprof -o failed"; }
check_grep "$tmp/big.err" "counts divided by 2 in '$tmp/big.out'" "a bin over 65535 samples: scaled, and said"
gprof -b -p "$prog" "$tmp/big.out" >"$tmp/big" 2>&1 || fail "gprof big.out"
check_eq "$(awk '$NF == "alpha" {print $1}' "$tmp/big")" "66.67" "scaled: the shares kept"

# bad use
"$OPGPROF" --session-dir="$SD" >/dev/null 2>&1
check_eq "$?" "2" "no image: a usage error"
"$OPGPROF" --session-dir="$SD" /bin/nothing-like-this >/dev/null 2>"$tmp/none.err"
check_eq "$?" "1" "an image without samples: a failure"
check_grep "$tmp/none.err" "no samples of image '/bin/nothing-like-this'" "which is named"
# other images of the session whose binaries are gone are not opened (nor
# warned about) before that one error
cp "$prog" "$tmp/gone"
"$MKSAMPLE" "$(sfile "$tmp/gone" "$tmp/gone")" --mtime-of "$tmp/gone" "$(o $prog alpha)=10" || fail mksample
rm "$tmp/gone"
"$OPGPROF" --session-dir="$SD" nosuchimage >/dev/null 2>"$tmp/none.err"
check_eq "$?" "1" "nosuchimage in a session with a removed binary: a failure"
check_eq "$(wc -l <"$tmp/none.err")" 1 "... with its one error line alone"
test_done
