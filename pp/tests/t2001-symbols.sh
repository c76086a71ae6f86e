#!/bin/sh
# opreport -l on a synthetic session: exact counts and percentages per
# symbol of a compiled test binary, and the image summary's sum.
. "$SRCDIR/tests/lib.sh"

build funcs.c prog
prog=$tmp/prog
f=$(sfile "$prog" "$prog")
"$MKSAMPLE" "$f" --mtime-of "$prog" \
	"$(symoff "$prog" alpha)=100" "$(symoff "$prog" alpha 4)=500" \
	"$(symoff "$prog" beta 2)=300" "$(symoff "$prog" gamma_fn)=100" ||
	fail "mksample"

run_report "$tmp/out" -l
cat "$tmp/out"
check_grep "$tmp/out" '^CPU: Software clock \(no hardware PMU\), speed 2000 MHz \(estimated\)$' "cpu line"
check_grep "$tmp/out" '^Profiling through timer interrupt / software clock, count 100000 ns$' "timer line"
check_grep "$tmp/out" '^samples +% +symbol name$' "column titles (one image: no image column)"
check_eq "$(grep -E ' alpha$' "$tmp/out" | awk '{print $1, $2}')" "600 60.0000" "alpha 600 samples, 60%"
check_eq "$(grep -E ' beta$' "$tmp/out" | awk '{print $1, $2}')" "300 30.0000" "beta 300 samples, 30%"
check_eq "$(grep -E ' gamma_fn$' "$tmp/out" | awk '{print $1, $2}')" "100 10.0000" "gamma_fn 100 samples, 10%"
check_eq "$(sed -n '/symbol name/,$p' "$tmp/out" | sed 1d | awk '{print $3}' | tr '\n' ' ')" \
	"alpha beta gamma_fn " "sorted by samples"

run_report "$tmp/sum"
cat "$tmp/sum"
check_eq "$(awk -v p="prog" '$3 == p {print $1, $2}' "$tmp/sum")" "1000 100.0000" "image summary: 1000 samples, 100%"
check_grep "$tmp/sum" '^ +samples\| +%\|$' "image summary column titles"

run_report "$tmp/long" -l -f
check_grep "$tmp/long" ' alpha$' "-f keeps the symbol list"
run_report "$tmp/suml" -f
check_eq "$(awk '{print $3}' "$tmp/suml" | grep -c "^$prog\$")" "1" "-f: full path in the summary"
test_done
