#!/bin/sh
# opreport -l options on a synthetic session with known counts:
# -d, -t, -s, -r, -i, -e, -n, -w, -%, -a, -g, -o.
. "$SRCDIR/tests/lib.sh"

build funcs.c prog
prog=$tmp/prog
"$MKSAMPLE" "$(sfile "$prog" "$prog")" --mtime-of "$prog" \
	"$(symoff "$prog" alpha)=100" "$(symoff "$prog" alpha 4)=100" \
	"$(symoff "$prog" beta 2)=500" "$(symoff "$prog" gamma_fn)=300" ||
	fail "mksample"
vma() { printf '%016x' $((0x$(nm "$prog" | awk -v s="$1" '$3 == s {print $1}') + ${2:-0})); }
symbols() { sed -n '/symbol name$/,$p' "$1" | sed 1d | awk '{print $NF}' | tr '\n' ' '; }

run_report "$tmp/plain" -l
check_eq "$(symbols "$tmp/plain")" "beta gamma_fn alpha " "default order: by samples"

run_report "$tmp/d" -l -d
cat "$tmp/d"
check_grep "$tmp/d" "^$(vma alpha) +200 +20.0000 +alpha$" "-d: symbol row with its vma"
check_grep "$tmp/d" "^  $(vma alpha) +100 +50.0000 *$" "-d: alpha+0 has 100 samples, 50% of the symbol"
check_grep "$tmp/d" "^  $(vma alpha 4) +100 +50.0000 *$" "-d: alpha+4 has 100 samples, 50% of the symbol"
check_grep "$tmp/d" "^  $(vma beta 2) +500 +100.0000 *$" "-d: beta+2 has all of beta's samples"

run_report "$tmp/dg" -l -d -%
check_grep "$tmp/dg" "^  $(vma alpha) +100 +10.0000 *$" "-d -%: detail percentage of the whole profile"

run_report "$tmp/t" -l -t 25
check_eq "$(symbols "$tmp/t")" "beta gamma_fn " "-t 25 hides alpha (20%)"

run_report "$tmp/s" -l -s symbol
check_eq "$(symbols "$tmp/s")" "alpha beta gamma_fn " "-s symbol: by name"
run_report "$tmp/r" -l -r
check_eq "$(symbols "$tmp/r")" "alpha gamma_fn beta " "-r: fewest samples first"
run_report "$tmp/sr" -l -s symbol -r
check_eq "$(symbols "$tmp/sr")" "gamma_fn beta alpha " "-s symbol -r: names reversed"
run_report "$tmp/sv" -l -s vma
expect=$(nm -n "$prog" | awk '$3 == "alpha" || $3 == "beta" || $3 == "gamma_fn" {printf "%s ", $3}')
check_eq "$(symbols "$tmp/sv")" "$expect" "-s vma: by address"

run_report "$tmp/i" -l -i beta,alpha
check_eq "$(symbols "$tmp/i")" "beta alpha " "-i: only the listed symbols"
check_eq "$(awk '$NF == "beta" {print $1, $2}' "$tmp/i")" "500 71.4286" "-i: percentages of what is kept (500/700)"
run_report "$tmp/e" -l -e beta
check_eq "$(symbols "$tmp/e")" "gamma_fn alpha " "-e: the listed symbol left out"
check_eq "$(awk '$NF == "gamma_fn" {print $1, $2}' "$tmp/e")" "300 60.0000" "-e: percentages of what is kept (300/500)"

run_report "$tmp/n" -l -n
check_eq "$(head -1 "$tmp/n" | awk '{print $1, $2, $3}')" "500 50.0000 beta" "-n: no header, first line is data"
check_eq "$(wc -l <"$tmp/n" | tr -d ' ')" "3" "-n: exactly the three rows"

run_report "$tmp/w" -l -w
check_grep "$tmp/w" '^vma +samples +% +symbol name$' "-w: vma column title"
check_grep "$tmp/w" "^$(vma beta) +500 +50.0000 +beta$" "-w: beta's start address"

run_report "$tmp/a" -l -a
check_grep "$tmp/a" '^samples +% +cum. samples +cum. % +symbol name$' "-a: cumulative column titles"
check_eq "$(awk '$NF == "gamma_fn" {print $1, $2, $3, $4}' "$tmp/a")" "300 30.0000 800 80.0000" "-a: gamma_fn accumulates to 800, 80%"
check_eq "$(awk '$NF == "alpha" {print $3, $4}' "$tmp/a")" "1000 100.0000" "-a: the last row accumulates to 100%"

run_report "$tmp/g" -l -g
first=$(grep -n '^__attribute__((noinline)) void beta' "$SRCDIR/tests/funcs.c" | cut -d: -f1)
last=$(grep -n '^__attribute__((noinline)) void gamma_fn' "$SRCDIR/tests/funcs.c" | cut -d: -f1)
line=$(awk '$NF == "beta" {print $3}' "$tmp/g")
case $line in funcs.c:*) ;; *) cat "$tmp/g"; fail "-g: no funcs.c line for beta" ;; esac
line=${line#funcs.c:}
[ "$line" -ge "$first" ] && [ "$line" -lt "$last" ] ||
	fail "-g: beta at line $line, outside its lines $first..$((last - 1))"
test_ok "-g: beta at funcs.c:$line, inside beta"
check_grep "$tmp/g" '^samples +% +linenr info +symbol name$' "-g: linenr info column title"

run_report "$tmp/o.stdout" -l -o "$tmp/o.file"
check_eq "$(cat "$tmp/o.stdout")" "" "-o: nothing on stdout"
cmp -s "$tmp/o.file" "$tmp/plain" || fail "-o file differs from stdout report"
test_ok "-o: the file holds the report"

"$OPREPORT" --session-dir="$SD" -l -s nonsense >"$tmp/bad" 2>&1
check_eq "$?" "2" "-s nonsense: usage error, exit 2"
check_grep "$tmp/bad" "unknown sort key 'nonsense'" "-s nonsense: names the bad key"

# equal counts: ordered by image base name, by full path only with -f
# (OProfile's symbol_sort rule)
"$MKSAMPLE" "$(sfile /zz/alpha_img /zz/alpha_img "" ties)" 0x10=5 || fail mksample
"$MKSAMPLE" "$(sfile /aa/zeta_img /aa/zeta_img "" ties)" 0x10=5 || fail mksample
run_report "$tmp/ties" session:ties
check_eq "$(awk '$1 == 5 { print $3 }' "$tmp/ties" | tr '\n' ' ')" "alpha_img zeta_img " "ties: by base name"
run_report "$tmp/ties" -f session:ties
check_eq "$(awk '$1 == 5 { print $3 }' "$tmp/ties" | tr '\n' ' ')" "/aa/zeta_img /zz/alpha_img " "ties with -f: by full path"

run_report "$tmp/v" -V=all,debug -l
check_eq "$(cat "$tmp/v.err")" "" "-V=all,debug is accepted, silently"
"$OPREPORT" --session-dir="$SD" -V=bogus >"$tmp/bad" 2>&1
check_eq "$?" "2" "-V=bogus: usage error"
"$OPREPORT" --version >"$tmp/ver" || fail "--version failed"
check_grep "$tmp/ver" '^opreport: oprofile [0-9.]+ compiled on .* [(]oprofile-ng [0-9.]+[)]$' "--version as OProfile's tools print it"
test_done
