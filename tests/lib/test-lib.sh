# The one shell test library (sourced; POSIX sh). Every shell test of the
# tree uses it, directly (utils/tests) or through its suite's own small
# file of specific helpers (pp/tests/lib.sh, tests/control/lib.sh). Only
# the qemu guest's scenarios do not: they run in busybox inside the guest
# (tests/kernel/guest-lib.sh, see tests/README.md).
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
# tests do not write the machine's directories, and t1027 swaps its cache
OPROFILE_KERNEL_CACHE=${OPROFILE_KERNEL_CACHE-}
export OPROFILE_KERNEL_CACHE

test_nr=0
test_failed=0

test_ok() {
	test_nr=$((test_nr + 1))
	echo "ok $test_nr - $*"
}

# A failed check that lets the test go on (test_done then fails it). A
# check failed in a subshell counts too: it leaves a mark beside $tmp.
test_not_ok() {
	test_nr=$((test_nr + 1))
	test_failed=$((test_failed + 1))
	echo "not ok $test_nr - $*"
	[ -z "${tmp:-}" ] || echo "$*" >>"$tmp.not-ok"
}

test_note() {
	echo "# $*"
}

# test_show FILE [MAX]: FILE's first MAX (50) lines as TAP diagnostics.
test_show() {
	if [ -f "$1" ]; then
		echo "#   $1 ($(wc -l <"$1") lines):"
		head -n "${2:-50}" "$1" | sed 's/^/#     /'
	else
		echo "#   $1: no such file"
	fi
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

# The value checks below report "ok" or "not ok" and let the test go on
# (test_done fails it); a failure shows what was expected and what was
# there, on "#   " lines. Each returns 0 when ok, 1 when not.

# check_eq ACTUAL EXPECTED WHAT
check_eq() {
	if [ "$1" = "$2" ]; then
		test_ok "$3"
		return 0
	fi
	test_not_ok "$3"
	printf '#   expected: %s\n#   actual:   %s\n' "'$2'" "'$1'"
	return 1
}

# test_cmp EXPECTED_FILE ACTUAL_FILE [WHAT]: the two files are the same;
# when not, their unified diff (expected first, at most 200 lines).
# EXPECTED_FILE - reads the expected text from stdin.
test_cmp() {
	_exp=$1
	if [ "$1" = - ]; then
		_exp=$(mktemp "${TMPDIR:-/tmp}/test_cmp.XXXXXX") || bail "mktemp failed"
		cat >"$_exp"
	fi
	if cmp -s -- "$_exp" "$2"; then
		test_ok "${3:-$2 is $1}"
		_rc=0
	else
		test_not_ok "${3:-$2 is $1}"
		diff -u --label expected --label actual -- "$_exp" "$2" |
			head -n 200 | sed 's/^/#   /'
		_rc=1
	fi
	[ "$1" != - ] || rm -f "$_exp"
	return $_rc
}

# check_grep FILE REGEX WHAT: FILE has a line matching the extended regex.
check_grep() {
	if grep -Eq -- "$2" "$1"; then
		test_ok "$3"
		return 0
	fi
	test_not_ok "$3"
	echo "#   expected: a line matching /$2/"
	test_show "$1"
	return 1
}

# check_no_grep FILE REGEX WHAT: no line of FILE matches.
check_no_grep() {
	if ! grep -Eq -- "$2" "$1"; then
		test_ok "$3"
		return 0
	fi
	test_not_ok "$3"
	echo "#   expected: no line matching /$2/; these do:"
	grep -En -- "$2" "$1" | head -n 20 | sed 's/^/#     /'
	return 1
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

# ctl ARGS...: opcontrol on the test's session directory $S.
ctl() { "$OPCONTROL" --session-dir="${S:?ctl needs the session directory S}" "$@"; }

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
	rm -f "$tmp.not-ok"
}

# The end: the plan; status 1 if a check failed (here or in a subshell),
# after the suite's test_fail_hook (a daemon's log, say). A test whose
# checks all end it on failure (fail) and that counted none passes as one
# check.
test_done() {
	[ "$test_nr" -gt 0 ] || test_ok "${0##*/}: every check passed"
	echo "1..$test_nr"
	if [ "$test_failed" -eq 0 ] && [ -n "${tmp:-}" ] && [ -s "$tmp.not-ok" ]; then
		test_failed=$(wc -l <"$tmp.not-ok")
		echo "# failed in a subshell: $(tr '\n' ';' <"$tmp.not-ok")"
	fi
	if [ "$test_failed" -gt 0 ]; then
		test_fail_hook
		echo "# $test_failed of $test_nr checks failed"
		exit 1
	fi
	exit 0
}
