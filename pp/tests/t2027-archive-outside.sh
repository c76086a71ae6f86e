#!/bin/sh
# oparchive -o ARCH writes only inside ARCH, and a .gnu_debuglink is a
# file name. A stripped binary without a build-id whose .gnu_debuglink
# is "../../(...)/VICTIM/out.debug" (with the CRC of the debug file at
# that escaped path): the debug file is neither read (no symbols from it
# in opreport, not archived, not listed) nor copied outside ARCH (the
# name, put below ARCH, climbs out of it), and the name is warned about.
# Links planted in an existing ARCH: nothing is written through a link
# in a directory (the copies there fail, named), and a link at a copy's
# own path is replaced, its target untouched.
. "$SRCDIR/tests/lib.sh"
: "${OPARCHIVE:?}"
unset DEBUGINFOD_URLS
export OPROFILE_DEBUG_DIRS="$tmp/nodebug"

victim=$(mktemp -d) || bail mktemp
test_cleanup_hook() { rm -rf "$victim"; }
bindir=$tmp/b1/b2/b3/b4/b5
mkdir -p "$bindir"
$CC -O1 -g -fno-inline -Wl,--build-id=none -o "$tmp/prog.full" \
	"$SRCDIR/tests/funcs.c" || fail "cannot build funcs.c"
objcopy --only-keep-debug "$tmp/prog.full" "$victim/out.debug" || bail objcopy
strip --strip-all -o "$tmp/prog.stripped" "$tmp/prog.full" || bail strip

# One '..' more than $bindir has components: read from $bindir, the name
# reaches / and then the victim's file; put below ARCH ($tmp/arch), it
# climbs to $tmp, out of ARCH.
depth=$(printf '%s' "$bindir" | tr -cd / | wc -c)
ups=$(printf '../%.0s' $(seq $((depth + 1))))
name="$ups${victim#/}/out.debug"
# the section: the name, NULs to a multiple of 4, the CRC (objcopy's)
objcopy --add-gnu-debuglink="$victim/out.debug" "$tmp/prog.stripped" "$tmp/crc.tmpl" ||
	bail "objcopy --add-gnu-debuglink"
objcopy --dump-section .gnu_debuglink="$tmp/crc.sec" "$tmp/crc.tmpl" /dev/null ||
	bail "objcopy --dump-section"
len=${#name}
{
	printf '%s' "$name"
	head -c $(((len + 4) / 4 * 4 - len)) /dev/zero
	tail -c 4 "$tmp/crc.sec"
} >"$tmp/link.sec"
objcopy --add-section .gnu_debuglink="$tmp/link.sec" "$tmp/prog.stripped" "$bindir/prog" ||
	bail "objcopy --add-section"
prog=$bindir/prog
readelf -p .gnu_debuglink "$prog" | grep -qF "$name" || bail "the debuglink name was not written"

"$MKSAMPLE" "$(sfile "$prog" "$prog")" --mtime-of "$prog" \
	"$(symoff "$tmp/prog.full" alpha 4)=70" "$(symoff "$tmp/prog.full" beta 4)=30" ||
	fail mksample
mkdir -p "$SD/samples/current/session"
echo "0 kernel 0 0" >"$SD/samples/current/session/marker"

# what is outside ARCH (and the test's own files in $o), with inodes
# and times: nothing may change there
o=$tmp/o
mkdir "$o"
outside() {
	find "$tmp" "$victim" -mindepth 1 -path "$tmp/arch*" -prune -o -path "$o" -prune -o \
		-newer "$o/stamp" -print
	ls -li --full-time "$victim"
	find "$tmp" "$victim" -mindepth 1 -path "$tmp/arch*" -prune -o -path "$o" -prune -o \
		-print | sort
}
touch "$o/stamp"
sleep 1
outside >"$o/before"

run_report "$o/rep" -l
cat "$o/rep"
check_no_grep "$o/rep" 'alpha|beta' "opreport: no symbols from the escaped debug file"
check_grep "$o/rep.err" "binary '$prog': its .gnu_debuglink '$name' is not a plain file name: not used" \
	"the debuglink name is warned about"

"$OPARCHIVE" --session-dir="$SD" --list-files >"$o/list" 2>"$o/list.err"
check_no_grep "$o/list" 'out\.debug' "--list-files: the escaped debug file is not named"

"$OPARCHIVE" --session-dir="$SD" -o "$tmp/arch" >"$o/arch.out" 2>&1
rc=$?
cat "$o/arch.out"
outside >"$o/after"
diff "$o/before" "$o/after" >&2 || fail "oparchive -o changed something outside the archive"
test_ok "nothing outside ARCH created or changed"
check_eq "$rc" 0 "oparchive -o succeeds"
[ -z "$(find "$tmp/arch" -name 'out.debug*')" ] || fail "the escaped debug file was archived"
test -f "$tmp/arch$prog" || fail "the binary is not archived"
test_ok "the binary archived, the escaped debug file not"

# links planted in an existing archive
step() { test_note "--- $*"; }
step "a link at a directory of an existing ARCH"
first=${tmp#/}
first=${first%%/*}
mkdir -p "$tmp/arch2" "$tmp/elsewhere"
ln -s "$tmp/elsewhere" "$tmp/arch2/$first"
"$OPARCHIVE" --session-dir="$SD" -o "$tmp/arch2" >"$tmp/arch2.out" 2>&1
rc=$?
cat "$tmp/arch2.out"
[ -z "$(ls -A "$tmp/elsewhere")" ] || { ls -R "$tmp/elsewhere"; fail "written through a link in ARCH"; }
test_ok "nothing written through a link planted in ARCH"
check_eq "$rc" 1 "copies that cannot be written fail the run"
check_grep "$tmp/arch2.out" "cannot write '$tmp/arch2$prog': refusing to follow a symbolic link" \
	"the refused copy is named"

step "a link at a copy's own path"
printf precious >"$tmp/victim-file"
mkdir -p "$tmp/arch3${prog%/*}"
ln -s "$tmp/victim-file" "$tmp/arch3$prog"
"$OPARCHIVE" --session-dir="$SD" -o "$tmp/arch3" >"$tmp/arch3.out" 2>&1 ||
	{ cat "$tmp/arch3.out"; fail "oparchive -o ARCH3 failed"; }
check_eq "$(cat "$tmp/victim-file")" precious "the link's target is untouched"
[ -f "$tmp/arch3$prog" ] && [ ! -L "$tmp/arch3$prog" ] &&
	cmp -s "$prog" "$tmp/arch3$prog" || fail "the link was not replaced by the copy"
test_ok "the link at the copy's path is replaced by the copy"
check_eq "$(stat -c %Y "$tmp/arch3$prog")" "$(stat -c %Y "$prog")" "the copy keeps the binary's mtime"

step "a --session-dir with '..': its files would be archived outside ARCH"
mkdir "$tmp/x"
"$OPARCHIVE" --session-dir="$tmp/x/../${SD#"$tmp"/}" -o "$tmp/arch4" >"$o/arch4.out" 2>&1
check_eq "$?" 2 "a usage error"
check_grep "$o/arch4.out" "session-dir '$tmp/x/\.\./sd' has a '\.\.' component" "the session dir is named"
[ ! -e "$tmp/arch4" ] || fail "the archive was created"
"$OPARCHIVE" --session-dir="$tmp/x/../${SD#"$tmp"/}" --list-files >"$o/list4" 2>&1 ||
	{ cat "$o/list4"; fail "--list-files with such a --session-dir failed"; }
test_ok "--list-files with such a --session-dir works (nothing is written)"

step "a 64 GiB sparse file planted in the session: refused by its size, at once"
mkdir -p "$SD/samples/current/session"
truncate -s 64G "$SD/samples/current/session/segments"
timeout 20 "$OPARCHIVE" --session-dir="$SD" -o "$tmp/arch5" >"$o/arch5.out" 2>&1
rc=$?
[ "$rc" -ne 124 ] || fail "oparchive copied for 20 s"
check_eq "$rc" 1 "oparchive fails"
check_grep "$o/arch5.out" "session/segments' is 68719476736 bytes, more than a session file holds" "the file is named, and why"
[ ! -e "$tmp/arch5/var/lib/oprofile/samples/current/session/segments" ] || fail "the huge file was archived"
test_ok "nothing of it in the archive"
rm -f "$SD/samples/current/session/segments"
test_done
