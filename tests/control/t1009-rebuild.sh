#!/bin/sh
# A binary rebuilt during a session (a new file moved over the old path, as
# a linker or install(1) does): a sample file holds the samples of one
# build, the one whose st_mtime is in the header (doc/formats.md 2.1), so
# opreport can symbolise them against the right binary. The builds here
# are different programs with different hot functions, so samples of the
# wrong build would fall outside the function.
#  A. the daemon restarted after the rebuild (no reset): the new build's
#     samples replace the old ones instead of joining them;
#  B. rebuilt while the daemon runs: the new build has a file of its own,
#     PATH/{build:ID} (doc/formats.md 3.), the old one keeps its file;
#  C. the old build still running while the new one runs: each build's
#     samples go on into its own file, none dropped (t1038 reports them).
. "${abs_top_srcdir:?}/tests/control/lib.sh"

P=$T/prog
C=$S/samples/current
F=$C/{root}$P/{dep}/{root}$P/CPU_CLOCK.1000000.0.all.all.all
# build SRC MTIME: "rebuild" $P as a copy of SRC with st_mtime MTIME,
# moved into place (a new inode, as ld and install(1) make)
build() {
	cp "$1" "$P.new" && touch -d "@$2" "$P.new" && mv -f "$P.new" "$P" ||
		fail "cannot build $P"
}
HOT=$B/tests/workloads/hot_main
TWO=$B/tests/control/twothreads

step "A: rebuilt between two daemons, no reset"
build "$HOT" 1600000000
ctl --separate=none --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
"$P" 0.5 || fail "build 1 failed"
ctl --shutdown || fail "--shutdown failed"
check_header "$F" 0 "$P"
build "$TWO" 1700000000
ctl --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
"$P" 0.5 >/dev/null || fail "build 2 failed"
ctl --dump || fail "--dump failed"
check_header "$F" 0 "$P"
in_range "$F" "$P" thread_hot 90
"$OPREPORT" --session-dir="$S" -l image:"$P" >"$T/rep" 2>&1 || { cat "$T/rep"; fail "opreport failed"; }
head -5 "$T/rep"
sed -n '/symbol name$/{n;p;}' "$T/rep" | grep -q ' thread_hot$' ||
	fail "opreport's top symbol of the rebuilt $P is not thread_hot"

hot_id=$(build_id_of "$HOT")
[ -n "$hot_id" ] || fail "$HOT has no build-id"
FT=$C/{root}$P/{build:$hot_id}/{dep}/{root}$P/{build:$hot_id}/CPU_CLOCK.1000000.0.all.all.all
# mtime_is FILE MTIME: the header's mtime
mtime_is() {
	[ "$(hdr "$1" 40 u8)" = "$2" ] ||
		fail "header mtime $(hdr "$1" 40 u8) in ${1#"$S/samples/"}, want $2"
}

step "B: rebuilt while the daemon runs"
build "$HOT" 1800000000
"$P" 0.5 || fail "build 3 failed"
ctl --dump || fail "--dump failed"
check_header "$FT" 0 "$P"
in_range "$FT" "$P" hot_main_loop 90
mtime_is "$F" 1700000000
in_range "$F" "$TWO" thread_hot 90
before=$("$SFRANGE" "$F") before_t=$("$SFRANGE" "$FT")

step "C: the old build still runs while the new one runs"
build "$TWO" 1900000000
"$P" 1.2 >/dev/null & old=$!
sleep 0.5
build "$HOT" 2000000000
"$P" 0.5 || fail "build 5 failed"
wait $old || fail "build 4 failed"
ctl --dump || fail "--dump failed"
mtime_is "$F" 1700000000
mtime_is "$FT" 1800000000
in_range "$F" "$TWO" thread_hot 90
in_range "$FT" "$HOT" hot_main_loop 90
after=$("$SFRANGE" "$F") after_t=$("$SFRANGE" "$FT")
echo "the old build's file: $before -> $after samples; the new one's: $before_t -> $after_t"
[ $((after - before)) -gt 1000 ] && [ $((after_t - before_t)) -gt 300 ] ||
	fail "the builds' samples did not go on into their own files"
dropped=$(counter "$C" sample_dropped_sfile_error)
check_eq "$dropped" 0 "no sample dropped for a sample file error"
"$SFCHECK" "$C" || fail "sample files fail the structural check"
stats_balance "$C"
ctl --shutdown || fail "--shutdown failed"
test_done
