#!/bin/sh
# opannotate -a on a stripped library: its samples fall in dynamic-symbol
# ranges ("a->b") that span the static code between two exported
# functions. Only the instructions near the samples are shown, a "..."
# line where code is left out; the counts still add up to the total.
. "$SRCDIR/tests/lib.sh"
: "${OPANNOTATE:?}"
unset DEBUGINFOD_URLS
export OPROFILE_DEBUG_DIRS="$tmp/nodebug"

cat >"$tmp/big.c" <<'EOC'
int big_a(int x) { return x * 3 + 1; }
/* static code between the exported functions: 8 KB of nops */
__attribute__((noinline, used)) static int hidden(int x)
{
	__asm__ volatile(".fill 8192, 1, 0x90");
	return x + 2;
}
int big_b(int x) { return hidden(x) - 1; }
EOC
$CC -O1 -fPIC -shared -o "$tmp/libbig.full" "$tmp/big.c" || fail "cannot build big.c"
strip -p --strip-all -o "$tmp/libbig.so" "$tmp/libbig.full" || bail strip
build funcs.c prog
at() { symoff "$tmp/libbig.full" "$@"; }
"$MKSAMPLE" "$(sfile "$tmp/prog" "$tmp/libbig.so")" --mtime-of "$tmp/libbig.so" \
	"$(at big_a 1)=7" "$(at hidden 4000)=5" "$(at hidden 6000)=3" || fail mksample
"$OPANNOTATE" --session-dir="$SD" -a >"$tmp/a" 2>"$tmp/a.err" ||
	{ cat "$tmp/a.err"; fail "opannotate -a failed"; }
cat "$tmp/a"
check_grep "$tmp/a" '<big_a->big_b>: /\* big_a->big_b total: +15 ' "the range and its total"
check_grep "$tmp/a" '^ +:	\.\.\.$' "code far from the samples: a '...' line"
n=$(grep -c '^ *[0-9]* *[0-9.]* *: *[0-9a-f]*:	' "$tmp/a")
[ "$n" -lt 400 ] || fail "$n instructions shown of an 8 KB range"
test_ok "$n instructions shown of an 8 KB range"
check_eq "$(awk '$1 ~ /^[0-9]+$/ && $3 ~ /^:/ { s += $1 } END { print s + 0 }' "$tmp/a")" "15" \
	"the shown instructions' counts add up to the total"
test_done
