#!/bin/sh
# opwatch on tests/workloads/timed, whose routines sleep or spin for known
# times and which prints what each call took: 1 ms, 5 ms, a 1/4 ms mix,
# recursion (nested calls), a routine that returns on another cpu, and a
# fork timed in the parent and in the child; and a queue item's time from
# q_add to q_remove, paired by the item's address (--pair). The program
# times each call from inside the routine and from around the call;
# opwatch's entry and return stamps lie between, so its min, mean and max
# lie between the program's inside and around ones (the scheduler may put
# milliseconds between a read and a probe on a busy machine: each bound is
# only as tight as the program's own reads). Then the formats and bad
# input: unknown function, missing binary, a stripped binary, a kernel
# probe without a kprobe PMU, a user without permission.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

opwatch_workload "$B/tests/workloads/timed"

step "six routines of known durations"
set --
for f in t_1ms t_5ms t_bimodal t_recurse t_migrate t_fork; do set -- "$@" -P "$P:$f"; done
# the queue: an item from q_add to q_remove, keyed by its address
set -- "$@" -Q "$P:q_add:arg1,$P:q_remove:arg1"
"$OPWATCH" "$@" -f csv -o "$T/w.csv" "$P" >"$T/truth" 2>"$T/err" ||
	{ cat "$T/err"; fail "opwatch failed"; }
sed 's/^/# /' "$T/truth" "$T/w.csv"
# the children's "child IN OUT" lines as one more truth line
awk '$1 == "child" { n++; si += $2; so += $3
		if (n == 1 || $2 < imn) imn = $2; if ($2 > imx) imx = $2
		if (n == 1 || $3 < omn) omn = $3; if ($3 > omx) omx = $3 }
     END { if (n) printf "truth t_fork(child) %d %d %d %d %d %d %d\n",
		n, imn, si / n, imx, omn, so / n, omx }' "$T/truth" >>"$T/truth"

# within IN OUT GOT: IN - 2 us <= GOT <= OUT + 2 us. Both sides read
# CLOCK_MONOTONIC (the program through the vDSO, perf through
# ktime_get_mono_fast_ns) and a mean is rounded down on both: a margin
# far above the clocks' disagreement and far below a routine's time.
within() { awk -v i="$1" -v o="$2" -v g="$3" 'BEGIN { exit !(g >= i - 2000 && g <= o + 2000) }'; }

while read -r word name calls imin imean imax omin omean omax; do
	[ "$word" = truth ] || continue
	case $name in
	*"(child)") probe="$P:t_fork" group="(child)" ;;
	pair) probe=PAIR group="" ;;
	*) probe="$P:$name" group="" ;;
	esac
	# the pair's spec is quoted (it holds a comma): PAIR stands for it
	line=$(sed 's/^"[^"]*"/PAIR/' "$T/w.csv" |
		awk -F, -v p="$probe" -v g="$group" '$1 == p && $2 == g')
	[ -n "$line" ] || fail "no row for $name"
	IFS=, read -r _ _ wcalls wmin wmean wmax _ <<EOT
$line
EOT
	check_eq "$wcalls" "$calls" "$name: $calls calls"
	for k in min mean max; do
		eval "lo=\$i$k hi=\$o$k got=\$w$k"
		within "$lo" "$hi" "$got" ||
			fail "$name $k: opwatch $got ns, not within the program's $lo ns (inside) .. $hi ns (around)"
	done
	test_ok "$name: min/mean/max $wmin/$wmean/$wmax ns, inside $imin/$imean/$imax, around $omin/$omean/$omax"
done <"$T/truth"
if [ "$(nproc)" -gt 1 ]; then
	grep -q '^migrated [1-9]' "$T/truth" || fail "t_migrate never returned on another cpu"
	test_ok "t_migrate returned on another cpu than it entered"
fi

step "text and JSON, split by process name"
"$OPWATCH" -P "$P:t_1ms" --by name "$P" >"$T/w.txt" 2>&1 || { cat "$T/w.txt"; fail "opwatch (text) failed"; }
check_grep "$T/w.txt" "t_1ms  timed: 20 calls" "text: the probe, the process name, the calls"
check_grep "$T/w.txt" "us \.\." "text: a log2 histogram"
"$OPWATCH" -P "$P:t_5ms" -f json -o "$T/w.json" "$P" >/dev/null 2>&1 || fail "opwatch (json) failed"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["groups"][0]["calls"] == 10' \
	"$T/w.json" || fail "the JSON does not parse or lacks 10 calls"
test_ok "JSON parses, 10 calls of t_5ms"

step "bad input"
"$OPWATCH" -P "$P:no_such_function" true >"$T/out" 2>&1
check_grep "$T/out" "no function 'no_such_function' in '$P'" "an unknown function is named"
"$OPWATCH" -P "$T/no-such-binary:main" true >"$T/out" 2>&1
check_grep "$T/out" "binary '$T/no-such-binary'" "a missing binary is named"
strip -o "$T/stripped" "$P" 2>/dev/null && {
	"$OPWATCH" -P "$T/stripped:t_1ms" true >"$T/out" 2>&1
	check_grep "$T/out" "stripped: no .symtab" "a stripped binary's missing symbol says why"
}
if [ ! -e /sys/bus/event_source/devices/kprobe ]; then
	"$OPWATCH" -P kernel:vfs_read true >"$T/out" 2>&1
	check_grep "$T/out" "this kernel has no kprobe PMU" "kernel probes: says this host has no kprobe PMU"
fi
"$OPWATCH" -P "$P:t_1ms" --format yaml true >"$T/out" 2>&1
check_eq "$?" 2 "an unknown format is a usage error"
U=opftest
if id "$U" >/dev/null 2>&1 || useradd -M -s /bin/sh "$U" 2>/dev/null; then
	runuser -u "$U" -- "$OPWATCH" -P "$P:t_1ms" "$P" >"$T/out" 2>&1
	check_grep "$T/out" "cannot open the entry of probe '$P:t_1ms'" "no permission: the probe is named"
	check_grep "$T/out" "probes need root" "no permission: says what is needed"
fi
test_done
