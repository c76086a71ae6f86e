#!/bin/bash
# JIT code by name, what it costs: Node running two hot JS functions
# (tests/control/jit_two.js) for SECONDS, at 1 kHz of cpu-clock,
#   alone                       node --perf-basic-prof
#   operf                       the same, its perf map kept in the session
#   perf record -k 1 + inject   node --perf-prof (jitdump), then
#                               perf inject --jit (an ELF file per method)
# The CPU time of each whole run (tool and workload; perf's includes its
# inject step) and the bytes each keeps: the operf session against
# perf.data + perf.jit.data + the jitted-*.so files. Median of 3. Then, if
# GROW is set, GROW seconds of a JIT that keeps compiling new functions
# under operf: the session's session/jit/ bytes and lines at the end;
# HOW is how node tells its functions: map (--perf-basic-prof, the
# default: session/jit/PID.map) or dump (--perf-prof: jit-PID.dump,
# session/jit/PID.so). SECONDS 0: the growing JIT only.
# Root, linux-perf, nodejs. Usage: jit_bench.sh BUILD [SECONDS] [GROW] [HOW]
set -e
build=${1:?usage: jit_bench.sh BUILD [SECONDS] [GROW] [HOW]}
secs=${2:-5}
grow=${3:-}
how=${4:-map}
case $how in map) flag=--perf-basic-prof ;; dump) flag=--perf-prof ;;
*) echo "jit_bench.sh: HOW is map or dump, not '$how'" >&2; exit 2 ;; esac
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)     # the growing run works in another directory
dir=$(mktemp -d)
# node's maps in /tmp name the script's path, unique to this run: only
# those are removed at the end
js=$dir/jit_two.js
cp "$top/tests/control/jit_two.js" "$js"
trap 'grep -lF "$dir/" /tmp/perf-*.map 2>/dev/null | xargs -r rm -f; rm -rf "$dir"' EXIT
export OPROFILE_EVENTS_DIR=${OPROFILE_EVENTS_DIR:-$top/events}
cpu() { /usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null | tail -1 | awk '{ print $1 + $2 }'; }
# perf 6.1 aborts on this kernel's BPF events without --no-bpf-event
[ "$secs" != 0 ] && for _ in 1 2 3; do
	rm -rf "$dir/op" "$dir/p"; mkdir "$dir/p"
	a=$(cpu node --perf-basic-prof "$js" "$secs")
	o=$(cpu "$build/utils/operf" -e CPU_CLOCK:1000000 -d "$dir/op" \
		node --perf-basic-prof "$js" "$secs")
	r=$(cd "$dir/p" && cpu perf record --no-bpf-event --buildid-mmap -q -k 1 -e cpu-clock \
		-c 1000000 -o perf.data node --perf-prof "$js" "$secs")
	i=$(cd "$dir/p" && cpu perf inject --jit -i perf.data -o perf.jit.data)
	ob=$(du -sb "$dir/op" | cut -f1)
	pb=$(du -cb "$dir/p"/perf.data "$dir/p"/perf.jit.data "$dir/p"/jitted-*.so \
		2>/dev/null | tail -1 | cut -f1)
	echo "$a $o $r $i $ob $pb"
	rm -f "$HOME"/.debug/jit/*/jit-*.dump 2>/dev/null || true
done | sort -n -k2 | sed -n 2p | {
	read -r a o r i ob pb
	printf 'node alone                 %6.2f s CPU\n' "$a"
	printf 'under operf                %6.2f s CPU (+%.1f %%), session %d bytes\n' \
		"$o" "$(echo "100 * ($o - $a) / $a" | bc -l)" "$ob"
	printf 'perf record -k 1 + inject  %6.2f s CPU (+%.1f %%; inject %.2f s), %d bytes\n' \
		"$(echo "$r + $i" | bc -l)" "$(echo "100 * ($r + $i - $a) / $a" | bc -l)" "$i" "$pb"
}
[ -n "$grow" ] || exit 0
cat >"$dir/grow.js" <<'EOF'
// a JIT that keeps compiling: a new function every few milliseconds
'use strict';
const end = Date.now() + Number(process.argv[2]) * 1000;
let n = 0, x = 1;
while (Date.now() < end) {
	const f = new Function('x', `let y = x; for (let i = 0; i < 20000; i++) y = (y * 31 + ${n}) % 1000003; return y;`);
	for (let k = 0; k < 50; k++) x = f(x);
	n++;
}
console.log(n + ' functions');
EOF
rm -rf "$dir/g"
# in $dir: node --perf-prof writes its jit-PID.dump into its cwd
(cd "$dir" && exec "$build/utils/operf" -e CPU_CLOCK:1000000 -d "$dir/g" \
	node "$flag" "$dir/grow.js" "$grow") >"$dir/g.out" 2>&1
j=$dir/g/samples/current/session/jit
kept=$(cat "$j"/*.map 2>/dev/null | wc -l)
[ "$how" = dump ] && kept=$(for f in "$j"/*.so; do
	readelf -sW "$f" | grep -c ' FUNC '; done | awk '{ n += $1 } END { print n + 0 }')
printf 'growing JIT (%s), %s s: %s; session %d bytes, session/jit %d bytes, %d functions kept; dump %d bytes\n' \
	"$how" "$grow" "$(grep functions "$dir/g.out")" "$(du -sb "$dir/g" | cut -f1)" \
	"$(du -cb "$j"/* 2>/dev/null | tail -1 | cut -f1)" "$kept" \
	"$(du -cb "$dir"/jit-*.dump 2>/dev/null | tail -1 | cut -f1)"
