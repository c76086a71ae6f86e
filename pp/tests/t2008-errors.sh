#!/bin/sh
# When nothing matches, the message names the tag that removed everything
# and what was there instead; bad specifications and sessions are refused;
# corrupt sample files and unparsable names are named, skipped and said in
# the report - never a crash.
. "$SRCDIR/tests/lib.sh"

build funcs.c prog
prog=$tmp/prog
"$MKSAMPLE" "$(sfile "$prog" "$prog")" --mtime-of "$prog" \
	"$(symoff "$prog" alpha)=10" || fail mksample
"$MKSAMPLE" "$(sfile /usr/bin/other /usr/bin/other)" 0x40=5 || fail mksample

# expect_fail CODE REGEX WHAT ARGS...: opreport exits CODE, stderr matches
expect_fail() {
	local code=$1 re=$2 what=$3
	shift 3
	"$OPREPORT" --session-dir="$SD" "$@" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	cat "$tmp/e"
	check_eq "$rc" "$code" "$what: exit status"
	check_grep "$tmp/e" "$re" "$what: the message"
}

expect_fail 1 "no sample files matched: 2 files in session 'current', 0 left after image:/bin/foo \(images present: /tmp/[^,]*/prog, /usr/bin/other\)" \
	"image:/bin/foo names the tag and the images present" image:/bin/foo
expect_fail 1 "0 left after event:NOPE \(events present: CPU_CLOCK\)" \
	"event:NOPE names the events present" event:NOPE
expect_fail 1 "0 left after tid:5 \(tids present: all \(not separated\)\)" \
	"tid:5 on an unseparated session says so" tid:5
expect_fail 1 "0 left after count:7 \(counts present: 100000\)" \
	"count:7 after a matching image: the count is named" image:"$prog" count:7
expect_fail 1 "session 'nope' not found in .*/samples \(sessions present: current\)" \
	"unknown session names the sessions present" session:nope
expect_fail 2 "unknown tag in 'evnet:X'" "misspelt tag" -l evnet:X
expect_fail 2 "tag 'image:' given twice" "repeated tag" image:a image:b
expect_fail 2 "'count:abc': 'abc' is not a number" "non-numeric count" count:abc
mkdir -p "$tmp/empty/samples/current"
expect_fail 1 "no sample files in session 'current'" "empty session" --session-dir="$tmp/empty"

# corrupt and unparsable files: named, skipped, said in the report
bad=$(sfile /usr/bin/bad /usr/bin/bad)
"$MKSAMPLE" "$bad" 0x10=3 || fail mksample
printf '\377\377\377\377' | dd of="$bad" bs=1 seek=76 conv=notrunc 2>/dev/null
short=$(sfile /usr/bin/short /usr/bin/short)
mkdir -p "$(dirname "$short")"
printf 'DAE\n' >"$short"
magic=$(sfile /usr/bin/magic /usr/bin/magic)
"$MKSAMPLE" "$magic" 0x10=3 || fail mksample
printf 'XXXX' | dd of="$magic" bs=1 seek=0 conv=notrunc 2>/dev/null
junk=$SD/samples/current/$(mangle "$prog")/{dep}/$(mangle "$prog")/garbage
printf 'x' >"$junk"
printf 'x' >"$SD/samples/current/session.conf"

run_report "$tmp/r" -l
cat "$tmp/r" "$tmp/r.err"
for f in "$bad" "$short" "$magic"; do
	check_grep "$tmp/r.err" "warning: skipped bad sample file $f" "stderr names $(basename "$(dirname "$(dirname "$f")")")'s bad file"
	check_grep "$tmp/r" "^Note: skipped bad sample file $f" "the report says $(basename "$(dirname "$(dirname "$f")")")'s file was skipped"
done
check_grep "$tmp/r.err" "skipping '$junk': not a sample file name" "unparsable name: named"
check_no_grep "$tmp/r.err" "session.conf" "top-level metadata (session.conf) is not a sample file"
check_grep "$tmp/r" ' alpha$' "the good files are still reported"
check_eq "$(awk '$NF == "alpha" {print $1, $2}' "$tmp/r")" "10 66.6667" "alpha's share of what could be read (10 of 15)"

# an option inside { } would apply to both sides (the last one winning):
# "{ --session-dir=old } { --session-dir=new }" compared new with itself
expect_fail 2 "'--session-dir=$tmp/other' is inside \{ \}" "an option inside { } is refused" \
	"{" --session-dir="$tmp/other" "}" "{" "}"
expect_fail 2 "'-l' is inside \{ \}" "a short option inside { } too" "{" "}" "{" -l "}"

rm -f "$(sfile "$prog" "$prog")" "$(sfile /usr/bin/other /usr/bin/other)"
expect_fail 1 "no sample file could be read \(3 skipped\)" "only bad files: exit 1" -l
test_done
