#!/usr/bin/env bash
# The profiled machine's slowdown at a sampling rate (default: the
# continuous default, OP_CONTINUOUS_RATE_HZ = 49 Hz), measured as a
# workload sees it, with a confidence interval:
#   1. bench/slowdown_ab: one thread per cpu does 100 ms units of fixed
#      work while the daemon is switched between paused and sampling
#      before every unit (random order in each pair); the mean log ratio
#      of the units' CPU times over thousands of pairs, with its 95%
#      interval. Timer interrupts and perf samples are charged to the
#      unit they interrupt; the host's steal is not.
#   2. the daemon's own CPU time in a steady phase afterwards (sampling,
#      bench/cpu_work on every cpu for STEADY seconds, no switching: a
#      pause flushes every sample file, so the A/B phase would overstate
#      it), as a share of the machine: it competes with the workload when
#      every cpu is busy.
# The slowdown is 1 + 2; the bound is 1's upper 95% limit + 2.
# Why not two long runs with and without the profiler: a vcpu's speed
# here wanders by 10-25% from second to second, so run-to-run noise is
# tens of times the cost being measured (bench/README.md).
# Needs root and a machine without other heavy load (the units' CPU
# time does not count other tasks, but their wall time does: a loaded
# machine gives few pairs).
#   [STEADY=seconds] bench/slowdown.sh BUILD_DIR [SECONDS] [RATE_HZ] [UNIT_MS]
#   defaults: 600 s, 49 Hz, 100 ms; STEADY 120 s
set -euo pipefail
build=$(cd "${1:?usage: slowdown.sh BUILD_DIR [SECONDS] [RATE_HZ] [UNIT_MS]}" && pwd)
seconds=${2:-600}
rate=${3:-49}      # OP_CONTINUOUS_RATE_HZ (libop/op_session_settings.h)
unit_ms=${4:-100}
steady=${STEADY:-120}
. "$(dirname "$0")/lib.sh"
bench_setup "$build"
tmp=$(mktemp -d /tmp/op-slowdown-XXXXXX)
S=$tmp/s
trap '"$opcontrol" --session-dir="$S" --shutdown >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT

# utime + stime of a process, in seconds
cpu_s() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); print ($12 + $13) / hz }' "/proc/$1/stat"
}

"$opcontrol" --session-dir="$S" --event="CPU_CLOCK:$((1000000000 / rate))" \
	--start >/dev/null
pid=$(cat "$S/lock")
echo "# slowdown: rate=${rate}Hz seconds=$seconds unit_ms=$unit_ms cpus=$ncpu"
echo "# uptime: $(uptime)"
"$build/bench/slowdown_ab" "$pid" "$S/daemon_state" "$seconds" "$unit_ms" | tee "$tmp/ab"
echo "# uptime: $(uptime)"
# the steady phase: fixed work on every cpu, about STEADY seconds
"$opcontrol" --session-dir="$S" --dump >/dev/null
r0=$(cat "$S/samples/current/stats/sample_received")
c0=$(cpu_s "$pid")
t0=$(date +%s.%N)
rounds=$(awk -v s="$steady" 'BEGIN { printf "%d", s * 400 }')   # cpu_work: ~400 rounds a second
bench_run_work "$tmp" "$rounds" >/dev/null
t1=$(date +%s.%N)
c1=$(cpu_s "$pid")
"$opcontrol" --session-dir="$S" --dump >/dev/null
r1=$(cat "$S/samples/current/stats/sample_received")
echo "# uptime: $(uptime)"
awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v n="$ncpu" -v r="$((r1 - r0))" '
	$1 == "units" { for (i = 2; i <= NF; i++) { split($i, kv, "="); u[kv[1]] = kv[2] } }
	$1 == "all" { for (i = 2; i <= NF; i++) { split($i, kv, "="); a[kv[1]] = kv[2] } }
	END {
		d = (c1 - c0) / ((t1 - t0) * n) * 100
		printf "daemon CPU: %.2f s in %.1f s of steady sampling on %d cpus: %.3f%% of the machine (%d samples, %.1f a second)\n",
		       c1 - c0, t1 - t0, n, d, r, r / (t1 - t0)
		printf "slowdown: %.3f%% (units %.3f%% [95%%: %.3f .. %.3f] + daemon %.3f%%); bound %.3f%%\n",
		       a["slowdown_pct"] + d, a["slowdown_pct"], a["ci95_low"], a["ci95_high"], d,
		       a["ci95_high"] + d
	}' "$tmp/ab"
