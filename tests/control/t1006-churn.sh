#!/bin/sh
# Process churn: 500 short-lived fork/exec processes (tests/workloads/churn,
# each child spinning ~2 ms in churn_spin) while the daemon samples and
# dumps back to back. The daemon stays alive, every dump completes, the
# children's samples land in the churn binary's own file(s) and in
# churn_spin, and the stats balance exactly. Twice: --separate=none (one
# file) and --separate=thread (one file per child, named by its own tgid).
. "${abs_top_srcdir:?}/tests/control/lib.sh"

cp "$B/tests/workloads/churn" "$T/churn" || fail "cannot copy churn"
C=$S/samples/current
EV=CPU_CLOCK.1000000.0
N=500

# churn_run: churn $N with --dump in a loop meanwhile; prints the figures
churn_run() {
	pid=$(cat "$S/lock")
	"$T/churn" $N & c=$!
	dumps=0
	while alive "$c"; do
		ctl --dump || fail "--dump during the churn failed"
		dumps=$((dumps + 1))
		alive "$pid" || fail "daemon died during the churn"
	done
	wait "$c" || fail "churn failed"
	ctl --dump || fail "--dump after the churn failed"
	alive "$pid" || fail "daemon died"
	echo "$N processes, $dumps dumps during the churn, daemon $pid alive"
}

step "--separate=none"
ctl --separate=none --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
churn_run
f=$C/{root}$T/churn/{dep}/{root}$T/churn/$EV.all.all.all
check_header "$f" 0 "$T/churn"
# 500 x 2 ms of CPU is about 1000 samples; >= 200 leaves room for a
# loaded machine, >= 90 % of them in churn_spin
in_range "$f" "$T/churn" churn_spin 90
find "$C" -path "$C/{root}$T/churn/*" -type f | sed "s|^$C/||" >"$T/files"
grep -v "^{root}$T/churn/{dep}/\({root}$T/churn\|{root}/\[vdso\]\|{anon:[^}]*}/[0-9]*\.0x[0-9a-f]*\.0x[0-9a-f]*\)/$EV\.all\.all\.all$" "$T/files" &&
	fail "churn files with names of another separation"
echo "$(wc -l <"$T/files") files of churn (its own and anonymous regions)"
"$SFCHECK" "$C" || fail "sample files fail the structural check"
stats_balance "$C"

step "--separate=thread: a file per child"
ctl --shutdown || fail "--shutdown failed"
ctl --separate=thread --reset --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
churn_run
d=$C/{root}$T/churn/{dep}/{root}$T/churn
ls "$d" >"$T/files" 2>/dev/null || fail "no $d"
# CPU_CLOCK.1000000.0.TGID.TID.all with TID == TGID (one thread each)
grep -v "^$EV\.[0-9]*\.[0-9]*\.all$" "$T/files" && fail "bad file names in $d"
awk -F. '$4 != $5 { bad = 1 } END { exit bad }' "$T/files" ||
	fail "a churn child's file with tid != tgid"
tgids=$(cut -d. -f4 "$T/files" | sort -u | wc -l)
files=$(wc -l <"$T/files")
check_eq "$tgids" "$files" "one sample file per tgid"
# each child has ~2 samples (mean): most of them get a file
[ "$tgids" -ge 200 ] || fail "only $tgids of $N churn children have a sample file"
total=0
while IFS= read -r n; do
	t=$("$SFRANGE" "$d/$n") || fail "cannot read $d/$n"
	total=$((total + t))
done <"$T/files"
echo "$tgids churn processes have their own file; $total samples in them"
[ "$total" -ge 200 ] || fail "only $total samples of churn"
"$SFCHECK" "$C" || fail "sample files fail the structural check"
stats_balance "$C"
ctl --shutdown || fail "--shutdown failed"
[ ! -e "$S/lock" ] || fail "lock left behind"
test_done
