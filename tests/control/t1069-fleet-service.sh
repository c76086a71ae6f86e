#!/bin/sh
# The fleet under systemd: oprofiled.service has no network, so its unit
# sets OPROFILE_FLEET_SHIPPER=service and the daemon only queues what it
# closes; oprofiled-fleet.path starts oprofiled-fleet.service (opfleet
# ship) when the queue or the spool holds something. The units pass
# systemd-analyze verify; the daemon as the unit runs it starts no
# shipper; the shipper's command line as its unit runs it empties the
# queue, and every session is in the fleet exactly once.
. "${abs_top_srcdir:?}/tests/control/lib.sh"
. "$abs_top_srcdir/tests/control/fleet.sh"
UNITS=$B/daemon

step "the units"
check_grep "$UNITS/oprofiled.service" "^Environment=OPROFILE_FLEET_SHIPPER=service" \
	"the daemon's unit says the shipper is a service"
check_grep "$UNITS/oprofiled.service" "^PrivateNetwork=yes" "and keeps the daemon off the network"
check_grep "$UNITS/oprofiled-fleet.path" "^DirectoryNotEmpty=/var/lib/oprofile/fleet/queue" \
	"the path unit watches the queue"
exec_start=$(sed -n 's/^ExecStart=//p' "$UNITS/oprofiled-fleet.service")
case $exec_start in
*/opfleet\ ship) ;;
*) fail "ExecStart is not opfleet ship: '$exec_start'" ;;
esac
if command -v systemd-analyze >/dev/null; then
	sed "s|^ExecStart=[^ ]*|ExecStart=$OPFLEET|" "$UNITS/oprofiled-fleet.service" >"$T/oprofiled-fleet.service"
	cp "$UNITS/oprofiled-fleet.path" "$T/"
	systemd-analyze verify --man=no "$T/oprofiled-fleet.service" "$T/oprofiled-fleet.path" >"$T/verify" 2>&1 &&
		test_ok "systemd-analyze verify accepts the fleet's units" ||
		{ cat "$T/verify"; test_not_ok "systemd-analyze verify refuses the fleet's units"; }
fi

ch_start one
fleet_create --url "$(ch_url one)"
fleet_conf "$(ch_url one)"

step "the daemon as its unit runs it: it queues, ships nothing"
OPROFILE_FLEET_SHIPPER=service
export OPROFILE_FLEET_SHIPPER
fleet_daemon_start
"$SPIN" 3
ctl --shutdown >/dev/null || fail "--shutdown failed"
unset OPROFILE_FLEET_SHIPPER
queued=$(ls "$FLEET/queue" | wc -l)
[ "$queued" -ge 3 ] && test_ok "$queued sessions queued" || test_not_ok "only $queued sessions queued"
[ ! -e "$FLEET/stats" ] && test_ok "no shipper ran" || test_not_ok "a shipper ran under the service's setting"

step "the shipper as its unit runs it"
$OPFLEET $(echo "$exec_start" | sed 's/^[^ ]* //') --session-dir="$S" >"$T/ship.out" 2>&1 ||
	{ cat "$T/ship.out"; fail "opfleet ship failed"; }
shipped_all && test_ok "the queue and the spool are empty when it exits" || test_not_ok "opfleet ship left work"
check_exactly_once one
check_no_sample_lost
test_done
