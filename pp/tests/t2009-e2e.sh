#!/bin/sh
# End to end: opcontrol and oprofiled record a real workload built to
# spend known shares of its CPU time in a main-binary function, a
# shared-library function and the kernel (a dd-style read/write loop), and
# opreport -l shows those three on top with those shares (+-3 percentage
# points). Needs root and perf_event_open (skips with 77 otherwise, as
# tests/control does, with the same probe).
. "$SRCDIR/tests/lib.sh"
: "${abs_top_builddir:?}"
live_session


# the README demo's workload (utils/demo/), built to have known shares
$CC -O1 -g -fPIC -shared -o "$tmp/libdemo.so" "$abs_top_srcdir/utils/demo/libdemo.c" ||
	fail "cannot build libdemo.c"
$CC -O1 -g -o "$tmp/demo_work" "$abs_top_srcdir/utils/demo/demo_work.c" -L"$tmp" -ldemo \
	-Wl,-rpath,"$tmp" || fail "cannot build demo_work.c"

ctl_start --event=CPU_CLOCK:200000 --separate=kernel
cat "$tmp/start"
times=$("$tmp/demo_work" 0.8 0.6 0.6) || fail "the workload failed"
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
	test_ok "$3: $1% (built: $2%)"
}

run_report "$tmp/l" -l image:"$tmp/demo_work"
head -20 "$tmp/l"
rows() { sed -n '/symbol name$/,$p' "$tmp/l" | sed 1d; }
check_eq "$(rows | sed -n 1p | awk '{print $3, $NF}')" "demo_work demo_main_hot" "top: demo_main_hot in the main binary"
check_eq "$(rows | sed -n 2p | awk '{print $3, $NF}')" "libdemo.so demo_lib_hot" "second: demo_lib_hot in libdemo.so"
check_eq "$(rows | sed -n 3p | awk '{print $3, $4}')" "vmlinux demo_work" "third: a kernel symbol, under demo_work (--separate=kernel)"
near "$(rows | awk '$NF == "demo_main_hot" {print $2}')" "$(share main)" "demo_main_hot share"
near "$(rows | awk '$NF == "demo_lib_hot" {print $2}')" "$(share lib)" "demo_lib_hot share"
near "$(rows | awk '$3 == "vmlinux" {s += $2} END {printf "%.4f", s}')" "$(share kernel)" "kernel (vmlinux) share"

run_report "$tmp/sum" image:"$tmp/demo_work"
cat "$tmp/sum"
for img in demo_work libdemo.so vmlinux; do
	check_grep "$tmp/sum" "^	 +[0-9]+ +[0-9.]+ $img\$" "summary: $img under the application"
done
test_done
