#!/usr/bin/env bash
# A soak at the continuous default: oprofiled samples the whole machine for
# DURATION seconds while a changing workload runs, and every INTERVAL
# seconds the script records what the profiler costs and holds:
#   slowdown   a fixed bench/cpu_work run per cpu with sampling paused
#              (SIGUSR2: no timer) then sampling (SIGUSR1), A/B alternated:
#              the workload's CPU time, sampling / paused - 1
#   irq        bench/gap_probe in the same two states: the share of a
#              running program's time taken by interrupt-sized gaps,
#              sampling minus paused (the timer's cost, measured from
#              inside; not drowned in a loaded VM's CPU-time noise)
#   the daemon's CPU seconds, RSS, open files; the session's bytes on
#   disk and sample files; the decoder's definitions held; the load
# The workload: fork/exec churn (short gap_probe runs, which live in
# clock_gettime, i.e. in the [vdso]; jit_spin, code in an anonymous
# region, when the tests are built; true; sh -c), share_work processes
# of 20-60 s each (share_one takes 1% of their CPU: they measure it and
# print it), and every other interval a burst of gzip/sort/sha256sum.
# At the end: opreport -l image:share_work, share_one's share against
# the share the processes measured, and that error in binomial standard
# errors sqrt(p(1-p)/n).
#   bench/soak.sh BUILD_DIR [DURATION] [INTERVAL] [RATE_HZ]
#   defaults: 3600 s, 60 s, the continuous default rate (49 Hz)
# Results go to bench/out/soak-DATE/ (log, samples.tsv, the session).
set -euo pipefail
build=$(cd "${1:?usage: soak.sh BUILD_DIR [DURATION] [INTERVAL] [RATE_HZ]}" && pwd)
duration=${2:-3600}
interval=${3:-60}
rate=${4:-49}      # OP_CONTINUOUS_RATE_HZ (libop/op_session_settings.h)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bench_setup "$build"
opreport=$build/pp/opreport
share=$build/bench/share_work
jit=$build/tests/workloads/jit_spin    # JIT code: an anonymous region each
out=${OUT:-$here/out/soak-$(date -u +%Y%m%dT%H%M%S)}
mkdir -p "$out"
S=$out/session
stop=$out/stop
pids=()
cleanup() {
	touch "$stop"
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	"$opcontrol" --session-dir="$S" --shutdown >/dev/null 2>&1 || true
}
trap cleanup EXIT

# --- the workload ----------------------------------------------------------

churn() {
	while [ ! -e "$stop" ]; do
		"$probe" 0.02 >/dev/null
		[ ! -x "$jit" ] || "$jit" 0.02 >/dev/null
		/bin/true
		sh -c ':'
		sleep 0.1
	done
}

shares() {
	while [ ! -e "$stop" ]; do
		"$share" $((20 + RANDOM % 41)) >>"$out/share.txt"
	done
}

bursts() {
	local data=$out/burst.data i=0
	head -c 8000000 /dev/urandom >"$data"
	while [ ! -e "$stop" ]; do
		if ((i++ % 2)); then
			gzip -c "$data" >/dev/null
			sha256sum "$data" >/dev/null
			od -An -tx1 "$data" | head -c 4000000 | sort >/dev/null
		fi
		sleep "$interval"
	done
	rm -f "$data"
}

# --- the run ---------------------------------------------------------------

bench_start_daemon "$rate"
log "soak: rate=${rate} Hz duration=${duration}s interval=${interval}s cpus=$ncpu daemon pid $dpid"
log "uptime: $(uptime)"
churn & pids+=($!)
shares & pids+=($!)
bursts & pids+=($!)

printf '%s\n' "t_s load1 slowdown_% irq_% daemon_cpu_s rss_kb fds disk_bytes sample_files workload_files decoder_cookies anon_dirs samples_received" >"$out/samples.tsv"
t0=$(date +%s)
while :; do
	sleep "$interval"
	t=$(($(date +%s) - t0))
	bench_ab_pair "$dpid" "$S" "$out" 100 1 ||
		{ log "the daemon did not pause or resume"; exit 1; }
	"$opcontrol" --session-dir="$S" --dump >/dev/null
	row=$(printf '%s %s %s %s %s %s %s %s %s %s %s %s %s' "$t" \
		"$(cut -d' ' -f1 /proc/loadavg)" \
		"$(awk -v a="$bench_a" -v b="$bench_b" 'BEGIN { printf "%.3f", (b / a - 1) * 100 }')" \
		"$(awk -v a="$bench_ga" -v b="$bench_gb" 'BEGIN { printf "%.4f", b - a }')" \
		"$(daemon_cpu "$dpid")" \
		"$(awk '/^VmRSS/ { print $2 }' "/proc/$dpid/status")" \
		"$(ls "/proc/$dpid/fd" | wc -l)" \
		"$(du -sb "$S/samples" | cut -f1)" \
		"$(find "$S/samples/current" -path "$S/samples/current/{*" -type f | wc -l)" \
		"$(find "$S/samples/current/{root}$build" -type f 2>/dev/null | wc -l)" \
		"$(stat_of decoder_cookies)" \
		"$(find "$S/samples/current" -name '{anon:*' | wc -l)" \
		"$(stat_of sample_received)")
	echo "$row" >>"$out/samples.tsv"
	log "$row"
	[ "$t" -ge "$duration" ] && break
done
log "uptime: $(uptime)"
touch "$stop"
for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
pids=()
"$opcontrol" --session-dir="$S" --dump >/dev/null

# --- the summary -----------------------------------------------------------

"$opreport" --session-dir="$S" -l image:"$share" >"$out/share.report" 2>&1 || true
{
echo "== soak summary: rate ${rate} Hz, $(awk 'END { print $1 }' "$out/samples.tsv") s, $ncpu cpus"
awk 'NR > 1 { print $3 }' "$out/samples.tsv" | sort -g | awk '
	{ a[NR] = $1 } END { printf "workload slowdown (cpu_work CPU time, sampling/paused): median %.2f%% (quartiles %.2f%% .. %.2f%%, %d pairs)\n",
		a[int((NR + 1) / 2)], a[int((NR + 3) / 4)], a[int((3 * NR + 3) / 4)], NR }'
awk 'NR > 1 { print $4 }' "$out/samples.tsv" | sort -g | awk '
	{ a[NR] = $1; s += $1 } END { printf "interrupt time added (gap_probe, sampling - paused): median %.3f%% mean %.3f%% (quartiles %.3f%% .. %.3f%%)\n",
		a[int((NR + 1) / 2)], s / NR, a[int((NR + 3) / 4)], a[int((3 * NR + 3) / 4)] }'
awk 'NR == 2 { t1 = $1; c1 = $5; r1 = $6; f1 = $7; d1 = $8; n1 = $9; w1 = $10; k1 = $11 }
	NR > 2 { t2 = $1; c2 = $5; r2 = $6; f2 = $7; d2 = $8; n2 = $9; w2 = $10; k2 = $11; l += $2; nl++ }
	END {
		h = (t2 - t1) / 3600
		printf "daemon CPU: %.1f s per hour (%.2f s first interval .. %.2f s last)\n", (c2 - c1) / h, c1, c2
		printf "daemon RSS: %d kB after the first interval, %d kB at the end\n", r1, r2
		printf "daemon open files: %d .. %d\n", f1, f2
		printf "disk: %.0f bytes per hour (%d .. %d bytes); sample files %d .. %d, of the soak workload %d .. %d\n", (d2 - d1) / h, d1, d2, n1, n2, w1, w2
		printf "decoder definitions held: %d .. %d\n", k1, k2
		printf "mean load average (1 min) over the run: %.2f\n", l / nl
	}' "$out/samples.tsv"
awk '{ one += $1; rest += $2 } END { printf "share_one measured by share_work itself: %.4f%% (%d processes)\n", one / (one + rest) * 100, NR }' "$out/share.txt"
} | tee -a "$out/log"
truth=$(awk '{ one += $1; rest += $2 } END { print one / (one + rest) }' "$out/share.txt")
awk -v truth="$truth" '
	$NF == "share_one" { one = $1 } $NF == "share_rest" { rest = $1 }
	END {
		n = one + rest; p = n ? one / n : 0
		se = sqrt(truth * (1 - truth) / n)
		printf "share_one in the profile: %d of %d samples = %.4f%%; truth %.4f%%; error %.4f%% = %.2f binomial std errors (%.4f%%)\n",
		       one, n, p * 100, truth * 100, (p - truth) * 100, se ? (p - truth) / se : 0, se * 100
	}' "$out/share.report" | tee -a "$out/log"
