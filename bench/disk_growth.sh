#!/usr/bin/env bash
# Disk use over time: oprofiled and `perf record -a` record the same
# period at the same rate, side by side, while one CPU-bound worker per
# cpu runs; every STEP seconds print both sizes and their ratio. perf.data
# grows with every sample; sample files grow only with new (binary,
# offset) pairs, so the ratio falls with the length of the run. Needs root.
#   bench/disk_growth.sh BUILD_DIR [RATE_HZ] [SECONDS] [STEP]
set -euo pipefail
build=$(cd "${1:?usage: disk_growth.sh BUILD_DIR [RATE_HZ] [SECONDS] [STEP]}" && pwd)
rate=${2:-10000}
secs=${3:-120}
step=${4:-30}
export OPROFILE_EVENTS_DIR=${OPROFILE_EVENTS_DIR:-$(cd "$(dirname "$0")/../events" && pwd)}
tmp=$(mktemp -d /tmp/op-disk-XXXXXX)
s=$tmp/session
cleanup() {
	"$build/utils/opcontrol" --session-dir="$s" --shutdown >/dev/null 2>&1 || true
	pkill -INT -f "perf record -q -a -F $rate -o $tmp/perf.data" 2>/dev/null || true
	kill "${workers[@]}" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
workers=()
trap cleanup EXIT

"$build/utils/opcontrol" --session-dir="$s" --event="CPU_CLOCK:$((1000000000 / rate))" --start >/dev/null
perf record -q -a -F "$rate" -o "$tmp/perf.data" >/dev/null 2>&1 &
for ((i = 0; i < $(nproc); i++)); do
	(while :; do "$build/bench/cpu_work" 400 >/dev/null; done) &
	workers+=($!)
done

# sample files, stats and session metadata, without the once-per-boot
# kallsyms snapshot (hard-linked from SESSION_DIR/kernel-cache)
op_bytes() {
	find "$s/samples" -type f ! -name kallsyms.gz -printf '%s\n' | awk '{ t += $1 } END { print t + 0 }'
}

printf '%6s %14s %14s %8s\n' seconds oprofiled_B perf_data_B ratio
for ((t = step; t <= secs; t += step)); do
	sleep "$step"
	"$build/utils/opcontrol" --session-dir="$s" --dump >/dev/null
	o=$(op_bytes)
	p=$(stat -c %s "$tmp/perf.data")
	printf '%6d %14d %14d %7.2f%%\n' "$t" "$o" "$p" "$(awk -v o="$o" -v p="$p" 'BEGIN { print 100 * o / p }')"
done
echo "rate ${rate} Hz per cpu; kallsyms snapshot written once per boot:" \
	"$(stat -c %s "$s/kernel-cache/kallsyms.gz") bytes"
