# The opreport tests' own helpers (sourced), on top of the common shell
# test library tests/lib/test-lib.sh (TAP checks, fail, skip, test_done,
# $tmp). Each test builds a synthetic session in $tmp - sample files written
# byte by byte by mksample, binaries compiled by the test - runs opreport
# and checks its output.
#
# Environment (set by pp/Makefile.am): abs_top_builddir, abs_top_srcdir,
# OPREPORT, OPANNOTATE, MKSAMPLE, SRCDIR, CC.
. "${abs_top_srcdir:?}/tests/lib/test-lib.sh"
: "${MKSAMPLE:?}" "${SRCDIR:?}" "${CC:=cc}"

test_tmpdir opreport-test
SD=$tmp/sd                       # the --session-dir

# The file offset of symbol SYM (+ DELTA) in BIN, from nm and readelf:
# offset = addr - section addr + section file offset.
symoff() {
	local bin=$1 sym=$2 delta=${3:-0} addr line name type saddr soff ssize
	addr=$(nm "$bin" | awk -v s="$sym" '$3 == s { print $1; exit }')
	[ -n "$addr" ] || fail "no symbol $sym in $bin"
	addr=$((0x$addr + delta))
	while read -r line; do
		set -- $line
		name=$1 type=$2 saddr=$((0x$3)) soff=$((0x$4)) ssize=$((0x$5))
		[ "$type" = PROGBITS ] || continue
		if [ "$addr" -ge "$saddr" ] && [ "$addr" -lt $((saddr + ssize)) ]; then
			printf '0x%x\n' $((addr - saddr + soff))
			return 0
		fi
	done <<EOF2
$(readelf -SW "$bin" | sed -n 's/^ *\[ *[0-9]*\] //p')
EOF2
	fail "symbol $sym of $bin is in no PROGBITS section"
}

# The mangled form of an image: {root}/path or {kern}/name.
mangle() {
	case $1 in
	/*) printf '{root}%s' "$1" ;;
	*) printf '{kern}/%s' "$1" ;;
	esac
}

# sfile APP IMAGE [TRAILER [SESSION]]: the path of a sample file.
sfile() {
	printf '%s/samples/%s/%s/{dep}/%s/%s' "$SD" "${4:-current}" \
		"$(mangle "$1")" "$(mangle "$2")" \
		"${3:-CPU_CLOCK.100000.0.all.all.all}"
}

# Compile a C source from pp/tests into $tmp/NAME.
build() {
	local src=$1 out=$2
	shift 2
	$CC -O1 -g -fno-inline -o "$tmp/$out" "$SRCDIR/tests/$src" "$@" ||
		fail "cannot compile $src"
}

# run_tool PROGRAM OUT ARGS...: PROGRAM on $SD into OUT (stderr into
# OUT.err); fail on error.
run_tool() {
	local prog=$1 out=$2 rc
	shift 2
	"$prog" --session-dir="$SD" "$@" >"$out" 2>"$out.err"
	rc=$?
	[ "$rc" -eq 0 ] ||
		{ cat "$out" "$out.err"; fail "${prog##*/} $* exited with $rc"; }
}
run_report() { run_tool "$OPREPORT" "$@"; }
run_annotate() { run_tool "$OPANNOTATE" "$@"; }

# ann_total FILE SYMBOL: the total opannotate gives SYMBOL in FILE
ann_total() { sed -n "s/.*\/\* $2 total: *\([0-9]*\) .*/\1/p" "$1" | head -1; }

# ctl_start ARGS...: opcontrol --start with ARGS (its output in
# $tmp/start); fail when it fails
ctl_start() {
	ctl "$@" --start >"$tmp/start" 2>&1 ||
		{ cat "$tmp/start"; fail "opcontrol --start failed"; }
}

# live_session: for the tests that sample this machine through opcontrol
# and oprofiled into $SD (as $S): needs root and a system-wide cpu-clock
# event (skips with 77 otherwise, with the control tests' probe); puts
# the built daemon and tools first on PATH, sets $S for test-lib.sh's ctl
# (opcontrol on $S) and shuts a daemon still running down at exit.
live_session() {
	: "${abs_top_builddir:?}"
	[ "$(id -u)" -eq 0 ] || skip "opcontrol samples system-wide and needs root"
	[ -x "$OPCONTROL" ] && [ -x "$abs_top_builddir/daemon/oprofiled" ] ||
		fail "opcontrol or oprofiled not built"
	PATH=$abs_top_builddir/daemon:$abs_top_builddir/utils:$PATH
	export PATH
	S=$SD
	$CC -I"$abs_top_builddir" -o "$tmp/perfprobe" \
		"$abs_top_srcdir/tests/control/perfprobe.c" ||
		fail "cannot build tests/control/perfprobe.c"
	msg=$("$tmp/perfprobe") || skip "$msg"
}
test_cleanup_hook() {
	[ -n "${S:-}" ] && [ -f "$S/lock" ] && ctl --shutdown >/dev/null 2>&1
	:
}
