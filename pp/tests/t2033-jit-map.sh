#!/bin/sh
# JIT functions named from the session's copy of a perf map
# (session/jit/TGID.map, doc/formats.md 1.6), without --separate=thread:
# an anonymous region 300.0x7f0000000000.0x7f0000010000 of prog with
# samples at three offsets; the map names them (a later line for the same
# start wins, an entry outside the region names nothing, escape bytes are
# printed escaped), --details gives their addresses. The merged
# region 0.0x0.0x0 is never named, even with a jit/0.map; thread-separated
# files of the region are named alike. A FIFO, a
# directory or a 2 GiB sparse file at the map: a note, no hang, the
# region shown without symbols.
. "$SRCDIR/tests/lib.sh"

build funcs.c prog
prog=$tmp/prog
an="{anon:anon}/300.0x7f0000000000.0x7f0000010000"
dir="$SD/samples/current/$(mangle "$prog")/{dep}"
"$MKSAMPLE" "$dir/$an/CPU_CLOCK.100000.0.all.all.all" \
	--anon-start 0x7f0000000000 0x10=50 0x104=30 0x900=20 0x3000=7 || fail mksample
"$MKSAMPLE" "$dir/{anon:anon}/0.0x0.0x0/CPU_CLOCK.100000.0.all.all.all" \
	0x10=4 || fail mksample
mkdir -p "$SD/samples/current/session/jit" || fail "cannot make session/jit"
map=$SD/samples/current/session/jit/300.map
printf '%s\n' "7f0000000000 80 JS:*first /srv/a.js:1:1" \
	"7f0000000100 40 py::older" "7f0000000100 40 py::second:/srv/b.py" \
	"7f0000000900 10 esc$(printf '\033')]0;pwned$(printf '\007')name" \
	"7f0000020000 10 OUTSIDE" >"$map"
printf '0 100000 MERGED\n' >"$SD/samples/current/session/jit/0.map"

run_report "$tmp/l" -l
cat "$tmp/l"
check_grep "$tmp/l" '^50 .*anon \(300:prog\) +prog +JS:\*first /srv/a\.js:1:1$' \
	"offset 0x10 in the map's first function"
check_grep "$tmp/l" '^30 .* py::second:/srv/b\.py$' "the later line for a start wins"
check_grep "$tmp/l" '^20 .* esc\\x1b\]0;pwned\\x07name$' "a name with escape bytes printed escaped"
check_grep "$tmp/l" '^7 .*anon \(300:prog\) .*\(no symbols\)$' "an offset no entry covers: no symbols"
check_grep "$tmp/l" '^4 .*anon \(regions past the bound, merged\)' "the merged region"
check_no_grep "$tmp/l" 'OUTSIDE\|MERGED\|py::older' \
	"no entry outside the region, none for the merged region, no overridden line"
check_no_grep "$tmp/l" "$(printf '\033')" "no raw escape byte"
run_report "$tmp/d" -l --details
check_grep "$tmp/d" '^ +00007f0000000010 +50 ' "--details: the sample's address is the region's start + offset"

# --separate=thread: the same region's files per thread, named alike
thr="$SD/samples/thr/$(mangle "$prog")/{dep}/$an"
"$MKSAMPLE" "$thr/CPU_CLOCK.100000.0.300.300.all" --anon-start 0x7f0000000000 \
	0x10=11 || fail mksample
"$MKSAMPLE" "$thr/CPU_CLOCK.100000.0.300.301.all" --anon-start 0x7f0000000000 \
	0x104=12 || fail mksample
mkdir -p "$SD/samples/thr/session/jit" && cp "$map" "$SD/samples/thr/session/jit/" ||
	fail "cannot copy the map"
run_report "$tmp/thr" -l session:thr
check_grep "$tmp/thr" '^11 +100\.0000 +0 .* JS:\*first /srv/a\.js:1:1$' "--separate=thread: thread 300's sample named"
check_grep "$tmp/thr" '^0 +0\.0000 +12 .* py::second:/srv/b\.py$' "--separate=thread: thread 301's sample named"

for plant in fifo dir huge; do
	rm -f "$map"
	case $plant in
	fifo) mkfifo "$map" ;;
	dir) mkdir "$map" ;;
	huge) truncate -s 2G "$map" ;;
	esac
	timeout 20 "$OPREPORT" --session-dir="$SD" -l >"$tmp/$plant" 2>&1 ||
		{ cat "$tmp/$plant"; fail "opreport -l with a $plant at session/jit/300.map failed"; }
	check_grep "$tmp/$plant" "no JIT symbols for 'anon \\(300:prog\\)'.*300\\.map" \
		"a $plant at the session's map: a note naming it"
	check_grep "$tmp/$plant" '^107 .*anon \(300:prog\) .*\(no symbols\)$' \
		"a $plant at the session's map: the region without symbols"
	rm -rf "$map"
done
test_done
