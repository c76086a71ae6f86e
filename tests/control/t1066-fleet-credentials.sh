#!/bin/sh
# The credentials file attacked while the daemon runs: readable by others,
# a symbolic link to the real file, a FIFO (nobody writes: the shipper
# must not hang), owned by another user. Each is refused by name, nothing
# is sent, the sessions wait in the queue and the spool; put right, the
# file is read at the next rotation and every session reaches the fleet
# exactly once. A password in fleet_url is refused before anything starts.
# A session saved under a hostile name (a glob, a range, an escape
# sequence) is not shipped, and said escaped. A symbolic link planted as
# the spool is refused: nothing is written where it points.
# The password is never in the log, the stats, the spool, a command line
# or opcontrol --status.
. "${abs_top_srcdir:?}/tests/control/lib.sh"
. "$abs_top_srcdir/tests/control/fleet.sh"

ch_start one
fleet_create --url "$(ch_url one)"
CRED=$T/fleet.cred

step "a password in the URL"
fleet_conf "http://ship:$CH_SHIP_PW@127.0.0.1:$(ch_port one 1)/"
ctl --start >"$T/out" 2>&1 && fail "--start took a URL with a password"
check_grep "$T/out" "credentials do not go in the URL" "opcontrol refuses a URL with credentials"
check_no_grep "$T/out" "$CH_SHIP_PW" "without saying the password"

fleet_conf "$(ch_url one)"
sed -i "s|^fleet_credentials = .*|fleet_credentials = $CRED|" "$OPROFILE_CONFIG"
cp "$CH_DIR/ship.cred" "$CRED"
# refused CASE: the shipper's last error says so, nothing uploaded
refused() {
	wait_for grep -q "^last_error=credentials file '$CRED': $1" "$FLEET/stats" &&
		[ "$(fleet_stat uploaded)" = 0 ] &&
		test_ok "$2: refused ('$1'), nothing sent" ||
		{ test_show "$FLEET/stats"; test_not_ok "$2: not refused as '$1'"; }
}

step "the file attacked, one way after another"
chmod 644 "$CRED"
fleet_daemon_start
refused "readable or writable by others" "mode 0644"
rm -f "$CRED"
ln -s "$CH_DIR/ship.cred" "$CRED"
refused "is a symbolic link" "a symbolic link to the real file"
rm -f "$CRED"
mkfifo -m 600 "$CRED"
refused "not a regular file" "a FIFO"
sleep 3
# a shipper of this second may run; none may have run for seconds: ours
# (its session directory in its arguments), alive (a zombie is another
# test's, whose killed daemon left it to an init that does not reap)
ps -o etimes=,stat=,args= -C opfleet 2>/dev/null |
	awk -v s="$S" '$1 >= 3 && $2 !~ /^Z/ && index($0, s)' >"$T/ps"
check_no_grep "$T/ps" "." "no shipper hangs on the FIFO"
rm -f "$CRED"
cp "$CH_DIR/ship.cred" "$CRED"
chown nobody "$CRED"
refused "not owned by root" "a file of another user"
check_grep "$S/samples/oprofiled.log" "rotated: session" "the daemon rotated all along"

step "a wrong password"
chown root "$CRED"
printf 'user = ship\npassword = not-%s\n' "$CH_SHIP_PW" >"$CRED"
wait_for grep -q "^last_error='$(ch_url one)': HTTP [0-9]*: .*[Pp]assword" "$FLEET/stats" &&
	[ "$(fleet_stat uploaded)" = 0 ] &&
	test_ok "the server's refusal is quoted, nothing sent" ||
	{ test_show "$FLEET/stats"; test_not_ok "a wrong password was not refused"; }

step "put right"
cp "$CH_DIR/ship.cred" "$CRED"
"$SPIN" 1.5
ctl --shutdown >/dev/null || fail "--shutdown failed"
wait_shipped 60 || { test_show "$FLEET/stats"; fail "the spool was not emptied in 60 s"; }
check_exactly_once one
check_no_sample_lost

step "a link planted for the spool"
mkdir "$T/elsewhere"
rm -rf "$FLEET/spool"
ln -s "$T/elsewhere" "$FLEET/spool"
fleet_daemon_start
"$SPIN" 1.5
ctl --shutdown >/dev/null || fail "--shutdown failed"
check_grep "$S/samples/oprofiled.log" "spool '$FLEET/spool': not a directory" "the shipper refuses a spool that is a link"
check_eq "$(ls -A "$T/elsewhere" | wc -l | tr -d ' ')" 0 "and writes nothing where it points"
rm -f "$FLEET/spool"

step "a session saved under a hostile name"
EVIL=$(printf 'x*..\033[2J')
fleet_daemon_start
"$SPIN" 0.5
ctl --save="$EVIL" >/dev/null || fail "--save of a hostile name failed"
ctl --shutdown >/dev/null || fail "--shutdown failed"
wait_shipped 60 || { test_show "$FLEET/stats"; fail "the spool was not emptied in 60 s"; }
check_eq "$(fleet_stat unsymbolised)" 1 "it is not shipped: counted unsymbolised"
check_grep "$S/samples/oprofiled.log" "session 'x\\*\\.\\.\\\\x1b\\[2J': not a name the fleet takes" \
	"the log names it, escaped"
check_no_grep "$S/samples/oprofiled.log" "$(printf '\033')" "no raw escape byte in the log"
CHECK_WHAT="the others still, every session" check_exactly_once one $(closed_sessions | grep -vxF "$EVIL")
ctl --status >"$T/status" 2>&1
grep -rl -- "$CH_SHIP_PW" "$S" "$T/status" >"$T/leaks" 2>/dev/null
check_no_grep "$T/leaks" "." "the password is in no file of the session directory (log, stats, spool) nor in --status"
test_done
