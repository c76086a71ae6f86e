#!/bin/sh
# opwatch's probes from hostile input, refused before any perf event is
# opened (so no root needed): a bad spec, a missing binary or function, a
# FIFO (whose open would wait for a writer), /dev/zero and a link to it
# (never ending), a directory, a sparse file over the 1 GiB bound, a path
# with '..', escape bytes in a name, bad pairs. Each ends at once (10 s
# at most) with exit 1 and a message naming the file or the spec; the
# usage errors exit 2. Built with ASan (make check-unit), no run may
# report a leak or undefined behaviour either; as root, nor may a command
# that cannot run or a whole run.
. "${abs_top_srcdir:?}/tests/lib/test-lib.sh"
OPWATCH=${OPWATCH:-$abs_top_builddir/utils/opwatch}
: "${CC:=cc}"

test_tmpdir opwatch-input
cat >"$tmp/prog.c" <<'C'
int f(int x) { return x + 1; }
int g(int x) { return x * 2; }
int main(void) { return f(1) - 2 + g(0); }
C
$CC -O0 -o "$tmp/prog" "$tmp/prog.c" || bail "cannot build a test binary"
mkfifo "$tmp/fifo" || bail "mkfifo"
ln -s /dev/zero "$tmp/zero"
mkdir "$tmp/dir" "$tmp/sub"
truncate -s 1025M "$tmp/huge" || bail "cannot make a sparse file"
esc=$(printf 'x\033[31my')

# refused WANT-EXIT PATTERN TITLE ARGS...: opwatch ARGS ends within 10 s
# with that exit status and a line of stderr matching PATTERN, nothing
# from a sanitizer
refused() {
	want=$1 pat=$2 title=$3
	shift 3
	timeout 10 "$OPWATCH" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -ne 124 ] || { test_not_ok "$title: opwatch hung"; return; }
	if [ $rc -eq "$want" ] && grep -Eq -- "$pat" "$tmp/err" &&
		! grep -Eq "Sanitizer|runtime error" "$tmp/err"; then
		test_ok "$title"
	else
		test_not_ok "$title: exit $rc (want $want, that message, no sanitizer report)"
		sed 's/^/# /' "$tmp/err" | head -20
	fi
}

refused 1 "probe 'nocolon' is not BINARY:FUNCTION" "a spec without a function" \
	-P nocolon -- true
refused 1 "binary '/no/such' of probe '/no/such:f': No such file" \
	"a missing binary" -P /no/such:f -- true
refused 1 "no function 'nosuch' in '$tmp/prog'" "a missing function" \
	-P "$tmp/prog:nosuch" -- true
refused 1 "no function 'nosuch' in '$tmp/prog'" \
	"a missing function after good probes" \
	-P "$tmp/prog:f" -P "$tmp/prog:g" -P "$tmp/prog:nosuch" -- true
refused 1 "cannot read binary '$tmp/fifo': not a regular file" \
	"a FIFO is refused at once" -P "$tmp/fifo:f" -- true
refused 1 "cannot read binary '/dev/zero': not a regular file" \
	"/dev/zero is refused" -P /dev/zero:f -- true
refused 1 "cannot read binary '/dev/zero': not a regular file" \
	"a symbolic link to /dev/zero is refused" -P "$tmp/zero:f" -- true
refused 1 "cannot read binary '$tmp/dir': not a regular file" \
	"a directory is refused" -P "$tmp/dir:f" -- true
refused 1 "binary '$tmp/huge' is too large \(1074790400 bytes, at most 1073741824\)" \
	"a binary over 1 GiB is refused unread" -P "$tmp/huge:f" -- true
refused 1 "no function 'nosuch' in '$tmp/prog'" \
	"a path with '..' names the file it resolves to" \
	-P "$tmp/sub/../prog:nosuch" -- true
refused 1 "binary 'x\\\\x1b\[31my' of probe" \
	"escape bytes in a name are shown escaped" -P "$esc:f" -- true
grep -q "$(printf '\033')" "$tmp/err" && fail "a raw escape byte reached stderr"
refused 1 "pair side 'a' is not BINARY:FUNCTION:argN" "a pair side without a key" \
	-Q a,b -- true
refused 1 "'arg9' is not arg1..arg6" "a pair side with a bad key" \
	-Q "$tmp/prog:f:arg9,$tmp/prog:g:ret" -- true
refused 1 "no function 'nosuch' in '$tmp/prog'" "a pair's TO function missing" \
	-Q "$tmp/prog:f:arg1,$tmp/prog:nosuch:ret" -- true
refused 1 "cannot read binary '$tmp/fifo': not a regular file" \
	"a pair's TO binary a FIFO" -Q "$tmp/prog:f:arg1,$tmp/fifo:g:ret" -- true
refused 1 "--pair '.*' is not FROM,TO" "a pair without TO" \
	-Q "$tmp/prog:f:arg1" -- true
refused 2 "give exactly one of a command, --pid or --all" "no command" \
	-P "$tmp/prog:f"
refused 2 "--by 'x': use name, pid or tid" "a bad --by" \
	-P "$tmp/prog:f" --by=x -- true
refused 2 "more than 16 probes" "a 17th probe" \
	$(for _ in $(seq 17); do printf '%s ' -P "$tmp/prog:f"; done) -- true

# With probes that open (root, a uprobe PMU), the ends after them free
# everything too: a command that cannot run, and a normal run.
if [ "$(id -u)" -eq 0 ] && [ -e /sys/bus/event_source/devices/uprobe ] &&
	ASAN_OPTIONS=detect_leaks=0 timeout 10 "$OPWATCH" -P "$tmp/prog:f" -- true \
		>/dev/null 2>&1; then
	refused 127 "cannot run '$tmp/no-such-cmd'" "a command that cannot run" \
		-P "$tmp/prog:f" -- "$tmp/no-such-cmd"
	timeout 10 "$OPWATCH" -P "$tmp/prog:f" -Q "$tmp/prog:f:arg1,$tmp/prog:g:arg1" \
		-o "$tmp/report" -- "$tmp/prog" >"$tmp/out" 2>"$tmp/err"
	check_eq "$?" 0 "a run to its end: the command's exit status"
	check_no_grep "$tmp/err" "Sanitizer|runtime error" "and nothing left unfreed"
	check_grep "$tmp/report" "prog:f" "the report names the probe"
else
	test_note "not root or no uprobe PMU: the runs with open probes are left out"
fi
test_done
