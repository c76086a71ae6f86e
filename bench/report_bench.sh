#!/usr/bin/env bash
# opreport -l against perf report on the same system-wide period, measured
# side by side in one run. Target: opreport / perf report <= 1/4.
#
# 1. Record: opcontrol (CPU_CLOCK every PERIOD ns) and
#    `perf record -a -e cpu-clock -c PERIOD` (the same clock and period)
#    run at once for DURATION seconds while a mixed workload keeps both
#    cpus busy: loops of gzip, sha256sum, sort, find, dd and a CPU-bound C
#    loop (bench/cpu_work), so there are many short processes, libraries
#    and kernel time.
# 2. Report: `opreport -l` and
#    `perf report --stdio --no-children --sort=dso,sym -n` (a flat symbol
#    summary sorted by samples, with a samples column: no callchains, no
#    children, no per-command split, as opreport -l of an unseparated
#    session), each once untimed (warm
#    caches), then REPS timed runs each, alternating; both write their
#    report to a file.
# 3. Print the medians of CPU (user+sys) and wall time, the ratios
#    opreport / perf report, the samples each tool recorded and the session
#    sizes (sample files vs perf.data).
#
#   bench/report_bench.sh BUILD_DIR [DURATION] [REPS]
#     DURATION  seconds to record (default 600: a 10-minute session)
#     REPS      timed runs of each report (default 5)
#   Environment: PERIOD (ns, default 1000000 = 1 kHz per cpu), KEEP=1 keeps
#   the work directory (printed at the end), TMPDIR where it goes,
#   REUSE=DIR times the reports of a kept work directory again (no
#   recording; DURATION and PERIOD are then those of that run).
# STACKS=1: whole stacks instead. opcontrol --callgraph=DEPTH
#   (default 64) against perf record --call-graph dwarf, and
#   `opreport --stacks --stacks-limit=0` (every path and every symbol's
#   paths) against `perf report --stdio --no-children --sort=comm,sym
#   -g caller -n` (each symbol's call chains, unwound from the stack
#   copies); target opreport --stacks / perf report <= 1/20. perf.data
#   then grows by about 8 KB a sample: DURATION=60 is ~1 GB at 1 kHz.
# Needs root (system-wide sampling) and perf (apt-get install linux-perf).
set -euo pipefail
build=$(cd "${1:?usage: report_bench.sh BUILD_DIR [DURATION] [REPS]}" && pwd)
duration=${2:-${DURATION:-600}}
reps=${3:-${REPS:-5}}
period=${PERIOD:-1000000}
stacks=${STACKS:-0}
op_rec=() perf_rec=() target=0.25 op_what="opreport -l"
if [ "$stacks" = 1 ]; then
	# -B: perf 6.1's build-id pass aborts on dwarf records with -N alone
	op_rec=(--callgraph="${DEPTH:-64}") perf_rec=(--call-graph dwarf -B)
	target=0.05 op_what="opreport --stacks"
fi
src=$(cd "$(dirname "$0")/.." && pwd)
opcontrol=$build/utils/opcontrol
opreport=$build/pp/opreport
cpu_work=$build/bench/cpu_work
export OPROFILE_EVENTS_DIR=${OPROFILE_EVENTS_DIR:-$src/events}

[ "$(id -u)" -eq 0 ] || { echo "report_bench: needs root (system-wide sampling)" >&2; exit 1; }
command -v perf >/dev/null || { echo "report_bench: perf not installed (apt-get install linux-perf)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "report_bench: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
for f in "$opcontrol" "$opreport" "$cpu_work"; do
	[ -x "$f" ] || { echo "report_bench: $f not built (make -C $build)" >&2; exit 1; }
done

if [ -n "${REUSE:-}" ]; then
	tmp=$(cd "$REUSE" && pwd)
	KEEP=1
else
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/op-report-bench-XXXXXX")
fi
sess=$tmp/session
loops=()
cleanup() {
	local p
	for p in "${loops[@]}"; do kill "$p" 2>/dev/null || true; done
	[ -n "${REUSE:-}" ] || "$opcontrol" --session-dir="$sess" --shutdown >/dev/null 2>&1 || true
	if [ "${KEEP:-0}" = 1 ]; then echo "report_bench: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

# --- the mixed workload and the recording (skipped with REUSE) ------------
record() {
	# Inputs made once: 16 MB of binaries to compress and hash, a file list
	# to sort.
	tar -cf - /usr/lib/x86_64-linux-gnu 2>/dev/null | head -c 16M >"$tmp/data" || true
	find /usr -xdev 2>/dev/null | head -n 300000 >"$tmp/names" || true

	# loop NAME COMMAND...: run COMMAND again and again until the deadline.
	loop() {
		local name=$1
		shift
		while [ "$(date +%s)" -lt "$deadline" ]; do
			"$@" >/dev/null 2>&1 || true
		done &
		loops+=($!)
	}
	w_gzip() { gzip -6 -c "$tmp/data"; }
	w_sha() { sha256sum "$tmp/data"; }
	w_sort() { sort -r "$tmp/names"; }
	w_find() { find /usr/share /usr/include -xdev -name '*.h'; }
	w_dd() { dd if=/dev/zero of=/dev/null bs=64k count=20000; }
	w_cpu() { "$cpu_work" 100; }

	echo "report_bench: recording ${duration}s, CPU_CLOCK every ${period} ns, with oprofiled and perf record at once"
	# The same period for both: the daemon starts paused and empty, and perf
	# record runs the command that resumes it, sleeps and pauses it again.
	"$opcontrol" --session-dir="$sess" --event="CPU_CLOCK:$period" "${op_rec[@]}" --start >/dev/null
	"$opcontrol" --session-dir="$sess" --stop --reset >/dev/null
	deadline=$(($(date +%s) + duration + 10))
	loop gzip w_gzip
	loop sha w_sha
	loop sort w_sort
	loop find w_find
	loop dd w_dd
	loop cpu w_cpu
	# -N: no copies of the binaries in ~/.debug.
	# --buildid-mmap: oprofiled's events ask for build-ids, and the
	# mapping records perf then gets carry the flag (perf 6.1 aborts
	# reading them unless it asked too)
	perf record -q -a --buildid-mmap -e cpu-clock -c "$period" "${perf_rec[@]}" -N -o "$tmp/perf.data" -- \
		bash -c '"$1" --session-dir="$2" --start && sleep "$3" && "$1" --session-dir="$2" --stop' \
		_ "$opcontrol" "$sess" "$duration" >"$tmp/perf-record.log" 2>&1 ||
		{ cat "$tmp/perf-record.log"; echo "report_bench: recording failed" >&2; exit 1; }
	"$opcontrol" --session-dir="$sess" --dump >/dev/null
	"$opcontrol" --session-dir="$sess" --shutdown >/dev/null
	for p in "${loops[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	loops=()
}
if [ -n "${REUSE:-}" ]; then
	echo "report_bench: the reports of $tmp again (REUSE)"
else
	record
fi

# --- the reports ------------------------------------------------------------
op_cmd=("$opreport" --session-dir="$sess" -l -o "$tmp/op.out")
perf_cmd=(perf report -i "$tmp/perf.data" --stdio --no-children --sort=dso,sym -n)
if [ "$stacks" = 1 ]; then
	op_cmd=("$opreport" --session-dir="$sess" --stacks --stacks-limit=0 -o "$tmp/op.out")
	perf_cmd=(perf report -i "$tmp/perf.data" --stdio --no-children --sort=comm,sym -g caller -n)
fi
op_report() { "${op_cmd[@]}"; }
perf_report() { "${perf_cmd[@]}" >"$tmp/perf.out"; }
# timed TOOL: one timed run, "wall cpu" appended to $tmp/TOOL.times
timed() {
	local -n cmd=${1}_cmd
	if [ "$1" = perf ]; then
		/usr/bin/time -f '%e %U %S' -o "$tmp/$1.time" "${cmd[@]}" \
			>"$tmp/perf.out" 2>"$tmp/$1.err"
	else
		/usr/bin/time -f '%e %U %S' -o "$tmp/$1.time" "${cmd[@]}" 2>"$tmp/$1.err"
	fi
	awk '{ printf "%s %.3f\n", $1, $2 + $3 }' "$tmp/$1.time" >>"$tmp/$1.times"
}
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

op_report 2>/dev/null	# untimed: warm the page cache for both
perf_report 2>/dev/null
: >"$tmp/op.times"
: >"$tmp/perf.times"
for ((r = 0; r < reps; r++)); do
	timed op
	timed perf
done

op_wall=$(cut -d' ' -f1 "$tmp/op.times" | median)
op_cpu=$(cut -d' ' -f2 "$tmp/op.times" | median)
perf_wall=$(cut -d' ' -f1 "$tmp/perf.times" | median)
perf_cpu=$(cut -d' ' -f2 "$tmp/perf.times" | median)
op_samples=$(cat "$sess/samples/current/stats/sample_written")
perf_samples=$(perf report -i "$tmp/perf.data" --stdio --no-children --sort=dso \
	-F sample 2>/dev/null | awk '!/^#/ && NF { s += $1 } END { print s + 0 }')
duration=$(perf report -i "$tmp/perf.data" --header-only 2>/dev/null |
	awk '/duration :/ { printf "%.0f", $(NF - 1) / 1000 }')
period=$(sed -n 's/^events=CPU_CLOCK:\([0-9]*\).*/\1/p' "$sess/samples/current/session.conf")
op_files=$(find "$sess/samples/current" -path '*/{dep}/*' -type f | wc -l)
op_sf_bytes=$(find "$sess/samples/current" -path '*/{dep}/*' -type f -printf '%s\n' |
	awk '{ s += $1 } END { print s + 0 }')
op_bytes=$(find "$sess/samples/current" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
perf_bytes=$(stat -c %s "$tmp/perf.data")
op_rows=$(awk '/symbol name$/ { on = 1; next } on && NF' "$tmp/op.out" | wc -l)
[ "$stacks" = 1 ] && op_rows=$(grep -c . "$tmp/op.out")
perf_rows=$(grep -vc -e '^#' -e '^$' "$tmp/perf.out" || true)

printf '\n%-12s %10s %10s %12s %16s %10s\n' tool cpu_s wall_s samples input_bytes rows
printf '%-12s %10.3f %10.3f %12d %16d %10d\n' "$op_what" "$op_cpu" "$op_wall" \
	"$op_samples" "$op_bytes" "$op_rows"
printf '%-12s %10.3f %10.3f %12d %16d %10d\n' "perf report" "$perf_cpu" "$perf_wall" \
	"$perf_samples" "$perf_bytes" "$perf_rows"
awk -v oc="$op_cpu" -v pc="$perf_cpu" -v ow="$op_wall" -v pw="$perf_wall" -v t="$target" 'BEGIN {
	printf "ratio opreport/perf report: cpu %.3f, wall %.3f (target <= %s)\n",
		(pc > 0 ? oc / pc : 0), (pw > 0 ? ow / pw : 0), t }'
echo "medians of $reps runs each, alternating, after one untimed run each;" \
	"${duration}s recorded on $(nproc) cpus, period ${period} ns;" \
	"input_bytes: the files of the session ($op_files sample files of" \
	"$op_sf_bytes bytes, the rest kernel symbols and metadata), perf.data"
