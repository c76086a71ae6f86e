#!/bin/sh
# --separate=thread style sessions: two tids give two columns, -m tid
# merges them, and a second varying axis (cpu) is refused with a message
# naming both axes until one is merged.
. "$SRCDIR/tests/lib.sh"

build funcs.c prog
prog=$tmp/prog
a=$(symoff "$prog" alpha) b=$(symoff "$prog" beta)
"$MKSAMPLE" "$(sfile "$prog" "$prog" CPU_CLOCK.100000.0.100.100.all)" \
	--mtime-of "$prog" "$a=300" "$b=100" || fail mksample
"$MKSAMPLE" "$(sfile "$prog" "$prog" CPU_CLOCK.100000.0.100.101.all)" \
	--mtime-of "$prog" "$a=100" "$b=500" || fail mksample

run_report "$tmp/two" -l
cat "$tmp/two"
check_grep "$tmp/two" '^Processes with a thread ID of 100$' "class line for tid 100"
check_grep "$tmp/two" '^Processes with a thread ID of 101$' "class line for tid 101"
check_grep "$tmp/two" '^samples +% +samples +% +symbol name$' "two sample columns"
check_eq "$(awk '$NF == "alpha" {print $1, $2, $3, $4}' "$tmp/two")" "300 75.0000 100 16.6667" "alpha: 300 in tid 100, 100 in tid 101"
check_eq "$(awk '$NF == "beta" {print $1, $2, $3, $4}' "$tmp/two")" "100 25.0000 500 83.3333" "beta: 100 in tid 100, 500 in tid 101"

run_report "$tmp/merged" -l -m tid
cat "$tmp/merged"
check_no_grep "$tmp/merged" 'thread ID' "-m tid: no per-thread classes"
check_eq "$(awk '$NF == "alpha" {print $1, $2}' "$tmp/merged")" "400 40.0000" "-m tid: alpha 400, 40%"
check_eq "$(awk '$NF == "beta" {print $1, $2}' "$tmp/merged")" "600 60.0000" "-m tid: beta 600, 60%"

run_report "$tmp/sum"
cat "$tmp/sum"
check_eq "$(awk '$NF == "prog" {print $1, $3}' "$tmp/sum")" "400 600" "summary: per-tid image totals equal the symbol sums"
run_report "$tmp/summ" -m tid
check_eq "$(awk '$NF == "prog" {print $1}' "$tmp/summ")" "1000" "summary -m tid: one column, 1000 samples"
run_report "$tmp/tid" -l tid:101
check_eq "$(awk '$NF == "beta" {print $1, $2}' "$tmp/tid")" "500 83.3333" "tid:101 selects one thread"

# a cpu axis as well: refused
"$MKSAMPLE" "$(sfile "$prog" "$prog" CPU_CLOCK.100000.0.100.100.1)" \
	--mtime-of "$prog" "$a=7" || fail mksample
"$OPREPORT" --session-dir="$SD" -l >"$tmp/axes" 2>&1
check_eq "$?" "1" "two varying axes: exit 1"
cat "$tmp/axes"
check_grep "$tmp/axes" 'differ in more than one axis.*tid cpu' "message names the tid and cpu axes"
check_grep "$tmp/axes" 'merge the others \(-m tid, -m cpu\) or narrow the specification \(tid:N, cpu:N\)' "message suggests -m and tags"
run_report "$tmp/mcpu" -l -m cpu
check_eq "$(awk '$NF == "alpha" {print $1, $3}' "$tmp/mcpu")" "307 100" "-m cpu: columns by tid again, cpu merged"

# --processes names a process after its program, not after the [vdso],
# library or kernel files its samples are also filed under (a session
# that does not separate libraries files each image under itself)
SD=$tmp/psd
vd=$(symoff "$prog" gamma_fn)
"$MKSAMPLE" "$(sfile "/[vdso]" "/[vdso]" CPU_CLOCK.100000.0.200.200.all)" "0x10=500" || fail mksample
"$MKSAMPLE" "$(sfile /usr/lib/libfake.so.6 /usr/lib/libfake.so.6 CPU_CLOCK.100000.0.200.200.all)" "0x10=400" || fail mksample
"$MKSAMPLE" "$(sfile "$prog" "$prog" CPU_CLOCK.100000.0.200.200.all)" --mtime-of "$prog" "$vd=100" || fail mksample
run_report "$tmp/procs" --processes tgid:200
cat "$tmp/procs"
check_grep "$tmp/procs" '^ +200 prog ' "--processes: the row of tgid 200 is named prog"
check_grep "$tmp/procs" "^Process 200 $prog\$" "--processes tgid:200: its profile is named prog"
test_done
