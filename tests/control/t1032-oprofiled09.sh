#!/bin/sh
# oprofiled takes OProfile 0.9's daemon options: --separate-lib, -kernel,
# -thread and -cpu=0|1 set or clear one kind on top of --separate (what
# the daemon runs with is in session.conf); a value other than 0 or 1 is a
# usage error (exit 2); the Xen options of oprofiled and opcontrol are
# refused (exit 1) with the reason, and no daemon starts.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

C=$S/samples/current

step "--separate-kernel=1 --separate-thread=1 --separate-cpu=0 on top of --separate=cpu"
"$OPROFILED" --session-dir="$S" --separate=cpu --separate-kernel=1 \
	--separate-thread=1 --separate-cpu=0 >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "oprofiled refused the 0.9 forms"; }
grep -q '^separate=lib,kernel,thread$' "$C/session.conf" ||
	fail "session.conf: $(grep separate "$C/session.conf"), not lib,kernel,thread"
ctl --shutdown || fail "--shutdown failed"
test_ok "0.9 forms: separate=lib,kernel,thread (kernel implies lib, cpu cleared)"

"$OPROFILED" --session-dir="$S" --separate-lib=1 --separate-thread=0 >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "oprofiled refused --separate-lib=1"; }
grep -q '^separate=lib$' "$C/session.conf" ||
	fail "session.conf: $(grep separate "$C/session.conf"), not lib"
ctl --shutdown || fail "--shutdown failed"
test_ok "--separate-lib=1 alone: separate=lib"

step "bad values and Xen"
"$OPROFILED" --session-dir="$S" --separate-cpu=2 >"$T/out" 2>&1
rc=$?
cat "$T/out"
[ $rc -eq 2 ] && grep -q -- "--separate-cpu=2: must be 0 or 1" "$T/out" ||
	fail "--separate-cpu=2: exit $rc"
test_ok "--separate-cpu=2: usage error"
for opt in --xen-image=/boot/xen-4.17 --xen-range=ffff830000000000,ffff830000100000; do
	"$OPROFILED" --session-dir="$S" "$opt" >"$T/out" 2>&1
	rc=$?
	cat "$T/out"
	[ $rc -eq 1 ] && grep -q "not supported: Xen has no profiling interface here" "$T/out" ||
		fail "$opt: exit $rc"
	[ ! -e "$S/lock" ] || fail "$opt: a daemon started"
	test_ok "${opt%%=*}: refused, not supported"
done
for opt in --xen=/boot/xen-syms-4.17 --active-domains=1,2 --passive-domains=3; do
	ctl --start "$opt" >"$T/out" 2>&1
	rc=$?
	cat "$T/out"
	[ $rc -eq 1 ] && grep -q -- "${opt%%=*}: not supported: Xen has no profiling interface here" "$T/out" ||
		fail "opcontrol $opt: exit $rc"
	[ ! -e "$S/lock" ] || fail "opcontrol $opt: a daemon started"
	test_ok "opcontrol ${opt%%=*}: refused, not supported"
done
test_done
