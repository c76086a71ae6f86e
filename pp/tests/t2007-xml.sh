#!/bin/sh
# opreport -X: OProfile 1.x's XML (schemaversion 3.x). Reports validate
# against doc/opreport.xsd (xmllint), for an image summary and a symbol
# list with details, line numbers, a dependent library, an anonymous
# region and a note; counts agree with the text report. Thread-separated
# files give OProfile's <process>/<thread> form; with tids merged, one
# class per process. The schema also accepts OProfile's own output.
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
P="/profile/process[@pid='200']"
check_eq "$(xpath "$tmp/sum.xml" 'count(/profile/classes)')|$(xpath "$tmp/sum.xml" 'count(/profile/binary)')" \
	"0|0" "threads: no classes, no binary (OProfile's process form)"
check_eq "$(xpath "$tmp/sum.xml" 'count(/profile/process)')|$(xpath "$tmp/sum.xml" "string($P/@name)")" \
	"1|$prog" "one process, named after its application"
check_eq "$(xpath "$tmp/sum.xml" "string($P/count)")" "434" \
	"the process: 200 + 201 + 2*10 + 2*5 + 3 (anon)"
check_eq "$(xpath "$tmp/sum.xml" "count($P/thread)")|$(xpath "$tmp/sum.xml" "string($P/thread[2]/@tid)")" \
	"2|201" "two threads, by tid"
check_eq "$(xpath "$tmp/sum.xml" "string($P/thread[@tid='201']/count)")" \
	"216" "prog's tid 201 total: 201 + 10 + 5"
run_report "$tmp/sum.txt" tgid:200
check_grep "$tmp/sum.txt" 'tid:200.*tid:201' "the text report's columns are the same threads"
check_eq "$(xpath "$tmp/sum.xml" "string($P/thread[@tid='201']/module[@name='$prog']/count)")" \
	"211" "tid 201 in prog itself: 201 + 10"
check_eq "$(xpath "$tmp/sum.xml" "string($P/thread[@tid='200']/module[@name='$lib']/count)")" \
	"5" "libt.so as a module of tid 200"
check_eq "$(xpath "$tmp/sum.xml" "count($P/thread[@tid='200']/module[@name='anon (200:prog)'])")|$(xpath "$tmp/sum.xml" "count($P/thread[@tid='201']/module[starts-with(@name, 'anon')])")" \
	"1|0" "the anonymous region: a module of tid 200 only"
check_eq "$(xpath "$tmp/sum.xml" 'string(/profile/@schemaversion)')" "3.1" "schemaversion 3.1"
check_eq "$(xpath "$tmp/sum.xml" 'string(/profile/@title)')" "opreport --session-dir=$SD -X tgid:200" "title: the command line"
check_eq "$(xpath "$tmp/sum.xml" 'string(/profile/@cputype)')|$(xpath "$tmp/sum.xml" 'string(/profile/@processor)')" \
	"timer|timer" "cputype and processor (NCNames)"
check_eq "$(xpath "$tmp/sum.xml" 'string(/profile/setup/eventsetup[@id=0]/@eventname)')" "CPU_CLOCK" "the event setup"
check_eq "$(xpath "$tmp/sum.xml" 'string(/profile/options/@session)')" "$SD" "options: the session"

# tids merged: columns per process are classes c0, c1 of <binary>
"$MKSAMPLE" "$(sfile "$prog" "$prog" CPU_CLOCK.100000.0.210.210.all)" \
	--mtime-of "$prog" "$(symoff "$prog" alpha)=7" || fail mksample
run_report "$tmp/tgid.xml" -X --merge=tid tgid:200,210
validate "$tmp/tgid.xml" "columns per process"
check_eq "$(xpath "$tmp/tgid.xml" 'count(/profile/classes/class)')|$(xpath "$tmp/tgid.xml" 'count(/profile/process)')" \
	"2|0" "two classes (processes), no process form"
check_eq "$(xpath "$tmp/tgid.xml" "string(/profile/binary[@name='$prog']/count[@class='c1'])")" \
	"7" "c1 is the second column, tgid 210"
check_eq "$(xpath "$tmp/tgid.xml" "string(/profile/binary[@name='$prog']/module[@name='$lib']/count[@class='c0'])")" \
	"10" "libt.so as a module of prog: both threads of tgid 200"

run_report "$tmp/sym.xml" -X -l -d -g tgid:200
validate "$tmp/sym.xml" "symbol list with details and line numbers"
id=$(xpath "$tmp/sym.xml" "string(/profile/symboltable/symboldata[@name='alpha']/@id)")
check_eq "$(xpath "$tmp/sym.xml" "string($P/thread[@tid='200']/module[@name='$prog']/symbol[@idref='$id']/count)")" \
	"200" "alpha: 200 samples in tid 200"
check_eq "$(xpath "$tmp/sym.xml" "string($P/thread[@tid='201']/module[@name='$prog']/symbol[@idref='$id']/count)")" \
	"201" "alpha: 201 samples in tid 201"
check_eq "$(xpath "$tmp/sym.xml" "string(/profile/symboltable/symboldata[@name='alpha']/@file)" | sed 's|.*/||')" \
	"funcs.c" "alpha's source file"
check_eq "$(xpath "$tmp/sym.xml" "count(/profile/detailtable/symboldetails[@id='$id']/detaildata)")" \
	"1" "alpha: one sampled address, in the detail table"
lo=$(xpath "$tmp/sym.xml" "string($P/thread[@tid='201']/module/symbol[@idref='$id']/@detaillo)")
check_eq "$(xpath "$tmp/sym.xml" "string(/profile/detailtable/symboldetails[@id='$id']/detaildata/@id)")|$(xpath "$tmp/sym.xml" "string($P/thread[@tid='200']/module/symbol[@idref='$id']/@detaillo)")" \
	"$lo|$lo" "alpha's detaillo names its detaildata, in both threads"
check_eq "$(xpath "$tmp/sym.xml" "string(/profile/detailtable/symboldetails[@id='$id']/detaildata/count)")" \
	"401" "alpha's address: both threads' samples"
lid=$(xpath "$tmp/sym.xml" "string(/profile/symboltable/symboldata[@name='lib_two']/@id)")
check_eq "$(xpath "$tmp/sym.xml" "string($P/thread[@tid='201']/module/symbol[@idref='$lid']/../@name)")" "$lib" "lib_two's samples under the library module"

run_report "$tmp/note.xml" -X -l tgid:300
validate "$tmp/note.xml" "report with a missing binary"
check_eq "$(xpath "$tmp/note.xml" "count(/profile/comment()[contains(., 'cannot find binary')])")" \
	"1" "the missing binary is a note (a comment: the format has no notes)"

# hostile names: markup and invalid UTF-8 in a path
odd="$tmp/a<b>&\"c'$(printf '\377')d"
"$MKSAMPLE" "$(sfile "$odd" "$odd" CPU_CLOCK.100000.0.400.400.all)" 0x40=2 ||
	fail mksample
run_report "$tmp/odd.xml" -X -l tgid:400
validate "$tmp/odd.xml" "names with markup and bad UTF-8 are escaped"

# OProfile 1.x's own output, in the thread-separated form with cpu classes
# (elements and attributes as its documentation and opreport give them)
cat >"$tmp/oprofile.xml" <<'XML'
<?xml version="1.0" ?>
<profile schemaversion="3.1" cputype="i386" processor="core_i7" separatedcpus="2" mhz="2400.000" title="opreport --xml --details">
<options session="/var/lib/oprofile" details="true" merge="lib"/>
<setup><eventsetup id="0" eventname="CPU_CLK_UNHALTED" unitmask="0" setupcount="100000"/></setup>
<classes><class name="c0" cpu="0"/><class name="c1" cpu="1"/></classes>
<process pid="4242" name="/usr/bin/app"><count class="c0">12</count>
<thread tid="4242"><count class="c0">12</count>
<module name="/usr/bin/app"><count class="c0">12</count>
<symbol idref="0" detaillo="0" detailhi="0"><count class="c0">12</count></symbol>
</module></thread></process>
<symboltable><symboldata id="0" name="main" startingaddr="0x400500" file="app.c" line="7" codelength="42"/></symboltable>
<detailtable><symboldetails id="0"><detaildata id="0" vmaoffset="0a" line="8"><count class="c0">12</count></detaildata></symboldetails></detailtable>
<bytestable><bytes id="0">5589E5</bytes></bytestable>
</profile>
XML
validate "$tmp/oprofile.xml" "OProfile's thread-separated report"
test_done
