#!/bin/sh
# Compressed DWARF gives the same source lines as plain DWARF: gcc -gz
# (SHF_COMPRESSED, zlib), objcopy's zstd (binutils 2.40) and the old GNU
# .zdebug_* sections, a stripped binary whose separate debug file is
# compressed, and Debian's own libc6-dbg (compressed too). The expected
# line of each sample is addr2line's on the same address; opannotate -s
# lists the function under its source file, not under "no debug info".
. "$SRCDIR/tests/lib.sh"

build funcs.c plain
plain=$tmp/plain
addr=$(nm "$plain" | awk '$3 == "alpha" { print $1 }')
want=$(addr2line -e "$plain" "0x$addr" | sed 's|.*/||')
case $want in funcs.c:[1-9]*) ;; *) bail "addr2line gives '$want' for alpha" ;; esac
test_note "alpha is at $want (addr2line)"

# one copy per kind of compression; each must be what it claims
$CC -O1 -g -gz=zlib -fno-inline -o "$tmp/zlib" "$SRCDIR/tests/funcs.c" || fail "gcc -gz=zlib"
objcopy --compress-debug-sections=zstd "$plain" "$tmp/zstd" ||
	skip "objcopy cannot write zstd-compressed sections"
objcopy --compress-debug-sections=zlib-gnu "$plain" "$tmp/zgnu" || fail "objcopy zlib-gnu"
objcopy --only-keep-debug --compress-debug-sections=zlib "$plain" "$tmp/sep.debug" &&
	objcopy --strip-debug --strip-unneeded --add-gnu-debuglink="$tmp/sep.debug" "$plain" "$tmp/sep" ||
	fail "cannot make a stripped binary with a compressed debug file"
readelf -SW "$tmp/zlib" | grep -q ' \.debug_line .* C ' || fail "gcc -gz left .debug_line uncompressed"
readelf -SW "$tmp/zstd" | grep -q ' \.debug_line .* C ' || fail "objcopy zstd left .debug_line uncompressed"
readelf -SW "$tmp/zgnu" | grep -q ' \.zdebug_line ' || fail "no .zdebug_line in the zlib-gnu copy"
readelf -SW "$tmp/sep.debug" | grep -q ' \.debug_line .* C ' || fail "the debug file is not compressed"
test_ok "binaries with zlib, zstd, .zdebug and separate compressed DWARF"

for kind in plain zlib zstd zgnu sep; do
	bin=$tmp/$kind
	# gcc -gz built its own copy; objcopy's keep plain's layout
	src=$plain
	[ "$kind" = zlib ] && src=$bin
	off=$(symoff "$src" alpha 4)
	"$MKSAMPLE" "$(sfile "$bin" "$bin")" --mtime-of "$bin" "$off=100" || fail mksample
done
run_report "$tmp/l" -l -g
cat "$tmp/l"
for kind in plain zlib zstd zgnu sep; do
	got=$(awk -v k="$kind" '$NF == "alpha" && $4 == k { sub(/.*\//, "", $3); print $3 }' "$tmp/l")
	check_eq "$got" "$want" "$kind: opreport -g gives alpha's line"
done

run_annotate "$tmp/ann" -s
for kind in zlib zstd zgnu sep; do
	if sed -n '/no debug info found/,$p' "$tmp/ann" | grep -q "alpha.*\[$tmp/$kind\]"; then
		cat "$tmp/ann"
		fail "$kind: opannotate -s lists alpha under 'no debug info found'"
	fi
done
test_ok "opannotate -s: alpha of every compressed kind has its source"

# Debian's libc6-dbg: the debug file of the running libc, by build-id
libc=$(ldd "$plain" | awk '$1 ~ /^libc\.so/ { print $3 }')
id=$(build_id_of "$libc")
dbg=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
[ -f "$dbg" ] || skip "no libc6-dbg debug file for $libc ($dbg)"
readelf -SW "$dbg" 2>/dev/null | grep -q ' \.debug_line .* C ' ||
	test_note "libc6-dbg's debug file is not compressed here"
sym=msort_with_tmp.part.0
a=$(nm "$dbg" | awk -v s="$sym" '$3 == s { print $1; exit }')
[ -n "$a" ] || skip "no $sym in $dbg"
# the file offset of $a + 8 in libc (its own section table: the debug
# file's .text is NOBITS)
want_addr=$((0x$a + 8))
loff=
while read -r name type saddr soff ssize rest; do
	[ "$type" = PROGBITS ] || continue
	saddr=$((0x$saddr)) soff=$((0x$soff)) ssize=$((0x$ssize))
	if [ "$want_addr" -ge "$saddr" ] && [ "$want_addr" -lt $((saddr + ssize)) ]; then
		loff=$(printf '0x%x' $((want_addr - saddr + soff)))
		break
	fi
done <<EOF2
$(readelf -SW "$libc" 2>/dev/null | sed -n 's/^ *\[ *[0-9]*\] //p')
EOF2
[ -n "$loff" ] || fail "no section of $libc holds $sym"
lwant=$(addr2line -e "$libc" "$(printf '0x%x' "$want_addr")" | sed 's|.*/||; s/ .*//')
test_note "$sym+8 is at $lwant (addr2line through libc6-dbg)"
"$MKSAMPLE" "$(sfile "$libc" "$libc")" --mtime-of "$libc" "$loff=50" || fail mksample
run_report "$tmp/libc" -l -g image:"$libc"
cat "$tmp/libc"
got=$(awk -v s="$sym" '$NF == s { sub(/.*\//, "", $3); print $3 }' "$tmp/libc")
check_eq "$got" "$lwant" "libc6-dbg: $sym has its line"
test_done
