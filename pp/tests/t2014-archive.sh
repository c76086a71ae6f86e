#!/bin/sh
# oparchive: a session (a -g program and a stripped library whose debug
# file is found by build-id) archived with -o DIR; then the program is
# rebuilt differently and the library and its debug file removed:
# opreport archive:DIR -l -g and opannotate archive:DIR -s -a give the
# reports made before, with or without --session-dir (the session is in
# OProfile 1.x's place, DIR/var/lib/oprofile/samples/current, and the
# manifest DIR/oparchive.manifest says what the archive holds), and so
# does an archive in the layout before (the session at its own path),
# with --session-dir. OProfile 1.x's opreport reads the archive too (run
# when OPROFILE1_OPREPORT names it). --list-files, -x, the session's
# metadata, bad use.
. "$SRCDIR/tests/lib.sh"
: "${OPARCHIVE:?}" "${OPANNOTATE:?}" "${OPGPROF:?}"
unset DEBUGINFOD_URLS
export OPROFILE_DEBUG_DIRS="$tmp/dbg:/usr/lib/debug"

build funcs.c prog
prog=$tmp/prog
$CC -O1 -g -fno-inline -fPIC -shared -o "$tmp/libt.full" "$SRCDIR/tests/lib.c" ||
	fail "cannot build lib.c"
lib=$tmp/libt.so
strip -p --strip-all -o "$lib" "$tmp/libt.full" || bail strip
id=$(readelf -n "$lib" | awk '/Build ID:/ {print $3}')
[ -n "$id" ] || bail "the compiler wrote no build-id"
dbg=$tmp/dbg/.build-id/${id%"${id#??}"}/${id#??}.debug
mkdir -p "${dbg%/*}"
objcopy --only-keep-debug "$tmp/libt.full" "$dbg" || bail objcopy

"$MKSAMPLE" "$(sfile "$prog" "$prog")" --mtime-of "$prog" \
	"$(symoff "$prog" alpha)=70" "$(symoff "$prog" beta 4)=30" || fail mksample
"$MKSAMPLE" "$(sfile "$prog" "$lib")" --mtime-of "$lib" \
	"$(symoff "$tmp/libt.full" lib_one 2)=20" "$(symoff "$tmp/libt.full" lib_two 1)=10" ||
	fail mksample
mkdir -p "$SD/samples/current/session"
echo "0 kernel 0 0" >"$SD/samples/current/session/marker"

# reports before: opreport -l -g and opannotate -s -a
reports() {  # reports OUT [SPEC...]
	local out=$1
	shift
	run_report "$out" -l -g "$@"
	"$OPANNOTATE" --session-dir="$SD" -s "$@" >"$out.s" 2>"$out.s.err" ||
		{ cat "$out.s.err"; fail "opannotate -s $* failed"; }
	"$OPANNOTATE" --session-dir="$SD" -a "$@" >"$out.a" 2>"$out.a.err" ||
		{ cat "$out.a.err"; fail "opannotate -a $* failed"; }
}
reports "$tmp/before"
cat "$tmp/before"
check_grep "$tmp/before" '^20 .* lib_one$' "before: the stripped library's names from its debug file"

"$OPARCHIVE" --session-dir="$SD" --list-files >"$tmp/list" 2>"$tmp/list.err" ||
	{ cat "$tmp/list.err"; fail "oparchive --list-files failed"; }
cat "$tmp/list"
for f in "$prog" "$lib" "$dbg" "$SD/samples/current/session/marker"; do
	check_grep "$tmp/list" "^$f\$" "--list-files names $f"
done
check_eq "$(grep -c '{root}' "$tmp/list")" "2" "--list-files names both sample files"
[ ! -e "$tmp/arch" ] || fail "--list-files created the archive"

"$OPARCHIVE" --session-dir="$SD" -o "$tmp/arch" >"$tmp/arch.out" 2>&1 ||
	{ cat "$tmp/arch.out"; fail "oparchive -o failed"; }
check_eq "$(cat "$tmp/arch.out")" "" "oparchive -o: silent"
for f in "$prog" "$lib" "/usr/lib/debug/.build-id/${id%"${id#??}"}/${id#??}.debug" \
	"/var/lib/oprofile/samples/current/session/marker"; do
	test -f "$tmp/arch$f" || fail "not archived: $f"
done
test_ok "binaries at their paths, the debug file at its build-id path, the metadata"
check_eq "$(stat -c %Y "$tmp/arch$prog")" "$(stat -c %Y "$prog")" "the binaries keep their mtime"

# OProfile 1.x's layout: the samples where its opreport archive:DIR looks
osf=$(sfile "$prog" "$prog")
osf=$tmp/arch/var/lib/oprofile/samples/current/${osf#"$SD/samples/current/"}
test -f "$osf" || { find "$tmp/arch" -type f >&2; fail "no sample file at $osf"; }
test_ok "the sample file under DIR/var/lib/oprofile/samples/current/"
[ ! -e "$tmp/arch$SD" ] || fail "the session archived at its own path too"
test_ok "nothing at the session's own path"
m=$tmp/arch/oparchive.manifest
test -f "$m" || fail "no manifest"
cat "$m"
check_grep "$m" '^format=1$' "manifest: its format"
check_grep "$m" '^tool=oparchive \(oprofile-ng [^ ]*\)$' "manifest: the tool and its version"
check_grep "$m" '^created=[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$' "manifest: the time"
check_grep "$m" "^session_dir=$SD\$" "manifest: the session dir"
check_grep "$m" '^samples=/var/lib/oprofile/samples$' "manifest: where the samples are"
check_grep "$m" "^session=current $SD/samples/current\$" "manifest: the session and where from"

# the binaries change or go
$CC -O0 -g -fno-inline -DREBUILT -o "$prog" "$SRCDIR/tests/funcs.c" || fail rebuild
touch -d '2001-01-01' "$prog"
rm -rf "$lib" "$tmp/libt.full" "$tmp/dbg"
run_report "$tmp/changed" -l
check_no_grep "$tmp/changed" ' alpha$' "rebuilt: the live session no longer names alpha"

reports "$tmp/after" archive:"$tmp/arch"
check_eq "$(cat "$tmp/after")" "$(cat "$tmp/before")" "opreport archive:DIR -l -g: the report made before"
check_eq "$(cat "$tmp/after.s")" "$(cat "$tmp/before.s")" "opannotate archive:DIR -s: the annotation made before"
check_eq "$(cat "$tmp/after.a")" "$(cat "$tmp/before.a")" "opannotate archive:DIR -a: the disassembly made before"

# no --session-dir: the archive's own session, as OProfile's opreport reads it
"$OPREPORT" -l -g archive:"$tmp/arch" >"$tmp/nosd" 2>"$tmp/nosd.err" ||
	{ cat "$tmp/nosd.err"; fail "opreport archive:DIR without --session-dir failed"; }
check_eq "$(cat "$tmp/nosd")" "$(cat "$tmp/before")" "opreport archive:DIR -l -g, no --session-dir: the report made before"
check_eq "$(cat "$tmp/nosd.err")" "" "opreport archive:DIR: nothing on stderr"
"$OPANNOTATE" -s archive:"$tmp/arch" >"$tmp/nosd.s" 2>"$tmp/nosd.s.err" ||
	{ cat "$tmp/nosd.s.err"; fail "opannotate archive:DIR without --session-dir failed"; }
check_eq "$(cat "$tmp/nosd.s")" "$(cat "$tmp/before.s")" "opannotate archive:DIR -s, no --session-dir: the annotation made before"
(cd "$tmp" && "$OPGPROF" archive:"$tmp/arch" "$prog" >"$tmp/g.out" 2>&1) ||
	{ cat "$tmp/g.out"; fail "opgprof archive:DIR without --session-dir failed"; }
test -s "$tmp/gmon.out" || fail "opgprof archive:DIR wrote no gmon.out"
test_ok "opgprof archive:DIR, no --session-dir: gmon.out written"

# OProfile 1.x's opreport on the archive, when one is named (it is not
# packaged any more: OPROFILE1_OPREPORT=/path/to/its/pp/opreport)
if [ -x "${OPROFILE1_OPREPORT:-}" ]; then
	"$OPREPORT" -l -x archive:"$tmp/arch" "image:*/${prog##*/}" >"$tmp/ours" 2>/dev/null ||
		fail "opreport -l archive:DIR image:PROG failed"
	"$OPROFILE1_OPREPORT" -l -x archive:"$tmp/arch" "image:*/${prog##*/}" >"$tmp/o1" 2>"$tmp/o1.err" ||
		{ cat "$tmp/o1.err"; fail "OProfile 1.x's opreport failed on the archive"; }
	cat "$tmp/o1"
	rows() { awk '/^[0-9]+ / { print $1, $NF }' "$1"; }
	[ -n "$(rows "$tmp/o1")" ] || fail "OProfile 1.x's opreport: no rows"
	check_eq "$(rows "$tmp/o1")" "$(rows "$tmp/ours")" "OProfile 1.x's opreport archive:DIR: our symbols and counts"
else
	test_note "OPROFILE1_OPREPORT not set: OProfile 1.x's opreport not run on the archive"
fi

# an archive in the layout before: the session at its own path, no manifest
cp -a "$tmp/arch" "$tmp/old"
mkdir -p "$tmp/old$SD"
mv "$tmp/old/var/lib/oprofile/samples" "$tmp/old$SD/samples"
rm "$tmp/old/oparchive.manifest"
reports "$tmp/old.r" archive:"$tmp/old"
check_eq "$(cat "$tmp/old.r")" "$(cat "$tmp/before")" "the layout before, with --session-dir: the report made before"

# -x: no dependent images
"$OPARCHIVE" --session-dir="$SD" -x --list-files >"$tmp/x" 2>"$tmp/x.err"
check_eq "$(grep -c '{root}' "$tmp/x")" "1" "-x: only the application's own sample file"

# bad use
"$OPARCHIVE" --session-dir="$SD" >/dev/null 2>"$tmp/u.err"
check_eq "$?" "2" "no -o and no --list-files: a usage error"
"$OPARCHIVE" --session-dir="$SD" -o "$tmp/a2" archive:"$tmp/arch" >/dev/null 2>&1
check_eq "$?" "2" "archive: of an archive: a usage error"
rm -f "$prog"
"$OPARCHIVE" --session-dir="$SD" -o "$tmp/a3" >/dev/null 2>"$tmp/gone.err"
check_grep "$tmp/gone.err" "binary '$prog' not archived" "a missing binary is named"
test_done
