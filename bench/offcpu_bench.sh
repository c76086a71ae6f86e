#!/bin/bash
# Off-CPU profilers side by side on bench/offcpu_workload, root only:
#   bpftrace   sched_switch summed in the kernel by stack (what bcc's
#              offcputime does: the switch-out time and stacks per thread,
#              the delta added at switch-in, under kstack+ustack)
#   perf       perf record -e sched:sched_switch -g, then perf report
#   operf      operf --events=OFF_CPU:1 --callgraph, and at OFF_CPU:N for
#              each N of $OPERF_N (the continuous default's, and more),
#              then opreport; left out (a line says so) when operf has no
#              OFF_CPU event. The perf mechanism (OPROFILE_OFFCPU=perf);
#   operf bpf  the same with the eBPF mechanism (OPROFILE_OFFCPU=bpf),
#              left out when it does not load
# each beside unprofiled runs of the same workload in the same round (the
# order turns from round to round), REPEATS rounds, medians printed. The
# workload is its switch mode (PAIRS ping-pong pairs, RATE round trips a
# second, 0: as fast as they go): its own throughput is the slowdown's
# measure (paced, with RATE, the CPU it spends per round trip: the tools'
# work in the kernel is charged to it), the tools' own CPU (user+system,
# less the workload's) their cost. Then an accuracy check: bpftrace on
# the places mode, each place's share of the blocked time against the
# program's own timing.
#
# With FLOOR=1, perf record runs that take the cost apart (no report):
#   perf:dummy   a dummy event on the workload's threads (their perf
#                context switched with them)
#   perf:tp      + sched_switch filtered to blocking switches, 1 in 10000
#   perf:sw      a dummy event with --switch-events (a record per switch)
#   perf:tp+sw   both: what operf's OFF_CPU asks for at a large N
#
# Usage: offcpu_bench.sh BUILD [SECONDS] [REPEATS]
#   env PAIRS (1), RATE (0), DAEMON_N (Ns for oprofiled system-wide,
#   each mechanism; its tool_cpu is the daemon's own), OPERF_N (the Ns after 1, "100"; the first is
#   the continuous default's, held against the 0.5% budget),
#   KEEP=1 keeps the scratch directory (its path is printed)
set -e
build=${1:?usage: offcpu_bench.sh BUILD [SECONDS] [REPEATS]}
secs=${2:-5}
reps=${3:-3}
pairs=${PAIRS:-1}
rate=${RATE:-0}
opns=${OPERF_N:-100}
opn=${opns%% *}
build=$(cd "$build" && pwd)
work=$build/bench/offcpu_workload
operf=$build/utils/operf
opreport=$build/pp/opreport
export OPROFILE_EVENTS_DIR=${OPROFILE_EVENTS_DIR:-$(cd "$(dirname "$0")/../events" && pwd)}

die() { echo "offcpu_bench.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "root needed (tracepoints, bpftrace)"
[ -x "$work" ] || die "no workload '$work' (make -C BUILD/bench)"
command -v bpftrace >/dev/null || die "no 'bpftrace'"
command -v perf >/dev/null || die "no 'perf'"
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing

dir=$(mktemp -d)
if [ -n "$KEEP" ]; then echo "scratch: $dir"; else trap 'rm -rf "$dir"' EXIT; fi
ulimit -l unlimited 2>/dev/null || true

# The bpftrace script: $1 the workload's pid; stops at its measure_done.
cat >"$dir/offcpu.bt" <<EOF
BEGIN { printf("ready\n"); }
tracepoint:sched:sched_switch
/args->prev_state != 0 && pid == \$1/
{
	@start[args->prev_pid] = nsecs;
	@ks[args->prev_pid] = kstack;
	@us[args->prev_pid] = ustack;
}
tracepoint:sched:sched_switch
/@start[args->next_pid]/
{
	\$tid = args->next_pid;
	@off_us[@ks[\$tid], @us[\$tid]] = sum((nsecs - @start[\$tid]) / 1000);
	delete(@start[\$tid]);
	delete(@ks[\$tid]);
	delete(@us[\$tid]);
}
uprobe:$work:measure_done
/pid == \$1/
{
	clear(@start);
	clear(@ks);
	clear(@us);
	exit();
}
EOF

wl_args() { echo "-m switch -s $secs -p $pairs -r $rate"; }
# A word's value in a "key=value" line.
kv() { tr ' ' '\n' <"$1" | sed -n "s/^$2=//p" | head -1; }
# user + system seconds of a /usr/bin/time -f '%U %S' file
tcpu() { tail -1 "$1" | awk '{ printf "%.3f", $1 + $2 }'; }

has_offcpu=0 has_bpf=0
if [ -x "$operf" ] && "$build/utils/ophelp" 2>/dev/null | grep -q '^OFF_CPU'; then
	has_offcpu=1
fi

# One run of config $1 in round $2: a line "config round trips/s
# cpu_us/trip tool_cpu report_cpu bytes vcsw/s" appended to $dir/raw.
run() {
	local c=$1 r=$2 o=$dir/$1.$2 tool=0 rep=0 bytes=0
	case $c in
	none)
		# shellcheck disable=SC2046
		"$work" $(wl_args) >"$o.work"
		;;
	bpftrace)
		rm -f "$dir/gate"; mkfifo "$dir/gate"
		# the workload waits at the gate until the probes are in
		# shellcheck disable=SC2016,SC2046
		bash -c 'read -r _ <"$0"; exec "$@"' "$dir/gate" "$work" $(wl_args) -l 3 >"$o.work" &
		local wpid=$! i
		/usr/bin/time -f '%U %S' -o "$o.time" bpftrace "$dir/offcpu.bt" "$wpid" >"$o.out" 2>"$o.err" &
		local bpid=$!
		for ((i = 0; i < 600; i++)); do
			grep -q '^ready' "$o.out" 2>/dev/null && break
			kill -0 "$bpid" 2>/dev/null || break
			sleep 0.1
		done
		grep -q '^ready' "$o.out" || { kill "$wpid"; cat "$o.err" >&2; die "bpftrace did not start"; }
		echo go >"$dir/gate"
		wait "$bpid" || { cat "$o.err" >&2; die "bpftrace failed"; }
		kill "$wpid" 2>/dev/null || true
		wait "$wpid" 2>/dev/null || true
		tool=$(tcpu "$o.time")
		bytes=$(wc -c <"$o.out")
		;;
	perf)
		# shellcheck disable=SC2046
		# --buildid-mmap: without it, perf 6.1 on this kernel aborts
		# reading its own mmap2 records (bench/README.md)
		/usr/bin/time -f '%U %S' -o "$o.time" perf record -q --no-bpf-event --buildid-mmap \
			-e sched:sched_switch -g -o "$o.data" -- "$work" $(wl_args) >"$o.work" 2>"$o.err" ||
			{ tail -3 "$o.err" >&2; die "perf record failed"; }
		tool=$(awk -v t="$(tcpu "$o.time")" -v w="$(kv "$o.work" cpu_s)" \
			'BEGIN { printf "%.3f", t - w }')
		/usr/bin/time -f '%U %S' -o "$o.rtime" perf report -i "$o.data" --stdio \
			>/dev/null 2>"$o.rerr" || { tail -3 "$o.rerr" >&2; die "perf report failed"; }
		rep=$(tcpu "$o.rtime")
		bytes=$(stat -c %s "$o.data")
		rm -f "$o.data"
		;;
	perf:*)
		local ev=(-e dummy)
		case $c in
		perf:tp) ev=(-e sched:sched_switch --filter 'prev_state != 0' -c 10000) ;;
		perf:sw) ev=(-e dummy --switch-events) ;;
		perf:tp+sw) ev=(-e sched:sched_switch --filter 'prev_state != 0' -c 10000 --switch-events) ;;
		esac
		# shellcheck disable=SC2046
		/usr/bin/time -f '%U %S' -o "$o.time" perf record -q --no-bpf-event --buildid-mmap \
			"${ev[@]}" -o "$o.data" -- "$work" $(wl_args) >"$o.work" 2>"$o.err" ||
			{ tail -3 "$o.err" >&2; die "perf record failed"; }
		tool=$(awk -v t="$(tcpu "$o.time")" -v w="$(kv "$o.work" cpu_s)" \
			'BEGIN { printf "%.3f", t - w }')
		bytes=$(stat -c %s "$o.data")
		rm -f "$o.data"
		;;
	operf:* | bpf:*)
		local n=${c#*:} mech=perf
		[ "${c%%:*}" = bpf ] && mech=bpf
		# shellcheck disable=SC2046
		OPROFILE_OFFCPU=$mech /usr/bin/time -f '%U %S' -o "$o.time" "$operf" -d "$o.op" \
			--events="OFF_CPU:$n" --callgraph "$work" $(wl_args) >"$o.work" 2>"$o.err"
		tool=$(awk -v t="$(tcpu "$o.time")" -v w="$(kv "$o.work" cpu_s)" \
			'BEGIN { printf "%.3f", t - w }')
		/usr/bin/time -f '%U %S' -o "$o.rtime" "$opreport" --session-dir="$o.op" \
			-l --callgraph >/dev/null 2>&1 || true
		rep=$(tcpu "$o.rtime")
		bytes=$(du -sb "$o.op" | cut -f1)
		rm -rf "$o.op"
		;;
	daemon:*)
		# oprofiled system-wide, its mechanism and N: daemon:MECH:N
		local m=${c#daemon:} ds=$o.ds pid
		local n=${m#*:}
		m=${m%%:*}
		OPROFILE_OFFCPU=$m "$build/utils/opcontrol" --session-dir="$ds" \
			--event="OFF_CPU:$n" --callgraph=16 >"$o.ctl" 2>&1 &&
		OPROFILE_OFFCPU=$m "$build/utils/opcontrol" --session-dir="$ds" --start \
			>>"$o.ctl" 2>&1 || { cat "$o.ctl" >&2; die "opcontrol failed"; }
		pid=$(cat "$ds/lock")
		# shellcheck disable=SC2046
		"$work" $(wl_args) >"$o.work"
		# the daemon's own user+system ticks over the run
		tool=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.3f", ($14 + $15) / hz }' "/proc/$pid/stat")
		"$build/utils/opcontrol" --session-dir="$ds" --shutdown >>"$o.ctl" 2>&1 || true
		grep -h "event OFF_CPU:" "$ds"/samples/oprofiled.log "$ds"/*.log 2>/dev/null | head -1 >"$o.mech" || true
		bytes=$(du -sb "$ds" | cut -f1)
		rm -rf "$ds"
		;;
	esac
	echo "$c $r $(kv "$o.work" trips_per_s) $(kv "$o.work" cpu_us_per_trip) $tool $rep $bytes" \
		"$(kv "$o.work" vcsw_per_s)" >>"$dir/raw"
}

configs=(none bpftrace perf)
if [ $has_offcpu = 1 ]; then
	configs+=(operf:1)
	for n in $opns; do configs+=("operf:$n"); done
	if OPROFILE_OFFCPU=bpf "$operf" -d "$dir/probe" --events=OFF_CPU:1 true >/dev/null 2>&1; then
		has_bpf=1
		configs+=(bpf:1)
		for n in $opns; do configs+=("bpf:$n"); done
	fi
fi
# DAEMON_N="1009": oprofiled system-wide with each mechanism at each N
for n in ${DAEMON_N:-}; do
	configs+=("daemon:perf:$n")
	[ $has_bpf = 1 ] && configs+=("daemon:bpf:$n")
done
[ -n "$FLOOR" ] && configs+=(perf:dummy perf:tp perf:sw perf:tp+sw)
n=${#configs[@]}
for ((r = 0; r < reps; r++)); do
	for ((k = 0; k < n; k++)); do
		run "${configs[(k + r) % n]}" "$r"
	done
done

# The median of a column of numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'; }
# Per round, a config's slowdown (throughput lost) against that round's
# unprofiled run; with k=4, the CPU added per round trip instead.
slowdowns() {
	awk -v c="$1" -v k="${2:-3}" '$1 == "none" { base[$2] = $k } $1 == c { t[$2] = $k }
		END { for (r in t) if (base[r] > 0)
			printf "%.2f\n", (k == 3 ? 1 - t[r] / base[r] : t[r] / base[r] - 1) * 100 }' "$dir/raw"
}
# Per round, the CPU a config added (per trip, times its trips a second)
# as a percentage of all the machine's cpus.
machine() {
	awk -v c="$1" -v ncpu="$(nproc)" '$1 == "none" { base[$2] = $4 } $1 == c { t[$2] = $4; r[$2] = $3 }
		END { for (k in t) if (k in base)
			printf "%.2f\n", (t[k] - base[k]) * r[k] / 1e6 / ncpu * 100 }' "$dir/raw"
}
col() { awk -v c="$1" -v k="$2" '$1 == c { print $k }' "$dir/raw" | median; }

echo "offcpu_workload $(wl_args), $reps rounds, medians ($(nproc) cpus, load $(cut -d' ' -f1 /proc/loadavg))"
printf '%-22s %8s %8s %9s %11s %9s %8s %8s %10s %10s\n' config trips/s vcsw/s slowdown \
	cpu_us/trip cpu_added machine tool_cpu report_cpu bytes
for c in "${configs[@]}"; do
	case $c in
	none) name="unprofiled" ;;
	bpftrace) name="bpftrace offcputime" ;;
	perf) name="perf record -g" ;;
	operf:*) name="operf OFF_CPU:${c#operf:}" ;;
	bpf:*) name="operf bpf OFF_CPU:${c#bpf:}" ;;
	daemon:*) name="oprofiled ${c#daemon:}" ;;
	perf:*) name="perf record ${c#perf:}" ;;
	esac
	sd=- ca=- ma=-
	if [ "$c" != none ]; then
		sd="$(slowdowns "$c" | median)%" ca="$(slowdowns "$c" 4 | median)%"
		ma="$(machine "$c" | median)%"
	fi
	printf '%-22s %8s %8s %9s %11s %9s %8s %8s %10s %10s\n' "$name" "$(col "$c" 3)" \
		"$(col "$c" 8)" "$sd" "$(col "$c" 4)" "$ca" "$ma" "$(col "$c" 5)" "$(col "$c" 6)" \
		"$(col "$c" 7)"
done
[ $has_offcpu = 1 ] || echo "operf: no OFF_CPU event in this build, left out"
if [ $has_offcpu = 1 ]; then
	echo "operf OFF_CPU:$opn: throughput lost $(slowdowns "operf:$opn" | median)%," \
		"CPU per round trip added $(slowdowns "operf:$opn" 4 | median)%," \
		"CPU added $(machine "operf:$opn" | median)% of the machine's (budget 0.5%)"
fi
if [ $has_bpf = 1 ]; then
	echo "operf bpf OFF_CPU:$opn: throughput lost $(slowdowns "bpf:$opn" | median)%," \
		"CPU per round trip added $(slowdowns "bpf:$opn" 4 | median)%," \
		"CPU added $(machine "bpf:$opn" | median)% of the machine's (budget 0.5%)"
elif [ $has_offcpu = 1 ]; then
	echo "operf bpf: the eBPF mechanism does not load here, left out"
fi
echo "per round: config round trips/s cpu_us/trip tool_cpu report_cpu bytes vcsw/s"
sort -k2,2n -k1,1 "$dir/raw" | sed 's/^/  /'

# Accuracy: bpftrace on the places mode against the program's truth.
rm -f "$dir/gate"; mkfifo "$dir/gate"
# shellcheck disable=SC2016
bash -c 'read -r _ <"$0"; exec "$@"' "$dir/gate" "$work" -m places -s "$secs" -l 3 >"$dir/acc.work" &
wpid=$!
bpftrace "$dir/offcpu.bt" "$wpid" >"$dir/acc.out" 2>"$dir/acc.err" &
bpid=$!
for ((i = 0; i < 600; i++)); do
	grep -q '^ready' "$dir/acc.out" 2>/dev/null && break
	kill -0 "$bpid" 2>/dev/null || break
	sleep 0.1
done
echo go >"$dir/gate"
wait "$bpid" || { cat "$dir/acc.err" >&2; die "bpftrace failed"; }
kill "$wpid" 2>/dev/null || true
wait "$wpid" 2>/dev/null || true
# Each stack's microseconds go to the first place its user frames name.
awk '/^\]: / { v = $2; for (p in pl) if (blk ~ ("[ \t]" p "\\+")) { got[p] += v; break }
		blk = ""; next }
	{ blk = blk " " $0 }
	BEGIN { pl["wait_nanosleep"]; pl["wait_pipe_read"]; pl["wait_mutex"] }
	END { for (p in got) print p, got[p] }' "$dir/acc.out" >"$dir/acc.bt"
# operf OFF_CPU:1 on the same mode, its stacks folded the same way.
places="wait_nanosleep wait_pipe_read wait_mutex"
if [ $has_offcpu = 1 ]; then
	OPROFILE_OFFCPU=perf "$operf" -d "$dir/acc.op" --events=OFF_CPU:1 --callgraph "$work" -m places -s "$secs" \
		>"$dir/acc.opwork" 2>"$dir/acc.operr"
	"$opreport" --session-dir="$dir/acc.op" --folded 2>/dev/null |
		awk -v pl="$places" 'BEGIN { n = split(pl, p, " ") }
		{ for (i = 1; i <= n; i++) if (index(";" $1 ";", ";" p[i] ";")) { got[p[i]] += $2; break } }
		END { for (q in got) print q, got[q] }' >"$dir/acc.o1"
fi
# One tool's shares ($1: "place us" lines) against the truth ($2).
shares() {
	awk 'FNR == NR { t[$1] = $2; tsum += $2; next }
		/^place=/ { split($0, w, /[ =]/); name = w[2]; tr[name] = w[4]; trsum += w[4]; order[++n] = name }
		END { for (i = 1; i <= n; i++) { p = order[i]
			a = trsum ? tr[p] / trsum * 100 : 0; b = tsum ? t[p] / tsum * 100 : 0
			printf "%-16s %12d %7.2f%% %12d %7.2f%% %+7.2f\n", p, tr[p], a, t[p], b, b - a } }' "$1" "$2"
}
echo "accuracy, places mode $secs s: share of the three places' blocked time"
printf '%-16s %12s %8s %12s %8s %7s\n' place truth_us truth bpftrace_us bpftrace diff
shares "$dir/acc.bt" "$dir/acc.work"
if [ $has_offcpu = 1 ]; then
	printf '%-16s %12s %8s %12s %8s %7s\n' place truth_us truth operf_us operf diff
	shares "$dir/acc.o1" "$dir/acc.opwork"
fi
