#!/bin/bash
# The fleet at scale (bench/README.md "fleet_bench.sh", doc/fleet.md
# "Scale"): HOSTS x HOURS hourly sessions made from real recorded ones,
# shipped into one ClickHouse server of its own as the shipper ships them,
# then read back with opreport --fleet.
#
#   bench/fleet_bench.sh BUILD [--hosts N] [--hours H] [--jobs P]
#       [--record SECS] [--rotate SECS] [--sessions DIR] [--zstd]
#       [--optimize] [--variants] [--out DIR]
#
# Sessions: recorded here (root; the perf source) by oprofiled at the
# continuous default, 49 Hz per cpu, with --callgraph=32, rotating every
# --rotate seconds over --record seconds of real work (gzip, sort, cc,
# python: bench/fleet_work.sh) and whatever else the machine runs; or the
# rotated sessions of --sessions DIR (an oprofiled --session-dir, copied).
# The shipper (opfleet ship) makes each one's rows, as on a host;
# bench/fleet_load varies them per host-hour (hosts, labels service= and
# version=, counts x 3600/rotate x random) and ships them with --jobs
# uploaders over libfleet's HTTP client. Figures: host-hours ingested per minute, bytes stored per
# host-hour (system.parts, compressed; with --optimize also after
# OPTIMIZE FINAL), and opreport --fleet's time for three questions
# (median of 3): the top 50 functions over the day, service=web's folded
# stacks, version=A against version=B by symbol. --zstd: the server
# compresses with zstd instead of lz4 (a config change, no schema change).
# --variants (implies --optimize): the same rows also in other layouts,
# their bytes per host-hour and the three questions' time on them (our
# own SQL, said in the output): each distinct stack once a day with the
# sessions' rows naming it by a hash; samples ordered by session first;
# daily rollups without host and offset, made through the
# manifest rule once the day is shipped, for the fleet-wide questions.
# The server, the daemon and all files are in a scratch directory,
# removed at the end; --out DIR keeps the figures and the logs.
# Small mode (a smoke test, under a minute): --hosts 20 --hours 2.
set -e -o pipefail

usage() {
	echo "usage: $0 BUILD [--hosts N] [--hours H] [--jobs P] [--record SECS]" \
		"[--rotate SECS] [--sessions DIR] [--zstd] [--optimize] [--variants]" \
		"[--out DIR]" >&2
	exit 2
}

[ $# -ge 1 ] || usage
build=$(cd "$1" && pwd) || usage
shift
src=$(cd "$(dirname "$0")/.." && pwd)
hosts=1000 hours=24 jobs=2 record=20 rotate=10 sessions= zstd= optimize= variants= keep=
while [ $# -gt 0 ]; do
	case $1 in
	--hosts) hosts=$2; shift ;;
	--hours) hours=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--record) record=$2; shift ;;
	--rotate) rotate=$2; shift ;;
	--sessions) sessions=$(cd "$2" && pwd) || usage; shift ;;
	--zstd) zstd=1 ;;
	--optimize) optimize=1 ;;
	--variants) variants=1 optimize=1 ;;
	--out) keep=$2; shift ;;
	*) usage ;;
	esac
	shift
done
for v in "$hosts" "$hours" "$jobs" "$record" "$rotate"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || usage
done
for p in pp/opreport pp/opfleet daemon/oprofiled bench/fleet_load; do
	[ -x "$build/$p" ] || { echo "fleet_bench: no '$build/$p': build first" >&2; exit 1; }
done
OPROFILE_EVENTS_DIR=${OPROFILE_EVENTS_DIR:-$src/events}
export OPROFILE_EVENTS_DIR

tmp=$(mktemp -d /tmp/fleet_bench.XXXXXX)
out=$tmp/out
mkdir -p "$out"
dpid= wpid=

# what tests/lib/clickhouse.sh expects of tests/lib/test-lib.sh
skip() { echo "fleet_bench: $*" >&2; exit 1; }
fail() { echo "fleet_bench: $*" >&2; exit 1; }
test_note() { echo "fleet_bench: $*" >&2; }
# shellcheck source=../tests/lib/clickhouse.sh
. "$src/tests/lib/clickhouse.sh"

cleanup() {
	local rc=$?
	set +e
	[ -n "$wpid" ] && kill -- "$wpid" 2>/dev/null && wait "$wpid" 2>/dev/null
	[ -n "$dpid" ] && kill -TERM "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	ch_stop_all
	if [ -n "$keep" ]; then
		mkdir -p "$keep"
		cp -r "$out"/. "$keep"/ 2>/dev/null || true
	fi
	rm -rf "$tmp"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { echo "$(date -u +%H:%M:%S) $*" | tee -a "$out/log"; }

# Median of three: "$@" run 3 times, seconds to stdout ("failed" and its
# error in $out/failures if a run fails: the figures say so, and go on).
median3() {
	local i t0 t1 ts=()
	for i in 1 2 3; do
		t0=$(date +%s.%N)
		if ! "$@" >/dev/null 2>"$tmp/err"; then
			{ echo "$*:"; tail -3 "$tmp/err"; } >>"$out/failures"
			echo failed
			return 0
		fi
		t1=$(date +%s.%N)
		ts+=("$(printf '%.2f' "$(echo "$t1 - $t0" | bc)")")
	done
	printf '%s\n' "${ts[@]}" | sort -n | sed -n 2p
}

# 1. real sessions
if [ -z "$sessions" ]; then
	log "recording ${record} s at 49 Hz with --callgraph=32, a session every ${rotate} s"
	"$build/daemon/oprofiled" --session-dir="$tmp/rec" \
		--events=CPU_CLOCK:20408163 --callgraph=32 --separate=lib \
		--rotate="${rotate}s" --foreground 2>"$out/oprofiled.log" &
	dpid=$!
	for _ in $(seq 100); do
		[ -d "$tmp/rec/samples/current" ] && break
		sleep 0.1
	done
	mkdir -p "$tmp/work"
	"$src/bench/fleet_work.sh" "$record" "$tmp/work" "$src" "$build" >/dev/null 2>&1 &
	wpid=$!
	wait "$wpid" || true
	wpid=
	kill -TERM "$dpid"
	wait "$dpid" || true
	dpid=
	sessions=$tmp/rec
fi
names=$(cd "$sessions/samples" && ls -d 2[0-9][0-9][0-9]-* 2>/dev/null) ||
	fail "no rotated session in '$sessions/samples'"
scale=$(echo "scale=3; 3600 / $rotate" | bc)

# 2. the server
ch_require
ch_prepare fleet
# the query log, for the server's own time of each query
sed -i 's|<max_memory_usage>|<log_queries>1</log_queries><max_memory_usage>|' \
	"$CH_DIR/fleet/users.xml"
ch_config fleet
if [ -n "$zstd" ]; then
	sed -i 's|</yandex>|  <compression><case><method>zstd</method></case></compression>\n</yandex>|' \
		"$CH_DIR/fleet/config.xml"
fi
ch_launch fleet
url=$(ch_url fleet)
# as ch_query, without its 30 s bound: OPTIMIZE and the variants' INSERT
# SELECT over millions of rows take minutes here
q() {
	curl -sS --fail-with-body --max-time 3600 -u "ship:$CH_SHIP_PW" \
		--data-binary "$1" "$url/"
}

# 3. rows of the recorded sessions, by the shipper itself: each session
# queued as the daemon queues a closed one, `opfleet ship` symbolises and
# uploads it into a database of its own (rec), and the rows are read back
# without their common columns (fleet_load adds them per host-hour)
log "the shipper symbolises and ships the ${names//$'\n'/ } sessions"
if [ "$sessions" != "$tmp/rec" ]; then
	cp -a "$sessions" "$tmp/rec.copy"   # the shipper writes SESSION/fleet/
	sessions=$tmp/rec.copy
fi
rm -rf "$sessions/fleet"
mkdir -p -m 0700 "$sessions/fleet" "$sessions/fleet/queue"
for n in $names; do : >"$sessions/fleet/queue/$n"; done
printf 'fleet_url = %s\nfleet_credentials = %s\nfleet_host = rec\nfleet_database = rec\n' \
	"$url" "$CH_DIR/ship.cred" >"$tmp/oprofiled.conf"
"$build/pp/opfleet" create --url "$url" --credentials "$CH_DIR/ship.cred" --database rec >/dev/null
OPROFILE_CONFIG=$tmp/oprofiled.conf "$build/pp/opfleet" ship --session-dir="$sessions" \
	>"$out/ship.log" 2>&1 || fail "opfleet ship failed (its log: $(tail -3 "$out/ship.log"))"
bases=()
for n in $names; do
	first="(session_id, upload_id) IN (SELECT session_id, min(upload_id)
		FROM rec.sessions WHERE session_id = 'rec/$n' GROUP BY session_id)"
	q "SELECT app, image, build_id, symbol, lower(hex(offset)), samples
	   FROM rec.samples WHERE $first FORMAT TabSeparated" >"$tmp/base-$n.samples"
	q "SELECT app, frames, concat('[', arrayStringConcat(arrayMap(x ->
	   lower(hex(x)), frame_offsets), ','), ']'), samples
	   FROM rec.stacks WHERE $first FORMAT TabSeparated" >"$tmp/base-$n.stacks"
	[ -s "$tmp/base-$n.samples" ] && bases+=("$tmp/base-$n")
done
[ ${#bases[@]} -gt 0 ] || fail "the shipper shipped no session with samples (its log: $out/ship.log)"
q "DROP DATABASE rec" >/dev/null
base_rows=$(cat "${bases[@]/%/.samples}" | wc -l)
base_stacks=$(cat "${bases[@]/%/.stacks}" | wc -l)
log "${#bases[@]} sessions: $((base_rows / ${#bases[@]})) samples rows and" \
	"$((base_stacks / ${#bases[@]})) stacks rows each on average; counts x $scale"

"$build/pp/opfleet" create --url "$url" --credentials "$CH_DIR/ship.cred" >/dev/null

# 4. ingest: hour by hour from yesterday 00:00 UTC
start=$(( $(date +%s) / 86400 * 86400 - 86400 ))
log "shipping $hosts hosts x $hours hours with $jobs uploaders"
"$build/bench/fleet_load" --url "$url" --credentials "$CH_DIR/ship.cred" \
	--hosts "$hosts" --hours "$hours" --start "$start" --scale "$scale" \
	--jobs "$jobs" "${bases[@]}" | tee "$out/load"
read -r _ hh _ rows _ sent _ secs <"$out/load"
per_min=$(echo "scale=0; $hh * 60 / $secs" | bc)

stored() {
	q "SELECT table, sum(rows), sum(data_compressed_bytes), count()
	   FROM system.parts WHERE database = 'oprofile' AND active
	   GROUP BY table ORDER BY table FORMAT TabSeparated"
}
stored >"$out/parts"
bytes=$(awk '{ s += $3 } END { printf "%.0f\n", s }' "$out/parts")
if [ -n "$optimize" ]; then
	t0=$(date +%s.%N)
	for t in samples stacks sessions; do
		q "OPTIMIZE TABLE oprofile.$t FINAL" >/dev/null
	done
	opt_secs=$(echo "$(date +%s.%N) - $t0" | bc)
	stored >"$out/parts.optimized"
	bytes_opt=$(awk '{ s += $3 } END { printf "%.0f\n", s }' "$out/parts.optimized")
fi
q "SELECT table, name, sum(data_compressed_bytes) AS c,
	  sum(data_uncompressed_bytes) FROM system.columns
   WHERE database = 'oprofile' AND table IN ('samples', 'stacks', 'sessions')
   GROUP BY table, name ORDER BY c DESC
   LIMIT 10 FORMAT TabSeparated" >"$out/columns"

# 5. the three questions, through opreport --fleet (its SQL, the manifest rule)
rep() { "$build/pp/opreport" --fleet="$url" --fleet-credentials="$CH_DIR/read.cred" "$@"; }
day0=$(date -u -d "@$start" +%Y-%m-%d)
day1=$(date -u -d "@$((start + 86400))" +%Y-%m-%d)
# the whole -l list is read (the server sums it); the first 50 are kept
top50() {
	rep -l --since="$day0" --until="$day1" >"$tmp/top.full"
	head -56 "$tmp/top.full"
}
flame() { rep --folded service:web; }
diffab() { rep -l '{' version:A '}' '{' version:B '}'; }
top50 >"$out/top50.txt" 2>&1 || true
flame >"$out/web.folded" 2>/dev/null || true
diffab >"$out/diff.txt" 2>&1 || true
t_top=$(median3 top50)
t_flame=$(median3 flame)
t_diff=$(median3 diffab)
q "SYSTEM FLUSH LOGS" >/dev/null 2>&1 || true
q "SELECT query_duration_ms, read_rows, substring(replaceAll(query, '\n', ' '), 1, 160)
   FROM system.query_log WHERE type = 2 AND user = 'read'
   ORDER BY event_time DESC LIMIT 60 FORMAT TabSeparated" >"$out/queries" 2>/dev/null || true

# 5b. other layouts of the same rows (--variants)
vq() { q "$1" >/dev/null || fail "variant SQL failed: $1"; }
vbytes() {
	q "SELECT sum(data_compressed_bytes) FROM system.parts WHERE
	   database = 'oprofile' AND active AND table IN ($1)"
}
# time of SQL: median of 3, seconds
vtime() { median3 q "$1"; }
if [ -n "$variants" ]; then
	log "variants: the same rows in other layouts"
	common="day Date, host String, labels Array(String), session_id String,
		upload_id UInt64, start DateTime, end DateTime, event String,
		event_count UInt64"
	manifest="(session_id, upload_id) GLOBAL IN (SELECT session_id,
		min(upload_id) FROM oprofile.sessions GROUP BY session_id)"
	sid="sipHash64(concat(app, '\n', arrayStringConcat(frames, '\n'), '\n',
		arrayStringConcat(arrayMap(x -> toString(x), frame_offsets), ',')))"
	# V1: a stack's frames once a day for the whole fleet (the hosts of
	# a service run the same builds: the same frames and offsets)
	vq "CREATE TABLE oprofile.v_stack_defs (day Date, stack_id UInt64,
		app String, frames Array(String), frame_offsets Array(UInt64))
		ENGINE = ReplacingMergeTree() PARTITION BY day
		ORDER BY stack_id"
	vq "CREATE TABLE oprofile.v_stacks ($common, stack_id UInt64,
		samples UInt64) ENGINE = MergeTree() PARTITION BY day
		ORDER BY (event, host, session_id, stack_id)"
	vq "INSERT INTO oprofile.v_stack_defs SELECT day, $sid, app,
		frames, frame_offsets FROM oprofile.stacks"
	vq "INSERT INTO oprofile.v_stacks SELECT day, host, labels, session_id,
		upload_id, start, end, event, event_count, $sid, samples
		FROM oprofile.stacks"
	# V2: samples by session first
	vq "CREATE TABLE oprofile.v_samples_s AS oprofile.samples ENGINE =
		MergeTree() PARTITION BY day
		ORDER BY (event, host, session_id, image, symbol, offset)"
	vq "INSERT INTO oprofile.v_samples_s SELECT * FROM oprofile.samples"
	# V3: daily rollups through the manifest rule
	t0=$(date +%s.%N)
	vq "CREATE TABLE oprofile.v_samples_day (day Date, label_set String,
		event String, event_count UInt64, app String, image String,
		symbol String, samples UInt64) ENGINE = SummingMergeTree()
		PARTITION BY day ORDER BY (event, event_count, label_set, app,
		image, symbol)"
	vq "INSERT INTO oprofile.v_samples_day SELECT day,
		arrayStringConcat(labels, ','), event, event_count, app, image,
		symbol, sum(samples) FROM oprofile.samples WHERE $manifest
		GROUP BY day, labels, event, event_count, app, image, symbol"
	vq "CREATE TABLE oprofile.v_stacks_day (day Date, label_set String,
		event String, event_count UInt64, app String,
		frames Array(String), samples UInt64) ENGINE = SummingMergeTree()
		PARTITION BY day ORDER BY (event, event_count, label_set, app,
		frames)"
	vq "INSERT INTO oprofile.v_stacks_day SELECT day,
		arrayStringConcat(labels, ','), event, event_count, app, frames,
		sum(samples) FROM oprofile.stacks WHERE $manifest
		GROUP BY day, labels, event, event_count, app, frames"
	roll_secs=$(echo "$(date +%s.%N) - $t0" | bc)
	for t in v_stack_defs v_stacks v_samples_s v_samples_day v_stacks_day; do
		vq "OPTIMIZE TABLE oprofile.$t FINAL"
	done
	b_st=$(awk '$1 == "stacks" { print $3 }' "$out/parts.optimized")
	b_sa=$(awk '$1 == "samples" { print $3 }' "$out/parts.optimized")
	b_v1=$(vbytes "'v_stack_defs', 'v_stacks'")
	b_defs=$(vbytes "'v_stack_defs'")
	b_v2=$(vbytes "'v_samples_s'")
	b_v3=$(vbytes "'v_samples_day', 'v_stacks_day'")
	r_v3=$(q "SELECT sum(rows) FROM system.parts WHERE database = 'oprofile'
		AND active AND table IN ('v_samples_day', 'v_stacks_day')")
	# the three questions on the rollups (our SQL)
	t_v_top=$(vtime "SELECT app, image, symbol, sum(samples) AS n
		FROM oprofile.v_samples_day WHERE day = '$day0'
		GROUP BY app, image, symbol ORDER BY n DESC LIMIT 50
		FORMAT TabSeparated")
	t_v_flame=$(vtime "SELECT app, frames, sum(samples) FROM
		oprofile.v_stacks_day WHERE day = '$day0' AND
		has(splitByChar(',', label_set), 'service=web')
		GROUP BY app, frames FORMAT TabSeparated")
	t_v_diff=$(vtime "SELECT app, image, symbol,
		sumIf(samples, has(splitByChar(',', label_set), 'version=A')) AS a,
		sumIf(samples, has(splitByChar(',', label_set), 'version=B')) AS b
		FROM oprofile.v_samples_day WHERE day = '$day0'
		GROUP BY app, image, symbol ORDER BY a + b DESC
		FORMAT TabSeparated")
	# the flame graph on V1 (our SQL: the day's stacks of service=web by id)
	t_v1_flame=$(vtime "SELECT d.app, d.frames, s.n FROM (SELECT
		stack_id, sum(samples) AS n FROM oprofile.v_stacks
		WHERE has(labels, 'service=web') AND $manifest
		GROUP BY stack_id) AS s ANY INNER JOIN (SELECT stack_id,
		any(app) AS app, any(frames) AS frames FROM
		oprofile.v_stack_defs GROUP BY stack_id) AS d
		USING stack_id FORMAT TabSeparated")
	for v in b_st b_sa b_v1 b_defs b_v2 b_v3 r_v3 roll_secs t_v_top \
		t_v_flame t_v_diff t_v1_flame; do
		echo "$v=${!v}"
	done >"$out/variants"
fi

# 6. the figures
hh_bytes=$((bytes / hh))
{
	echo
	echo "fleet_bench: $hosts hosts x $hours hours = $hh host-hours from ${#bases[@]} recorded sessions"
	echo "  (rows: opfleet ship's; upload: libfleet fleet_http_post, $jobs uploaders; $([ -n "$zstd" ] && echo zstd || echo lz4))"
	printf '  %-44s %12s   %s\n' "figure" "value" "target"
	printf '  %-44s %12s   %s\n' "host-hours ingested per minute" "$per_min" "≥ 1,000"
	printf '  %-44s %12s\n' "rows shipped per host-hour" "$((rows / hh))"
	printf '  %-44s %12s\n' "TSV bytes shipped per host-hour" "$((sent / hh))"
	printf '  %-44s %12s   %s\n' "bytes stored per host-hour (compressed)" "$hh_bytes" "≤ 51,200"
	awk -v hh="$hh" '{ printf "    %-42s %12.0f   (%.0f rows, %d parts)\n", $1, $3 / hh, $2, $4 }' "$out/parts"
	if [ -n "$optimize" ]; then
		printf '  %-44s %12s   (OPTIMIZE FINAL took %.1f s)\n' \
			"... after OPTIMIZE FINAL" "$((bytes_opt / hh))" "$opt_secs"
		awk -v hh="$hh" '{ printf "    %-42s %12.0f\n", $1, $3 / hh }' "$out/parts.optimized"
	fi
	printf '  %-44s %12s   %s\n' "top-50 functions over 24 h (s, median of 3)" "$t_top" "≤ 2"
	printf '  %-44s %12s   %s\n' "service=web folded stacks (s)" "$t_flame" "≤ 2"
	printf '  %-44s %12s   %s\n' "version=A vs version=B by symbol (s)" "$t_diff" "≤ 2"
	if [ -n "$variants" ]; then
		echo "  other layouts (bytes per host-hour after OPTIMIZE FINAL; our SQL, median of 3):"
		printf '    %-42s %12s   (schema: %s)\n' "V1 stacks once a day + ids" \
			"$((b_v1 / hh))" "$((b_st / hh))"
		printf '    %-42s %12s\n' "   of which the definitions" "$((b_defs / hh))"
		printf '    %-42s %12s   (schema: %s)\n' "V2 samples ORDER BY session first" \
			"$((b_v2 / hh))" "$((b_sa / hh))"
		printf '    %-42s %12s   (%s rows; built in %.1f s)\n' "V3 daily rollups (no host, no offset)" \
			"$((b_v3 / hh))" "$r_v3" "$roll_secs"
		printf '    %-42s %12s\n' "V3 top-50 over the day (s)" "$t_v_top"
		printf '    %-42s %12s\n' "V3 service=web stacks (s)" "$t_v_flame"
		printf '    %-42s %12s\n' "V3 version=A vs B by symbol (s)" "$t_v_diff"
		printf '    %-42s %12s\n' "V1 service=web stacks (s)" "$t_v1_flame"
	fi
	[ -s "$out/failures" ] && { echo "  failures:"; sed 's/^/    /' "$out/failures"; }
	echo "  largest columns (compressed bytes per host-hour):"
	awk -v hh="$hh" '{ printf "    %-42s %12.0f\n", $1 "." $2, $3 / hh }' "$out/columns"
} | tee -a "$out/figures"
