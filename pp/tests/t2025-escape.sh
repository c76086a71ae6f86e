#!/bin/sh
# The printing rule for names from input (libutil/op_escape.h) in every
# output mode: a binary whose path, symbol names and source file name
# hold ESC, BEL, a raw C1 CSI (0x9b), U+009B in UTF-8 (\xc2\x9b) and
# invalid UTF-8 (0xff, an overlong '/', a surrogate), with samples, call
# graph arcs and stacks. No output - default, -l, -c, --stacks, --folded,
# --processes, the --pprof string table, --flame, -X (valid for xmllint),
# opannotate -a and -s, oparchive --list-files, nor any of their error
# output - holds a control character (bar tab and newline), a C1 control
# or a byte that is not UTF-8; each shows the names escaped, as \xNN.
. "$SRCDIR/tests/lib.sh"
: "${MKSTACKS:?}" "${OPANNOTATE:?}" "${OPARCHIVE:?}"
command -v python3 >/dev/null 2>&1 || skip "python3 not found"
command -v objcopy >/dev/null 2>&1 || skip "objcopy not found"
command -v xmllint >/dev/null 2>&1 || skip "xmllint not found (Debian: libxml2-utils)"

# ESC ] 0 ; BEL (retitles a terminal), raw CSI, CSI in UTF-8, 0xff, an
# overlong '/', a surrogate
bad=$(printf 'E\033]0;t\007\233C\302\233U\377\300\257\355\240\200z')
dir="$tmp/dir$bad"
mkdir "$dir" || fail "cannot make a directory with a hostile name"
src="$dir/src$bad.c"
cp "$SRCDIR/tests/funcs.c" "$src" || fail "cannot copy funcs.c"
# source text that would clear the screen
printf '/* \033[2J\233H */\n/* crlf */\r\n' >>"$src"
prog="$dir/prog$bad"
$CC -O1 -g -fno-inline -o "$prog" "$src" || fail "cannot compile $src"
o() { symoff "$prog" "$@"; }
A0=$(o alpha) A4=$(o alpha 4) B2=$(o beta 2) B6=$(o beta 6) M9=$(o main 9) M13=$(o main 13)
objcopy --redefine-sym "alpha=al${bad}pha" --redefine-sym "beta=be${bad}ta" \
	"$prog" || fail "objcopy cannot rename the symbols"
nm "$prog" | grep -q "al${bad}pha" || fail "the symbol was not renamed"

P=$(mangle "$prog")
EV=CPU_CLOCK.100000.0.all.all.all
"$MKSAMPLE" "$(sfile "$prog" "$prog")" --mtime-of "$prog" \
	"$A4=500" "$A0=100" "$B2=300" || fail mksample
"$MKSAMPLE" "$SD/samples/current/$P/{dep}/$P/{cg}/$P/$EV" --mtime-of "$prog" \
	"$M9:$A4=300" "$B6:$A0=40" || fail mksample
# an event named with ESC and CJK, long enough for the summary to cut
"$MKSAMPLE" "$(sfile "$prog" "$prog" "VV$(printf '\033')漢字漢字漢字漢字.100000.0.all.all.all")" \
	--mtime-of "$prog" "$A4=5" || fail mksample
"$MKSTACKS" "$SD/samples/current" CPU_CLOCK.100000.0 \
	"500 4242 0 $P $P+$A4 $P+$M9" \
	"100 4242 0 $P $P+$A0 $P+$B6 $P+$M13" \
	"300 4242 0 $P $P+$B2 $P+$M13" || fail mkstacks

# clean FILE WHAT: python3 reads FILE's bytes: no C0 control but tab and
# newline, no DEL, valid UTF-8 (strict: no overlong form, surrogate or
# code point above U+10FFFF), no U+0080-U+009F
clean() {
	python3 - "$1" <<'PY' >"$1.clean" 2>&1
import sys
b = open(sys.argv[1], 'rb').read()
bad = [i for i, c in enumerate(b) if (c < 0x20 and c not in (9, 10)) or c == 0x7f]
if bad:
    sys.exit('raw control byte 0x%02x at %d' % (b[bad[0]], bad[0]))
try:
    t = b.decode('utf-8', 'strict')
except UnicodeDecodeError as e:
    sys.exit('invalid UTF-8: %s' % e)
c1 = [i for i, ch in enumerate(t) if 0x80 <= ord(ch) <= 0x9f]
if c1:
    sys.exit('C1 control U+%04X at character %d' % (ord(t[c1[0]]), c1[0]))
PY
	if [ $? -eq 0 ]; then
		test_ok "$2: no raw control or invalid UTF-8"
	else
		test_not_ok "$2: $(cat "$1.clean")"
	fi
}

# shown FILE WHAT [SEMICOLON]: the hostile bytes are in FILE, escaped
# (--folded writes ';' as ':')
shown() {
	if grep -aqF "E\\x1b]0${3:-;}t\\x07\\x9bC\\xc2\\x9bU\\xff\\xc0\\xaf\\xed\\xa0\\x80z" "$1"; then
		test_ok "$2: the names are shown escaped"
	else
		test_not_ok "$2: no escaped name"
	fi
}

# has FILE REGEX WHAT: a line of FILE matches (the test goes on either way)
has() { test_expect "$3" grep -aEq -- "$2" "$1"; }

# mode FILE WHAT TOOL ARGS...: run, then check stdout and stderr
mode() {
	f=$1 what=$2 tool=$3
	shift 3
	"$tool" --session-dir="$SD" "$@" >"$f" 2>"$f.err" ||
		{ cat "$f" "$f.err"; test_not_ok "$what: exited with $?"; return; }
	clean "$f" "$what"
	clean "$f.err" "$what (stderr)"
}

mode "$tmp/sum" "opreport" "$OPREPORT"
shown "$tmp/sum" "opreport"
mode "$tmp/l" "opreport -l" "$OPREPORT" -l
shown "$tmp/l" "opreport -l"
mode "$tmp/c" "opreport -c" "$OPREPORT" -c
shown "$tmp/c" "opreport -c"
has "$tmp/c" '\[self\]' "opreport -c: a call graph"
mode "$tmp/g" "opreport -l -g" "$OPREPORT" -l -g
has "$tmp/g" 'src.*\\x1b.*:[0-9]' "opreport -g: the source file, escaped"
mode "$tmp/st" "opreport --stacks" "$OPREPORT" --stacks
shown "$tmp/st" "opreport --stacks"
mode "$tmp/fo" "opreport --folded" "$OPREPORT" --folded
shown "$tmp/fo" "opreport --folded" :
test_expect "--folded: one line per path" [ "$(wc -l <"$tmp/fo")" = 3 ]
test_expect "--folded: a ';' in a name is no frame separator" \
	[ "$(awk -F';' '{ print NF }' "$tmp/fo" | sort -u | tr '\n' ' ')" = "3 4 " ]
mode "$tmp/pr" "opreport --processes" "$OPREPORT" --processes
shown "$tmp/pr" "opreport --processes"
mode "$tmp/x" "opreport -X" "$OPREPORT" -X -l
shown "$tmp/x" "opreport -X"
xmllint --noout --schema "$abs_top_srcdir/doc/opreport.xsd" "$tmp/x" \
	>"$tmp/x.lint" 2>&1 && test_ok "opreport -X: valid for xmllint" ||
	test_not_ok "opreport -X: $(head -3 "$tmp/x.lint")"
mode "$tmp/fl" "opreport --flame" "$OPREPORT" --flame="$tmp/flame.html"
clean "$tmp/flame.html" "--flame page"
grep -aqF '\\x1b' "$tmp/flame.html" &&
	test_ok "--flame: the names are shown escaped" ||
	test_not_ok "--flame: no escaped name"
mode "$tmp/pp" "opreport --pprof" "$OPREPORT" --pprof="$tmp/prof.pb.gz"
# the Profile's string_table (field 6) out of the gzipped protobuf
python3 - "$tmp/prof.pb.gz" >"$tmp/strings" <<'PY' || fail "cannot decode the --pprof file"
import gzip, sys
b = gzip.open(sys.argv[1]).read()
def varint(i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80: return v, i
i, out = 0, []
while i < len(b):
    key, i = varint(i)
    wt = key & 7
    if wt == 0: _, i = varint(i)
    elif wt == 1: i += 8
    elif wt == 5: i += 4
    elif wt == 2:
        n, i = varint(i)
        if key >> 3 == 6: out.append(b[i:i + n])
        i += n
    else: sys.exit('wire type %d' % wt)
sys.stdout.buffer.write(b'\n'.join(out) + b'\n')
PY
has "$tmp/strings" '^prog' "--pprof: the string table decoded"
clean "$tmp/strings" "--pprof strings"
shown "$tmp/strings" "--pprof strings"

mode "$tmp/as" "opannotate -a -s" "$OPANNOTATE" -a -s
shown "$tmp/as" "opannotate -a -s"
mode "$tmp/s" "opannotate -s" "$OPANNOTATE" -s
shown "$tmp/s" "opannotate -s"
has "$tmp/s" '/\* \\x1b\[2J\\x9bH \*/' "opannotate -s: source text escaped too"
has "$tmp/s" ':/\* crlf \*/$' "opannotate -s: a CR LF line ends before the CR"
mode "$tmp/a" "opannotate -a" "$OPANNOTATE" -a
shown "$tmp/a" "opannotate -a"
mode "$tmp/li" "oparchive --list-files" "$OPARCHIVE" --list-files
shown "$tmp/li" "oparchive --list-files"

# an error message that quotes a hostile path
mv "$prog" "$prog.gone"
"$OPREPORT" --session-dir="$SD" -l >"$tmp/gone" 2>"$tmp/gone.err"
clean "$tmp/gone" "a missing binary"
clean "$tmp/gone.err" "a missing binary (stderr)"
"$OPREPORT" --session-dir="$SD" "image:$dir/none$bad" >"$tmp/none" 2>"$tmp/none.err"
clean "$tmp/none.err" "an error naming a hostile path"
shown "$tmp/none.err" "an error naming a hostile path"
test_done
