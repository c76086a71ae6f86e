#!/bin/sh
# oparchive and a binary rebuilt since it was sampled (the session's
# build-ids recorded the sampled build): it is not archived as if it were
# the sampled one. With the session's copy of the sampled build
# (--keep-binaries), that copy is archived at the binary's path (OProfile
# 1.x's opreport reads it there) and the reports of the archive are the
# ones made before the rebuild; else with the sampled build's debug file
# found by build-id, that file is archived and the binary left out; else
# the binary is left out. Each time a warning names the binary and both
# build-ids. Then the archive's manifest as hostile input: a link, a
# FIFO, a huge file, a later format, a samples path with '..' or escape
# bytes are warned about (named, escaped) and the layout is read instead;
# a good manifest that names another samples directory is followed.
# Last, a stripped library's debug file (found by build-id) is archived
# where OProfile 1.x's reports look, LIBDIR/.debug/DEBUGLINK-NAME (and,
# when OPROFILE1_OPREPORT names OProfile 1.x's opreport, read by it).
. "$SRCDIR/tests/lib.sh"
: "${OPARCHIVE:?}"
unset DEBUGINFOD_URLS
export OPROFILE_DEBUG_DIRS="$tmp/dbg"

$CC -O1 -g -fno-inline -o "$tmp/prog.full" "$SRCDIR/tests/funcs.c" \
	-Wl,--build-id=0x5a3b1e0000000000000000000000000000000001 || fail "cannot build funcs.c"
prog=$tmp/prog
cp "$tmp/prog.full" "$prog"
touch -d '2020-02-02' "$prog"
want=5a3b1e0000000000000000000000000000000001
check_eq "$(readelf -n "$prog" | awk '/Build ID:/ {print $3}')" "$want" "the sampled build's build-id"

"$MKSAMPLE" "$(sfile "$prog" "$prog")" --mtime-of "$prog" \
	"$(symoff "$tmp/prog.full" alpha 4)=70" "$(symoff "$tmp/prog.full" beta 4)=30" ||
	fail mksample
meta=$SD/samples/current/session
mkdir -p "$meta/binaries"
echo "$want $(stat -c %Y "$prog") $prog" >"$meta/build-ids"
# the sampled build's loadable segments with file contents, as the daemon records them
readelf -lW "$prog" | awk -v h="$want" '$1 == "LOAD" && $5 !~ /^0x0+$/ {
	printf "%s %s %s %s\n", h, $2, $3, $5 }' >"$meta/segments"
[ -s "$meta/segments" ] || bail "no LOAD segments read"
cp -p "$prog" "$meta/binaries/$want"
# the sampled build's debug file, by build-id
dbg=$tmp/dbg/.build-id/5a/3b1e0000000000000000000000000000000001.debug
mkdir -p "${dbg%/*}"
objcopy --only-keep-debug "$tmp/prog.full" "$dbg" || bail objcopy
mv "$dbg" "$tmp/dbg.keep"

run_report "$tmp/before" -l
cat "$tmp/before"
check_grep "$tmp/before" '^70 .* alpha$' "before: alpha from the sampled build"

# rebuilt: another build-id, other code
$CC -O0 -g -fno-inline -DREBUILT -o "$prog" "$SRCDIR/tests/funcs.c" \
	-Wl,--build-id=0x0bad0bad00000000000000000000000000000002 || fail rebuild
have=0bad0bad00000000000000000000000000000002

step() { test_note "--- $*"; }
step "the session's copy of the sampled build"
"$OPARCHIVE" --session-dir="$SD" -o "$tmp/a1" >"$tmp/a1.out" 2>&1 ||
	{ cat "$tmp/a1.out"; fail "oparchive failed"; }
cat "$tmp/a1.out"
check_grep "$tmp/a1.out" "binary '$prog' is another build than the one sampled \\(build-id $have, the session recorded $want\\): the session's copy" \
	"warned: the binary and both build-ids"
cmp -s "$tmp/a1$prog" "$meta/binaries/$want" || fail "the copy is not at the binary's path"
test_ok "the sampled build archived at the binary's path"
check_eq "$(stat -c %Y "$tmp/a1$prog")" "$(stat -c %Y "$meta/binaries/$want")" "with the sampled build's mtime"
"$OPREPORT" -l archive:"$tmp/a1" >"$tmp/a1.r" 2>"$tmp/a1.r.err" ||
	{ cat "$tmp/a1.r.err"; fail "opreport archive:DIR failed"; }
check_eq "$(cat "$tmp/a1.r")" "$(cat "$tmp/before")" "opreport archive:DIR -l: the report made before the rebuild"
"$OPARCHIVE" --session-dir="$SD" --list-files >"$tmp/l1" 2>"$tmp/l1.err"
check_grep "$tmp/l1" "^$meta/binaries/$want\$" "--list-files names the copy"
check_no_grep "$tmp/l1" "^$prog\$" "--list-files does not name the rebuilt binary"

step "no copy: the sampled build's debug file"
mv "$meta/binaries/$want" "$tmp/kept"
mv "$tmp/dbg.keep" "$dbg"
"$OPARCHIVE" --session-dir="$SD" -o "$tmp/a2" >"$tmp/a2.out" 2>&1 ||
	{ cat "$tmp/a2.out"; fail "oparchive failed"; }
cat "$tmp/a2.out"
check_grep "$tmp/a2.out" "binary '$prog' is another build than the one sampled \\(build-id $have, the session recorded $want\\): not archived; the sampled build's debug file '$dbg' archived instead" \
	"warned: the binary, both build-ids and the debug file"
[ ! -e "$tmp/a2$prog" ] || fail "the rebuilt binary was archived"
test -f "$tmp/a2/usr/lib/debug/.build-id/5a/3b1e0000000000000000000000000000000001.debug" ||
	fail "the debug file is not archived at its build-id path"
test_ok "the rebuilt binary left out, the sampled build's debug file archived"
rm -f "$dbg"
# the default debug directory, read below the archive (as on another machine)
OPROFILE_DEBUG_DIRS=/usr/lib/debug "$OPREPORT" -l archive:"$tmp/a2" >"$tmp/a2.r" 2>"$tmp/a2.r.err" ||
	{ cat "$tmp/a2.r.err"; fail "opreport archive:DIR failed"; }
cat "$tmp/a2.r" "$tmp/a2.r.err"
check_grep "$tmp/a2.r" '^70 .* alpha$' "opreport archive:DIR: alpha from the archived debug file"

step "neither"
"$OPARCHIVE" --session-dir="$SD" -o "$tmp/a3" >"$tmp/a3.out" 2>&1
check_eq "$?" 0 "oparchive succeeds"
cat "$tmp/a3.out"
check_grep "$tmp/a3.out" "binary '$prog' not archived: it is another build than the one sampled \\(build-id $have, the session recorded $want\\)" \
	"warned: the binary and both build-ids"
[ ! -e "$tmp/a3$prog" ] || fail "the rebuilt binary was archived"
test_ok "the rebuilt binary left out"
OPROFILE_DEBUG_DIRS=/usr/lib/debug "$OPREPORT" -l archive:"$tmp/a3" >"$tmp/a3.r" 2>"$tmp/a3.r.err" ||
	{ cat "$tmp/a3.r.err"; fail "opreport archive:DIR failed"; }
check_no_grep "$tmp/a3.r" ' (alpha|beta)$' "opreport archive:DIR: no symbols of another build"

# --- the manifest is input ---------------------------------------------------
mv "$tmp/kept" "$meta/binaries/$want"
A=$tmp/a1
M=$A/oparchive.manifest
cp "$M" "$tmp/manifest.good"
# report ERRFILE: opreport archive:$A -l, the report made before
report() {
	timeout 20 "$OPREPORT" -l archive:"$A" >"$1" 2>"$1.err"
	check_eq "$?" 0 "$2: opreport succeeds"
	check_eq "$(cat "$1")" "$(cat "$tmp/before")" "$2: the report made before"
}

step "a symbolic link"
rm "$M"
ln -s "$tmp/manifest.good" "$M"
report "$tmp/m1" "a link"
check_grep "$tmp/m1.err" "archive manifest '$M' not read: refusing to follow a symbolic link" "a link: named, not followed"

step "a FIFO"
rm "$M"
mkfifo "$M"
report "$tmp/m2" "a FIFO"
check_grep "$tmp/m2.err" "archive manifest '$M' not read: not a regular file" "a FIFO: named, not read"

step "a huge file"
rm "$M"
{ cat "$tmp/manifest.good"; head -c 400000 /dev/zero | tr '\0' '#'; } >"$M"
report "$tmp/m3" "huge"
check_grep "$tmp/m3.err" "archive manifest '$M' not read: larger than 262144 bytes" "huge: named, not read"

step "a later format"
sed 's/^format=1$/format=7/' "$tmp/manifest.good" >"$M"
report "$tmp/m4" "format 7"
check_grep "$tmp/m4.err" "archive manifest '$M': format 7: made by a later oparchive" "a later format: said"

step "samples with '..'"
sed 's|^samples=.*|samples=/../../../etc/samples|' "$tmp/manifest.good" >"$M"
report "$tmp/m5" "'..'"
check_grep "$tmp/m5.err" "samples '/\\.\\./\\.\\./\\.\\./etc/samples' is not an absolute path below the archive" "'..': refused"

step "escape bytes"
printf 'format=1\nsamples=/x\033]0;pwned\007/samples\n' >"$M"
report "$tmp/m6" "escapes"
check_grep "$tmp/m6.err" 'samples '"'"'/x\\x1b\]0;pwned\\x07/samples'"'" "escape bytes: escaped in the warning"
check_no_grep "$tmp/m6.err" "$(printf '\033')" "no raw escape byte written"

step "no key=value"
printf 'format=1\ngarbage\n' >"$M"
report "$tmp/m7" "garbage"
check_grep "$tmp/m7.err" "archive manifest '$M': line 2: not key=value; ignored" "garbage: the line named"

step "samples naming no directory"
sed 's|^samples=.*|samples=/nowhere/samples|' "$tmp/manifest.good" >"$M"
report "$tmp/m9" "no such samples"
check_grep "$tmp/m9.err" "archive manifest '$M': samples '/nowhere/samples' is no 'samples' directory in the archive; ignored" \
	"samples naming no directory: said"

step "a good manifest naming another samples directory is followed"
mkdir -p "$A/elsewhere"
mv "$A/var/lib/oprofile/samples" "$A/elsewhere/samples"
sed 's|^samples=.*|samples=/elsewhere/samples|' "$tmp/manifest.good" >"$M"
report "$tmp/m8" "samples=/elsewhere/samples"
check_eq "$(cat "$tmp/m8.err")" "" "followed, nothing to say"

# --- a debug file where OProfile 1.x's reports look in an archive ------------
step "a stripped library with a .gnu_debuglink, its debug file found by build-id"
SD=$tmp/sd2
$CC -O1 -g -fno-inline -fPIC -shared -o "$tmp/libd.full" "$SRCDIR/tests/lib.c" ||
	fail "cannot build lib.c"
lib=$tmp/lib/libd.so
mkdir -p "$tmp/lib"
strip --strip-all -o "$tmp/libd.stripped" "$tmp/libd.full" || bail strip
objcopy --only-keep-debug "$tmp/libd.full" "$tmp/libd.debug" || bail objcopy
objcopy --add-gnu-debuglink="$tmp/libd.debug" "$tmp/libd.stripped" "$lib" ||
	bail "objcopy --add-gnu-debuglink"
lid=$(readelf -n "$lib" | awk '/Build ID:/ {print $3}')
[ -n "$lid" ] || bail "the compiler wrote no build-id"
ldbg=$tmp/dbg/.build-id/${lid%"${lid#??}"}/${lid#??}.debug
mkdir -p "${ldbg%/*}"
mv "$tmp/libd.debug" "$ldbg"
"$MKSAMPLE" "$(sfile "$lib" "$lib")" --mtime-of "$lib" \
	"$(symoff "$tmp/libd.full" lib_one 2)=20" "$(symoff "$tmp/libd.full" lib_two 1)=10" ||
	fail mksample
run_report "$tmp/d.before" -l
check_grep "$tmp/d.before" '^20 .* lib_one$' "before: the library's names from its debug file"
"$OPARCHIVE" --session-dir="$SD" -o "$tmp/a4" >"$tmp/a4.out" 2>&1 ||
	{ cat "$tmp/a4.out"; fail "oparchive failed"; }
cmp -s "$ldbg" "$tmp/a4$tmp/lib/.debug/libd.debug" ||
	{ find "$tmp/a4" -type f >&2; fail "the debug file is not at LIBDIR/.debug/libd.debug"; }
test_ok "the debug file at the binary's .debug/ under its debuglink name (OProfile 1.x looks there)"
rm -rf "$tmp/dbg" "$lib"
OPROFILE_DEBUG_DIRS=/usr/lib/debug "$OPREPORT" -l archive:"$tmp/a4" >"$tmp/d.after" 2>"$tmp/d.after.err" ||
	{ cat "$tmp/d.after.err"; fail "opreport archive:DIR failed"; }
check_eq "$(cat "$tmp/d.after")" "$(cat "$tmp/d.before")" "opreport archive:DIR -l: the report made before, from that debug file"
if [ -x "${OPROFILE1_OPREPORT:-}" ]; then
	"$OPROFILE1_OPREPORT" -l archive:"$tmp/a4" >"$tmp/d.o1" 2>"$tmp/d.o1.err" ||
		{ cat "$tmp/d.o1.err"; fail "OProfile 1.x's opreport failed on the archive"; }
	cat "$tmp/d.o1"
	rows() { awk '/^[0-9]+ / { print $1, $NF }' "$1"; }
	check_eq "$(rows "$tmp/d.o1")" "$(rows "$tmp/d.before")" "OProfile 1.x's opreport: the library's names from the archived debug file"
else
	test_note "OPROFILE1_OPREPORT not set: OProfile 1.x's opreport not run on the archive"
fi
# --- the manifest's values from input are escaped ----------------------------
step "a session directory whose name holds a newline and an escape"
nl=$(printf '%s/s\nsamples=/forged\033[2Jd' "$tmp")
mkdir -p "$nl"
cp -a "$SD/samples" "$nl/"
"$OPARCHIVE" --session-dir="$nl" -o "$tmp/a5" >"$tmp/a5.out" 2>&1 ||
	{ cat "$tmp/a5.out"; fail "oparchive failed"; }
M5=$tmp/a5/oparchive.manifest
cat "$M5"
check_grep "$M5" "^session_dir=$tmp/s\\\\x0asamples=/forged\\\\x1b\\[2Jd\$" "the session dir escaped on its line"
check_eq "$(grep -c '^samples=' "$M5")" 1 "no samples= line forged"
check_no_grep "$M5" "$(printf '\033')" "no raw escape byte"
"$OPREPORT" -l archive:"$tmp/a5" >"$tmp/a5.r" 2>"$tmp/a5.r.err" ||
	{ cat "$tmp/a5.r.err"; fail "opreport archive:DIR failed"; }
check_no_grep "$tmp/a5.r.err" "manifest" "the archive read, nothing said of its manifest"
test_done
