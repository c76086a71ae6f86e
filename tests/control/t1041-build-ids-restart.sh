#!/bin/sh
# The session's build-ids survive a daemon restart: a
# program sampled, the daemon shut down and started again on the same
# session (no --reset), another program sampled. session/build-ids lists
# both programs with the ids readelf gives, each line once, and opreport
# shows the samples of both. Then the daemon is killed (-9) and its
# build-ids cut in the middle of its last line, as a torn append leaves
# it: the next start warns naming the file and the line, keeps every line
# before it, and both programs sampled again are listed once. A reset
# (no daemon running) leaves nothing of them for the next start.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

command -v cc >/dev/null || skip "no C compiler to build the workloads"
command -v readelf >/dev/null || skip "no readelf"
C=$S/samples/current
IDS=$C/session/build-ids
P1=$T/prog1
P2=$T/prog2
# compile NAME: a program that spins in NAME_loop for argv[1] s of CPU time
compile() {
	cat >"$T/$1.c" <<EOF
#include <stdlib.h>
#include <time.h>
static volatile unsigned long n;
__attribute__((noinline)) static void $1_loop(void)
{
	for (int i = 0; i < 100000; i++)
		n++;
}
int main(int argc, char **argv)
{
	clock_t end = clock() + atof(argc > 1 ? argv[1] : "0.3") * CLOCKS_PER_SEC;

	while (clock() < end)
		$1_loop();
	return 0;
}
EOF
	cc -O1 -g -Wl,--build-id -o "$T/$1" "$T/$1.c" || bail "cannot compile $1"
}
# listed_once ID PATH: build-ids has the line "ID MTIME PATH" exactly once
listed_once() {
	n=$(grep -c "^$1 [0-9]* $2\$" "$IDS")
	[ "$n" -eq 1 ] || { cat "$IDS"; fail "build-ids lists $2 ($1) $n times, want once"; }
	test_ok "build-ids lists $(basename "$2") once with its build-id $1"
}
no_duplicates() {
	d=$(sort "$IDS" | uniq -d)
	[ -z "$d" ] || fail "lines listed twice in build-ids: $d"
	test_ok "no line of build-ids twice ($(wc -l <"$IDS") lines)"
}
# samples_of PROG: the samples opreport gives PROG's image
samples_of() {
	"$OPREPORT" --session-dir="$S" image:"$1" >"$T/rep" 2>&1 ||
		{ cat "$T/rep"; fail "opreport image:$1 failed"; }
	awk -v img="$(basename "$1")" '$NF == img || $3 == img { n += $1 }
		END { print n + 0 }' "$T/rep"
}

compile prog1
compile prog2
id1=$(build_id_of "$P1")
id2=$(build_id_of "$P2")
[ -n "$id1" ] && [ -n "$id2" ] && [ "$id1" != "$id2" ] ||
	fail "the workloads have no distinct build-ids ('$id1', '$id2')"

step "prog1 sampled, the daemon shut down and started again, prog2 sampled"
ctl --separate=none --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
"$P1" 0.4 || fail "prog1 failed"
ctl --dump || fail "--dump failed"
listed_once "$id1" "$P1"
ctl --shutdown || fail "--shutdown failed"
ctl --start >"$T/out" 2>&1 || { cat "$T/out"; fail "the second --start failed"; }
"$P2" 0.4 || fail "prog2 failed"
ctl --dump || fail "--dump failed"
listed_once "$id1" "$P1"
listed_once "$id2" "$P2"
no_duplicates
segs=$C/session/segments
grep -q "^$id1 0x" "$segs" && grep -q "^$id2 0x" "$segs" ||
	{ cat "$segs"; fail "session/segments lacks the segments of prog1 or prog2"; }
[ -z "$(sort "$segs" | uniq -d)" ] || fail "lines listed twice in segments"
test_ok "segments keeps prog1's segments and has prog2's, each line once"
n1=$(samples_of "$P1")
n2=$(samples_of "$P2")
echo "opreport: prog1 $n1 samples, prog2 $n2 (0.4 s of CPU each, 1 per ms)"
[ "$n1" -ge 200 ] || fail "opreport shows $n1 samples of prog1 (sampled before the restart)"
[ "$n2" -ge 200 ] || fail "opreport shows $n2 samples of prog2"
test_ok "opreport shows both programs' samples"

step "kill -9, build-ids torn in its last line, started again"
pid=$(cat "$S/lock")
kill -KILL "$pid"
wait_gone "$pid" || fail "daemon survived kill -9"
lines=$(wc -l <"$IDS")
[ "$lines" -ge 2 ] || fail "only $lines lines in build-ids"
head -n $((lines - 1)) "$IDS" >"$T/good"
last=$(tail -n 1 "$IDS")
cp "$T/good" "$IDS"
printf %s "$(printf %s "$last" | head -c $((${#last} / 2)))" >>"$IDS"
echo "torn line $lines: '$(tail -c 40 "$IDS")'"
ctl --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start after kill -9 failed"; }
cat "$T/out"
# said at the start: to the starting terminal (the daemon's stderr then)
grep -F "'$IDS' line $lines: cut short" "$T/out" "$S/samples/oprofiled.log" ||
	fail "no warning naming '$IDS' line $lines at the start"
test_ok "the start warns naming the file and the torn line"
missing=$(grep -Fxvf "$IDS" "$T/good")
[ -z "$missing" ] || fail "lines lost at the start: $missing"
test_ok "every line before the torn one kept"
"$P1" 0.05 || fail "prog1 failed"
"$P2" 0.05 || fail "prog2 failed"
ctl --dump || fail "--dump failed"
listed_once "$id1" "$P1"
listed_once "$id2" "$P2"
no_duplicates
ctl --shutdown || fail "--shutdown failed"

step "--reset with no daemon, started again: nothing kept"
ctl --reset || fail "--reset failed"
ctl --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start after --reset failed"; }
ctl --dump || fail "--dump failed"
! grep -q " $P1\$" "$IDS" && ! grep -q " $P2\$" "$IDS" ||
	{ cat "$IDS"; fail "build-ids lists a program sampled before the reset"; }
test_ok "a reset session lists no build sampled before"
ctl --shutdown || fail "--shutdown failed"
test_done
