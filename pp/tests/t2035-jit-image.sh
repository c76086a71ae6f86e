#!/bin/sh
# JIT functions named and disassembled from the session's ELF image of a
# jitdump (session/jit/TGID.so, doc/jit.md), made from a dump by the
# daemon's own calls (tests/mkjitimage): an anonymous region
# 301.0x7f0000000000.0x7f0000010000 of prog with samples at three
# offsets; the image names two of them (a later load over an earlier one
# wins; an escape byte in a name printed escaped), opannotate -a shows
# the instructions with counts summing to the function's total, and
# opannotate -s the dump's source lines. An image with no function in a
# region leaves it to the process's perf map. Garbage, a FIFO or a 2 GiB
# sparse file at the image: a note, no hang, the region without symbols.
. "$SRCDIR/tests/lib.sh"

: "${MKJITIMAGE:?}"
command -v python3 >/dev/null || skip "no python3"
build funcs.c prog
prog=$tmp/prog
dir="$SD/samples/current/$(mangle "$prog")/{dep}"
jit=$SD/samples/current/session/jit
mkdir -p "$jit" || fail "cannot make session/jit"
"$MKSAMPLE" "$dir/{anon:anon}/301.0x7f0000000000.0x7f0000010000/CPU_CLOCK.100000.0.all.all.all" \
	--anon-start 0x7f0000000000 0x10=50 0x104=30 0x3000=7 || fail mksample
# the source file the dump's lines name
printf 'line one\nline two\nline three\n' >"$tmp/a.js"
cat >"$tmp/mkdump.py" <<'EOF'
import struct, sys
src = sys.argv[1]
out = struct.pack('<IIIIIIQQ', 0x4A695444, 1, 40, 62, 0, 301, 1, 0)
def load(addr, name, code):
    global out
    name = name + b'\0'
    out += struct.pack('<IIQIIQQQQ', 0, 56 + len(name) + len(code), 2, 301, 301,
                       addr, addr, len(code), 1) + name + code
def debug(addr, entries):
    global out
    body = struct.pack('<QQ', addr, len(entries))
    for a, line, f in entries:
        body += struct.pack('<QiI', a, line, 0) + f + b'\0'
    out += struct.pack('<IIQ', 2, 16 + len(body), 3) + body
# nops, the sampled one at 0x10 on line 2, then ret
debug(0x7f0000000000, [(0x7f0000000000, 1, src.encode()), (0x7f0000000010, 2, b'\xff')])
load(0x7f0000000000, b'JS:*first /srv/a.js:1:1', b'\x90' * 0x7f + b'\xc3')
load(0x7f0000000100, b'JS:*older', b'\x90' * 0x40)
load(0x7f0000000100, b'esc\x1b]0;pwned\x07name', b'\x90' * 0x3f + b'\xc3')
sys.stdout.buffer.write(out)
EOF
python3 "$tmp/mkdump.py" "$tmp/a.js" >"$tmp/jit-301.dump" || fail "cannot write the dump"
"$MKJITIMAGE" "$tmp/jit-301.dump" "$jit/301.so" || fail "mkjitimage failed"

run_report "$tmp/l" -l
cat "$tmp/l"
check_grep "$tmp/l" '^50 .*anon \(301:prog\) +prog +JS:\*first /srv/a\.js:1:1$' \
	"offset 0x10 in the image's first function"
check_grep "$tmp/l" '^30 .* esc\\x1b\]0;pwned\\x07name$' \
	"the later load at an address wins, its name printed escaped"
check_grep "$tmp/l" '^7 .*anon \(301:prog\) .*\(no symbols\)$' "an offset no load covers: no symbols"
check_no_grep "$tmp/l" 'JS:\*older' "no earlier load written over"
check_no_grep "$tmp/l" "$(printf '\033')" "no raw escape byte"

run_annotate "$tmp/a" -a
grep -A3 'JS:\*first.*total:' "$tmp/a"
check_grep "$tmp/a" '^ +50 .*:7f0000000010:[[:space:]]+nop' "opannotate -a: the sampled instruction with its count"
check_eq "$(grep -F '/* JS:*first /srv/a.js:1:1 total:' "$tmp/a" | sed 's/.* total: *\([0-9]*\) .*/\1/')" 50 \
	"opannotate -a: the function's total"
run_annotate "$tmp/s" -s
check_grep "$tmp/s" '^ +50 .*:line two$' "opannotate -s: the count on the dump's source line"

# an image with no function in a region: the perf map names it
"$MKSAMPLE" "$dir/{anon:anon}/302.0x7f1000000000.0x7f1000010000/CPU_CLOCK.100000.0.all.all.all" \
	--anon-start 0x7f1000000000 0x20=9 || fail mksample
cp "$jit/301.so" "$jit/302.so" || fail "cannot copy the image"
printf '7f1000000000 100 FROM_THE_MAP\n' >"$jit/302.map"
run_report "$tmp/m" -l
check_grep "$tmp/m" '^9 .*anon \(302:prog\) .*FROM_THE_MAP$' "no function of the image in the region: the perf map's name"

for plant in garbage fifo huge; do
	rm -f "$jit/301.so"
	case $plant in
	garbage) printf 'not an ELF file\n' >"$jit/301.so" ;;
	fifo) mkfifo "$jit/301.so" ;;
	huge) truncate -s 2G "$jit/301.so" ;;
	esac
	timeout 20 "$OPREPORT" --session-dir="$SD" -l >"$tmp/$plant" 2>&1 ||
		{ cat "$tmp/$plant"; fail "opreport -l with $plant at session/jit/301.so failed"; }
	check_grep "$tmp/$plant" "no JIT symbols for 'anon \\(301:prog\\)'.*301\\.so" \
		"$plant at the session's image: a note naming it"
	check_grep "$tmp/$plant" '^87 .*anon \(301:prog\) .*\(no symbols\)$' \
		"$plant at the session's image: the region without symbols"
	rm -f "$jit/301.so"
done
test_done
