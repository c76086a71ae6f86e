# Shared setup of the control tests (sourced). Needs from the environment
# (tests/Makefile.am sets them): abs_top_builddir, abs_top_srcdir.
#
# Gives: $OPCONTROL, $OPROFILED, $SFCHECK, $SPIN, a fresh session dir
# $S (removed, after shutting its daemon down, on exit), ctl (opcontrol on
# $S), fail MSG, and skips (77) unless root with perf_event_open allowed.
set -u
: "${abs_top_builddir:?}" "${abs_top_srcdir:?}"
B=$abs_top_builddir
OPCONTROL=$B/utils/opcontrol
OPROFILED=$B/daemon/oprofiled
SFCHECK=$B/tests/control/sfcheck
OPROFILE_EVENTS_DIR=$abs_top_srcdir/events
# opcontrol finds oprofiled next to itself, then in PATH
PATH=$B/daemon:$B/utils:$PATH
export OPROFILE_EVENTS_DIR PATH

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: the control tests sample system-wide and need root"
	exit 77
fi
if ! msg=$("$B/tests/control/perfprobe"); then
	echo "SKIP: $msg"
	exit 77
fi

T=$(mktemp -d /tmp/opctl-test.XXXXXX)
S=$T/session
# The daemon samples the whole machine, other tests' workloads too: each
# test runs its own copy of the workload, so its sample files are its own.
SPIN=$T/spin
cp "$B/tests/control/spin" "$SPIN"
cleanup() {
	if [ -f "$S/lock" ]; then
		pid=$(cat "$S/lock")
		kill -TERM "$pid" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null
	fi
	rm -rf "$T"
}
trap cleanup EXIT

ctl() { "$OPCONTROL" --session-dir="$S" "$@"; }

fail() {
	echo "FAIL: $*"
	if [ -f "$S/samples/oprofiled.log" ]; then
		echo "--- oprofiled.log"
		tail -30 "$S/samples/oprofiled.log"
	fi
	exit 1
}

step() { echo "--- $*"; }

# wait_for CMD...: up to 10 s for CMD to succeed
wait_for() {
	for _ in $(seq 100); do "$@" && return 0; sleep 0.1; done
	return 1
}

# stats_balance DIR: received = written + the dropped categories
stats_balance() {
	d=$1/stats
	[ -f "$d/sample_received" ] || fail "no stats in $1"
	recv=$(cat "$d/sample_received")
	sum=$(cat "$d/sample_written")
	for f in "$d"/sample_dropped_* "$d/sample_saturated"; do
		sum=$((sum + $(cat "$f")))
	done
	[ "$recv" -eq "$sum" ] || fail "stats do not balance in $d: received $recv, written+dropped $sum"
	echo "stats balance: received $recv = written+dropped $sum"
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
