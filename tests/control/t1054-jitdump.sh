#!/bin/sh
# JIT code by name and by instruction through jitdump: node --perf-prof
# (no perf map) writes jit-PID.dump into its working directory and maps
# it; the daemon finds it through the mapping and keeps an ELF image of
# the code loads over the sampled regions, session/jit/PID.so. After
# node has exited and its dump is deleted, opreport -l names hotA and
# hotB, opannotate -a disassembles each of their JIT functions with
# instruction counts that sum exactly to its opreport -l row, and
# opannotate -s puts their samples on jit_two.js's lines (the dump's
# line records), more on hotA's than on hotB's.
# Then dumps at /tmp/jit-PID.dump of a JIT-like process
# (workloads/jit_spin): one naming its code under a name with escape
# bytes (shown escaped, its instructions disassembled); hostile ones:
# another user's, a symbolic link, a FIFO, the other byte order, a record
# pointing past the file's end, a 2 GB sparse one: a warning naming the
# file and the record's offset, no image kept, no hang.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

command -v node >/dev/null || skip "no node (Debian package nodejs)"
command -v python3 >/dev/null || skip "no python3"
test_fail_hook() {
	[ -f "$T/pids" ] && while read -r p; do rm -f "/tmp/jit-$p.dump"; done <"$T/pids"
	if [ -f "$S/samples/oprofiled.log" ]; then
		test_note "--- oprofiled.log"
		tail -30 "$S/samples/oprofiled.log" | sed 's/^/# /'
	fi
}
C=$S/samples/current
OPANNOTATE=$B/pp/opannotate
cp "$abs_top_srcdir/tests/control/jit_two.js" "$T/" || fail "cannot copy jit_two.js"
cp "$B/tests/workloads/jit_spin" "$T/" || fail "cannot copy jit_spin"

step "node --perf-prof, two hot functions, 3 s: a jitdump, no perf map"
ctl --separate=none --callgraph=0 --event=CPU_CLOCK:1000000 >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "opcontrol refused the settings"; }
ctl --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
# no inlining: each function's samples are its own code's
# --no-enable-lazy-source-positions: V8 makes a function's source
# positions lazily, and code compiled before they were asked for has no
# line records in the dump (a busy machine's CI run: opannotate -s found
# no line of jit_two.js)
(cd "$T" && exec node --perf-prof --no-enable-lazy-source-positions \
	--no-turbo-inlining jit_two.js 3) >"$T/truth" &
pid=$!
echo "$pid" >>"$T/pids"
wait $pid || fail "node failed"
dump=$T/jit-$pid.dump
[ -f "$dump" ] || fail "node wrote no $dump"
[ ! -e "/tmp/perf-$pid.map" ] || fail "node wrote a perf map too"
saved=$C/session/jit/$pid.so
wait_for test -s "$saved" || fail "no image of node's jitdump kept at its exit in $saved"
rm -f "$dump"
ctl --dump || fail "--dump failed"
ctl --shutdown || fail "--shutdown failed"
echo "session/jit/$pid.so: $(wc -c <"$saved") bytes (node's dump was gone)"
echo "stats: jit_dumps_read $(counter "$C" jit_dumps_read), refused $(counter "$C" jit_dumps_refused)"

"$OPREPORT" --session-dir="$S" -l >"$T/rep" 2>"$T/err" ||
	{ cat "$T/err"; fail "opreport -l failed"; }
grep "anon ($pid" "$T/rep" | grep 'hot[AB]'
grep "anon ($pid" "$T/rep" | grep -q 'JS:\*hotA' &&
	grep "anon ($pid" "$T/rep" | grep -q 'JS:\*hotB' ||
	{ head -20 "$T/rep"; fail "opreport -l does not name hotA and hotB from the dump"; }

"$OPANNOTATE" --session-dir="$S" -a >"$T/ann" 2>"$T/err" ||
	{ cat "$T/err"; fail "opannotate -a failed"; }
# per function of the dump: its header's total and the sum of its
# instruction lines' counts, which must be equal
awk -v img="anon ($pid:" '
	function flush() { if (name != "") print tot, sum, name }
	/ total: / {
		flush(); name = ""
		if (index($0, "[" img) == 0 || $0 !~ /hot[AB]/) next
		name = $0; sub(/.*\/\* /, "", name); sub(/ total:.*/, "", name)
		tot = $0; sub(/.* total: +/, "", tot); sub(/ .*/, "", tot)
		sum = 0; next
	}
	/^ +[0-9]+ +[0-9.]+ +:/ { if (name != "") sum += $1; next }
	END { flush() }' "$T/ann" >"$T/sums"
cat "$T/sums"
[ -s "$T/sums" ] || fail "opannotate -a shows no JIT function of the dump"
awk '$1 != $2 { bad = 1 } END { exit bad }' "$T/sums" ||
	fail "an annotated JIT function's instruction counts do not sum to its total"
grep -A3 'JS:\*hotA.*total:' "$T/ann" | grep -E ':[0-9a-f]+:[[:space:]]+[a-z]' >/dev/null ||
	fail "opannotate -a shows no instruction of hotA"
# and the totals are opreport -l's rows for those functions, exactly
grep "anon ($pid" "$T/rep" | grep 'hot[AB]' | awk '{ print $1 }' | sort -n >"$T/rows"
awk '{ print $1 }' "$T/sums" | sort -n >"$T/tots"
test_cmp "$T/rows" "$T/tots" || fail "opannotate's totals are not opreport -l's rows"
echo "opannotate -a: $(wc -l <"$T/sums") JIT functions, instruction counts summing to their opreport -l rows"

# the dump's line records (node writes them for optimised code): the
# source of jit_two.js with counts in hotA's and hotB's bodies
"$OPANNOTATE" --session-dir="$S" -s >"$T/src" 2>"$T/err" ||
	{ cat "$T/err"; fail "opannotate -s failed"; }
awk -v f="$T/jit_two.js" '
	index($0, "Total samples for file : \"" f "\"") { on = 1; next }
	on && /Total samples for file/ { on = 0 }
	!on { next }
	/:function hotA/ { fn = "A" } /:function hotB/ { fn = "B" }
	/:const seconds/ { fn = "" }
	fn != "" && $1 ~ /^[0-9]+$/ { n[fn] += $1 }
	END { print n["A"] + 0, n["B"] + 0 }' "$T/src" >"$T/lines"
read -r la lb <"$T/lines"
echo "opannotate -s: jit_two.js lines of hotA $la samples, of hotB $lb"
[ "$la" -gt 0 ] && [ "$lb" -gt 0 ] && [ "$la" -gt "$lb" ] ||
	{ grep -A40 "jit_two.js\"" "$T/src" | head -50; cat "$T/err"; fail "opannotate -s does not put hotA's and hotB's samples on their source lines"; }
"$SFCHECK" "$C" || fail "sample files fail the structural check"

step "dumps at /tmp/jit-PID.dump of jit_spin (code in an anonymous region): its own, hostile ones"
ctl --reset >/dev/null 2>&1
ctl --separate=none --callgraph=0 >"$T/out" 2>&1 || { cat "$T/out"; fail "opcontrol refused"; }
ctl --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
# mkdump PID [swap|outside|spin:ADDR]: a one-load jitdump on stdout; spin:
# jit_spin's code at ADDR under a name with escape bytes
cat >"$T/mkdump.py" <<'EOF'
import struct, sys
pid, how = int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else ''
bo = '>' if how == 'swap' else '<'
name, addr, code = b'NOT_SHOWN\0', 0x1000, b'\x90' * 16
if how.startswith('spin:'):
    name = b'spin\x1b]0;pwned\x07loop\0'
    addr = int(how[5:], 16)
    code = bytes([0x48, 0x89, 0xf8, 0x48, 0xff, 0xc8, 0x75, 0xfb, 0xc3])
out = struct.pack(bo + 'IIIIIIQQ', 0x4A695444, 1, 40, 62, 0, pid, 1, 0)
size = 0x7fffffff if how == 'outside' else 56 + len(name) + len(code)
out += struct.pack(bo + 'IIQIIQQQQ', 0, size, 2, pid, pid, addr, addr, len(code), 1)
out += name + code
sys.stdout.buffer.write(out)
EOF
# a dump written while jit_spin runs, for its code's address: read at
# its exit from /tmp (jit_spin maps no dump)
"$T/jit_spin" 2 >"$T/spin.out" &
spid=$!
echo "$spid" >>"$T/pids"
wait_for grep -q 'code at' "$T/spin.out" || fail "jit_spin does not say where its code is"
addr=$(sed -n 's/.*code at //p' "$T/spin.out")
python3 "$T/mkdump.py" "$spid" "spin:$addr" >"/tmp/jit-$spid.dump" || fail "cannot make a dump"
wait $spid || fail "jit_spin failed"
wait_for test -s "$C/session/jit/$spid.so" || fail "no image of jit_spin's dump kept"
rm -f "/tmp/jit-$spid.dump"
hostile() {
	sh -c "$1"' ; exec "$0" 0.3 >/dev/null' "$T/jit_spin" &
	eval "pid_$2=\$!"
	echo "$!" >>"$T/pids"
	wait $! || fail "jit_spin under the $2 dump failed"
}
mk="python3 $T/mkdump.py"
python3 "$T/mkdump.py" 1 >"$T/target.dump" || fail "cannot make a dump"
hostile "$mk"' $$ >/tmp/jit-$$.dump; chown 65534 /tmp/jit-$$.dump' other
hostile 'ln -s '"$T"'/target.dump /tmp/jit-$$.dump' link
hostile 'mkfifo /tmp/jit-$$.dump' fifo
hostile "$mk"' $$ swap >/tmp/jit-$$.dump' swap
hostile "$mk"' $$ outside >/tmp/jit-$$.dump' outside
hostile "$mk"' $$ >/tmp/jit-$$.dump; truncate -s 2G /tmp/jit-$$.dump' huge
ctl --dump || fail "--dump failed (or hung)"
ctl --shutdown || fail "--shutdown failed"
log=$S/samples/oprofiled.log
for w in other link fifo swap outside huge; do rm -f "/tmp/jit-$(eval echo \$pid_$w).dump"; done
"$OPREPORT" --session-dir="$S" -l "image:$T/jit_spin" >"$T/spin" 2>"$T/err" ||
	{ cat "$T/err"; fail "opreport -l failed"; }
grep "anon ($spid" "$T/spin"
grep "anon ($spid" "$T/spin" | grep -qF 'spin\x1b]0;pwned\x07loop' ||
	fail "jit_spin's code not named from its dump, escaped"
! grep -q "$(printf '\033')" "$T/spin" || fail "a raw escape byte in opreport's output"
"$OPANNOTATE" --session-dir="$S" -a "image:$T/jit_spin" >"$T/spin.ann" 2>"$T/err" ||
	{ cat "$T/err"; fail "opannotate -a failed"; }
grep -A6 'spin.*loop.*total:' "$T/spin.ann"
grep -A6 'spin.*loop.*total:' "$T/spin.ann" | grep -q 'dec *%rax' ||
	fail "opannotate -a does not show jit_spin's instructions from its dump"
! grep -q "$(printf '\033')" "$T/spin.ann" || fail "a raw escape byte in opannotate's output"
grep "jit-$pid_other.dump' ignored: owned by uid 65534" "$log" || fail "no warning about another user's dump"
grep "jit-$pid_link.dump.*symbolic link" "$log" || fail "no warning about the link"
grep "jit-$pid_fifo.dump.*not a regular file" "$log" || fail "no warning about the FIFO"
grep "jit-$pid_swap.dump' not read: a jitdump of the other byte order" "$log" ||
	fail "no warning about the byte-swapped dump"
grep "jit-$pid_outside.dump': a record of 2147483647 bytes past the file's end (.*) at offset 40" "$log" ||
	fail "no warning about the record past the file's end"
grep "jit-$pid_huge.dump': a record of 0 bytes, smaller than a record header at offset 122" "$log" ||
	fail "no warning about the huge sparse dump's zeros"
for w in other link fifo swap outside; do
	[ ! -e "$C/session/jit/$(eval echo \$pid_$w).so" ] || fail "an image of the $w dump was kept"
done
"$OPREPORT" --session-dir="$S" -l "image:$T/jit_spin" >"$T/hostile" 2>"$T/err" ||
	{ cat "$T/err"; fail "opreport -l failed"; }
! grep -q NOT_SHOWN "$T/hostile" || fail "a hostile dump named code"
echo "stats: jit_dumps_read $(counter "$C" jit_dumps_read), refused $(counter "$C" jit_dumps_refused)"
[ "$(counter "$C" jit_dumps_refused)" -ge 4 ] || fail "fewer than 4 dumps counted refused"
test_done
