#!/bin/sh
# opreport -X: reports validate against doc/opreport.xsd (xmllint), for an
# image summary and a symbol list with details, line numbers, two classes,
# a dependent library, an anonymous region and a note; counts agree with
# the text report.
. "$SRCDIR/tests/lib.sh"
command -v xmllint >/dev/null 2>&1 || skip "xmllint not found (Debian: libxml2-utils)"
xsd=$abs_top_srcdir/doc/opreport.xsd

build funcs.c prog
prog=$tmp/prog
$CC -O1 -g -fno-toplevel-reorder -fPIC -shared -o "$tmp/libt.so" \
	"$SRCDIR/tests/lib.c" || fail "cannot build lib.c"
lib=$tmp/libt.so
for tid in 200 201; do
	"$MKSAMPLE" "$(sfile "$prog" "$prog" CPU_CLOCK.100000.0.200.$tid.all)" \
		--mtime-of "$prog" "$(symoff "$prog" alpha)=$tid" \
		"$(symoff "$prog" beta 1)=10" || fail mksample
	"$MKSAMPLE" "$(sfile "$prog" "$lib" CPU_CLOCK.100000.0.200.$tid.all)" \
		--mtime-of "$lib" "$(symoff "$lib" lib_two)=5" || fail mksample
done
anon="$SD/samples/current/$(mangle "$prog")/{dep}/{anon:anon}/200.0x7f0000000000.0x7f0000001000/CPU_CLOCK.100000.0.200.200.all"
"$MKSAMPLE" "$anon" --anon-start 0x7f0000000000 0x10=3 || fail mksample
gone=$tmp/gone
"$MKSAMPLE" "$(sfile "$gone" "$gone" CPU_CLOCK.100000.0.300.300.all)" 0x40=1 ||
	fail mksample

validate() {
	xmllint --noout --schema "$xsd" "$1" >"$1.lint" 2>&1 ||
		{ cat "$1" "$1.lint"; fail "$2: does not validate"; }
	test_ok "$2: validates against doc/opreport.xsd"
}
xpath() { xmllint --xpath "$2" "$1" 2>/dev/null; }

run_report "$tmp/sum.xml" -X tgid:200
validate "$tmp/sum.xml" "image summary"
check_eq "$(xpath "$tmp/sum.xml" 'count(/profile/classes/class)')" "2" "two classes (tids)"
check_eq "$(xpath "$tmp/sum.xml" 'string(/profile/classes/class[2]/@tid)')" "201" "class c1 is tid 201"
check_eq "$(xpath "$tmp/sum.xml" "string(/profile/binary[@name='$prog']/count[@class='c1'])")" \
	"216" "prog's tid 201 total: 201 + 10 + 5"
check_eq "$(xpath "$tmp/sum.xml" "string(/profile/binary[@name='$prog']/module[@name='$lib']/count[@class='c0'])")" \
	"5" "libt.so as a module of prog"
check_eq "$(xpath "$tmp/sum.xml" "count(/profile/binary/module[starts-with(@name, 'anon (tgid:200 range:0x7f0000000000-0x7f0000001000)')])")" \
	"1" "the anonymous region as a module"

run_report "$tmp/sym.xml" -X -l -d -g tgid:200
validate "$tmp/sym.xml" "symbol list with details and line numbers"
id=$(xpath "$tmp/sym.xml" "string(/profile/symboltable/symboldata[@name='alpha']/@id)")
check_eq "$(xpath "$tmp/sym.xml" "string(/profile/binary/symbol[@idref='$id']/count[@class='c0'])")" \
	"200" "alpha: 200 samples in tid 200"
check_eq "$(xpath "$tmp/sym.xml" "string(/profile/symboltable/symboldata[@name='alpha']/@file)" | sed 's|.*/||')" \
	"funcs.c" "alpha's source file"
check_eq "$(xpath "$tmp/sym.xml" "count(/profile/binary/symbol[@idref='$id']/detaildata)")" \
	"1" "alpha: one sampled address"
check_eq "$(xpath "$tmp/sym.xml" "string(/profile/binary/module/symbol/../@name)")" "$lib" "lib_two's samples under the library module"

run_report "$tmp/note.xml" -X -l tgid:300
validate "$tmp/note.xml" "report with a missing binary"
check_eq "$(xpath "$tmp/note.xml" "count(/profile/notes/note[contains(., 'cannot find binary')])")" \
	"1" "the missing binary is a note"

# hostile names: markup and invalid UTF-8 in a path
odd="$tmp/a<b>&\"c'$(printf '\377')d"
"$MKSAMPLE" "$(sfile "$odd" "$odd" CPU_CLOCK.100000.0.400.400.all)" 0x40=2 ||
	fail mksample
run_report "$tmp/odd.xml" -X -l tgid:400
validate "$tmp/odd.xml" "names with markup and bad UTF-8 are escaped"
test_done
