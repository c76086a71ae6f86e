#!/bin/sh
# Differential profiles "{ old } { new }": the diff % column is the change
# of each entry's share relative to its old share; "+++" for entries only
# in the new profile, "---" for those only in the old. Also for image
# summaries.
. "$SRCDIR/tests/lib.sh"

build funcs.c prog
prog=$tmp/prog
cp "$prog" "$tmp/prog2"
"$MKSAMPLE" "$(sfile "$prog" "$prog" "" old)" --mtime-of "$prog" \
	"$(symoff "$prog" alpha)=400" "$(symoff "$prog" beta)=400" \
	"$(symoff "$prog" main)=200" || fail mksample
"$MKSAMPLE" "$(sfile "$prog" "$prog" "" new)" --mtime-of "$prog" \
	"$(symoff "$prog" alpha)=600" "$(symoff "$prog" beta)=200" \
	"$(symoff "$prog" gamma_fn)=200" || fail mksample
"$MKSAMPLE" "$(sfile "$tmp/prog2" "$tmp/prog2" "" new)" \
	--mtime-of "$tmp/prog2" "$(symoff "$prog" alpha)=100" || fail mksample

run_report "$tmp/d" -l { session:old image:"$prog" } { session:new image:"$prog" }
cat "$tmp/d"
check_grep "$tmp/d" '^samples +% +samples +% +diff % +symbol name$' "titles: old, new, diff %"
check_eq "$(awk '$NF == "alpha" {print $1, $2, $3, $4, $5}' "$tmp/d")" \
	"400 40.0000 600 60.0000 +50.0000" "alpha: share 40% -> 60%, +50%"
check_eq "$(awk '$NF == "beta" {print $1, $2, $3, $4, $5}' "$tmp/d")" \
	"400 40.0000 200 20.0000 -50.0000" "beta: share 40% -> 20%, -50%"
check_eq "$(awk '$NF == "gamma_fn" {print $1, $3, $5}' "$tmp/d")" "0 200 +++" "gamma_fn: only in new, +++"
check_eq "$(awk '$NF == "main" {print $1, $3, $5}' "$tmp/d")" "200 0 ---" "main: only in old, ---"
check_eq "$(sed -n '/symbol name$/,$p' "$tmp/d" | sed 1d | awk '{print $NF}' | tr '\n' ' ')" \
	"alpha beta gamma_fn main " "sorted by the new profile's samples"

run_report "$tmp/s" { session:old } { session:new }
cat "$tmp/s"
check_grep "$tmp/s" '^ +old\| +new\| +\|$' "summary: old and new columns"
check_grep "$tmp/s" '^ +samples\| +%\| +samples\| +%\| +diff %\|$' "summary: diff % column"
check_eq "$(awk '$NF == "prog" {print $1, $3, $5}' "$tmp/s")" "1000 1000 -9.0909" "prog: 100% -> 90.9091%, -9.0909%"
check_eq "$(awk '$NF == "prog2" {print $1, $3, $5}' "$tmp/s")" "0 100 +++" "prog2: only in new, +++"

"$OPREPORT" --session-dir="$SD" -l { session:old } session:new } >"$tmp/bad" 2>&1
check_eq "$?" "2" "malformed braces: usage error"
check_grep "$tmp/bad" "differential profile: expected" "malformed braces: says what is expected"
test_done
