# The one shell test library (sourced; POSIX sh). Every shell test of the
# tree uses it, directly (utils/tests) or through its suite's own small
# file of specific helpers (pp/tests/lib.sh, tests/control/lib.sh). Only
# the qemu guest's scenarios do not: they run in busybox inside the guest
# (tests/kernel/lib.sh, see tests/README.md).
#
# Output is TAP, as tests/check.h's: "ok N - what", "not ok N - what",
# "# ..." for diagnostics, the plan "1..N" at test_done. Exit status, as
# automake expects: 0 passed, 1 failed, 77 skipped, 99 a hard error.
#
# Needs abs_top_builddir and abs_top_srcdir (every Makefile.am that runs
# shell tests exports them); gives the build's programs below, a private
# temporary directory $tmp (test_tmpdir, removed at exit) and the checks.
set -u
: "${abs_top_builddir:?set abs_top_builddir to the top of the build}"
: "${abs_top_srcdir:?set abs_top_srcdir to the top of the sources}"

# The build tree's programs (a suite's Makefile.am may point elsewhere).
OPCONTROL=${OPCONTROL:-$abs_top_builddir/utils/opcontrol}
OPROFILED=${OPROFILED:-$abs_top_builddir/daemon/oprofiled}
OPREPORT=${OPREPORT:-$abs_top_builddir/pp/opreport}
OPHELP=${OPHELP:-$abs_top_builddir/utils/ophelp}
OPROFILE_EVENTS_DIR=${OPROFILE_EVENTS_DIR:-$abs_top_srcdir/events}
export OPROFILE_EVENTS_DIR
# No machine-wide kernel cache (libopd/opd_kernel.c) unless a test asks:
# tests do not write the machine's directories, and t0027 swaps its cache
OPROFILE_KERNEL_CACHE=${OPROFILE_KERNEL_CACHE-}
export OPROFILE_KERNEL_CACHE

test_nr=0
test_failed=0

test_ok() {
	test_nr=$((test_nr + 1))
	echo "ok $test_nr - $*"
}

# A failed check that lets the test go on (test_done then fails it).
test_not_ok() {
	test_nr=$((test_nr + 1))
	test_failed=$((test_failed + 1))
	echo "not ok $test_nr - $*"
}

test_note() {
	echo "# $*"
}

# A suite redefines these: what to show when a test fails (a log, say),
# and what to tear down at exit before $tmp goes (a daemon, say).
test_fail_hook() { :; }
test_cleanup_hook() { :; }

# fail WHAT: a failed check that ends the test.
fail() {
	test_not_ok "$*"
	test_fail_hook
	exit 1
}

# skip WHY: the test cannot run here (not root, no perf_event_open, ...).
skip() {
	echo "1..0 # SKIP $*"
	exit 77
}

# bail WHY: a hard error, not the tested code's fault (setup failed).
bail() {
	echo "Bail out! $*"
	exit 99
}

# test_expect WHAT CMD...: CMD succeeds (the test goes on either way).
test_expect() {
	_what=$1
	shift
	if "$@"; then test_ok "$_what"; else test_not_ok "$_what"; fi
}

# check_eq ACTUAL EXPECTED WHAT
check_eq() {
	[ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"
	test_ok "$3"
}

# check_grep FILE REGEX WHAT: FILE has a line matching the extended regex.
check_grep() {
	grep -Eq -- "$2" "$1" || { cat "$1"; fail "$3: no line matches /$2/"; }
	test_ok "$3"
}

# check_no_grep FILE REGEX WHAT
check_no_grep() {
	! grep -Eq -- "$2" "$1" || { cat "$1"; fail "$3: a line matches /$2/"; }
	test_ok "$3"
}

# report_samples REPORT IMAGE SYMBOL: the samples `opreport -l` (text in
# the file REPORT) gives SYMBOL in IMAGE (base name). opreport drops the
# image column, as OProfile does, when every sample is in one image (say,
# no kernel sample happened to be taken): then every row is IMAGE's.
report_samples() {
	awk -v img="$2" -v sym="$3" '
		/^samples / { cols = ($0 ~ /image name/); next }
		$1 ~ /^[0-9]+$/ && $NF == sym && (!cols || $3 == img) { n += $1 }
		END { print n + 0 }' "$1"
}

# wait_for CMD...: up to 10 s for CMD to succeed.
wait_for() {
	for _ in $(seq 100); do "$@" && return 0; sleep 0.1; done
	return 1
}

# build_id_of FILE: FILE's GNU build-id in hex, as readelf -n prints it
# (empty when it has none)
build_id_of() {
	readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }'
}

# test_tmpdir NAME: a fresh $tmp under $TMPDIR (or /tmp); at exit the
# suite's test_cleanup_hook runs, then $tmp is removed.
test_tmpdir() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || bail "mktemp failed"
	trap test_exit EXIT
}
test_exit() {
	test_cleanup_hook
	rm -rf "$tmp"
}

# The end: the plan; status 1 if a check failed. A test whose checks all
# end it on failure (fail) and that counted none passes as one check.
test_done() {
	[ "$test_nr" -gt 0 ] || test_ok "${0##*/}: every check passed"
	echo "1..$test_nr"
	if [ "$test_failed" -gt 0 ]; then
		echo "# $test_failed of $test_nr checks failed"
		exit 1
	fi
	exit 0
}
