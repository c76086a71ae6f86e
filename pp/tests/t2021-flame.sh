#!/bin/sh
# opreport --flame in headless Chromium (pp/tests/flame_cdp.py drives it
# over the DevTools protocol): the page renders, a real mouse click on a
# frame zooms into it (the frame then spans the width), the tooltip names
# it, reset zooms out, search highlights the matching frames and shows
# their share; a "{ } { }" page colours what grew red and what shrank blue.
# Screenshots are kept in the build dir: pp/tests/flame.png and
# pp/tests/flame-diff.png. Skipped (77) when Chromium cannot start.
. "$SRCDIR/tests/lib.sh"
: "${MKSTACKS:?}"

command -v python3 >/dev/null || skip "no python3"
command -v chromium >/dev/null || skip "no chromium (Debian package chromium)"
build funcs.c prog
prog=$tmp/prog
o() { symoff "$@"; }
P=$(mangle "$prog")

# session NAME A B G: alpha A samples (from main), beta B, gamma_fn G
session() {
	"$MKSAMPLE" "$(sfile "$prog" "$prog" "" "$1")" --mtime-of "$prog" \
		"$(o $prog alpha 4)=$2" "$(o $prog beta 2)=$3" \
		"$(o $prog gamma_fn)=$4" || fail mksample
	"$MKSTACKS" "$SD/samples/$1" CPU_CLOCK.100000.0 \
		"$2 4242 0 $P $P+$(o $prog alpha 4) $P+$(o $prog main 9)" \
		"$3 4242 0 $P $P+$(o $prog beta 2) $P+$(o $prog main 13)" \
		"$4 4242 0 $P $P+$(o $prog gamma_fn) $P+$(o $prog main 17)" ||
		fail mkstacks
}
session current 600 300 100
session old 200 300 500

# drive PAGE SHOT ARGS...: flame_cdp.py's checks as this test's
drive() {
	python3 "$SRCDIR/tests/flame_cdp.py" "$@" >"$tmp/cdp" 2>&1
	rc=$?
	[ "$rc" -eq 77 ] && { cat "$tmp/cdp"; skip "chromium cannot start"; }
	while IFS= read -r line; do
		case $line in
		"ok "*) test_ok "${line#ok }" ;;
		"not ok "*) test_not_ok "${line#not ok }" ;;
		*) echo "# $line" ;;
		esac
	done <"$tmp/cdp"
	[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || fail "flame_cdp.py exited with $rc"
}

shots=${abs_top_builddir:?}/pp/tests
mkdir -p "$shots"
run_report "$tmp/o1" --flame="$tmp/flame.html"
drive "$tmp/flame.html" "$shots/flame.png" --click beta --search 'alpha|gamma' \
	--matches 2 --share '700 samples (70.00%)'

# a flat session (its sample files alone, no stack table): the same page,
# two deep (process, function), works the same
mkdir -p "$tmp/flat/samples/current"
cp -r "$SD/samples/current/{root}" "$tmp/flat/samples/current/"
"$OPREPORT" --session-dir="$tmp/flat" --flame="$tmp/flat.html" >"$tmp/o3" 2>&1 ||
	{ cat "$tmp/o3"; fail "--flame on a flat session"; }
drive "$tmp/flat.html" "$shots/flame-flat.png" --click beta --search 'alpha|gamma' \
	--matches 2 --share '700 samples (70.00%)'

# alpha grew from 20% to 60%, gamma_fn shrank from 50% to 10%
run_report "$tmp/o2" --flame="$tmp/diff.html" "{" session:old "}" "{" session:current "}"
check_grep "$tmp/diff.html" '"diff":true,"baseTotal":1000' "the differential page has the base total"
drive "$tmp/diff.html" "$shots/flame-diff.png" --red alpha --blue gamma_fn
test_done
