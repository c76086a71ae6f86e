#!/bin/sh
# Sessions recorded with --separate=lib: libraries indented under their
# applications in the image summary (share of the application, or of the
# whole profile with -%), -x leaves them out, -m lib shows each library
# once with every application's samples, lib-image: selects them.
. "$SRCDIR/tests/lib.sh"

build funcs.c prog
prog=$tmp/prog
cp "$prog" "$tmp/prog2"
$CC -O1 -g -fno-toplevel-reorder -fPIC -shared -o "$tmp/libt.so" \
	"$SRCDIR/tests/lib.c" || fail "cannot build lib.c"
lib=$tmp/libt.so
"$MKSAMPLE" "$(sfile "$prog" "$prog")" --mtime-of "$prog" "$(symoff "$prog" alpha)=300" || fail mksample
"$MKSAMPLE" "$(sfile "$prog" "$lib")" --mtime-of "$lib" "$(symoff "$lib" lib_one)=100" || fail mksample
"$MKSAMPLE" "$(sfile "$tmp/prog2" "$tmp/prog2")" --mtime-of "$prog" "$(symoff "$prog" beta)=400" || fail mksample
"$MKSAMPLE" "$(sfile "$tmp/prog2" "$lib")" --mtime-of "$lib" "$(symoff "$lib" lib_one)=200" || fail mksample

run_report "$tmp/sum"
cat "$tmp/sum"
check_eq "$(grep -v '^	' "$tmp/sum" | awk '$NF == "prog2" || $NF == "prog" {printf "%s %s %s;", $1, $2, $3}')" \
	"600 60.0000 prog2;400 40.0000 prog;" "applications with the sums of their images, by samples"
check_eq "$(sed -n '/ prog$/,$p' "$tmp/sum" | grep '^	' | awk '$NF == "libt.so" {print $1, $2}')" \
	"100 25.0000" "libt.so under prog: 25% of prog"
run_report "$tmp/glob" -%
check_eq "$(sed -n '/ prog$/,$p' "$tmp/glob" | grep '^	' | awk '$NF == "libt.so" {print $1, $2}')" \
	"100 10.0000" "-%: libt.so under prog is 10% of the profile"

run_report "$tmp/x" -x
check_no_grep "$tmp/x" 'libt.so' "-x: no library"
check_eq "$(awk '$NF == "prog2" {print $1, $2}' "$tmp/x")" "400 57.1429" "-x: prog2's own 400 of 700"

run_report "$tmp/mlib" -m lib
cat "$tmp/mlib"
check_eq "$(awk '$NF == "libt.so" {print $1, $2}' "$tmp/mlib")" "300 30.0000" "-m lib: libt.so once, with both applications' samples"
check_no_grep "$tmp/mlib" '^	' "-m lib: nothing indented"

run_report "$tmp/l" -l lib-image:"$lib"
cat "$tmp/l"
check_grep "$tmp/l" '^samples +% +image name +app name +symbol name$' "-l: image and app name columns"
check_eq "$(awk '$NF == "lib_one" {printf "%s %s %s;", $1, $3, $4}' "$tmp/l")" \
	"200 libt.so prog2;100 libt.so prog;" "lib-image: lib_one per application"
"$OPREPORT" --session-dir="$SD" -x -m lib >"$tmp/bad" 2>&1
check_eq "$?" "2" "-x -m lib: a usage error"

# an application with no image but its own gets no nested block, even
# when other applications have dependents
cp "$prog" "$tmp/prog3"
"$MKSAMPLE" "$(sfile "$tmp/prog3" "$tmp/prog3")" --mtime-of "$tmp/prog3" "$(symoff "$prog" alpha)=50" || fail mksample
run_report "$tmp/solo"
cat "$tmp/solo"
check_eq "$(awk '$NF == "prog3" { getline; print substr($0, 1, 1) == "\t" ? "nested" : "flat" }' "$tmp/solo")" \
	"flat" "prog3, with only its own image, has no nested block"
check_eq "$(sed -n '/ prog$/,$p' "$tmp/solo" | grep '^	' | awk '$NF == "libt.so" {print $1}')" \
	"100" "prog still shows libt.so nested"
test_done
