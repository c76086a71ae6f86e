#!/usr/bin/env bash
# opannotate -s and -a against perf annotate --stdio on the same
# system-wide period, side by side in one run. Target: opannotate's time
# <= 1/4 of perf annotate's.
#
# 1. Record: bench/report_bench.sh records the period (opcontrol and
#    perf record -a at once, the same clock and period, a mixed workload;
#    see there) and keeps its work directory; or REUSE=DIR takes a work
#    directory kept by report_bench.sh or by this script.
# 2. Annotate everything sampled, each tool once untimed (warm caches),
#    then REPS timed runs, alternating:
#      opannotate -s        (source of every sampled function with lines)
#      opannotate -a        (disassembly of every sampled function,
#                            libopcodes in the process)
#      perf annotate --stdio (disassembly of every sampled symbol, objdump
#                            run per symbol)
#    each writing to a file.
# 3. Print the medians of CPU (user+sys, children included) and wall
#    time, the ratios against perf annotate, and the functions each showed.
#
#   bench/annotate_bench.sh BUILD_DIR [DURATION] [REPS]
#     DURATION  seconds to record (default 600: a 10-minute session)
#     REPS      timed runs of each tool (default 3)
#   Environment: PERIOD (ns, default 1000000), KEEP=1 keeps the work
#   directory, REUSE=DIR (no recording).
# Needs root (system-wide sampling) and perf (apt-get install linux-perf).
set -euo pipefail
build=$(cd "${1:?usage: annotate_bench.sh BUILD_DIR [DURATION] [REPS]}" && pwd)
duration=${2:-${DURATION:-600}}
reps=${3:-${REPS:-3}}
src=$(cd "$(dirname "$0")/.." && pwd)
opannotate=$build/pp/opannotate
export OPROFILE_EVENTS_DIR=${OPROFILE_EVENTS_DIR:-$src/events}

[ -x "$opannotate" ] || { echo "annotate_bench: $opannotate not built (make -C $build)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "annotate_bench: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
command -v perf >/dev/null || { echo "annotate_bench: perf not installed (apt-get install linux-perf)" >&2; exit 1; }

if [ -n "${REUSE:-}" ]; then
	tmp=$(cd "$REUSE" && pwd)
else
	# report_bench.sh records and keeps its directory; one report run is
	# enough there, the annotations are timed here
	log=$(mktemp)
	KEEP=1 bash "$src/bench/report_bench.sh" "$build" "$duration" 1 | tee "$log"
	tmp=$(sed -n 's/^report_bench: kept //p' "$log")
	rm -f "$log"
	[ -d "$tmp" ] || { echo "annotate_bench: the recording failed" >&2; exit 1; }
fi
sess=$tmp/session
[ "${KEEP:-0}" = 1 ] || [ -n "${REUSE:-}" ] || trap 'rm -rf "$tmp"' EXIT

src_cmd=("$opannotate" --session-dir="$sess" -s)
asm_cmd=("$opannotate" --session-dir="$sess" -a)
perf_cmd=(perf annotate -i "$tmp/perf.data" --stdio)
# timed TOOL: one run, its output in $tmp/TOOL.ann, "wall cpu" appended
timed() {
	local -n cmd=${1}_cmd
	/usr/bin/time -f '%e %U %S' -o "$tmp/$1.time" "${cmd[@]}" \
		>"$tmp/$1.ann" 2>"$tmp/$1.err" || true
	awk '{ printf "%s %.3f\n", $1, $2 + $3 }' "$tmp/$1.time" >>"$tmp/$1.times"
}
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

for t in src asm perf; do
	timed "$t"	# untimed: warm the page cache
	: >"$tmp/$t.times"
done
for ((r = 0; r < reps; r++)); do
	for t in src asm perf; do timed "$t"; done
done

perf_funcs=$(grep -c '^ *Percent *|.*Source code & Disassembly of' "$tmp/perf.ann" || true)
src_funcs=$(grep -o '/\* [^ ]* total:' "$tmp/src.ann" | sort -u | wc -l)
asm_funcs=$(grep -c '^ *:[0-9a-f]* <.*>: /\*' "$tmp/asm.ann" || true)
perf_cpu=$(cut -d' ' -f2 "$tmp/perf.times" | median)
perf_wall=$(cut -d' ' -f1 "$tmp/perf.times" | median)
printf '\n%-22s %10s %10s %10s %10s\n' tool cpu_s wall_s cpu/perf functions
for t in src asm perf; do
	cpu=$(cut -d' ' -f2 "$tmp/$t.times" | median)
	wall=$(cut -d' ' -f1 "$tmp/$t.times" | median)
	case $t in
	src) name="opannotate -s"; n=$src_funcs ;;
	asm) name="opannotate -a"; n=$asm_funcs ;;
	perf) name="perf annotate --stdio"; n=$perf_funcs ;;
	esac
	awk -v n="$name" -v c="$cpu" -v w="$wall" -v p="$perf_cpu" -v f="$n" 'BEGIN {
		printf "%-22s %10.3f %10.3f %10.3f %10d\n", n, c, w, (p > 0 ? c / p : 0), f }'
done
echo "medians of $reps runs each, alternating, after one untimed run each;" \
	"target: opannotate / perf annotate <= 0.25; work directory $tmp"
