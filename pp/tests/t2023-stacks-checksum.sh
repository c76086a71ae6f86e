#!/bin/sh
# doc/formats.md section 6 is enough to read a stack table: stackscheck,
# written from the document alone (its checksum and record layout, no
# libop), reads a table the daemon's writer wrote (mkstacks) and finds
# every record's checksum right; and the document's worked example of
# the checksum is what its algorithm gives.
. "$SRCDIR/tests/lib.sh"
: "${MKSTACKS:?}" "${STACKSCHECK:?}"
DOC=$abs_top_srcdir/doc/formats.md

# --- the worked example: its payload bytes and checksum, from the text
ex=$(tr '\n' ' ' <"$DOC" | sed -n 's/.*payload bytes *`\([0-9a-f ]*\)`, *FNV-1a `0x[0-9a-f]*`, checksum `\(0x[0-9a-f]*\)`.*/\1=\2/p')
[ -n "$ex" ] || fail "doc/formats.md has no worked example of the stacks checksum"
got=$("$STACKSCHECK" --sum ${ex%=*}) || fail "stackscheck --sum"
check_eq "$got" "${ex#*=}" "the document's example: its algorithm gives its checksum ${ex#*=}"

# --- a real table: images with and without long names, frames, stacks
long=$(printf 'd%.0s' $(seq 300))
"$MKSTACKS" "$SD/samples/current" CPU_CLOCK.100000.0 \
	"5 100 0 {root}/bin/app {root}/bin/app+0x1000 {root}/bin/app+0x2000" \
	"7 100 1 {root}/bin/app {root}/lib/$long/libx.so+0x30 {root}/bin/app+0x2000" \
	"9 101 0 {root}/bin/app {kern}/ext4+0x44 {root}/proc/kallsyms+0x8" ||
	fail mkstacks
T=$SD/samples/current/stacks/table
[ -s "$T" ] || fail "mkstacks wrote no table"
"$STACKSCHECK" "$T" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "stackscheck rejects the writer's table"; }
sed "s/^/# /" "$tmp/out"
check_grep "$tmp/out" "^4 images, 5 frames, 3 stacks: every checksum right" \
	"every record of the writer's table has the documented checksum"

# --- and the checker is no yes-man: one flipped payload byte is caught
cp "$T" "$tmp/bad"
printf '\377' | dd of="$tmp/bad" bs=1 seek=40 conv=notrunc 2>/dev/null
"$STACKSCHECK" "$tmp/bad" >"$tmp/out" 2>&1 && fail "a flipped byte passed"
check_grep "$tmp/out" "record at byte 16: checksum" "a flipped payload byte fails the checksum"
test_done
