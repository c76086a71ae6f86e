#!/bin/sh
# opannotate on a real session: a workload built with -g (a hot loop in
# the main binary calling an always-inlined function, a hot loop in a
# shared library) is sampled by opcontrol/oprofiled; then
#  - opannotate -s puts >= 90% of each hot function's samples on its
#    loop's lines (marked "hot:NAME" in the sources; the inlined mix()
#    counts at its own line), and its per-function totals equal
#    opreport -l's counts;
#  - opannotate -a's per-instruction counts sum to the same totals;
#  - -s -a interleaves the source lines with the instructions;
#  - --output-dir, --search-dirs/--base-dirs, a missing source, -t and -i;
#  - opgprof: gprof's share of the hot function is opreport -l's;
#  - the daemon's session/build-ids and segments, and a binary replaced by
#    another build with the same mtime named by its build-id; with the
#    sampled build's debug file under a build-id directory, opreport -l
#    and opannotate -s give the sampled build's functions and lines.
# Needs root and perf_event_open (skips with 77 otherwise).
. "$SRCDIR/tests/lib.sh"
: "${abs_top_builddir:?}" "${OPANNOTATE:?}" "${OPGPROF:?}"
live_session

# the sources are copied so that the test can move them
mkdir "$tmp/src"
cp "$SRCDIR/tests/annot_main.c" "$SRCDIR/tests/annot_lib.c" "$tmp/src/"
$CC -O1 -g -fPIC -shared -o "$tmp/libannot.so" "$tmp/src/annot_lib.c" ||
	fail "cannot build annot_lib.c"
$CC -O1 -g -o "$tmp/annot_main" "$tmp/src/annot_main.c" -L"$tmp" -lannot \
	-Wl,-rpath,"$tmp" || fail "cannot build annot_main.c"

ctl_start --event=CPU_CLOCK:200000 --separate=kernel
"$tmp/annot_main" 1.2 0.8 || fail "the workload failed"
ctl --dump || fail "opcontrol --dump failed"
ctl --shutdown || fail "opcontrol --shutdown failed"

spec="image:$tmp/annot_main"
run_report "$tmp/l" -l "$spec"
head -12 "$tmp/l"
count() { awk -v f="$1" '$NF == f {print $1}' "$tmp/l"; }

run_annotate "$tmp/s" -s "$spec"
sed -n '1,/^ \*\/$/p' "$tmp/s"

# the total opannotate wrote in FILE for function F
# samples on the lines marked hot:F
hot_lines() {
	awk -v tag="hot:$2" 'index($0, tag) && $1 ~ /^[0-9]+$/ && $3 ~ /^:/ { s += $1 }
		END { print s + 0 }' "$1"
}
for f in annot_main_hot annot_lib_hot; do
	n=$(count $f)
	[ -n "$n" ] && [ "$n" -gt 50 ] || fail "$f: too few samples in opreport -l ($n)"
	check_eq "$(ann_total "$tmp/s" $f)" "$n" "-s: $f's total is opreport -l's"
	h=$(hot_lines "$tmp/s" $f)
	awk -v h="$h" -v n="$n" 'BEGIN { exit !(h >= 0.9 * n) }' ||
		{ grep "hot:$f" "$tmp/s"; fail "$f: only $h of $n samples on its loop's lines"; }
	test_ok "-s: $h of $f's $n samples on its loop's lines"
done
mixline=$(grep -n 'hot:annot_main_hot' "$tmp/src/annot_main.c" | head -1 | cut -d: -f1)
check_grep "$tmp/s" '^ +[0-9]+ +[0-9.]+ :	return \(x \^ \(x >> 7\)\) \* 31u \+ i;' \
	"-s: the inlined mix() has samples at its own line ($mixline)"
check_no_grep "$tmp/l" ' mix$' "mix() is inlined: no symbol of its own"

# -a: the instructions' counts add up to the function totals
run_annotate "$tmp/a" -a "$spec"
for f in annot_main_hot annot_lib_hot; do
	sum=$(awk -v f="<$f>:" '$1 ~ /^:[0-9a-f]+$/ { cur = ($2 == f) }
		cur && $1 ~ /^[0-9]+$/ && $3 ~ /^:/ { s += $1 } END { print s + 0 }' "$tmp/a")
	check_eq "$sum" "$(count $f)" "-a: $f's instruction counts sum to its total"
	check_eq "$(ann_total "$tmp/a" $f)" "$(count $f)" "-a: $f's total"
done
check_no_grep "$tmp/a.err" 'objdump' "-a runs no objdump"

# -s -a: source lines between the instructions
run_annotate "$tmp/sa" -s -a "$spec"
check_grep "$tmp/sa" "/\\* annot_main\\.c:$mixline \\*/[[:space:]]+return \\(x" "-s -a: source lines interleaved (the inlined line)"
check_eq "$(awk '$1 ~ /^[0-9]+$/ && $3 ~ /^:/ { s += $1 } END { print s + 0 }' "$tmp/sa")" \
	"$(awk '$1 ~ /^[0-9]+$/ && $3 ~ /^:/ { s += $1 } END { print s + 0 }' "$tmp/a")" \
	"-s -a: the same instruction counts as -a"

# -i, -t
run_annotate "$tmp/i" -s -i annot_lib_hot "$spec"
check_no_grep "$tmp/i" 'annot_main_hot total' "-i: only the chosen symbol"
check_grep "$tmp/i" 'annot_lib_hot total' "-i: the chosen symbol's total"
run_annotate "$tmp/t" -s -t 100 "$spec"
check_no_grep "$tmp/t" 'total:' "-t 100: no function has every sample"

# --output-dir: annotated copies below DIR at the sources' paths
run_annotate "$tmp/o" -s --output-dir="$tmp/out" "$spec"
check_grep "$tmp/out$tmp/src/annot_lib.c" 'annot_lib_hot total' "--output-dir: annotated copy at the source's path"

# moved sources: missing (named, totals kept), then found by --search-dirs
mv "$tmp/src" "$tmp/moved"
run_annotate "$tmp/m" -s "$spec"
check_grep "$tmp/m.err" "cannot find source file '$tmp/src/annot_main.c'" "missing source: warned by name"
check_grep "$tmp/m" "annot_main_hot total: +$(count annot_main_hot) " "missing source: its function's total still shown"
run_annotate "$tmp/srch" -s --base-dirs="$tmp/src" --search-dirs="$tmp/moved" "$spec"
check_eq "$(ann_total "$tmp/srch" annot_main_hot)" "$(count annot_main_hot)" "--search-dirs/--base-dirs: found again"
check_eq "$(hot_lines "$tmp/srch" annot_lib_hot)" "$(hot_lines "$tmp/s" annot_lib_hot)" "--search-dirs: the same lines"
# (libc's and ld.so's lines come from libc6-dbg, whose sources are not
# installed: those are warned about, rightly)
check_no_grep "$tmp/srch.err" "cannot find source file '$tmp/" "--search-dirs: no warning about the moved sources"

# opgprof on the same session: gprof's shares within the image are
# opreport -l's (within 1 point)
(cd "$tmp" && "$OPGPROF" --session-dir="$SD" "$spec" "$tmp/annot_main") ||
	fail "opgprof failed"
gprof -b -p "$tmp/annot_main" "$tmp/gmon.out" >"$tmp/flat" 2>&1 || fail "gprof failed"
head -8 "$tmp/flat"
check_eq "$(awk '$1 ~ /^[0-9.]+$/ && NF >= 4 {print $NF; exit}' "$tmp/flat")" \
	"annot_main_hot" "gprof: annot_main_hot first"
want=$(awk -v img=annot_main '$3 == img { t += $1; if ($NF == "annot_main_hot") h = $1 }
	END { printf "%.2f", 100 * h / t }' "$tmp/l")
got=$(awk '$NF == "annot_main_hot" {print $1}' "$tmp/flat")
awk -v a="$want" -v b="$got" 'BEGIN { d = a - b; exit !(d <= 1 && d >= -1) }' ||
	fail "gprof's annot_main_hot $got% vs opreport's $want% of the image"
test_ok "gprof: annot_main_hot $got% of the image, opreport -l $want%"

# the daemon recorded the binaries' build-ids in the session; a binary
# replaced by another build with the same mtime is detected by them
ids=$SD/samples/current/session/build-ids
id=$(readelf -n "$tmp/annot_main" | awk '/Build ID:/ {print $3}')
check_grep "$ids" "^$id [0-9]+ $tmp/annot_main\$" "session/build-ids: the program's build-id"
check_grep "$ids" " $tmp/libannot.so\$" "session/build-ids: the library's"
# (the vDSO's bytes are kept there always: no file has them; doc/formats.md)
# A copy is right for a binary whose path on the host holds another build
# (a process in another mount namespace: the daemon samples the whole
# machine, and other tests, t2016, run such processes beside this one),
# wrong for a host binary that is the build sampled.
vdso=$(awk '$3 == "/[vdso]" { print $1 }' "$ids")
for b in $(ls "$SD/samples/current/session/binaries" 2>/dev/null | grep -vx "${vdso:-none}"); do
	for p in $(awk -v b="$b" '$1 == b { print $3 }' "$ids"); do
		[ "$(readelf -n "$p" 2>/dev/null | awk '/Build ID:/ {print $3}')" != "$b" ] ||
			fail "without --keep-binaries, the host binary $p was copied into the session"
	done
done
cp -p "$tmp/annot_main" "$tmp/annot_main.orig"
$CC -O0 -g -o "$tmp/annot_main" "$tmp/moved/annot_main.c" -L"$tmp" -lannot \
	-Wl,-rpath,"$tmp" -Wl,--build-id=0x0badbeef || fail "rebuild"
touch -r "$tmp/annot_main.orig" "$tmp/annot_main"
run_report "$tmp/rebuilt" -l "$spec"
check_grep "$tmp/rebuilt.err" "'$tmp/annot_main' is not the binary that was sampled: its build-id is 0badbeef, the session recorded $id" \
	"a rebuilt binary with the old mtime: named, by build-id"
check_no_grep "$tmp/rebuilt" ' annot_main_hot$' "and its samples get no wrong symbols"

# the sampled build's segments are recorded; its debug file (kept under a
# build-id directory) then symbolises the samples, mapped through them
segs=$SD/samples/current/session/segments
load=$(readelf -lW "$tmp/annot_main.orig" | while read -r t o v p f rest; do
	[ "$t" = LOAD ] && [ $((f)) -ne 0 ] && printf '%s 0x%x 0x%x 0x%x\n' "$id" $((o)) $((v)) $((f))
done)
check_eq "$(grep "^$id " "$segs" | sort -u)" "$(echo "$load" | sort -u)" \
	"session/segments: the program's LOAD segments"
mkdir -p "$tmp/dbg/.build-id/${id%"${id#??}"}"
objcopy --only-keep-debug "$tmp/annot_main.orig" \
	"$tmp/dbg/.build-id/${id%"${id#??}"}/${id#??}.debug" || bail objcopy
# another build: -O0 moves the code
$CC -O0 -g -o "$tmp/annot_main" "$tmp/moved/annot_main.c" \
	-L"$tmp" -lannot -Wl,-rpath,"$tmp" -Wl,--build-id=0x0badbeef02 ||
	fail "second rebuild"
[ "$(nm "$tmp/annot_main" | awk '$3 == "annot_main_hot" {print $1}')" != \
  "$(nm "$tmp/annot_main.orig" | awk '$3 == "annot_main_hot" {print $1}')" ] ||
	bail "the rebuild did not move annot_main_hot"
OPROFILE_DEBUG_DIRS=$tmp/dbg:/usr/lib/debug run_report "$tmp/bydbg" -l "$spec"
check_grep "$tmp/bydbg.err" "'$tmp/annot_main' is another build than the one sampled \(build-id 0badbeef02, the session recorded $id\): symbols and lines come from the sampled build's debug file '$tmp/dbg/.build-id/.*\.debug' \(found by build-id\)" \
	"rebuilt, the sampled build's debug file found: said"
# A debug file has no PLT: its .plt is NOBITS and the relocations that name
# the PLT entries are in the binary only, so a sample that fell in the PLT
# (a few, some runs) shows as (no symbols) once the binary is another build.
noplt() { sed 's/[^ ]*@plt$/(no symbols)/'; }
check_eq "$(grep -v '^Note: ' "$tmp/bydbg" | noplt)" "$(noplt <"$tmp/l")" \
	"rebuilt: opreport -l from the sampled build's debug file is the report made before (PLT samples aside)"
OPROFILE_DEBUG_DIRS=$tmp/dbg:/usr/lib/debug run_annotate "$tmp/sdbg" -s --base-dirs="$tmp/src" \
	--search-dirs="$tmp/moved" "$spec"
check_eq "$(ann_total "$tmp/sdbg" annot_main_hot)" "$(count annot_main_hot)" \
	"rebuilt: opannotate -s gives the sampled build's function total"
check_eq "$(hot_lines "$tmp/sdbg" annot_main_hot)" "$(hot_lines "$tmp/srch" annot_main_hot)" \
	"rebuilt: and its samples on the same lines"
check_grep "$tmp/sdbg.err" "is another build than the one sampled" "rebuilt: opannotate says so"
OPROFILE_DEBUG_DIRS=$tmp/dbg:/usr/lib/debug run_annotate "$tmp/adbg" -a "$spec"
check_grep "$tmp/adbg.err" "cannot disassemble '$tmp/annot_main': '$tmp/dbg/.build-id/.*\.debug' has no code, only its addresses" \
	"rebuilt: -a says once that the debug file has no code to disassemble"
check_eq "$(ann_total "$tmp/adbg" annot_lib_hot)" "$(count annot_lib_hot)" \
	"rebuilt: -a still disassembles the library (the sampled build)"
# the binary gone: the same from the debug file
mv "$tmp/annot_main" "$tmp/annot_main.other"
OPROFILE_DEBUG_DIRS=$tmp/dbg:/usr/lib/debug run_report "$tmp/gone" -l "$spec"
check_grep "$tmp/gone.err" "'$tmp/annot_main' is gone: symbols and lines come from the sampled build's debug file" \
	"removed: the sampled build's debug file, said"
check_eq "$(grep -v '^Note: ' "$tmp/gone" | noplt)" "$(noplt <"$tmp/l")" "removed: opreport -l is the report made before (PLT samples aside)"
mv "$tmp/annot_main.orig" "$tmp/annot_main"

# bad use
"$OPANNOTATE" --session-dir="$SD" "$spec" >/dev/null 2>"$tmp/u.err"
check_eq "$?" "2" "neither -s nor -a: a usage error"
test_done
