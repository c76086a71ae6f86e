#!/bin/sh
# The errors a user meets: daemon already running, unknown event, session
# directory not writable, not root, a stale lock (replaced) and a broken
# settings file.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

step "unknown event: refused before any daemon starts"
ctl --event=NO_SUCH_EVENT:100000 --start >"$T/out" 2>&1 && fail "unknown event accepted"
cat "$T/out"
grep -q "NO_SUCH_EVENT" "$T/out" || fail "the error does not name the event"
[ ! -e "$S/lock" ] || fail "a daemon started with an unknown event"
[ ! -e "$S/daemonrc" ] || ! grep -q NO_SUCH "$S/daemonrc" || fail "unknown event saved"
"$OPROFILED" --session-dir="$S" --events=NO_SUCH_EVENT:100000 >"$T/out" 2>&1 &&
	fail "oprofiled accepted an unknown event"
grep -q "NO_SUCH_EVENT" "$T/out" || { cat "$T/out"; fail "oprofiled's error does not name the event"; }
ctl --event=CPU_CLOCK:10 >"$T/out" 2>&1 && fail "a count below the minimum was accepted"
cat "$T/out"

step "session dir not writable"
: >"$T/file"
ctl --session-dir="$T/file/session" --start >"$T/out" 2>&1 && fail "started in an impossible dir"
cat "$T/out"
grep -q "$T/file/session" "$T/out" || fail "the error does not name the directory"
"$OPROFILED" --session-dir="$T/file/session" >"$T/out" 2>&1 && fail "oprofiled started in an impossible dir"
grep -q "$T/file/session" "$T/out" || { cat "$T/out"; fail "oprofiled's error does not name the directory"; }
# an existing directory on a read-only file system (root may write anywhere else)
if unshare -m true 2>/dev/null; then
	mkdir "$T/ro"
	unshare -m sh -c "mount -t tmpfs tmpfs '$T/ro' && mkdir '$T/ro/s' &&
		mount -o remount,ro '$T/ro' &&
		'$OPCONTROL' --session-dir='$T/ro/s' --start" >"$T/out" 2>&1 &&
		fail "started on a read-only file system"
	cat "$T/out"
	grep -q "session directory '$T/ro/s' is not writable: Read-only file system" "$T/out" ||
		fail "no 'not writable' error for a read-only directory"
else
	echo "(read-only case skipped: no mount namespaces here)"
fi

step "not root"
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if command -v setpriv >/dev/null && [ "$paranoid" -gt 0 ] &&
	setpriv --reuid=65534 --regid=65534 --clear-groups "$OPCONTROL" --help >/dev/null 2>&1; then
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$OPCONTROL" --session-dir=/tmp/opctl-nobody --start >"$T/out" 2>&1 &&
		fail "opcontrol started as nobody"
	cat "$T/out"
	grep -q "must run as root: system-wide sampling needs CAP_PERFMON or CAP_SYS_ADMIN" "$T/out" ||
		fail "no not-root error from opcontrol"
	grep -q "perf_event_paranoid is $paranoid" "$T/out" || fail "no paranoid hint"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$OPROFILED" --session-dir=/tmp/opctl-nobody >"$T/out" 2>&1 &&
		fail "oprofiled started as nobody"
	grep -q "oprofiled must run as root: system-wide sampling needs CAP_PERFMON or CAP_SYS_ADMIN" "$T/out" ||
		{ cat "$T/out"; fail "no not-root error from oprofiled"; }
else
	echo "(skipped: no setpriv, paranoid <= 0, or the build is not readable by nobody)"
fi

step "stale lock"
mkdir -p "$S"
sh -c 'exit 0' & dead=$!
wait $dead
echo "$dead" >"$S/lock"
ctl --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start over a stale lock failed"; }
cat "$T/out"
grep -q "stale lock" "$T/out" || fail "no warning about the stale lock"
pid=$(cat "$S/lock")
[ "$pid" != "$dead" ] && kill -0 "$pid" || fail "lock does not name the new daemon"

step "already running"
"$OPROFILED" --session-dir="$S" >"$T/out" 2>&1 && fail "a second oprofiled started"
grep -q "daemon already running (pid $pid)" "$T/out" || { cat "$T/out"; fail "no 'already running' from oprofiled"; }
ctl --start >"$T/out" 2>&1 || fail "--start with the same settings failed"
grep -q "already running" "$T/out" || fail "--start does not say already running"
rm -f "$T/daemonrc.before"
[ ! -e "$S/daemonrc" ] || cp "$S/daemonrc" "$T/daemonrc.before"
ctl --event=CPU_CLOCK:500000 --start >"$T/out" 2>&1 && fail "--start with other settings succeeded"
cat "$T/out"
grep -q "daemon already running (pid $pid) with different settings" "$T/out" ||
	fail "no 'different settings' error"
if [ -e "$T/daemonrc.before" ]; then
	cmp -s "$T/daemonrc.before" "$S/daemonrc" || fail "a refused --start changed daemonrc"
else
	[ ! -e "$S/daemonrc" ] || fail "a refused --start wrote daemonrc"
fi
ctl --event=default || fail "--event=default failed"
ctl --separate=bogus >"$T/out" 2>&1 && fail "--separate=bogus accepted"
grep -q "bogus" "$T/out" || fail "--separate error does not name the value"

step "--init passes \$OPROFILE_MODULE_ARGS to insmod"
if grep -q oprofilefs /proc/filesystems; then
	echo "(skipped: an oprofile driver is loaded here)"
else
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho "$@" >"%s"\n' "$T/insmod.args" >"$T/bin/insmod"
	chmod +x "$T/bin/insmod"
	PATH=$T/bin:$PATH OPROFILE_MODULE=$T/no.ko OPROFILE_MODULE_ARGS="  timer=1	hw_counters=0 " \
		"$OPCONTROL" --init >"$T/out" 2>&1 ||
		fail "--init failed although perf_events serves (doc/compat.md)"
	cat "$T/out"
	grep -q "the daemon will sample with perf_events instead" "$T/out" ||
		fail "--init does not say perf_events serves"
	[ "$(cat "$T/insmod.args" 2>/dev/null)" = "$T/no.ko timer=1 hw_counters=0" ] ||
		fail "insmod got '$(cat "$T/insmod.args" 2>/dev/null)'"
	grep -q "cannot load the oprofile driver (insmod $T/no.ko timer=1 hw_counters=0)" "$T/out" ||
		fail "the message does not show the module arguments"
fi

step "a broken settings file: --version and --help still work, commands name the line"
printf 'rotate = 1h\nrotate_every = 2h\n' >"$T/bad.conf"
OPROFILE_CONFIG=$T/bad.conf "$OPCONTROL" --version >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "--version failed on a broken settings file"; }
OPROFILE_CONFIG=$T/bad.conf "$OPCONTROL" --help >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "--help failed on a broken settings file"; }
OPROFILE_CONFIG=$T/bad.conf ctl --status >"$T/out" 2>&1 &&
	fail "--status accepted a broken settings file"
cat "$T/out"
grep -q "$T/bad.conf:2: unknown key 'rotate_every'" "$T/out" ||
	fail "the error does not name the file and its line"

step "shutdown"
ctl --shutdown || fail "--shutdown failed"
[ ! -e "$S/lock" ] || fail "lock left behind"
ctl --shutdown | grep -q "not running" || fail "second --shutdown"
test_done
