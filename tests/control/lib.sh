# The control tests' own helpers (sourced), on top of the common shell
# test library tests/lib/test-lib.sh (TAP checks, fail, skip, wait_for,
# test_done). Needs from the environment (tests/Makefile.am sets them):
# abs_top_builddir, abs_top_srcdir.
#
# Gives: $OPCONTROL, $OPROFILED, $SFCHECK, $SFRANGE, $OPREPORT, $SPIN,
# a fresh session dir $S in $T (removed, after shutting its daemon down,
# on exit) for test-lib.sh's ctl, fail MSG (with the daemon's log), and
# skips (77) unless root with perf_event_open allowed.
. "${abs_top_srcdir:?}/tests/lib/test-lib.sh"
B=$abs_top_builddir
SFCHECK=$B/tests/control/sfcheck
SFRANGE=$B/tests/control/sfrange
# opcontrol finds oprofiled next to itself, then in PATH
PATH=$B/daemon:$B/utils:$PATH
export PATH

[ "$(id -u)" -eq 0 ] || skip "the control tests sample system-wide and need root"
msg=$("$B/tests/control/perfprobe") || skip "$msg"

test_tmpdir opctl-test
T=$tmp
S=$T/session
# The daemon samples the whole machine, other tests' workloads too: each
# test runs its own copy of the workload, so its sample files are its own.
SPIN=$T/spin
cp "$B/tests/control/spin" "$SPIN"
# A test that hangs fails after 120 s instead of stalling make check.
(
	trap 'kill $sleeper 2>/dev/null; exit 0' TERM
	sleep 120 & sleeper=$!
	wait $sleeper && echo "Bail out! test timed out after 120 s" &&
		kill -TERM $$
) &
watchdog=$!

# at exit, before $T goes: the watchdog, and the daemon if it still runs
test_cleanup_hook() {
	kill "$watchdog" 2>/dev/null
	if [ -f "$S/lock" ]; then
		pid=$(cat "$S/lock")
		kill -TERM "$pid" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null
	fi
	# a test that mounted a small file system for $S
	[ -z "${UMOUNT:-}" ] || umount "$UMOUNT" 2>/dev/null || umount -l "$UMOUNT"
	# what a suite's own helpers started (fleet.sh: its servers)
	"${CLEANUP_MORE:-:}"
}
trap 'exit 1' TERM INT


# a failed test shows the end of the daemon's log
test_fail_hook() {
	if [ -f "$S/samples/oprofiled.log" ]; then
		test_note "--- oprofiled.log"
		tail -30 "$S/samples/oprofiled.log" | sed 's/^/# /'
	fi
}

step() { test_note "--- $*"; }
# run_times N CMD...: CMD N times (output dropped); fail naming CMD if it fails
run_times() {
	local n=$1 i=0
	shift
	while [ $i -lt "$n" ]; do
		"$@" >/dev/null || fail "$(basename "$1") failed (run $((i + 1)) of $n)"
		i=$((i + 1))
	done
}

# The sum of doc/formats.md section 5: every sample received is written,
# saturated or dropped for one of these reasons. Named one by one, so a
# missing counter file is an error, not a smaller sum.
STATS_SUM="sample_written sample_saturated sample_dropped_no_app
sample_dropped_bad_event sample_dropped_unresolved_kernel
sample_dropped_unknown_cookie sample_dropped_no_mapping
sample_dropped_image_filter sample_dropped_sfile_error sample_dropped_no_space
sample_dropped_time_window"
# Lost before the stream (outside the sum), and the other counters.
STATS_LOST="sample_lost_overflow sample_lost_no_mm sample_lost_no_mapping
event_lost_overflow bt_lost_no_mapping sample_invalid_eip
sample_lost_throttled"

# counter DIR NAME: one counter of session DIR (fails if it is missing)
counter() {
	[ -f "$1/stats/$2" ] || fail "no stats/$2 in $1"
	cat "$1/stats/$2"
}

# stats_balance DIR: received = written + saturated + the dropped
# categories, exactly; prints the non-zero terms and lost counters
stats_balance() {
	recv=$(counter "$1" sample_received)
	sum=0 terms=""
	for f in $STATS_SUM; do
		v=$(counter "$1" "$f")
		sum=$((sum + v))
		[ "$v" -eq 0 ] || terms="$terms $f=$v"
	done
	[ "$recv" -eq "$sum" ] ||
		fail "stats do not balance in $1: received $recv, sum$terms = $sum"
	echo "stats balance: sample_received $recv = $sum (non-zero:$terms)"
	lost=""
	for f in $STATS_LOST stream_errors maps_reread maps_reread_hit \
		 maps_reread_gone; do
		lost="$lost $f=$(counter "$1" "$f")"
	done
	echo "lost before the stream:$lost"
}

# check_headers DIR: every sample file starts "DAE\n" + version 0x13
check_headers() {
	n=0
	find "$1" -path "$1/{*" -type f >"$T/files"
	while IFS= read -r f; do
		h=$(od -An -tx1 -N8 "$f" | tr -d ' \n')
		[ "$h" = "4441450a13000000" ] || fail "bad header '$h' in '$f'"
		n=$((n + 1))
	done <"$T/files"
	[ "$n" -gt 0 ] || fail "no sample files under $1"
	echo "$n sample file headers ok"
}

# alive PID: the process exists and is not a zombie
alive() {
	[ -r "/proc/$1/stat" ] || return 1
	! sed 's/.*) //' "/proc/$1/stat" | grep -q '^Z'
}

# wait_gone PID: up to 5 s for the process to end
wait_gone() {
	for _ in $(seq 50); do alive "$1" || return 0; sleep 0.1; done
	return 1
}

# hdr FILE OFFSET u4|u8: one unsigned field of a sample file's header,
# read with od (independent of libop's struct)
hdr() { od -An -t"$3" -j"$2" -N"${3#u}" "$1" | tr -d ' '; }

# check_header FILE IS_KERNEL [BINARY]: the header of one sample file:
# "DAE\n", version 0x13, cpu_type 4 (timer), CPU_CLOCK's period 1000000,
# is_kernel, and mtime == BINARY's st_mtime
check_header() {
	[ -f "$1" ] || fail "no sample file $1"
	h=$(od -An -tx1 -N8 "$1" | tr -d ' \n')
	[ "$h" = "4441450a13000000" ] || fail "bad magic/version '$h' in $1"
	[ "$(hdr "$1" 8 u4)" = 4 ] || fail "cpu_type $(hdr "$1" 8 u4), not 4 (timer), in $1"
	[ "$(hdr "$1" 20 u4)" = 1000000 ] || fail "ctr_count $(hdr "$1" 20 u4) in $1"
	[ "$(hdr "$1" 24 u4)" = "$2" ] || fail "is_kernel $(hdr "$1" 24 u4), not $2, in $1"
	if [ $# -ge 3 ]; then
		m=$(stat_mtime "$3")
		[ "$(hdr "$1" 40 u8)" = "$m" ] ||
			fail "mtime $(hdr "$1" 40 u8) in $1, but $3 has st_mtime $m"
	fi
	echo "header ok: ${1#"$S/samples/"}: cpu_type 4, count 1000000, is_kernel $2${3:+, mtime $(hdr "$1" 40 u8)}"
}
stat_mtime() { stat -c %Y "$1"; }

# in_range FILE ELF FUNC MIN_PERCENT: at least MIN_PERCENT of the samples
# of FILE are in FUNC (file offsets from the ELF oracle) and there are at
# least 200 of them; prints the figures
in_range() {
	[ -f "$1" ] || fail "no sample file $1"
	r=$("$SFRANGE" "$1" "$2" "$3") || fail "sfrange $1 $2 $3 failed"
	set -- "$@" $r
	[ "$6" -ge 200 ] || fail "only $6 samples in ${1#"$S/samples/"}"
	[ $(($5 * 100)) -ge $(($6 * $4)) ] ||
		fail "only $5 of $6 samples of ${1#"$S/samples/"} in $3 (want >= $4 %)"
	echo "in range: $5 of $6 samples ($(($5 * 100 / $6)) %) of ${1#"$S/samples/"} in $3"
}

# opwatch_workload PROGRAM: for the opwatch tests: skips without a uprobe
# PMU; sets $OPWATCH and $P, a copy of PROGRAM in $T (755: a test runs it
# as another user too)
opwatch_workload() {
	OPWATCH=$B/utils/opwatch
	[ -e /sys/bus/event_source/devices/uprobe/type ] || skip "no uprobe PMU on this kernel"
	P=$T/$(basename "$1")
	chmod 755 "$T"
	cp "$1" "$P" || fail "cannot copy the workload"
}
