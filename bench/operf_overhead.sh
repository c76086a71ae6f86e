#!/bin/sh
# operf against perf record on the same command (bench/cpu_work, fixed
# work), both at 1 kHz of cpu-clock: the workload's CPU time, the whole
# run's CPU time (the tool's own on top) and the bytes written. Root or
# a user (both tools then sample user mode). Usage: operf_overhead.sh BUILD [ROUNDS]
set -e
build=${1:?usage: operf_overhead.sh BUILD [ROUNDS]}
rounds=${2:-800}
work=$build/bench/cpu_work
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export OPROFILE_EVENTS_DIR=${OPROFILE_EVENTS_DIR:-$(dirname "$0")/../events}
total() { /usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null | tail -1 | awk '{ print $1 + $2 }'; }
for _ in 1 2 3; do
	p=$(total "$work" "$rounds")
	o=$(total "$build/utils/operf" -d "$dir/op" "$work" "$rounds")
	r=$(total perf record -q -e cpu-clock -c 1000000 -o "$dir/perf.data" "$work" "$rounds")
	echo "$p $o $r"
done | sort -n | sed -n 2p | {
	read -r p o r
	printf 'cpu_work alone        %6.2f s CPU\n' "$p"
	printf 'under operf           %6.2f s CPU (+%.1f %%)\n' "$o" "$(echo "100 * ($o - $p) / $p" | bc -l)"
	printf 'under perf record     %6.2f s CPU (+%.1f %%)\n' "$r" "$(echo "100 * ($r - $p) / $p" | bc -l)"
}
printf 'bytes: operf session %s, perf.data %s\n' "$(du -sb "$dir/op" | cut -f1)" \
	"$(du -sb "$dir/perf.data" | cut -f1)"
