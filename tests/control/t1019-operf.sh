#!/bin/sh
# operf CMD: a shell that forks two copies of hot_main (0.6 and 0.3 CPU
# seconds) and then execs a third (0.3 s) is profiled with its children
# and its exec followed, into a session opreport reads unchanged: each
# copy's hot_main_loop holds its built-in share of the three (50/25/25 %,
# +-3 points). operf exits with the command's status, names a command it
# cannot run, and works for a new unprivileged user on user mode alone,
# with -g too (rings sized to the user's locked-memory limits).
# --summary and opreport --processes give a row per process; the stream
# --record-stream keeps replays into the same report. Samples lost (rings
# too small for 64 KiB stack copies at a high rate) are said at the end,
# with the stats' own count, and not said when there were none.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

OPERF=$B/utils/operf
W=$B/tests/workloads
chmod 755 "$T"
for c in hm_a hm_b hm_c; do cp "$W/hot_main" "$T/$c" || fail "cannot copy hot_main"; done
WORK="'$T/hm_a' 0.6 & '$T/hm_b' 0.3 & wait; exec '$T/hm_c' 0.3"

# shares DIR: "app percent" of hot_main_loop per copy, from opreport -l
shares() {
	"$OPREPORT" --session-dir="$1" -l >"$T/rep" 2>"$T/rep.err" ||
		{ cat "$T/rep.err"; fail "opreport failed on $1"; }
	awk '$NF == "hot_main_loop" && $3 ~ /^hm_/ { s[$3] += $1; t += $1 }
	     END { for (a in s) printf "%s %.1f\n", a, 100 * s[a] / t }' "$T/rep"
}

# check_share_list FILE WHERE: each copy's percent in FILE ("app percent"
# lines) at its built-in share +-3 points
check_share_list() {
	sed 's/^/# /' "$1"
	for want in "hm_a 50" "hm_b 25" "hm_c 25"; do
		app=${want% *} pct=${want#* }
		got=$(awk -v a="$app" '$1 == a { print $2 }' "$1")
		[ -n "$got" ] || fail "$app is not in $2"
		awk -v g="$got" -v w="$pct" 'BEGIN { exit !(g >= w - 3 && g <= w + 3) }' ||
			fail "$app has $got % in $2, not $pct +-3"
		test_ok "$2: $app at $got % (built in: $pct %)"
	done
}

# check_shares DIR: each copy's share of the hot samples of session DIR
check_shares() {
	shares "$1" >"$T/shares"
	check_share_list "$T/shares" "the profile's hot samples"
}

step "as root: two forked children and an exec"
(cd "$T" && "$OPERF" sh -c "$WORK") >"$T/out" 2>&1
rc=$?
cat "$T/out" | sed 's/^/# /'
check_eq "$rc" 0 "operf succeeds"
check_grep "$T/out" "profile written to '$T/oprofile_data'" "default session dir ./oprofile_data"
check_shares "$T/oprofile_data"
"$SFCHECK" "$T/oprofile_data/samples/current" || fail "sample files fail the structural check"

step "opreport --processes on a session without thread separation: a row per application"
"$OPREPORT" --session-dir="$T/oprofile_data" --processes >"$T/proc" 2>&1 ||
	{ cat "$T/proc"; fail "opreport --processes failed"; }
for c in hm_a hm_b hm_c; do
	grep -q "^ *all $c " "$T/proc" || { cat "$T/proc"; fail "no row for $c"; }
done
test_ok "a row for each copy, pid 'all'"

step "operf --summary: Prospect's process summary"
OPREPORT=$OPREPORT "$OPERF" --session-dir="$T/sum" --summary sh -c "$WORK" >"$T/sum.out" 2>&1 ||
	{ cat "$T/sum.out"; fail "operf --summary failed"; }
sed 's/^/# /' "$T/sum.out" | head -12
awk '$1 ~ /^[0-9]+$/ && $2 ~ /^hm_/ { print $2, $NF }' "$T/sum.out" >"$T/sum.shares"
check_share_list "$T/sum.shares" "the summary"
grep -q "^Process [0-9]* $T/hm_a" "$T/sum.out" && grep -q "USER portion" "$T/sum.out" &&
	grep -q "^Global kernel profile" "$T/sum.out" ||
	fail "the summary lacks the per-process or global kernel profiles"
# the samples' CPU time against wait4's (what /bin/time shows)
rus=$(awk '/user .*system .*elapsed/ { sub("user", "", $1); sub("system", "", $2); print $1 + $2 }' "$T/sum.out")
smp=$(awk '$1 == "total" { print $3 + $5 }' "$T/sum.out")
awk -v r="$rus" -v s="$smp" 'BEGIN { d = r - s; if (d < 0) d = -d; exit !(d <= 0.02 * r + 0.02) }' ||
	fail "sampled CPU time $smp s is not within 2 % + 20 ms of wait4's $rus s"
test_ok "sampled CPU time $smp s, wait4's $rus s"

step "--separate-thread: one sample file per process"
"$OPERF" --session-dir="$T/sep" --separate-thread sh -c "$WORK" >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "operf --separate-thread failed"; }
n=$(find "$T/sep/samples/current" -path "*{root}$T/hm_?/{dep}/*" -name '*.all' -type f |
	grep -v anon | sed 's/.*\.\([0-9]*\)\.[0-9]*\.all$/\1/' | sort -u | wc -l)
check_eq "$n" 3 "three processes of the copies, each its own tgid"
# --processes with a specification that names the tag its per-process
# profiles add (tgid:, image:): each process's profile, exit 0
tg=$(find "$T/sep/samples/current" -path "*{root}$T/hm_a/{dep}/*" -name '*.all' -type f |
	grep -v anon | sed 's/.*\.\([0-9]*\)\.[0-9]*\.all$/\1/' | head -1)
"$OPREPORT" --session-dir="$T/sep" --processes "tgid:$tg" >"$T/proc" 2>&1
check_eq "$?" 0 "--processes tgid:$tg: exit 0"
check_grep "$T/proc" "^Process $tg $T/hm_a" "--processes tgid:$tg: the process's own profile"
check_no_grep "$T/proc" 'given twice' "--processes tgid:$tg: no tag given twice"
"$OPREPORT" --session-dir="$T/oprofile_data" --processes "image:$T/hm_b" >"$T/proc" 2>&1
check_eq "$?" 0 "--processes image:hm_b on an unseparated session: exit 0"
check_grep "$T/proc" "USER portion" "--processes image:hm_b: its profile"

step "--pid: a running process until it exits"
cp "$W/hot_main" "$T/hm_p"
"$T/hm_p" 1.0 & p=$!
sleep 0.2
"$OPERF" --session-dir="$T/pid" --pid=$p >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "operf --pid failed"; }
wait $p
"$OPREPORT" --session-dir="$T/pid" -l >"$T/rep" 2>&1 || { cat "$T/rep"; fail "opreport failed"; }
n=$(report_samples "$T/rep" hm_p hot_main_loop)
# about 0.8 s of the 1.0 s after the first 0.2 s, at 1 ms a sample
[ "$n" -gt 400 ] || { cat "$T/rep"; fail "hm_p has $n samples in hot_main_loop"; }
test_ok "--pid: $n samples of hm_p's hot_main_loop; operf stopped when it exited"

step "--record-stream: the replayed stream gives the same report"
"$OPERF" --session-dir="$T/rec" --record-stream="$T/rec.ops" sh -c "$WORK" >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "operf --record-stream failed"; }
"$OPROFILED" --session-dir="$T/replayed" --replay="$T/rec.ops" >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "oprofiled --replay failed"; }
"$OPREPORT" --session-dir="$T/rec" -l >"$T/a" 2>&1 || fail "opreport failed"
"$OPREPORT" --session-dir="$T/replayed" -l >"$T/b" 2>&1 || fail "opreport on the replay failed"
cmp -s "$T/a" "$T/b" || { diff "$T/a" "$T/b" | head; fail "the replayed session reports otherwise"; }
test_ok "the recorded stream replays into the same report"

step "the command's status"
"$OPERF" --session-dir="$T/st" sh -c 'exit 5' >"$T/out" 2>&1
check_eq "$?" 5 "operf exits with the command's exit status"
"$OPERF" --session-dir="$T/st" sh -c 'kill -TERM $$' >"$T/out" 2>&1
check_eq "$?" 143 "a command killed by SIGTERM: 128 + 15"

step "bad input"
"$OPERF" --session-dir="$T/bad" "$T/no-such-program" >"$T/out" 2>&1
check_eq "$?" 127 "a command that cannot run: status 127"
check_grep "$T/out" "cannot run '$T/no-such-program'" "the error names the command"
"$OPERF" --session-dir="$T/bad" >"$T/out" 2>&1
check_eq "$?" 2 "no command: usage error"
"$OPERF" --session-dir="$T/bad" --pid=999999999 >"$T/out" 2>&1
check_grep "$T/out" "999999999" "a pid that does not exist is named"
"$OPERF" --session-dir="$T/bad" -e NO_SUCH_EVENT:100000 true >"$T/out" 2>&1
check_grep "$T/out" "NO_SUCH_EVENT" "an unknown event is named"

step "as an unprivileged user"
U=opftest
if ! id "$U" >/dev/null 2>&1; then
	useradd -M -s /bin/sh "$U" 2>/dev/null || { test_note "skip: cannot create user $U"; test_done; }
fi
command -v runuser >/dev/null || { test_note "skip: no runuser"; test_done; }
mkdir "$T/user" && chown "$U" "$T/user"
(cd "$T/user" && runuser -u "$U" -- env OPROFILE_EVENTS_DIR="$OPROFILE_EVENTS_DIR" \
	"$OPERF" sh -c "$WORK") >"$T/out" 2>&1
rc=$?
cat "$T/out" | sed 's/^/# /'
check_eq "$rc" 0 "operf as $U succeeds"
if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 1 ]; then
	check_grep "$T/out" "user mode only: kernel.perf_event_paranoid" \
		"says that the kernel is hidden, and why"
fi
check_shares "$T/user/oprofile_data"

# -g as the same user: the default rings (2048 pages a cpu with stack
# copies) exceed what kernel.perf_event_mlock_kb and Debian's default
# ulimit -l (8 MiB) allow a user; operf maps smaller ones and says so
rm -rf "$T/user/oprofile_data"
(cd "$T/user" && ulimit -l 8192 && runuser -u "$U" -- env OPROFILE_EVENTS_DIR="$OPROFILE_EVENTS_DIR" \
	"$OPERF" -g sh -c "$WORK") >"$T/out" 2>&1
rc=$?
sed 's/^/# /' "$T/out"
check_eq "$rc" 0 "operf -g as $U succeeds"
if [ "$(nproc)" -gt 1 ]; then
	check_grep "$T/out" "perf rings of [0-9]+ pages a cpu instead of 2048" \
		"-g: the smaller rings are said"
fi
check_shares "$T/user/oprofile_data"
"$OPREPORT" --session-dir="$T/user/oprofile_data" --folded >"$T/folded" 2>"$T/folded.err" ||
	{ cat "$T/folded.err"; fail "opreport --folded on the user's -g session"; }
check_grep "$T/folded" '^hm_a;.*main;.*hot_main_loop [0-9]+$' "-g: hm_a's stacks reach hot_main_loop through main"

# lost samples: said when the stats count them, and only then
losses() {  # DIR: the stats' lost-before-the-files count
	st=$1/samples/current/stats
	echo $(( $(cat "$st/sample_lost_overflow" 2>/dev/null || echo 0) +
		$(cat "$st/sample_lost_throttled" 2>/dev/null || echo 0) ))
}
# big: as the user with 64 KiB of locked memory (rings of 128 pages, the
# kernel's per-cpu allowance), 64 KiB stack copies at the fastest rate -g
# takes: a ring holds 7 samples, and the default rate lost none in one
# run of four; small: root, the default
for run in big small; do
	rm -rf "$T/user/lost"
	if [ "$run" = big ]; then
		(cd "$T/user" && ulimit -l 64 && runuser -u "$U" -- env \
			OPROFILE_EVENTS_DIR="$OPROFILE_EVENTS_DIR" "$OPERF" -g \
			--stack-size=65528 -e CPU_CLOCK:150000 \
			-d "$T/user/lost" sh -c "$WORK") \
			>"$T/lost.out" 2>"$T/lost.err"
	else
		"$OPERF" -d "$T/user/lost" sh -c "$WORK" >"$T/lost.out" 2>"$T/lost.err"
	fi || { cat "$T/lost.err"; fail "operf ($run) failed"; }
	n=$(losses "$T/user/lost")
	test_note "$run: $n samples lost by the stats"
	if [ "$run" = big ]; then
		test_expect "big: the small rings lost samples ($n)" test "$n" -gt 0
	fi
	if [ "$n" -gt 0 ]; then
		check_grep "$T/lost.err" "warning: $n samples lost before the sample files" \
			"$run: the $n lost samples are said at the end"
	else
		check_eq "$(grep -c 'samples lost' "$T/lost.err")" 0 "$run: no loss, nothing said"
	fi
done
test_done
