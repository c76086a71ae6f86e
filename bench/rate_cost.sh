#!/usr/bin/env bash
# What a sampling rate costs the profiled machine: oprofiled (perf source,
# cpu-clock on every cpu) at a few rates, on a fixed CPU-bound workload
# (one bench/cpu_work per cpu: fixed work, so a profiler's cost shows as
# extra CPU time of the workload, the timer interrupt's included).
#
# A/B side by side: for each rate one daemon runs, and the workload runs
# alternately with sampling paused (SIGUSR2: the perf events disabled, no
# timer) and sampling (SIGUSR1), PAIRS times; each pair gives
#   slowdown  workload CPU time sampling / paused  - 1
#   irq       bench/gap_probe (one per cpu, GAP seconds, after the
#             workload in the same state): the share of its running time
#             taken by interrupt-sized gaps, sampling minus paused. This
#             is the timer interrupt's cost measured from inside the
#             profiled program, and is not drowned in the CPU-time noise
#             of a loaded VM (other tasks and the host show as long gaps,
#             which it leaves out)
# and per rate the median, quartiles and mean of the pairs are printed.
# The rates' order is rotated every repetition so that a drift in the
# machine's load does not land on one rate. The least-squares line
# through every pair (slowdown against rate) gives the cost of one sample
# per cpu per second: at low rates the noise of a shared machine is larger
# than the cost itself, the line is what high rates measure for them.
# Needs root.
#   [GAP=seconds] bench/rate_cost.sh BUILD_DIR [ROUNDS] [REPS] [PAIRS] [RATES...]
#   defaults: 200 rounds (~0.5 s per cpu), 6 reps of 4 pairs each,
#             4000 1000 250 100 49 19 Hz
set -euo pipefail
build=$(cd "${1:?usage: rate_cost.sh BUILD_DIR [ROUNDS] [REPS] [PAIRS] [RATES...]}" && pwd)
rounds=${2:-200}
reps=${3:-6}
pairs=${4:-4}
shift $(($# < 4 ? $# : 4))
rates=("$@")
((${#rates[@]})) || rates=(4000 1000 250 100 49 19)
gap=${GAP:-1}
. "$(dirname "$0")/lib.sh"
bench_setup "$build"
tmp=$(mktemp -d /tmp/op-rate-cost-XXXXXX)
trap '"$opcontrol" --session-dir="$tmp/s" --shutdown >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT

# PAIRS A/B pairs under one daemon at $1 Hz; lines "rate slowdown%".
run_rate() {
	local s=$tmp/s rate=$1 pid p
	rm -rf "$s/samples"     # keep kernel-cache: the per-boot snapshot
	"$opcontrol" --session-dir="$s" --event="CPU_CLOCK:$((1000000000 / rate))" \
		--start >/dev/null
	pid=$(cat "$s/lock")
	for ((p = 0; p < pairs; p++)); do
		bench_ab_pair "$pid" "$s" "$tmp" "$rounds" "$gap"
		awk -v r="$rate" -v a="$bench_a" -v b="$bench_b" \
			-v ga="$bench_ga" -v gb="$bench_gb" \
			'BEGIN { printf "%d %.3f %.4f %.3f %.3f %.4f %.4f\n", r,
				 (b / a - 1) * 100, gb - ga, a, b, ga, gb }'
	done
	"$opcontrol" --session-dir="$s" --shutdown >/dev/null
}

echo "# rate_cost: cpus=$ncpu rounds=$rounds reps=$reps pairs=$pairs rates=${rates[*]}"
echo "# uptime: $(uptime)"
echo "# rate slowdown_% irq_% paused_s sampling_s paused_irq_% sampling_irq_%"
for ((r = 0; r < reps; r++)); do
	for ((k = 0; k < ${#rates[@]}; k++)); do
		run_rate "${rates[$(((k + r) % ${#rates[@]}))]}" | tee -a "$tmp/pairs"
	done
	echo "# uptime: $(uptime)"
done
echo
for col in 2 3; do
	[ $col = 2 ] && what="workload CPU time slowdown" || what="interrupt time (gap_probe)"
	echo "$what, sampling vs paused:"
	printf '%-6s %9s %9s %9s %9s %5s\n' rate median_% q1_% q3_% mean_% pairs
	for rate in "${rates[@]}"; do
		awk -v r="$rate" -v c=$col '$1 == r { print $c }' "$tmp/pairs" | sort -g |
		awk -v r="$rate" '
			{ a[NR] = $1; s += $1 }
			END {
				m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
				printf "%-6d %9.3f %9.3f %9.3f %9.3f %5d\n", r, m,
				       a[int((NR + 3) / 4)], a[int((3 * NR + 3) / 4)], s / NR, NR
			}'
	done
	# least squares: cost% = c0 + c1 * rate
	awk -v c=$col '{ n++; sx += $1; sy += $c; sxx += $1 * $1; sxy += $1 * $c }
		END {
			c1 = (n * sxy - sx * sy) / (n * sxx - sx * sx)
			c0 = (sy - c1 * sx) / n
			printf "fit: %.3f%% + %.4f%% per 100 Hz (%.2f us per sample); 0.5%% at %.0f Hz\n\n",
			       c0, c1 * 100, c1 / 100 * 1e6, (c1 > 0 ? (0.5 - c0) / c1 : -1)
		}' "$tmp/pairs"
done
