#!/bin/sh
# opwatch on tests/workloads/timed, whose routines sleep or spin for known
# times and which prints what each call took: 1 ms, 5 ms, a 1/4 ms mix,
# recursion (nested calls), a routine that returns on another cpu, and a
# fork timed in the parent and in the child. min, mean and max agree with
# the truth within 2 % + 20 us; so does a queue item's time from q_add to
# q_remove, paired by the item's address (--pair). Then the formats and bad input: unknown
# function, missing binary, a stripped binary, a kernel probe without a
# kprobe PMU, a user without permission.
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
# the children's "child NS" lines as one more truth line
awk '$1 == "child" { n++; s += $2; if (!n0++ || $2 < mn) mn = $2; if ($2 > mx) mx = $2 }
     END { if (n) printf "truth t_fork(child) %d %d %d %d\n", n, mn, s / n, mx }' \
	"$T/truth" >>"$T/truth"

# near WANT GOT: within 2 % + 20 us
near() { awk -v w="$1" -v g="$2" 'BEGIN { d = w - g; if (d < 0) d = -d; exit !(d <= 0.02 * w + 20000) }'; }

while read -r word name calls tmin tmean tmax; do
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
		eval "want=\$t$k got=\$w$k"
		near "$want" "$got" || fail "$name $k: opwatch $got ns, the program $want ns"
	done
	test_ok "$name: min/mean/max $wmin/$wmean/$wmax ns, truth $tmin/$tmean/$tmax"
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
