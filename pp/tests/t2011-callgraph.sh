#!/bin/sh
# opreport -c on synthetic sessions with {cg} files written byte by byte:
# the exact blocks (callers with their arcs and share of the incoming
# arcs, the symbol's samples, callees with "[self]"), an arc between two
# images, a symbol without samples of its own, recursion; -t, -i, -e, -%,
# image:; kernel arcs from the session's kallsyms, an anonymous callee, a
# --separate=lib session (app name column, -m lib), a rebuilt caller, a
# callgraph file of an event not selected, a session without {cg} files;
# -c -X is OProfile's call-graph XML (validated against doc/opreport.xsd);
# -c with -d or a differential profile is refused.
. "$SRCDIR/tests/lib.sh"

build funcs.c prog
prog=$tmp/prog
$CC -O1 -g -fno-toplevel-reorder -fPIC -shared -o "$tmp/libt.so" \
	"$SRCDIR/tests/lib.c" || fail "cannot build lib.c"
lib=$tmp/libt.so
EV=CPU_CLOCK.100000.0.all.all.all

# cgfile APP CALLER_IMAGE CALLEE_IMAGE [SESSION [TRAILER]]: a {cg} file's path
cgfile() {
	printf '%s/samples/%s/%s/{dep}/%s/{cg}/%s/%s' "$SD" "${4:-current}" \
		"$(mangle "$1")" "$(mangle "$2")" "$(mangle "$3")" "${5:-$EV}"
}
o() { symoff "$@"; }

# the report from the column titles on, against the expected text on stdin
expect_report() {
	sed -n '/^samples /,$p' "$1" >"$tmp/got"
	cat >"$tmp/want"
	diff -u "$tmp/want" "$tmp/got" || { cat "$1"; fail "$2"; }
	test_ok "$2"
}

# --- prog (alpha 600, beta 300, gamma_fn 100, main none) and libt.so
# (lib_one 50). Arcs: main calls alpha, beta and gamma_fn; alpha calls
# itself; beta calls alpha; gamma_fn calls libt.so's lib_one, which calls
# back into beta. Offsets inside the functions, not at their starts.
"$MKSAMPLE" "$(sfile "$prog" "$prog")" --mtime-of "$prog" \
	"$(o $prog alpha)=100" "$(o $prog alpha 4)=500" "$(o $prog beta 2)=300" \
	"$(o $prog gamma_fn)=100" || fail mksample
"$MKSAMPLE" "$(sfile "$lib" "$lib")" --mtime-of "$lib" "$(o $lib lib_one 2)=50" ||
	fail mksample
"$MKSAMPLE" "$(cgfile "$prog" "$prog" "$prog")" --mtime-of "$prog" \
	"$(o $prog main 8):$(o $prog alpha 4)=300" \
	"$(o $prog main 9):$(o $prog alpha 6)=200" \
	"$(o $prog main 12):$(o $prog beta 2)=250" \
	"$(o $prog main 16):$(o $prog gamma_fn)=50" \
	"$(o $prog alpha 10):$(o $prog alpha)=20" \
	"$(o $prog beta 6):$(o $prog alpha 2)=40" || fail mksample
"$MKSAMPLE" "$(cgfile "$prog" "$prog" "$lib")" --mtime-of "$prog" \
	"$(o $prog gamma_fn 4):$(o $lib lib_one 1)=30" || fail mksample
"$MKSAMPLE" "$(cgfile "$lib" "$lib" "$prog")" --mtime-of "$lib" \
	"$(o $lib lib_one 8):$(o $prog beta)=10" || fail mksample

run_report "$tmp/cg" -c
cat "$tmp/cg"
check_grep "$tmp/cg" '^CPU: Software clock' "the usual header"
expect_report "$tmp/cg" "callers, symbol, callees and [self] of each symbol, by samples" <<'EOF'
samples  %        image name               symbol name
-------------------------------------------------------------------------------
  20       3.5714   prog                     alpha
  40       7.1429   prog                     beta
  500      89.2857  prog                     main
600      57.1429  prog                     alpha
  600      96.7742  prog                     alpha [self]
  20       3.2258   prog                     alpha
-------------------------------------------------------------------------------
  10       3.8462   libt.so                  lib_one
  250      96.1538  prog                     main
300      28.5714  prog                     beta
  300      88.2353  prog                     beta [self]
  40       11.7647  prog                     alpha
-------------------------------------------------------------------------------
  50       100.0000 prog                     main
100      9.5238   prog                     gamma_fn
  100      76.9231  prog                     gamma_fn [self]
  30       23.0769  libt.so                  lib_one
-------------------------------------------------------------------------------
  30       100.0000 prog                     gamma_fn
50       4.7619   libt.so                  lib_one
  50       83.3333  libt.so                  lib_one [self]
  10       16.6667  prog                     beta
-------------------------------------------------------------------------------
0        0.0000   prog                     main
  500      62.5000  prog                     alpha
  250      31.2500  prog                     beta
  50       6.2500   prog                     gamma_fn
  0        0.0000   prog                     main [self]
-------------------------------------------------------------------------------
EOF

run_report "$tmp/long" --callgraph -n
check_eq "$(head -1 "$tmp/long" | cut -c1-10)" "----------" "-n: no header; the first line is the dashes"
check_eq "$(sed 1d "$tmp/long")" "$(sed -n '/^----/,$p' "$tmp/cg" | sed 1d)" "--callgraph -n: the same blocks"

run_report "$tmp/t" -c -t 5
expect_report "$tmp/t" "-t 5: blocks, callers and callees under 5 % of their base hidden" <<'EOF'
samples  %        image name               symbol name
-------------------------------------------------------------------------------
  40       7.1429   prog                     beta
  500      89.2857  prog                     main
600      57.1429  prog                     alpha
  600      96.7742  prog                     alpha [self]
-------------------------------------------------------------------------------
  250      96.1538  prog                     main
300      28.5714  prog                     beta
  300      88.2353  prog                     beta [self]
  40       11.7647  prog                     alpha
-------------------------------------------------------------------------------
  50       100.0000 prog                     main
100      9.5238   prog                     gamma_fn
  100      76.9231  prog                     gamma_fn [self]
  30       23.0769  libt.so                  lib_one
-------------------------------------------------------------------------------
EOF

run_report "$tmp/i" -c -i alpha
expect_report "$tmp/i" "-i alpha: its block alone (100 % of what is shown), callers and callees kept; one image" <<'EOF'
samples  %        symbol name
-------------------------------------------------------------------------------
  20       3.5714   alpha
  40       7.1429   beta
  500      89.2857  main
600      100.0000 alpha
  600      96.7742  alpha [self]
  20       3.2258   alpha
-------------------------------------------------------------------------------
EOF

run_report "$tmp/e" -c -e beta,main
check_no_grep "$tmp/e" '^[0-9].* (beta|main)$' "-e beta,main: no block of their own"
check_grep "$tmp/e" '^  40 +7\.1429 +prog +beta$' "-e: beta still listed as alpha's caller"
check_grep "$tmp/e" '^600 +80\.0000 +prog +alpha$' "-e: percentages of what is left (600 of 750)"

run_report "$tmp/g" -c -%
check_grep "$tmp/g" '^  500 +47\.6190 +prog +main$' "-%: a caller's arcs as a share of the profile (500 of 1050)"
check_grep "$tmp/g" '^  600 +57\.1429 +prog +alpha \[self\]$' "-%: [self] as a share of the profile"

run_report "$tmp/w" -c -w -i gamma_fn
va=$(nm "$prog" | awk '$3 == "gamma_fn" {print $1}')
vm=$(nm "$prog" | awk '$3 == "main" {print $1}')
check_grep "$tmp/w" "^  0*$vm +50 +100\.0000 +prog +main\$" "-w: the caller's address, indented"
check_grep "$tmp/w" "^0*$va +100 +100\.0000 +prog +gamma_fn\$" "-w: the symbol's address"

run_report "$tmp/img" -c image:"$lib"
expect_report "$tmp/img" "image:libt.so: the arcs from libt.so's files; beta (no samples selected) only as a callee" <<'EOF'
samples  %        image name               symbol name
-------------------------------------------------------------------------------
50       100.0000 libt.so                  lib_one
  50       83.3333  libt.so                  lib_one [self]
  10       16.6667  prog                     beta
-------------------------------------------------------------------------------
EOF

# --- refused combinations
expect_usage() {
	local re=$1 what=$2
	shift 2
	"$OPREPORT" --session-dir="$SD" "$@" >"$tmp/o" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 2 ] || { cat "$tmp/o" "$tmp/err"; fail "$what: exit $rc, expected 2"; }
	grep -Eq -- "$re" "$tmp/err" || { cat "$tmp/err"; fail "$what: stderr does not match /$re/"; }
	[ ! -s "$tmp/o" ] || fail "$what: something was written to stdout"
	test_ok "$what"
}
run_report "$tmp/cg.xml" -c -X
xmllint --noout --schema "$abs_top_srcdir/doc/opreport.xsd" "$tmp/cg.xml" >"$tmp/lint" 2>&1 ||
	{ cat "$tmp/cg.xml" "$tmp/lint"; fail "-c -X does not validate"; }
test_ok "-c -X validates against doc/opreport.xsd"
# alpha's block, as in the text: callers alpha 20, beta 40, main 500;
# callees alpha itself (self, its 600 samples) and alpha 20
sid() { xmllint --xpath "string(/profile/symboltable/symboldata[@name='$1']/@id)" "$tmp/cg.xml"; }
a=$(sid alpha) b=$(sid beta) m=$(sid main)
blk="/profile/binary/symbol[@idref='$a']"
xp() { xmllint --xpath "$1" "$tmp/cg.xml" 2>/dev/null; }
check_eq "$(xp "string($blk/count)")" "600" "-c -X: alpha's own samples"
check_eq "$(xp "string($blk/callers/symbol[@idref='$m']/count)")|$(xp "string($blk/callers/symbol[@idref='$b']/count)")|$(xp "string($blk/callers/symbol[@idref='$a']/count)")" \
	"500|40|20" "-c -X: alpha's callers main, beta and itself with their arcs"
check_eq "$(xp "string($blk/callees/symbol[@self='true']/@idref)")|$(xp "string($blk/callees/symbol[@self='true']/count)")" \
	"$a|600" "-c -X: alpha's self entry"
check_eq "$(xp "string($blk/callees/symbol[not(@self)]/count)")" "20" "-c -X: alpha's recursive arc as a callee"
expect_usage "--callgraph cannot be shown with --details" "-c -d is refused" -c -d
expect_usage "differential profiles cannot be shown with .*--callgraph" "-c with { } { } is refused" \
	-c { session:current } { session:current }

# --- kernel arcs, symbolised from the session's kallsyms: prog's main
# enters the kernel at start_kernel (an arc between a user image and
# {kern}/vmlinux), do_thing calls schedule inside vmlinux, and an ext4
# function calls into vmlinux (modules are images of their own)
ks=$SD/samples/kern
mkdir -p "$ks/session"
printf '%s\n' \
	'ffffffff81000000 T _text' \
	'ffffffff81000100 T start_kernel' \
	'ffffffff81000400 t do_thing' \
	'ffffffff81001000 T schedule' \
	'ffffffff81003000 T _etext' \
	'ffffffffc0100000 t ext4_read	[ext4]' >"$ks/session/kallsyms"
printf '%s\n' \
	'vmlinux 0xffffffff81000000 0xffffffff81003000' \
	'ext4 0xffffffffc0100000 0xffffffffc0101000' >"$ks/session/kernel_images"
"$MKSAMPLE" "$(sfile "$prog" "$prog" "" kern)" --mtime-of "$prog" "$(o $prog alpha)=10" || fail mksample
"$MKSAMPLE" "$(sfile vmlinux vmlinux "" kern)" --kernel 0x1010=40 0x410=20 || fail mksample
"$MKSAMPLE" "$(cgfile "$prog" "$prog" vmlinux kern)" --mtime-of "$prog" --cg-kernel \
	"$(o $prog main 8):0x120=7" || fail mksample
"$MKSAMPLE" "$(cgfile vmlinux vmlinux vmlinux kern)" --kernel --cg-kernel \
	0x120:0x410=15 0x404:0x1010=25 || fail mksample
"$MKSAMPLE" "$(cgfile ext4 ext4 vmlinux kern)" --kernel --cg-kernel \
	0x10:0x1008=5 || fail mksample
run_report "$tmp/k" -c session:kern
# (blocks without samples: by image path, /tmp/.../prog before ext4)
# (blocks with equal counts: by image base name, as OProfile: ext4, prog, vmlinux)
expect_report "$tmp/k" "kernel arcs: user to kernel, inside vmlinux, module to vmlinux" <<'EOF'
samples  %        image name               symbol name
-------------------------------------------------------------------------------
  5        16.6667  ext4                     ext4_read
  25       83.3333  vmlinux                  do_thing
40       57.1429  vmlinux                  schedule
  40       100.0000 vmlinux                  schedule [self]
-------------------------------------------------------------------------------
  15       100.0000 vmlinux                  start_kernel
20       28.5714  vmlinux                  do_thing
  25       55.5556  vmlinux                  schedule
  20       44.4444  vmlinux                  do_thing [self]
-------------------------------------------------------------------------------
10       14.2857  prog                     alpha
  10       100.0000 prog                     alpha [self]
-------------------------------------------------------------------------------
0        0.0000   ext4                     ext4_read
  5        100.0000 vmlinux                  schedule
  0        0.0000   ext4                     ext4_read [self]
-------------------------------------------------------------------------------
0        0.0000   prog                     main
  7        100.0000 vmlinux                  start_kernel
  0        0.0000   prog                     main [self]
-------------------------------------------------------------------------------
  7        100.0000 prog                     main
0        0.0000   vmlinux                  start_kernel
  15       100.0000 vmlinux                  do_thing
  0        0.0000   vmlinux                  start_kernel [self]
-------------------------------------------------------------------------------
EOF

# --- an anonymous callee (JIT code): no symbols, named by its process and program
an="{anon:anon}/300.0x7f0000000000.0x7f0000010000"
"$MKSAMPLE" "$SD/samples/anon/$(mangle "$prog")/{dep}/$(mangle "$prog")/$EV" --mtime-of "$prog" \
	"$(o $prog beta)=5" || fail mksample
"$MKSAMPLE" "$SD/samples/anon/$(mangle "$prog")/{dep}/$an/$EV" --anon-start 0x7f0000000000 \
	0x40=8 || fail mksample
"$MKSAMPLE" "$SD/samples/anon/$(mangle "$prog")/{dep}/$(mangle "$prog")/{cg}/$an/$EV" --mtime-of "$prog" \
	--cg-anon-start 0x7f0000000000 "$(o $prog beta 3):0x44=6" || fail mksample
run_report "$tmp/an" -c session:anon
cat "$tmp/an"
check_grep "$tmp/an" '^  6 +54\.5455 +anon \(300:prog\) +prog +\(no symbols\)$' \
	"an anonymous callee: (no symbols) of its region, under the process (6 of beta's 5 + 6)"
check_grep "$tmp/an" '^  6 +100\.0000 +prog +prog +beta$' "the anonymous region's caller"

# --- --separate=lib: libraries under their application, an app name
# column; -m lib shows each image once
"$MKSAMPLE" "$(sfile "$prog" "$prog" "" sep)" --mtime-of "$prog" "$(o $prog alpha)=60" || fail mksample
"$MKSAMPLE" "$(sfile "$prog" "$lib" "" sep)" --mtime-of "$lib" "$(o $lib lib_two)=40" || fail mksample
"$MKSAMPLE" "$(cgfile "$prog" "$prog" "$lib" sep)" --mtime-of "$prog" \
	"$(o $prog main 8):$(o $lib lib_two 2)=30" || fail mksample
"$MKSAMPLE" "$(cgfile "$prog" "$lib" "$prog" sep)" --mtime-of "$lib" \
	"$(o $lib lib_two 6):$(o $prog alpha 2)=12" || fail mksample
run_report "$tmp/sep" -c session:sep
expect_report "$tmp/sep" "--separate=lib: libt.so's arcs under prog, app name column" <<'EOF'
samples  %        image name               app name                 symbol name
-------------------------------------------------------------------------------
  12       100.0000 libt.so                  prog                     lib_two
60       60.0000  prog                     prog                     alpha
  60       100.0000 prog                     prog                     alpha [self]
-------------------------------------------------------------------------------
  30       100.0000 prog                     prog                     main
40       40.0000  libt.so                  prog                     lib_two
  40       76.9231  libt.so                  prog                     lib_two [self]
  12       23.0769  prog                     prog                     alpha
-------------------------------------------------------------------------------
0        0.0000   prog                     prog                     main
  30       100.0000 libt.so                  prog                     lib_two
  0        0.0000   prog                     prog                     main [self]
-------------------------------------------------------------------------------
EOF
run_report "$tmp/sepm" -c -m lib session:sep
check_grep "$tmp/sepm" '^  30 +100\.0000 +prog +main$' "-m lib: images alone, no app name column"
check_grep "$tmp/sepm" '^40 +40\.0000 +libt\.so +lib_two$' "-m lib: lib_two once"

# --- a caller rebuilt since it was profiled: its arcs keep their count
# under "(no symbols)"; a {cg} file of an event not selected is left out
"$MKSAMPLE" "$(sfile "$prog" "$prog" "" old)" --mtime-of "$prog" "$(o $prog alpha)=10" || fail mksample
"$MKSAMPLE" "$(cgfile "$prog" "$prog" "$prog" old)" --mtime 12345 \
	"$(o $prog main 8):$(o $prog alpha 4)=9" || fail mksample
"$MKSAMPLE" "$(cgfile "$prog" "$prog" "$prog" old CPU_CLOCK.200000.0.all.all.all)" --mtime-of "$prog" \
	"$(o $prog main 8):$(o $prog alpha 4)=1000" || fail mksample
run_report "$tmp/old" -c session:old event:CPU_CLOCK count:100000
cat "$tmp/old" "$tmp/old.err"
check_grep "$tmp/old.err" "'$prog' has changed since it was profiled: 9 call-graph arcs from it are shown without symbols" \
	"a rebuilt caller: warned"
check_grep "$tmp/old" '^  9 +100\.0000 +\(no symbols\)$' "a rebuilt caller: its arcs from (no symbols)"
run_report "$tmp/old2" -c session:old
cat "$tmp/old2" "$tmp/old2.err"
check_grep "$tmp/old2.err" "1 call-graph files match no selected sample file's event or class and are left out" \
	"a {cg} file of an event with no samples: left out, said"
check_no_grep "$tmp/old2" '^  1000 ' "its arcs are not counted"

# --- a session recorded without --callgraph: the blocks, and a note
"$MKSAMPLE" "$(sfile "$prog" "$prog" "" flat)" --mtime-of "$prog" "$(o $prog alpha)=10" || fail mksample
run_report "$tmp/flat" -c session:flat
cat "$tmp/flat" "$tmp/flat.err"
check_grep "$tmp/flat.err" "no call-graph files in the selection \(0 in the session\).*opcontrol --callgraph=DEPTH" \
	"no {cg} files: said, with the way to record them"
check_grep "$tmp/flat" '^10 +100\.0000 +alpha$' "no {cg} files: each symbol's block all the same"
# every session above as call-graph XML: valid against the schema
for sess in current kern anon sep old; do
	run_report "$tmp/cgx.xml" -c -X session:$sess
	xmllint --noout --schema "$abs_top_srcdir/doc/opreport.xsd" "$tmp/cgx.xml" >"$tmp/lint" 2>&1 ||
		{ cat "$tmp/cgx.xml" "$tmp/lint"; fail "-c -X session:$sess does not validate"; }
	test_ok "-c -X session:$sess validates"
done
test_done
