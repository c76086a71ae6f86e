#!/bin/sh
# oparchive keeps a session's whole stacks: stacks/ is archived, and so
# is the binary of every image a stack frame is in, also a library that
# holds no sample of its own (it only calls). After the library is
# removed, opreport archive:DIR --folded and --stacks give the reports
# made before. A stack table naming an image that is no image name is
# said, and the rest archived.
. "$SRCDIR/tests/lib.sh"
: "${MKSTACKS:?}" "${OPARCHIVE:?}"

build funcs.c prog
prog=$tmp/prog
$CC -O1 -g -fPIC -shared -o "$tmp/libt.so" "$SRCDIR/tests/lib.c" ||
	fail "cannot build lib.c"
lib=$tmp/libt.so
o() { symoff "$@"; }
P=$(mangle "$prog")
L=$(mangle "$lib")

# 100 samples, all in prog's alpha; 40 of them called through the
# library's lib_one, which has no sample file of its own
"$MKSAMPLE" "$(sfile "$prog" "$prog")" --mtime-of "$prog" \
	"$(o $prog alpha 4)=100" || fail mksample
"$MKSTACKS" "$SD/samples/current" CPU_CLOCK.100000.0 \
	"60 4242 0 $P $P+$(o $prog alpha 4) $P+$(o $prog main 9)" \
	"40 4242 0 $P $P+$(o $prog alpha 4) $L+$(o $lib lib_one 4) $P+$(o $prog main 13)" ||
	fail mkstacks

run_report "$tmp/before" --folded
run_report "$tmp/before.st" --stacks
check_grep "$tmp/before" '^prog;main;lib_one;alpha 40$' "before: the library's frame named"

"$OPARCHIVE" --session-dir="$SD" --list-files >"$tmp/list" 2>"$tmp/list.err" ||
	{ cat "$tmp/list.err"; fail "oparchive --list-files failed"; }
check_grep "$tmp/list" "^$lib\$" "--list-files names the library only a frame is in"
check_grep "$tmp/list" "^$SD/samples/current/stacks/table\$" "--list-files names the stack table"

"$OPARCHIVE" --session-dir="$SD" -o "$tmp/arch" >"$tmp/arch.out" 2>&1 ||
	{ cat "$tmp/arch.out"; fail "oparchive -o failed"; }
check_eq "$(cat "$tmp/arch.out")" "" "oparchive -o: silent"
test -f "$tmp/arch$lib" || fail "the library a frame is in was not archived"
test_ok "the library only a frame is in: archived"
test -f "$tmp/arch/var/lib/oprofile/samples/current/stacks/table" ||
	fail "the stack table was not archived"
test_ok "stacks/ archived with the session"

rm -f "$lib"
run_report "$tmp/after" --folded archive:"$tmp/arch"
check_eq "$(cat "$tmp/after")" "$(cat "$tmp/before")" \
	"opreport archive:DIR --folded: the report made before"
run_report "$tmp/after.st" --stacks archive:"$tmp/arch"
check_eq "$(cat "$tmp/after.st")" "$(cat "$tmp/before.st")" \
	"opreport archive:DIR --stacks: the report made before"

# a stack table image that is no image name: said, the rest archived
"$MKSTACKS" "$SD/samples/current" CPU_CLOCK.100000.0 \
	"5 4242 0 $P $P+$(o $prog alpha 4) nonsense+16" || fail mkstacks
"$OPARCHIVE" --session-dir="$SD" -o "$tmp/arch2" >"$tmp/arch2.out" 2>&1 ||
	{ cat "$tmp/arch2.out"; fail "oparchive -o with a bad image name failed"; }
check_grep "$tmp/arch2.out" "image 'nonsense' is no image name" \
	"a stack table image that is no image name is said"
test -f "$tmp/arch2$prog" || fail "the program was not archived beside the bad name"
test_ok "the rest archived beside a bad image name"
test_done
