#!/bin/sh
# Whole stacks at 1 kHz: operf -g (user stacks copied and unwound with CFI
# by the daemon's core, stacks/ kept in the session) against
# perf record --call-graph dwarf (stacks copied into perf.data, unwound
# by perf report), side by side on the same fixed work: qsort_cb (qsort
# and bsearch calling back into the program, built -O2
# -fomit-frame-pointer; tests/workloads/qsort_cb.c).
#
# Prints, medians of ROUNDS runs:
#   - the workload's CPU time alone and under each tool (its slowdown);
#   - each tool's own CPU time (perf stat --no-inherit: the tool's
#     process only, not the workload it runs), and that minus the
#     tool's start-up and exit (a run of one round of work): what a
#     long session costs per sample;
#   - bytes written (the session, perf.data), and scaled to 10 minutes
#     of this workload: perf.data linearly; the session from its growth
#     per sample between this run and one with 4 times the work (its
#     stacks/ grows with new stacks only), and, looser, linearly;
#   - report time: perf report --stdio on perf.data against
#     opreport --stacks on the session (skipped while opreport has no
#     --stacks).
#
#   bench/stacks_bench.sh BUILD [WORK_ROUNDS] [ROUNDS]
#     WORK_ROUNDS  qsort_cb rounds (default 3000: about 2.5 s of CPU)
#     ROUNDS       runs of each (default 3)
#   Environment: STACK_SIZE (bytes for both tools, default: each one's own
#   default, operf 16384, perf 8192); CALLGRIND=ROUNDS: also operf's
#   instructions a sample under valgrind --tool=callgrind (a run of
#   ROUNDS rounds minus a run of one, over the samples between them: not
#   moved by the machine's load, unlike the CPU times).
# Needs perf (apt-get install linux-perf) and /usr/bin/time; root or a
# user allowed to profile their own processes.
set -eu
build=$(cd "${1:?usage: stacks_bench.sh BUILD [WORK_ROUNDS] [ROUNDS]}" && pwd)
work_rounds=${2:-3000}
rounds=${3:-3}
src=$(cd "$(dirname "$0")/.." && pwd)
export OPROFILE_EVENTS_DIR=${OPROFILE_EVENTS_DIR:-$src/events}
command -v perf >/dev/null || { echo "stacks_bench: no perf (apt-get install linux-perf)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "stacks_bench: no /usr/bin/time (apt-get install time)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
gcc -O2 -g -fomit-frame-pointer "$src/tests/workloads/qsort_cb.c" -o "$dir/qsort_cb"
# perf 6.1 (Debian 12) on this machine aborts at the end of perf record
# and in perf report ("assertion failed at util/build-id.c:1010", "stack
# smashing detected") when it reads the build-id of this -g binary, which
# Debian 12's binutils links with a .note.gnu.property section ("x86 ISA
# needed"); with that section removed it does not (2026-11-26: 15 s runs,
# 2 of 2 aborted with it, 0 of 2 without). The section only tells the
# loader about ISA levels, and both tools run the same file.
objcopy --remove-section .note.gnu.property "$dir/qsort_cb"
op_ss= perf_ss=
if [ -n "${STACK_SIZE:-}" ]; then
	op_ss="--stack-size=$STACK_SIZE"
	perf_ss=",$STACK_SIZE"
fi

# cpu CMD...: user+sys seconds of CMD and its children
cpu() { /usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null | tail -1 | awk '{ print $1 + $2 }'; }
# own CMD...: the task-clock seconds of CMD's process alone
own() {
	perf stat --no-inherit -x, -e task-clock -o "$dir/stat" "$@" >/dev/null 2>&1
	awk -F, '/task-clock/ { printf "%.3f\n", $1 / 1000 }' "$dir/stat"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

W="$dir/qsort_cb 0 $work_rounds"
for i in $(seq "$rounds"); do
	cpu $W >>"$dir/alone"
	rm -rf "$dir/op"
	cpu "$build/utils/operf" -g $op_ss -d "$dir/op" $W >>"$dir/op_total"
	rm -rf "$dir/op"
	own "$build/utils/operf" -g $op_ss -d "$dir/op" $W >>"$dir/op_own"
	cpu perf record -q -F 1000 --call-graph "dwarf$perf_ss" -o "$dir/perf.data" $W >>"$dir/perf_total"
	own perf record -q -F 1000 --call-graph "dwarf$perf_ss" -o "$dir/perf.data" $W >>"$dir/perf_own"
	# each tool's start-up and exit alone (one round of work)
	rm -rf "$dir/op1"
	own "$build/utils/operf" -g $op_ss -d "$dir/op1" "$dir/qsort_cb" 0 1 >>"$dir/op_start"
	own perf record -q -F 1000 --call-graph "dwarf$perf_ss" -o "$dir/perf1.data" "$dir/qsort_cb" 0 1 >>"$dir/perf_start"
	echo "round $i done" >&2
done
alone=$(median <"$dir/alone")
op_total=$(median <"$dir/op_total") op_own=$(median <"$dir/op_own")
perf_total=$(median <"$dir/perf_total") perf_own=$(median <"$dir/perf_own")
op_start=$(median <"$dir/op_start") perf_start=$(median <"$dir/perf_start")
op_bytes=$(du -sb "$dir/op" | cut -f1)
# session/ (the kernel's symbols, build-ids) is written once per session
op_fixed=$(du -sb "$dir/op/samples/current/session" | cut -f1)
op_stacks=$(du -sb "$dir/op/samples/current/stacks" | cut -f1)
perf_bytes=$(du -sb "$dir/perf.data" | cut -f1)
samples=$(cat "$dir/op/samples/current/stats/sample_received")
# the session's growth per sample: once more with 4 times the work
rm -rf "$dir/op4"
"$build/utils/operf" -g $op_ss -d "$dir/op4" "$dir/qsort_cb" 0 $((4 * work_rounds)) >/dev/null 2>&1
op4_bytes=$(du -sb "$dir/op4" | cut -f1)
samples4=$(cat "$dir/op4/samples/current/stats/sample_received")
awk -v a="$alone" -v ot="$op_total" -v oo="$op_own" -v pt="$perf_total" \
    -v po="$perf_own" -v ob="$op_bytes" -v pb="$perf_bytes" -v n="$samples" \
    -v of="$op_fixed" -v os="$op_stacks" -v o0="$op_start" -v p0="$perf_start" \
    -v ob4="$op4_bytes" -v n4="$samples4" 'BEGIN {
	ow = ot - oo; pw = pt - po
	printf "qsort_cb alone            %7.2f s CPU\n", a
	printf "under operf -g            %7.2f s CPU (workload %+.1f %%), operf itself %.2f s\n", ot, 100 * (ow - a) / a, oo
	printf "under perf record dwarf   %7.2f s CPU (workload %+.1f %%), perf itself %.2f s\n", pt, 100 * (pw - a) / a, po
	printf "profiler CPU: operf / perf record = %.2f\n", oo / po
	printf "start-up and exit alone: operf %.2f s, perf %.2f s; the rest: operf %.2f s, perf %.2f s = %.2f (%.0f / %.0f us a sample)\n", o0, p0, oo - o0, po - p0, (oo - o0) / (po - p0), 1e6 * (oo - o0) / n, 1e6 * (po - p0) / n
	printf "bytes: session %d (session/ %d written once, stacks/ %d), perf.data %d; %d samples\n", ob, of, os, pb, n
	g = (ob - of) * 600 / a; p10 = pb * 600 / a
	printf "10 minutes at this rate: session <= %.1f MB (all but session/ scaled linearly: a loose bound), perf.data %.1f MB: %.2f %%\n", (of + g) / 1e6, p10 / 1e6, 100 * (of + g) / p10
	slope = (ob4 - ob) / (n4 - n); n10 = n * 600 / a
	printf "growth: %d samples %d bytes, %d samples %d bytes: %.1f bytes a sample; 10 minutes (%d samples): session %.1f MB, %.2f %% of perf.data\n", n, ob, n4, ob4, slope, n10, (ob + slope * (n10 - n)) / 1e6, 100 * (ob + slope * (n10 - n)) / p10
}'
/usr/bin/time -f '%e %U %S' -o "$dir/t_perf" perf report --stdio -i "$dir/perf.data" >/dev/null 2>"$dir/perf_report.err" ||
	{ echo "perf report failed:"; tail -3 "$dir/perf_report.err"; }
echo "perf report --stdio: $(awk '{ print $1 " s wall, " $2 + $3 " s CPU" }' "$dir/t_perf")"
if "$build/pp/opreport" --help 2>&1 | grep -q -- '--stacks'; then
	/usr/bin/time -f '%e %U %S' -o "$dir/t_op" "$build/pp/opreport" \
		--session-dir="$dir/op" --stacks >/dev/null 2>"$dir/op_report.err" ||
		{ echo "opreport --stacks failed:"; cat "$dir/op_report.err"; }
	echo "opreport --stacks: $(awk '{ print $1 " s wall, " $2 + $3 " s CPU" }' "$dir/t_op")"
else
	echo "opreport --stacks: not in this build (no --stacks); skipped"
fi

# instructions a sample, from callgrind (the workload runs natively)
if [ -n "${CALLGRIND:-}" ] && command -v valgrind >/dev/null; then
	for r in 1 "$CALLGRIND"; do
		rm -rf "$dir/cg"
		valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" \
			"$build/utils/operf" -g $op_ss -d "$dir/cg" \
			"$dir/qsort_cb" 0 "$r" >/dev/null 2>&1
		echo "$(awk '/^summary:/ { print $2 }' "$dir/cg.out") $(cat "$dir/cg/samples/current/stats/sample_received")"
	done >"$dir/cg_runs"
	awk 'NR == 1 { i0 = $1; n0 = $2 } NR == 2 {
		printf "operf -g under callgrind: %.0f M instructions for %d samples, %.0f M for one round (start-up and exit): %.1f k instructions a sample\n", $1 / 1e6, $2, i0 / 1e6, ($1 - i0) / ($2 - n0) / 1e3
	}' "$dir/cg_runs"
fi
