#!/bin/sh
# Cost per probed call (entry + return): bench/call_loop plain, under
# opwatch (uprobe + uretprobe through perf_event_open) and, when installed,
# under bpftrace timing the same function the same way (a uprobe storing
# the entry time, a uretprobe taking the difference into a histogram).
# Root. Usage: probe_cost.sh BUILD [CALLS]
set -e
build=${1:?usage: probe_cost.sh BUILD [CALLS]}
n=${2:-200000}
loop=$build/bench/call_loop
opwatch=$build/utils/opwatch
per_call() { "$@" | tail -1; }
median3() { sort -n | sed -n 2p; }

plain=$(for _ in 1 2 3; do "$loop" "$n"; done | median3)
ow=$(for _ in 1 2 3; do
	"$opwatch" -P "$loop:bench_target" -o /dev/null "$loop" "$n"
done | median3)
printf 'plain          %8.1f ns/call\n' "$plain"
printf 'opwatch        %8.1f ns/call  (+%.1f ns a probed call)\n' "$ow" \
	"$(echo "$ow - $plain" | bc)"
if command -v bpftrace >/dev/null; then
	prog="uprobe:$loop:bench_target { @s[tid] = nsecs; }
uretprobe:$loop:bench_target /@s[tid]/ { @ns = hist(nsecs - @s[tid]); delete(@s[tid]); }"
	bt=$(for _ in 1 2 3; do
		bpftrace -q -e "$prog" -c "$loop $n" 2>/dev/null | grep -E '^[0-9.]+$'
	done | median3)
	printf 'bpftrace       %8.1f ns/call  (+%.1f ns a probed call)\n' "$bt" \
		"$(echo "$bt - $plain" | bc)"
else
	echo "bpftrace: not installed (apt-get install bpftrace)"
fi
