#!/bin/sh
# What reports call an anonymous region (code with no file behind it: JIT
# code, trampolines): "NAME (PID:APP)" in every output mode, NAME as the
# daemon kept it ("anon" for the kernel's "//anon", "[anon:NAME]" for a
# region named with PR_SET_VMA_ANON_NAME, as /proc/PID/maps shows it),
# PID its process and APP that process's program -- never the range or a
# "tgid:0"; the regions merged past the daemon's bound "anon (regions past
# the bound, merged)", and --processes lists each region under its own
# process. A hostile name (ESC, BEL, a raw CSI, and the '_' the daemon
# puts for '/' and '}') is shown escaped.
. "$SRCDIR/tests/lib.sh"
: "${MKSTACKS:?}"
command -v xmllint >/dev/null 2>&1 || skip "xmllint not found (Debian: libxml2-utils)"

build funcs.c node
prog=$tmp/node
P=$(mangle "$prog")
C=$SD/samples/current
EV=CPU_CLOCK.100000.0
U=$C/$P/{dep}/{anon:anon}/4242.0x7f0000000000.0x7f0000001000
N=$C/$P/{dep}/{anon:[anon:v8_jit]}/4242.0x7f0000100000.0x7f0000101000
M=$C/$P/{dep}/{anon:anon}/0.0x0.0x0
bad=$(printf 'E\033]0;t\007\233C_x_')
H=$C/$P/{dep}/{anon:[anon:$bad]}/4244.0x7f0000200000.0x7f0000201000
"$MKSAMPLE" "$(sfile "$prog" "$prog" "$EV.4242.4242.all")" --mtime-of "$prog" \
	"$(symoff "$prog" main 9)=10" || fail mksample
"$MKSAMPLE" "$U/$EV.4242.4242.all" --anon-start 0x7f0000000000 0x10=400 || fail mksample
"$MKSAMPLE" "$N/$EV.4242.4242.all" --anon-start 0x7f0000100000 0x20=300 || fail mksample
"$MKSAMPLE" "$M/$EV.4243.4243.all" 0x30=200 || fail mksample
# pid 4243 in a library too, filed under the library (no --separate=lib):
# its process is still named after its program, which its regions name
$CC -O1 -g -fPIC -shared -o "$tmp/libt.so" "$SRCDIR/tests/lib.c" ||
	fail "cannot build lib.c"
"$MKSAMPLE" "$(sfile "$tmp/libt.so" "$tmp/libt.so" "$EV.4243.4243.all")" \
	--mtime-of "$tmp/libt.so" "$(symoff "$tmp/libt.so" lib_one)=5" || fail mksample
"$MKSAMPLE" "$H/$EV.4244.4244.all" --anon-start 0x7f0000200000 0x40=90 || fail mksample
UI="{anon:anon}/4242.0x7f0000000000.0x7f0000001000"
NI="{anon:[anon:v8_jit]}/4242.0x7f0000100000.0x7f0000101000"
MI="{anon:anon}/0.0x0.0x0"
"$MKSTACKS" "$C" "$EV" \
	"400 4242 0 $P $UI+0x10 $P+$(symoff "$prog" main 9)" \
	"300 4242 0 $P $NI+0x20 $P+$(symoff "$prog" main 9)" \
	"10 4242 0 $P $P+$(symoff "$prog" main 9)" \
	"200 4243 0 $P $MI+0x30" || fail mkstacks
no_range() { # FILE WHAT: no output names a region by its range or tgid 0
	check_no_grep "$1" 'tgid:|range:0x|0x7f0000' "$2: no range, no tgid:"
	check_no_grep "$1" '\(0:' "$2: no process 0"
}

run_report "$tmp/l" -l
check_grep "$tmp/l" '^400 .* anon \(4242:node\) +node +\(no symbols\)$' "-l: the unnamed region is anon (PID:APP)"
check_grep "$tmp/l" '^300 .* \[anon:v8_jit\] \(4242:node\) node +\(no symbols\)$' "-l: the named region is [anon:NAME] (PID:APP)"
check_grep "$tmp/l" ' 200 +97\.5610 +0 .* anon \(regions past the bound, merged\) node ' "-l: the merged regions, pid 4243's class"
check_grep "$tmp/l" ' 90 +100\.0000 \[anon:E\\x1b\]0;t\\x07\\x9bC_x_\] \(4244:node\) ' "-l: a hostile name escaped"
no_range "$tmp/l" "-l"

run_report "$tmp/c" -c
check_grep "$tmp/c" '^  400 .* anon \(4242:node\) .*\[self\]$' "-c: the unnamed region"
check_grep "$tmp/c" '^  300 .* \[anon:v8_jit\] \(4242:node\) .*\[self\]$' "-c: the named region"
no_range "$tmp/c" "-c"

run_report "$tmp/st" --stacks
check_grep "$tmp/st" '^\[anon\] \(anon \(4242:node\)\): 400 samples' "--stacks: the unnamed region"
check_grep "$tmp/st" '^\[anon:v8_jit\] \(\[anon:v8_jit\] \(4242:node\)\): 300 samples' "--stacks: the named region"
check_grep "$tmp/st" '^\[anon\] \(anon \(regions past the bound, merged\)\): 200 samples' "--stacks: the merged regions"
no_range "$tmp/st" "--stacks"

run_report "$tmp/fo" --folded
sort "$tmp/fo" >"$tmp/fo.sorted"
test_cmp - "$tmp/fo.sorted" "--folded: the regions by name under their program" <<'EOT'
node;[anon] 200
node;main 10
node;main;[anon:v8_jit] 300
node;main;[anon] 400
EOT

run_report "$tmp/pr" --processes
check_grep "$tmp/pr" '^ *4242 node  *710 ' "--processes: pid 4242 with both its regions"
check_grep "$tmp/pr" '^ *4243 node  *205 ' "--processes: pid 4243 named after its program (the merged regions'), not its library"
check_grep "$tmp/pr" '^ *4244 node  *90 ' "--processes: pid 4244"
check_grep "$tmp/pr" '^ *400 .*\(no symbols\) .* anon \(4242:node\)$' "--processes: the region named in its process"
no_range "$tmp/pr" "--processes"

run_report "$tmp/x.xml" -X
xmllint --noout --schema "$abs_top_srcdir/doc/opreport.xsd" "$tmp/x.xml" >"$tmp/lint" 2>&1 ||
	{ cat "$tmp/lint"; test_not_ok "-X: valid"; }
check_grep "$tmp/x.xml" '<process pid="4242"' "-X: process 4242"
check_grep "$tmp/x.xml" '<module name="anon \(4242:node\)">' "-X: the unnamed region's module"
check_grep "$tmp/x.xml" '<module name="\[anon:v8_jit\] \(4242:node\)">' "-X: the named region's module"
check_grep "$tmp/x.xml" '<module name="anon \(regions past the bound, merged\)">' "-X: the merged regions' module"
no_range "$tmp/x.xml" "-X"

run_report "$tmp/pp" --pprof="$tmp/prof.pb.gz"
gzip -dc "$tmp/prof.pb.gz" | tr -c '[:print:]' '\n' >"$tmp/pp.strings"
check_grep "$tmp/pp.strings" 'anon \(4242:node\)' "--pprof: a mapping named anon (PID:APP)"
check_grep "$tmp/pp.strings" '\[anon:v8_jit\] \(4242:node\)' "--pprof: a mapping named [anon:NAME] (PID:APP)"
no_range "$tmp/pp.strings" "--pprof"

run_report "$tmp/fl" --flame="$tmp/flame.html"
check_grep "$tmp/flame.html" '"n":"\[anon:v8_jit\]","v":300' "--flame: the named region's frame"
no_range "$tmp/flame.html" "--flame"

# sample file names stay OProfile 1.x's: the range is there
check_eq "$(find "$C" -path '*{anon:anon}/4242.0x7f0000000000.0x7f0000001000/*' -type f | wc -l)" 1 \
	"the sample file keeps the region's range"
test_done
