#!/usr/bin/env bash
# The kernel driver's cookie table over a long JIT/fork-churn session:
# runs tests/kernel/scenarios/80-cookies.sh alone in the qemu guest
# (tests/kernel/run.sh) for SECONDS (default 600) instead of CI's 45 s,
# and prints the guest's time series of the driver's cookie count, the
# table's memory and the kmalloc slabs, then the verdict (flat after the
# first minute).
#
# Usage: bench/driver_soak.sh [BUILD [SECONDS]]   (BUILD: a built tree, default build)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bld=$(cd "${1:-$src/build}" && pwd)
secs=${2:-600}
work=${KTEST_DIR:-$bld/tests/kernel/soak}
rc=0
mkdir -p "$(dirname "$work")"
abs_top_srcdir=$src abs_top_builddir=$bld KTEST_DIR=$work KTEST_SCENARIOS=80 \
	KTEST_CMDLINE="ktest_soak=$secs" KTEST_TIMEOUT=$((secs + 300)) \
	bash "$src/tests/kernel/run.sh" >"$work.log" 2>&1 || rc=$?
grep -a -E 'cookies t=|cookies_|kernel test:' "$work.log" | sed 's/^# KTEST-INFO //'
echo "run.sh exit status $rc (log: $work.log, serial: $work/serial.log)"
exit $rc
