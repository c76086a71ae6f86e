# What the benchmarks that run a fixed workload beside the daemon share
# (sourced by overhead.sh, rate_cost.sh and soak.sh):
#   bench_setup BUILD_DIR     sets work, probe, opcontrol, ncpu and
#                             $OPROFILE_EVENTS_DIR (the source tree's)
#   bench_run_work DIR ROUNDS the workers' CPU seconds: one bench/cpu_work
#                             of ROUNDS per cpu, outputs in DIR
#   bench_run_probe DIR SECS  % of the probes' running time in
#                             interrupt-sized gaps: one bench/gap_probe of
#                             SECS per cpu, outputs in DIR
#   bench_ab_pair PID SESSION DIR ROUNDS SECS
#                             one A/B pair under the daemon PID: the work
#                             and the probes paused (SIGUSR2), then
#                             sampling (SIGUSR1); sets bench_a, bench_b
#                             (work CPU s) and bench_ga, bench_gb (irq %)
# and what the scripts that watch a daemon over time share (soak.sh,
# binary_churn.sh), with $out their output directory and $S the session:
#   log MESSAGE...            a timestamped line on stdout and in $out/log
#   bench_start_daemon RATE   a fresh session $S sampling CPU_CLOCK at
#                             RATE Hz; sets dpid
#   daemon_cpu PID            its user + system CPU seconds
#   stat_of NAME              the live session's stats/NAME (0: none yet)

bench_setup() {
	work=$1/bench/cpu_work
	probe=$1/bench/gap_probe
	opcontrol=$1/utils/opcontrol
	ncpu=$(nproc)
	OPROFILE_EVENTS_DIR=${OPROFILE_EVENTS_DIR:-$(cd "$(dirname "$0")/../events" && pwd)}
	export OPROFILE_EVENTS_DIR
}

# Run "$@" once per cpu, the i-th one's output in $1/$2$i; wait for all.
bench_per_cpu() {
	local dir=$1 prefix=$2 i pids=()
	shift 2
	for ((i = 0; i < ncpu; i++)); do
		"$@" >"$dir/$prefix$i" &
		pids+=($!)
	done
	wait "${pids[@]}"
}

bench_run_work() {
	bench_per_cpu "$1" w "$work" "$2"
	cat "$1"/w* | awk '{ t += $1 } END { printf "%.6f\n", t }'
}

bench_run_probe() {
	bench_per_cpu "$1" g "$probe" "$2"
	cat "$1"/g* | awk '{ run += $1 - $5; irq += $3 }
		END { printf "%.4f\n", irq / run * 100 }'
}

# Wait until SESSION's daemon_state file says $2 (sampling / paused).
bench_wait_state() {
	local i
	for ((i = 0; i < 100; i++)); do
		grep -qx "$2" "$1/daemon_state" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "$(basename "$0" .sh): the daemon did not become $2" >&2
	return 1
}

bench_ab_pair() {
	kill -USR2 "$1"
	bench_wait_state "$2" paused || return 1
	bench_a=$(bench_run_work "$3" "$4")
	bench_ga=$(bench_run_probe "$3" "$5")
	kill -USR1 "$1"
	bench_wait_state "$2" sampling || return 1
	bench_b=$(bench_run_work "$3" "$4")
	bench_gb=$(bench_run_probe "$3" "$5")
}

log() { echo "$(date -u +%H:%M:%S) $*" | tee -a "$out/log"; }

bench_start_daemon() {
	rm -rf "$S"
	"$opcontrol" --session-dir="$S" --event="CPU_CLOCK:$((1000000000 / $1))" --start >/dev/null
	dpid=$(cat "$S/lock")
}

daemon_cpu() {
	awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f\n", ($14 + $15) / hz }' "/proc/$1/stat"
}

stat_of() { cat "$S/samples/current/stats/$1" 2>/dev/null || echo 0; }
