#!/bin/sh
# An https fleet_url: ClickHouse 18.16's https_port with a self-signed
# certificate made here (openssl). Without fleet_ca the shipper refuses
# the certificate (nothing is sent in clear or to an unverified server);
# with fleet_ca naming it, every session reaches the fleet exactly once.
. "${abs_top_srcdir:?}/tests/control/lib.sh"
. "$abs_top_srcdir/tests/control/fleet.sh"
command -v openssl >/dev/null || skip "openssl is not installed"

ch_start_tls tls
URL=$(ch_https_url tls)
fleet_create --url "$URL" --ca "$CH_DIR/tls/server.crt"
check_eq "$(curl -sS --cacert "$CH_DIR/tls/server.crt" -u read:"$CH_READ_PW" "$URL/?query=SELECT%20count()%20FROM%20system.tables%20WHERE%20database='oprofile'")" 3 \
	"opfleet create made the schema over https"

step "a certificate nobody vouches for"
fleet_conf "$URL" "fleet_timeout = 5s"
fleet_daemon_start
wait_for grep -q "^last_error='$URL': .*[Cc]ertificate" "$FLEET/stats" &&
	test_ok "the server's self-signed certificate is refused without fleet_ca" ||
	{ test_show "$FLEET/stats"; test_not_ok "the certificate was not refused"; }
check_eq "$(fleet_stat uploaded)" 0 "nothing sent"
ctl --shutdown >/dev/null || fail "--shutdown failed"

step "fleet_ca names it"
echo "fleet_ca = $CH_DIR/tls/server.crt" >>"$OPROFILE_CONFIG"
fleet_daemon_start
"$SPIN" 2
ctl --shutdown >/dev/null || fail "--shutdown failed"
wait_shipped 60 || { test_show "$FLEET/stats"; fail "the spool was not emptied in 60 s"; }
check_exactly_once tls
test_done
