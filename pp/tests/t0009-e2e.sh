#!/bin/sh
# End to end: opcontrol and oprofiled record a real workload built to
# spend known shares of its CPU time in a main-binary function, a
# shared-library function and the kernel (a dd-style read/write loop), and
# opreport -l shows those three on top with those shares (+-3 percentage
# points). Needs root and perf_event_open (skips with 77 otherwise, as
# tests/control does, with the same probe).
. "$SRCDIR/tests/lib.sh"
: "${TOP_BUILDDIR:?}"
[ "$(id -u)" -eq 0 ] || skip "opcontrol samples system-wide and needs root"
OPCONTROL=$TOP_BUILDDIR/utils/opcontrol
[ -x "$OPCONTROL" ] && [ -x "$TOP_BUILDDIR/daemon/oprofiled" ] ||
	fail "opcontrol or oprofiled not built"
PATH=$TOP_BUILDDIR/daemon:$TOP_BUILDDIR/utils:$PATH
export PATH
S=$SD
ctl() { "$OPCONTROL" --session-dir="$S" "$@"; }
stop_daemon() {
	[ -f "$S/lock" ] && ctl --shutdown >/dev/null 2>&1
	rm -rf "$tmp"
}
trap stop_daemon EXIT

# the control tests' probe: can this process open a system-wide cpu-clock event?
$CC -I"$TOP_BUILDDIR" -o "$tmp/perfprobe" "$TOP_SRCDIR/tests/control/perfprobe.c" ||
	fail "cannot build tests/control/perfprobe.c"
msg=$("$tmp/perfprobe") || skip "$msg"

$CC -O1 -g -fPIC -shared -o "$tmp/libe2e.so" "$SRCDIR/tests/e2e_lib.c" ||
	fail "cannot build e2e_lib.c"
$CC -O1 -g -o "$tmp/e2e_work" "$SRCDIR/tests/e2e_work.c" -L"$tmp" -le2e \
	-Wl,-rpath,"$tmp" || fail "cannot build e2e_work.c"

ctl --event=CPU_CLOCK:200000 --separate=kernel --start >"$tmp/start" 2>&1 ||
	{ cat "$tmp/start"; fail "opcontrol --start failed"; }
cat "$tmp/start"
times=$("$tmp/e2e_work" 0.8 0.6 0.6) || fail "the workload failed"
echo "workload CPU seconds: $times"
ctl --dump || fail "opcontrol --dump failed"
ctl --shutdown || fail "opcontrol --shutdown failed"

# the shares the workload was built to have, from its measured phases
share() { echo "$times" | awk -v k="$1" '{
	for (i = 1; i <= NF; i++) { split($i, a, "="); v[a[1]] = a[2]; t += a[2] }
	printf "%.4f", 100 * v[k] / t }'; }
near() {  # near ACTUAL EXPECTED WHAT
	awk -v a="$1" -v e="$2" 'BEGIN { d = a - e; exit !(d <= 3 && d >= -3) }' ||
		fail "$3: $1% is not within 3 points of $2%"
	ok "$3: $1% (built: $2%)"
}

run_report "$tmp/l" -l image:"$tmp/e2e_work"
head -20 "$tmp/l"
rows() { sed -n '/symbol name$/,$p' "$tmp/l" | sed 1d; }
check_eq "$(rows | sed -n 1p | awk '{print $3, $NF}')" "e2e_work e2e_main_hot" "top: e2e_main_hot in the main binary"
check_eq "$(rows | sed -n 2p | awk '{print $3, $NF}')" "libe2e.so e2e_lib_hot" "second: e2e_lib_hot in libe2e.so"
check_eq "$(rows | sed -n 3p | awk '{print $3, $4}')" "vmlinux e2e_work" "third: a kernel symbol, under e2e_work (--separate=kernel)"
near "$(rows | awk '$NF == "e2e_main_hot" {print $2}')" "$(share main)" "e2e_main_hot share"
near "$(rows | awk '$NF == "e2e_lib_hot" {print $2}')" "$(share lib)" "e2e_lib_hot share"
near "$(rows | awk '$3 == "vmlinux" {s += $2} END {printf "%.4f", s}')" "$(share kernel)" "kernel (vmlinux) share"

run_report "$tmp/sum" image:"$tmp/e2e_work"
cat "$tmp/sum"
for img in e2e_work libe2e.so vmlinux; do
	check_grep "$tmp/sum" "^	 +[0-9]+ +[0-9.]+ $img\$" "summary: $img under the application"
done
done_testing
