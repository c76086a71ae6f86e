#!/bin/sh
# opcontrol --keep-binaries: the daemon copies each sampled binary into
# the session by build-id (session/binaries/HEX), as perf's build-id
# cache does. A -g program and its library are sampled; then the program
# is rebuilt differently and the library removed: opreport -l and
# opannotate -s -a give the reports made before, from the copies, and so
# do the reports of an archive made after the change (oparchive takes
# the copies with the session). operf --keep-binaries keeps them too.
# Needs root and perf_event_open.
. "$SRCDIR/tests/lib.sh"
: "${abs_top_builddir:?}" "${OPANNOTATE:?}" "${OPARCHIVE:?}"
live_session
unset DEBUGINFOD_URLS
export OPROFILE_DEBUG_DIRS="$tmp/nodebug"

# Build-ids of this run only: the daemon samples system-wide, and another
# test running beside this one builds the same sources (the same build-ids)
# whose copies would then be the ones kept. (20 bytes, as a sha1 build-id.)
uniq=$(printf '%08x%08x' "$$" "$(date +%s)")
$CC -O1 -g -fPIC -shared -o "$tmp/libannot.so" "$SRCDIR/tests/annot_lib.c" \
	-Wl,--build-id=0x${uniq}000000000000000000000001 || fail "cannot build annot_lib.c"
$CC -O1 -g -o "$tmp/annot_main" "$SRCDIR/tests/annot_main.c" -L"$tmp" -lannot \
	-Wl,-rpath,"$tmp" -Wl,--build-id=0x${uniq}000000000000000000000002 || fail "cannot build annot_main.c"
id() { readelf -n "$1" | awk '/Build ID:/ {print $3}'; }
main_id=$(id "$tmp/annot_main")
lib_id=$(id "$tmp/libannot.so")
[ -n "$main_id" ] && [ -n "$lib_id" ] || bail "the compiler wrote no build-id"

ctl --keep-binaries --no-keep-binaries >"$tmp/both" 2>&1
check_eq "$?" "2" "--keep-binaries with --no-keep-binaries: a usage error"
ctl_start --keep-binaries --event=CPU_CLOCK:200000 --separate=kernel
"$tmp/annot_main" 0.6 0.4 || fail "the workload failed"
ctl --dump || fail "opcontrol --dump failed"
ctl --shutdown || fail "opcontrol --shutdown failed"

cur=$SD/samples/current
check_grep "$cur/session.conf" '^keep_binaries=yes$' "session.conf: keep_binaries yes"
for b in "annot_main:$main_id" "libannot.so:$lib_id"; do
	f=$tmp/${b%%:*}
	k=$cur/session/binaries/${b#*:}
	cmp -s "$f" "$k" || fail "no copy of $f as $k"
	check_eq "$(stat -c %Y "$k")" "$(stat -c %Y "$f")" "the copy of ${b%%:*} keeps its mtime"
done
check_grep "$cur/session/build-ids" ' /.*libc\.so[.0-9]*$' "libc's build-id recorded too"
test -n "$(ls "$cur/session/binaries" | grep -v -e "$main_id" -e "$lib_id")" ||
	fail "no copy of the other sampled binaries (libc, ld.so)"
test_ok "the other sampled binaries copied too"

spec="image:$tmp/annot_main"
reports() {  # reports OUT [SPEC...]
	local out=$1
	shift
	run_report "$out" -l "$@" "$spec"
	"$OPANNOTATE" --session-dir="$SD" -s "$@" "$spec" >"$out.s" 2>"$out.s.err" ||
		{ cat "$out.s.err"; fail "opannotate -s failed"; }
	"$OPANNOTATE" --session-dir="$SD" -a "$@" "$spec" >"$out.a" 2>"$out.a.err" ||
		{ cat "$out.a.err"; fail "opannotate -a failed"; }
}
reports "$tmp/before"
head -5 "$tmp/before"
check_grep "$tmp/before" ' annot_main_hot$' "before: the program's function"
check_grep "$tmp/before" ' annot_lib_hot$' "before: the library's function"

# the program rebuilt differently, the library gone
$CC -O0 -g -o "$tmp/annot_main" "$SRCDIR/tests/annot_main.c" -L"$tmp" -lannot \
	-Wl,-rpath,"$tmp" -Wl,--build-id=0x0badbeef03 || fail rebuild
rm -f "$tmp/libannot.so"
reports "$tmp/after"
check_eq "$(cat "$tmp/after")" "$(cat "$tmp/before")" "rebuilt and removed: opreport -l from the copies"
check_eq "$(cat "$tmp/after.s")" "$(cat "$tmp/before.s")" "rebuilt and removed: opannotate -s from the copies"
check_eq "$(cat "$tmp/after.a")" "$(cat "$tmp/before.a")" "rebuilt and removed: opannotate -a from the copies"

# an archive made now takes the copies with the session
"$OPARCHIVE" --session-dir="$SD" -o "$tmp/arch" "$spec" >"$tmp/arch.out" 2>&1 ||
	{ cat "$tmp/arch.out"; fail "oparchive -o failed"; }
check_grep "$tmp/arch.out" "binary '$tmp/libannot.so' not archived" "oparchive: the removed library named"
test -f "$tmp/arch/var/lib/oprofile/samples/current/session/binaries/$lib_id" ||
	fail "the library's copy not archived"
test_ok "oparchive: the session's copies archived"
rm -f "$tmp/annot_main"
run_report "$tmp/arch.l" -l archive:"$tmp/arch" "$spec"
check_eq "$(cat "$tmp/arch.l")" "$(cat "$tmp/before")" "opreport archive:DIR -l from the archived copies"
"$OPANNOTATE" --session-dir="$SD" -s archive:"$tmp/arch" "$spec" >"$tmp/arch.s" 2>"$tmp/arch.s.err" ||
	{ cat "$tmp/arch.s.err"; fail "opannotate archive:DIR -s failed"; }
check_eq "$(cat "$tmp/arch.s")" "$(cat "$tmp/before.s")" "opannotate archive:DIR -s from the archived copies"

# operf --keep-binaries: the same copies, in operf's own session
OPERF=${abs_top_builddir}/utils/operf
$CC -O1 -g -fno-inline -o "$tmp/again" "$SRCDIR/tests/funcs.c" \
	-Wl,--build-id=0x${uniq}000000000000000000000003 || fail "cannot build funcs.c"
"$OPERF" --keep-binaries -d "$tmp/operf" "$tmp/again" 100000000 >"$tmp/operf.out" 2>&1 ||
	{ cat "$tmp/operf.out"; fail "operf --keep-binaries failed"; }
k=$tmp/operf/samples/current/session/binaries/${uniq}000000000000000000000003
cmp -s "$tmp/again" "$k" || fail "operf --keep-binaries: no copy of the program as $k"
"$OPREPORT" --session-dir="$tmp/operf" -l "image:$tmp/again" >"$tmp/op.before" 2>&1 ||
	{ cat "$tmp/op.before"; fail "opreport on operf's session"; }
rm "$tmp/again"
"$OPREPORT" --session-dir="$tmp/operf" -l "image:$tmp/again" >"$tmp/op.after" 2>"$tmp/op.after.err" ||
	{ cat "$tmp/op.after.err"; fail "opreport after the program was removed"; }
check_grep "$tmp/op.after" ' alpha$' "operf --keep-binaries: the removed program's symbols from its copy"
check_eq "$(cat "$tmp/op.after")" "$(cat "$tmp/op.before")" "operf --keep-binaries: the same report after the removal"
test_done
