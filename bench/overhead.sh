#!/usr/bin/env bash
# Overhead of oprofiled (perf source) against `perf record -a`, measured
# side by side in one run, at 1 kHz and 10 kHz per cpu, on a CPU-bound
# workload (one bench/cpu_work per cpu):
#   slowdown   workload CPU time with the profiler / without (median of reps)
#   own CPU    the profiler's own user+system time over the run
#   disk       bytes the profiler wrote for the run: sample files, stats
#              and session metadata / perf.data. oprofiled's once-per-boot
#              kallsyms snapshot (kept in SESSION_DIR/kernel-cache and
#              hard-linked into each session) is printed separately.
# Both tools use the kernel's same sampling path (cpu-clock), so the
# workload's slowdown can at best match perf's; the difference is in what
# happens after the interrupt. Needs root.
#   bench/overhead.sh BUILD_DIR [ROUNDS] [REPS]
set -euo pipefail
build=$(cd "${1:?usage: overhead.sh BUILD_DIR [ROUNDS] [REPS]}" && pwd)
rounds=${2:-800}
reps=${3:-3}
. "$(dirname "$0")/lib.sh"
bench_setup "$build"
tmp=$(mktemp -d /tmp/op-overhead-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
command -v perf >/dev/null || { echo "overhead: perf not installed (apt-get install linux-perf)" >&2; exit 1; }

# utime+stime of a pid in seconds.
proc_cpu() {
	local hz
	hz=$(getconf CLK_TCK)
	awk -v hz="$hz" '{ print ($14 + $15) / hz }' "/proc/$1/stat"
}

median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

measure_none() { bench_run_work "$tmp" "$rounds"; }

measure_oprofile() {  # $1 = period ns; prints "work own disk"
	local s=$tmp/session w own disk pid
	rm -rf "$s/samples"  # keep kernel-cache: the per-boot snapshot
	"$opcontrol" --session-dir="$s" --event="CPU_CLOCK:$1" --start >/dev/null
	pid=$(cat "$s/lock")
	w=$(bench_run_work "$tmp" "$rounds")
	"$opcontrol" --session-dir="$s" --dump >/dev/null
	own=$(proc_cpu "$pid")
	"$opcontrol" --session-dir="$s" --shutdown >/dev/null
	disk=$(find "$s/samples" -type f ! -name kallsyms.gz -printf '%s\n' |
		awk '{ t += $1 } END { print t + 0 }')
	echo "$w $own $disk"
}

measure_perf() {  # $1 = rate Hz; prints "work own disk"
	local w own
	/usr/bin/time -f "%U %S" -o "$tmp/perf.time" \
		perf record -q -a -F "$1" -o "$tmp/perf.data" >/dev/null 2>&1 &
	local tpid=$!
	sleep 1  # let perf set up its events
	w=$(bench_run_work "$tmp" "$rounds")
	# SIGINT to perf itself (time's child), so time reports perf's whole
	# run, its exit-time processing included.
	pkill -INT -P "$tpid" || true
	wait "$tpid" || true
	own=$(tail -n 1 "$tmp/perf.time" | awk '{ print $1 + $2 }')
	echo "$w $own $(stat -c %s "$tmp/perf.data")"
}

printf '%-6s %-9s %10s %10s %12s\n' rate tool slowdown own_cpu_s disk_bytes
for rate in 1000 10000; do
	period=$((1000000000 / rate))
	: >"$tmp/none"; : >"$tmp/op"; : >"$tmp/perf"
	for ((r = 0; r < reps; r++)); do
		measure_none >>"$tmp/none"
		measure_oprofile "$period" >>"$tmp/op"
		measure_perf "$rate" >>"$tmp/perf"
	done
	base=$(median <"$tmp/none")
	for tool in op perf; do
		w=$(cut -d' ' -f1 "$tmp/$tool" | median)
		own=$(cut -d' ' -f2 "$tmp/$tool" | median)
		disk=$(cut -d' ' -f3 "$tmp/$tool" | median)
		printf '%-6s %-9s %9.2f%% %10.3f %12d\n' "$rate" \
			"$([ $tool = op ] && echo oprofiled || echo perf)" \
			"$(awk -v w="$w" -v b="$base" 'BEGIN { print (w / b - 1) * 100 }')" "$own" "$disk"
	done
done
echo "reps=$reps rounds=$rounds cpus=$ncpu; oprofiled's per-boot kallsyms" \
	"snapshot: $(stat -c %s "$tmp/session/kernel-cache/kallsyms.gz") bytes (written once)"
