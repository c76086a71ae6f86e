# The fleet tests' own helpers (sourced after tests/control/lib.sh): a
# ClickHouse server (tests/lib/clickhouse.sh) with the schema, the
# daemon's settings file pointing at it, and the check every fleet test
# ends with: each closed session of $S is in the fleet exactly once, its
# rows (counted through the manifest rule) adding up to what the local
# `opreport -l` says of it.
. "$abs_top_srcdir/tests/lib/clickhouse.sh"
OPFLEET=$B/pp/opfleet
PATH=$B/pp:$PATH
FLEET=$S/fleet
ch_require
# after the daemon (lib.sh's cleanup): the proxy and the servers
PROXY_PID=
fleet_cleanup() {
	[ -z "$PROXY_PID" ] || kill "$PROXY_PID" 2>/dev/null
	ch_stop_all
}
CLEANUP_MORE=fleet_cleanup

# proxy_start SERVER: tests/control/fleet_proxy.py in front of SERVER:
# $PROXY_URL, its log $PROXY_LOG; proxy_mode MODE... says what it does
proxy_start() {
	PROXY_MODE=$T/proxy.mode
	PROXY_LOG=$T/proxy.log
	echo forward >"$PROXY_MODE"
	python3 "$abs_top_srcdir/tests/control/fleet_proxy.py" "$(ch_port "$1" 1)" \
		"$T/proxy.port" "$PROXY_MODE" "$PROXY_LOG" &
	PROXY_PID=$!
	wait_for test -s "$T/proxy.port" || fail "the proxy did not start"
	PROXY_URL=http://127.0.0.1:$(cat "$T/proxy.port")
}
proxy_mode() { echo "$*" >"$PROXY_MODE"; }

# the fault tests' daemon: a session a second, 100 Hz a cpu (the machine
# is shared: a light load keeps the rings from overflowing)
fleet_daemon_start() {
	ctl --rotate=1s --event=CPU_CLOCK:10000000 "$@" --start >"$T/out" 2>&1 ||
		{ cat "$T/out"; fail "--start failed"; }
}

# rows of attempts no manifest row names: what a cut upload leaves
orphan_uploads() {
	fleet_sql "$1" "SELECT count(DISTINCT upload_id) FROM oprofile.samples
		WHERE (session_id, upload_id) NOT IN
		(SELECT session_id, upload_id FROM oprofile.sessions)"
}

# fleet_conf URL [MORE LINES]: the settings file the daemon and opcontrol
# read ($OPROFILE_CONFIG), shipping to URL as web1 with two labels
fleet_conf() {
	OPROFILE_CONFIG=$T/oprofiled.conf
	export OPROFILE_CONFIG
	{
		echo "fleet_url = $1"
		echo "fleet_credentials = $CH_DIR/ship.cred"
		echo "fleet_host = web1"
		echo "fleet_label = zone=a"
		echo "fleet_label = team=web"
		shift
		for l in "$@"; do echo "$l"; done
	} >"$OPROFILE_CONFIG"
}

fleet_create() {
	"$OPFLEET" create "$@" --credentials "$CH_DIR/ship.cred" >"$T/create.out" 2>&1 ||
		{ cat "$T/create.out"; fail "opfleet create failed"; }
}

# the sessions the daemon closed: rotated or saved (not current)
closed_sessions() { ls "$S/samples" | grep -v -e '^current$' -e '^oprofiled.log$' | sort; }

fleet_stat() { sed -n "s/^$1=//p" "$FLEET/stats" 2>/dev/null; }

# wait_shipped SECONDS: until the queue and the spool are empty
shipped_all() {
	[ -f "$FLEET/stats" ] &&
	[ -z "$(ls -A "$FLEET/queue" 2>/dev/null)" ] &&
	[ -z "$(ls -A "$FLEET/spool" 2>/dev/null)" ]
}
wait_shipped() {
	for _ in $(seq $(($1 * 10))); do shipped_all && return 0; sleep 0.1; done
	return 1
}

# wait_uploaded SECONDS: until the shipper uploaded something (a shipper
# whose daemon stopped gives up at its next failure: tests that bring the
# server back wait for this before they stop the daemon)
wait_uploaded() {
	for _ in $(seq $(($1 * 10))); do
		grep -q '^uploaded=[1-9]' "$FLEET/stats" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# fleet_sql SERVER SQL: as the read-only user
fleet_sql() { ch_query "$1" read "$2"; }

# local_total NAME: the samples opreport -l gives session NAME
local_total() {
	"$OPREPORT" --session-dir="$S" -l "session:$1" 2>/dev/null |
		awk '$1 ~ /^[0-9]+$/ { n += $1 } END { print n + 0 }'
}

# check_exactly_once SERVER [SESSIONS...]: every closed session (or those
# named) once in the manifest, its samples rows through the manifest rule
# summing to its local total, and no session in the fleet that is not here
check_exactly_once() {
	local srv=$1 name want got rows n=0 bad=0
	shift
	[ $# -gt 0 ] || set -- $(closed_sessions)
	fleet_sql "$srv" "SELECT session_id, sum(samples) FROM oprofile.samples
		WHERE (session_id, upload_id) GLOBAL IN
		(SELECT session_id, min(upload_id) FROM oprofile.sessions GROUP BY session_id)
		GROUP BY session_id ORDER BY session_id FORMAT TabSeparated" >"$T/fleet.sums" ||
		fail "cannot read the fleet's samples"
	fleet_sql "$srv" "SELECT session_id, count(), min(total) FROM oprofile.sessions
		GROUP BY session_id ORDER BY session_id FORMAT TabSeparated" >"$T/fleet.manifest" ||
		fail "cannot read the fleet's manifest"
	for name in "$@"; do
		n=$((n + 1))
		want=$(local_total "$name")
		got=$(awk -v id="web1/$name" '$1 == id { print $2 }' "$T/fleet.sums")
		rows=$(awk -v id="web1/$name" '$1 == id { print $2 " " $3 }' "$T/fleet.manifest")
		if [ "${got:-0}" != "$want" ] || [ "${rows%% *}" = "" ] || [ "${rows#* }" != "$want" ]; then
			test_note "session $name: local $want, fleet ${got:-none}, manifest (rows total) ${rows:-none}"
			bad=$((bad + 1))
		fi
	done
	extra=$(awk '{ print $1 }' "$T/fleet.sums" | sed 's|^web1/||' |
		grep -vxF "$(printf '%s\n' "$@")" | head -3)
	[ -z "$extra" ] || { test_note "in the fleet but not here: $extra"; bad=$((bad + 1)); }
	if [ "$bad" -eq 0 ] && [ "$n" -gt 0 ]; then
		test_ok "${CHECK_WHAT:-every session} in the fleet exactly once: $n sessions, totals as opreport -l's"
	else
		test_not_ok "${CHECK_WHAT:-every session} in the fleet exactly once ($bad of $n wrong)"
	fi
}

# the daemon lost no sample: every one received was written (stats sum)
check_no_sample_lost() {
	local name recv sum
	for name in $(closed_sessions); do
		recv=$(cat "$S/samples/$name/stats/sample_received" 2>/dev/null || echo 0)
		sum=0
		for k in $STATS_SUM; do
			sum=$((sum + $(cat "$S/samples/$name/stats/$k" 2>/dev/null || echo 0)))
		done
		[ "$recv" = "$sum" ] || { test_not_ok "session $name: received $recv, accounted $sum"; return; }
		lost=$(cat "$S/samples/$name/stats/sample_lost_overflow" 2>/dev/null || echo 0)
		[ "$lost" = 0 ] || { test_not_ok "session $name: $lost samples lost to overflow"; return; }
	done
	test_ok "no sample lost: each session's stats add up, none lost to overflow"
}
