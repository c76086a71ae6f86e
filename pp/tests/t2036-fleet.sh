#!/bin/sh
# opreport --fleet against real ClickHouse servers (tests/lib/clickhouse.sh,
# the schema made by opfleet create). Three "hosts" record real sessions
# on this machine (opcontrol with stacks, funcs.c runs of different
# lengths), each with its own fleet_host and labels; the daemon's shipper
# (opfleet ship) symbolises and ships each saved session by the manifest
# rule. Then:
#   - --fleet -l equals the local -l of the three sessions merged, count
#     for count, and the header counts 3 hosts, 3 sessions;
#   - rows of an upload without its manifest row, and a session uploaded
#     twice, change nothing;
#   - { host:a } { host:b } equals the local "{ session:a } { session:b }";
#   - a label (service:web), host globs and time ranges select as the
#     local sessions they stand for;
#   - --pprof read by go tool pprof -top has the --folded total; --flame
#     renders and zooms in headless Chromium; opannotate --fleet annotates
#     as the local opannotate, a rebuilt binary through its debug file;
#   - hostile names are shown escaped, quotes in specs are never SQL;
#   - a two-shard cluster (the same rows) gives the same -l as one
#     server, and with one shard stopped the report fails naming it;
#   - the reader's password is in no output and no message.
# Needs root and perf_event_open (live_session), clickhouse-server.
. "$SRCDIR/tests/lib.sh"
. "${abs_top_srcdir:?}/tests/lib/clickhouse.sh"
: "${abs_top_builddir:?}"
OPFLEET=$abs_top_builddir/pp/opfleet
PATH=$abs_top_builddir/pp:$PATH
live_session
ch_require
test_cleanup_hook() {
	[ -n "${S:-}" ] && [ -f "$S/lock" ] && ctl --shutdown >/dev/null 2>&1
	ch_stop_all
	:
}
test_fail_hook() {
	local f
	for f in "$tmp"/*.err "$tmp"/sd_*/fleet/stats; do
		[ -s "$f" ] && { test_note "$f:"; sed 's/^/#   /' "$f"; }
	done
	# T2035_KEEP=DIR: the whole $tmp (sessions, reports) kept there
	[ -n "${T2035_KEEP:-}" ] && cp -a "$tmp" "$T2035_KEEP/" &&
		test_note "kept in $T2035_KEEP/${tmp##*/}"
	:
}
unset DEBUGINFOD_URLS

$CC -O2 -g -fno-omit-frame-pointer -fno-inline -o "$tmp/funcs" \
	"$SRCDIR/tests/funcs.c" || fail "cannot build funcs.c"

ch_start one
ch_cluster duo
"$OPFLEET" create --url "$(ch_url one)" --credentials "$CH_DIR/ship.cred" \
	>"$tmp/create.out" 2>"$tmp/create.err" || fail "opfleet create (one server)"
"$OPFLEET" create --url "$(ch_url duo1)" --url "$(ch_url duo2)" --cluster duo \
	--credentials "$CH_DIR/ship.cred" >"$tmp/create2.out" 2>"$tmp/create2.err" ||
	fail "opfleet create (cluster)"

# --- three hosts' sessions, recorded for real and shipped --------------------
# record HOST N LABEL...: a daemon shipping as HOST with the labels, funcs
# N, the session saved as s1 (which the shipper ships), in $tmp/all as HOST
mkdir -p "$tmp/all/samples"
record() {
	local h=$1 n=$2 l
	shift 2
	SD=$tmp/sd_$h
	S=$SD
	OPROFILE_CONFIG=$tmp/oprofiled_$h.conf
	export OPROFILE_CONFIG
	{
		echo "fleet_url = $(ch_url one)"
		echo "fleet_credentials = $CH_DIR/ship.cred"
		echo "fleet_host = $h"
		for l in "$@"; do echo "fleet_label = $l"; done
	} >"$OPROFILE_CONFIG"
	ctl_start --event=CPU_CLOCK:150000 --callgraph=32 --separate=lib
	"$tmp/funcs" "$n" >/dev/null || fail "the workload failed"
	ctl --save=s1 >/dev/null || fail "opcontrol --save failed"
	ctl --shutdown >/dev/null || fail "opcontrol --shutdown failed"
	# shipped: its manifest row is there
	for _ in $(seq 300); do
		[ "$(ch_query one read "SELECT count() FROM oprofile.sessions WHERE session_id = '$h/s1'")" = 1 ] &&
			break
		sleep 0.2
	done
	[ "$(ch_query one read "SELECT count() FROM oprofile.sessions WHERE session_id = '$h/s1'")" = 1 ] ||
		fail "host $h: session s1 not in the manifest after 60 s"
	cp -a "$SD/samples/s1" "$tmp/all/samples/$h" || fail "cannot copy session $h"
}
t0=$(date -u +%FT%T)
record a 150000000 service=web zone=eu
sleep 1
tb=$(date -u +%FT%T)
record b 300000000 service=web
sleep 1
tc=$(date -u +%FT%T)
record c 100000000 service=db
OPROFILE_CONFIG=$tmp/no-settings.conf
export OPROFILE_CONFIG

# The shipper named each host's samples when it shipped them; the local
# reports here name them later. On this shared machine other tests' and
# builds' programs come and go meanwhile: an image whose binary is gone or
# changed (the local report says so), or is named differently by the local
# report before and after the rest of the test, is left out of the
# row-by-row comparisons (its total still counts).
"$OPREPORT" --session-dir="$tmp/all" -l session:a,b,c >"$tmp/local.l0" 2>"$tmp/local.l0.err" ||
	fail "opreport -l session:a,b,c"

# insert SERVER TABLE FILE: rows as the ship user
insert() {
	curl -sS --fail-with-body --max-time 30 -u "ship:$CH_SHIP_PW" \
		--data-binary @"$3" \
		"$(ch_url "$1")/?query=INSERT%20INTO%20oprofile.$2%20FORMAT%20TabSeparated" \
		>"$tmp/insert.out" 2>&1 || { cat "$tmp/insert.out"; fail "insert into $2 on $1"; }
}
# sql SERVER SQL: as the ship user, synchronously on a cluster
sql() {
	curl -sS --fail-with-body --max-time 30 -u "ship:$CH_SHIP_PW" --data-binary "$2" \
		"$(ch_url "$1")/?insert_distributed_sync=1" >"$tmp/sql.out" 2>&1 ||
		{ cat "$tmp/sql.out"; fail "SQL on $1: $2"; }
}
# the cluster gets the same rows: each table read from server one
for t in samples stacks sessions; do
	sql duo1 "INSERT INTO oprofile.$t SELECT * FROM remote('127.0.0.1:$(ch_port one 2)', oprofile.$t, 'ship', '$CH_SHIP_PW')"
done
# on server one, an upload of a that died half way (its rows, no manifest
# row), and c sent twice (all of it again with another upload_id)
sql one "INSERT INTO oprofile.samples SELECT day, host, labels, session_id, 17, start, end, event, event_count, app, image, build_id, symbol, offset, samples FROM oprofile.samples WHERE host = 'a'"
sql one "INSERT INTO oprofile.samples SELECT day, host, labels, session_id, upload_id + 1, start, end, event, event_count, app, image, build_id, symbol, offset, samples FROM oprofile.samples WHERE host = 'c'"
sql one "INSERT INTO oprofile.stacks SELECT day, host, labels, session_id, upload_id + 1, start, end, event, event_count, app, frames, frame_offsets, samples FROM oprofile.stacks WHERE host = 'c'"
sql one "INSERT INTO oprofile.sessions SELECT day, host, labels, session_id, upload_id + 1, start, end, event, event_count, samples_rows, stacks_rows, total, shipped FROM oprofile.sessions WHERE host = 'c'"
check_eq "$(ch_query one read "SELECT count() FROM oprofile.sessions WHERE host = 'c'")" 2 \
	"session c is twice in the manifest"

# fleet SERVER OUT ARGS...: opreport --fleet as the read user
fleet() {
	local srv=$1 out=$2
	shift 2
	"$OPREPORT" --fleet="$(ch_url "$srv")" \
		--fleet-credentials="$CH_DIR/read.cred" "$@" >"$out" 2>"$out.err"
}
# local OUT ARGS...: opreport on the three sessions
local_report() {
	local out=$1
	shift
	"$OPREPORT" --session-dir="$tmp/all" "$@" >"$out" 2>"$out.err" ||
		fail "opreport $*"
}
# norm FILE: "count| image [app] symbol" per row name, summed, sorted,
# without the images named in $tmp/unstable
norm() {
	awk 'FILENAME == ARGV[1] { bad[$1] = 1; next }
	     /^[0-9]/ && !($3 in bad) { k = ""; for (i = 3; i <= NF; i++) k = k " " $i; s[k] += $1 }
	     END { for (k in s) print s[k] "|" k }' "$tmp/unstable" "$1" | sort
}
: >"$tmp/unstable"
norm_diff() {
	awk 'FILENAME == ARGV[1] { bad[$1] = 1; next }
	     /^[0-9]/ && !($6 in bad) { k = ""; for (i = 6; i <= NF; i++) k = k " " $i
			a[k] += $1; b[k] += $3 }
	     END { for (k in a) print a[k] " " b[k] "|" k }' "$tmp/unstable" "$1" | sort
}
total() { awk '/^[0-9]/ { s += $1 } END { print s + 0 }' "$1"; }

# --- -l: the sum of the hosts' sessions --------------------------------------
local_report "$tmp/local.l" -l session:a,b,c
norm "$tmp/local.l0" >"$tmp/local.n0"
norm "$tmp/local.l" >"$tmp/local.n1"
{
	diff "$tmp/local.n0" "$tmp/local.n1" | sed -n 's/^[<>] [0-9]*| \([^ ]*\) .*/\1/p'
	# the binaries the local reports could not use: their base names
	grep -h -e 'cannot find binary' -e 'has changed since' -e 'not the binary that was sampled' \
		"$tmp/local.l0.err" "$tmp/local.l.err" |
		grep -o "'/[^']*'" | sed "s|.*/||; s|'||g; s| .*||"
} | sort -u >"$tmp/unstable"
[ -s "$tmp/unstable" ] && test_note "binaries gone or changed since they were shipped, rows not compared: $(tr '\n' ' ' <"$tmp/unstable")"
ms0=$(date +%s%N)
fleet one "$tmp/fleet.l" -l || fail "opreport --fleet -l failed"
ms=$((($(date +%s%N) - ms0) / 1000000))
check_grep "$tmp/fleet.l" "^Fleet: fleet report from $(ch_url one) \\(database oprofile\\): 3 hosts, 3 sessions, ${t0%T*}T[0-9:]*Z to [0-9T:-]*Z$" \
	"the header: a fleet report, its URL, hosts, sessions and time range"
rows=$(norm "$tmp/local.l" | wc -l)
[ "$rows" -ge 10 ] || fail "the local report has $rows rows: the comparison would say nothing"
check_eq "$(norm "$tmp/fleet.l" | wc -l)" "$rows" "as many rows as the local report ($rows)"
norm "$tmp/local.l" >"$tmp/local.n"
norm "$tmp/fleet.l" >"$tmp/fleet.n"
test_cmp "$tmp/local.n" "$tmp/fleet.n" \
	"--fleet -l equals the local -l of the three sessions, count for count"
check_grep "$tmp/fleet.l" " alpha$" "the workload's functions by name"
test_note "the server holds $(ch_query one read 'SELECT count() FROM oprofile.samples') samples rows; -l got its $(grep -c '^[0-9]' "$tmp/fleet.l") rows summed by the server, in $ms ms"
check_eq "$(total "$tmp/fleet.l")" "$(total "$tmp/local.l")" \
	"the same total (the half-done upload and the second one of c count nothing)"
check_no_grep "$tmp/fleet.l" "$CH_READ_PW" "no password in the report"

# the image summary too
local_report "$tmp/local.s" session:a,b,c
fleet one "$tmp/fleet.s" || fail "opreport --fleet failed"
norm "$tmp/local.s" >"$tmp/local.sn"
norm "$tmp/fleet.s" >"$tmp/fleet.sn"
test_cmp "$tmp/local.sn" "$tmp/fleet.sn" "the image summary equals the local one"

# --merge=lib: libraries no longer under their applications, as locally
local_report "$tmp/local.m" -l --merge=lib session:a,b,c
fleet one "$tmp/fleet.m" -l --merge=lib || fail "opreport --fleet --merge=lib failed"
norm "$tmp/local.m" >"$tmp/local.mn"
norm "$tmp/fleet.m" >"$tmp/fleet.mn"
test_cmp "$tmp/local.mn" "$tmp/fleet.mn" "--merge=lib equals the local one"
check_no_grep "$tmp/fleet.m" "app name" "--merge=lib: no application column"

# the reader's credentials from the settings file's fleet_credentials
printf 'fleet_credentials = %s\n' "$CH_DIR/read.cred" >"$tmp/reader.conf"
OPROFILE_CONFIG=$tmp/reader.conf "$OPREPORT" --fleet="$(ch_url one)" -l \
	>"$tmp/fleet.conf" 2>"$tmp/fleet.conf.err"
check_eq "$?/$(total "$tmp/fleet.conf")" "0/$(total "$tmp/fleet.l")" \
	"credentials from the settings file's fleet_credentials"
"$OPREPORT" --fleet="$(ch_url one)" -l >"$tmp/fleet.nocred" 2>"$tmp/fleet.nocred.err"
check_eq $? 1 "without credentials the server refuses the reader"

# --- a differential between hosts --------------------------------------------
local_report "$tmp/local.d" -l "{" session:a "}" "{" session:b "}"
fleet one "$tmp/fleet.d" -l "{" host:a "}" "{" host:b "}" ||
	fail "opreport --fleet { host:a } { host:b } failed"
norm_diff "$tmp/local.d" >"$tmp/local.dn"
[ "$(wc -l <"$tmp/local.dn")" -ge 10 ] || fail "the local diff has too few rows to compare"
norm_diff "$tmp/fleet.d" >"$tmp/fleet.dn"
test_cmp "$tmp/local.dn" "$tmp/fleet.dn" \
	"{ host:a } { host:b } equals the local diff of the two sessions"
check_grep "$tmp/fleet.d" "^Fleet: new: .* 1 host, 1 session" "each side's header"

# --- labels, globs, time ranges ----------------------------------------------
local_report "$tmp/local.ab" -l session:a,b
fleet one "$tmp/fleet.web" -l service:web || fail "service:web"
check_eq "$(total "$tmp/fleet.web")" "$(total "$tmp/local.ab")" "service:web is hosts a and b"
fleet one "$tmp/fleet.eu" -l service:web zone:eu || fail "two labels"
local_report "$tmp/local.a" -l session:a
check_eq "$(total "$tmp/fleet.eu")" "$(total "$tmp/local.a")" "service:web zone:eu is host a"
fleet one "$tmp/fleet.glob" -l "host:[ab]" || fail "a host glob"
check_eq "$(total "$tmp/fleet.glob")" "$(total "$tmp/local.ab")" "host:[ab] is hosts a and b"
fleet one "$tmp/fleet.time" -l "session:$t0..$tc" || fail "a time range"
check_eq "$(total "$tmp/fleet.time")" "$(total "$tmp/local.ab")" "session:START..END selects hosts a and b by their sessions' start"
fleet one "$tmp/fleet.since" -l --since="$tb" --until="$tc" || fail "--since"
local_report "$tmp/local.b" -l session:b
check_eq "$(total "$tmp/fleet.since")" "$(total "$tmp/local.b")" "--since/--until select host b"
fleet one "$tmp/fleet.sname" -l "session:s*" host:a || fail "a session name glob"
check_eq "$(total "$tmp/fleet.sname")" "$(total "$tmp/local.a")" "session:s* host:a is host a's session s1"
fleet one "$tmp/fleet.none" -l host:nosuch
check_eq $? 1 "no host of that name: exit 1"
check_grep "$tmp/fleet.none.err" "no session shipped to .* matches the specification" "and why"
fleet one "$tmp/fleet.tid" -l tid:3
check_eq $? 2 "tid: is refused (the rows keep no threads)"
check_grep "$tmp/fleet.tid.err" "do not keep 'tid:'" "by name"

# --- hostile names and specifications ---------------------------------------
# a host whose rows name things with control bytes, quotes, backslashes
# and "..": shown escaped, never run as SQL
esc=$(printf '\033')
evil="2026-11-27\tevil\t['service=we\\'b']\tevil/s\t5\t2026-11-27 10:00:00\t2026-11-27 11:00:00\tCPU_CLOCK\t150000"
printf "$evil\t/bin/evil\t/tmp/../x${esc}[31m\t\tf\\\\nl\\\\tt'q\\\\\\\\${esc}]0;t\t16\t7\n" >"$tmp/evil.samples"
printf "$evil\t0\t0\t7\t2026-11-27 11:00:00\n" >"$tmp/evil.manifest"
insert one samples "$tmp/evil.samples"
insert one sessions "$tmp/evil.manifest"
fleet one "$tmp/fleet.evil" -l host:evil || fail "opreport --fleet on hostile names"
check_eq "$(total "$tmp/fleet.evil")" 7 "the hostile host's 7 samples"
check_no_grep "$tmp/fleet.evil" "$esc" "no raw escape byte reaches the terminal"
check_grep "$tmp/fleet.evil" "f\\\\x0al\\\\x09t'q" "the symbol's newline and tab shown escaped"
fleet one "$tmp/fleet.evil2" -l "service:we'b" || fail "a label with a quote"
check_eq "$(total "$tmp/fleet.evil2")" 7 "a label value with a quote is matched, quoted"
fleet one "$tmp/fleet.inj" -l "host:a') OR 1=1 OR ('" "image:x' OR '1'='1"
check_eq $? 1 "quotes in a spec select nothing (they are quoted, not SQL)"
check_eq "$(ch_query one ship 'SELECT count() FROM oprofile.sessions')" 5 \
	"the tables are as they were"
"$OPREPORT" --fleet="http://read:$CH_READ_PW@127.0.0.1:1" -l >"$tmp/url.out" 2>&1
check_eq $? 1 "credentials in the URL are refused"
check_no_grep "$tmp/url.out" "$CH_READ_PW" "and the password is not echoed"
mkfifo "$tmp/fifo.cred"
timeout 10 "$OPREPORT" --fleet="$(ch_url one)" --fleet-credentials="$tmp/fifo.cred" -l \
	>"$tmp/fifo.out" 2>&1
check_eq $? 1 "a FIFO as the credentials file: refused, no hang"

# --- builds ----------------------------------------------------------------
id=$(build_id_of "$tmp/funcs")
local_report "$tmp/local.build" -l session:a,b,c lib-image:"$tmp/funcs"
fleet one "$tmp/fleet.build" -l "build-id:$id" || fail "build-id:"
check_eq "$(total "$tmp/fleet.build")" "$(total "$tmp/local.build")" \
	"build-id:ID is the samples of that build (the local lib-image: of the binary)"
fleet one "$tmp/fleet.build2" -l "build-id:$(echo "$id" | cut -c1-8 | tr a-f A-F)" ||
	fail "a build-id prefix"
check_eq "$(total "$tmp/fleet.build2")" "$(total "$tmp/local.build")" "a prefix, in capitals, too"
fleet one "$tmp/fleet.buildd" -l "{" "build-id:$id" host:a "}" "{" "build-id:$id" host:b "}" ||
	fail "a differential by build"
check_grep "$tmp/fleet.buildd" " alpha$" "a differential between builds and hosts"
fleet one "$tmp/fleet.bstacks" --folded "build-id:$id"
check_eq $? 1 "build-id: with stacks: refused (their rows keep no build-id)"

# --- -X -----------------------------------------------------------------------
fleet one "$tmp/fleet.x" -X || fail "opreport --fleet -X failed"
if command -v xmllint >/dev/null; then
	test_expect "-X is valid against doc/opreport.xsd" \
		xmllint --noout --schema "$abs_top_srcdir/doc/opreport.xsd" "$tmp/fleet.x"
fi
check_grep "$tmp/fleet.x" "<!-- fleet: fleet report from" "-X says it is a fleet report"

# --- stacks: --folded, --pprof, --flame --------------------------------------
fleet one "$tmp/fleet.folded" --folded || fail "opreport --fleet --folded failed"
local_report "$tmp/local.folded" --folded session:a,b,c
check_eq "$(awk '{ s += $NF } END { print s + 0 }' "$tmp/fleet.folded")" \
	"$(awk '{ s += $NF } END { print s + 0 }' "$tmp/local.folded")" \
	"--folded: the fleet's stacks sum to the local ones"
check_grep "$tmp/fleet.folded" "^funcs;.*main;alpha [0-9]" "a stack into alpha through main"
# what the stacks cost on the wire: frames by id, against by name
by_name=$(ch_query one read "SELECT app, arrayStringConcat(arrayMap(x -> hex(x), frames), ' '), sum(samples) FROM oprofile.stacks GROUP BY app, frames FORMAT TabSeparated" | wc -c)
by_id=$(( $(ch_query one read "SELECT DISTINCT hex(arrayJoin(frames)) FROM oprofile.stacks FORMAT TabSeparated" | wc -c) +
	$(ch_query one read "SELECT app, arrayStringConcat(arrayMap(x -> toString(cityHash64(x)), frames), ' '), sum(samples) FROM oprofile.stacks GROUP BY app, frames FORMAT TabSeparated" | wc -c) ))
test_note "stacks answer: $by_id bytes with frames by id, $by_name by name"
fleet one "$tmp/fleet.pp" --pprof="$tmp/fleet.pb.gz" || fail "opreport --fleet --pprof failed"
test_expect "--pprof writes a gzip file" gzip -t "$tmp/fleet.pb.gz"
if command -v go >/dev/null 2>&1; then
	export GOCACHE=$tmp/gocache GOPATH=$tmp/gopath GOFLAGS=-mod=mod \
		GOPROXY=off GOTOOLCHAIN=local HOME=$tmp PPROF_TMPDIR=$tmp/pprof
	go tool pprof -top -nodecount=100000 -nodefraction=0 -edgefraction=0 \
		-symbolize=none -sample_index=samples "$tmp/fleet.pb.gz" \
		>"$tmp/top" 2>"$tmp/top.err" || fail "go tool pprof cannot read the fleet's profile"
	check_grep "$tmp/top" "of $(awk '{ s += $NF } END { print s + 0 }' "$tmp/fleet.folded") total" \
		"go tool pprof -top: the --folded total"
	check_grep "$tmp/top" " alpha$" "go tool pprof -top names alpha"
else
	test_note "go (golang-go) not installed: go tool pprof checks skipped"
fi
fleet one "$tmp/fleet.fld" --flame="$tmp/fleet-diff.html" "{" host:c "}" "{" host:b "}" ||
	fail "opreport --fleet --flame { host:c } { host:b } failed"
check_grep "$tmp/fleet-diff.html" '"diff":true,"baseTotal":[1-9]' \
	"a flame graph of host b against host c, coloured by the difference"
fleet one "$tmp/fleet.fl" --flame="$tmp/fleet.html" || fail "opreport --fleet --flame failed"
if command -v chromium >/dev/null && command -v python3 >/dev/null; then
	python3 "$SRCDIR/tests/flame_cdp.py" "$tmp/fleet.html" "$tmp/fleet.png" \
		--click alpha --search alpha >"$tmp/cdp" 2>&1
	rc=$?
	if [ "$rc" -eq 77 ]; then
		test_note "chromium cannot start: the flame page is not driven"
	else
		while IFS= read -r line; do
			case $line in
			"ok "*) test_ok "fleet flame: ${line#ok }" ;;
			"not ok "*) test_not_ok "fleet flame: ${line#not ok }" ;;
			*) echo "# $line" ;;
			esac
		done <"$tmp/cdp"
	fi
else
	test_note "no chromium: the flame page is not driven"
fi

# --- opannotate --fleet: the fleet's addresses on the build's code -----------
"$OPANNOTATE" --session-dir="$tmp/all" -s session:a,b,c image:"$tmp/funcs" \
	>"$tmp/local.ann" 2>"$tmp/local.ann.err" || fail "opannotate -s"
annotate_fleet() {
	"$OPANNOTATE" --fleet="$(ch_url one)" --fleet-credentials="$CH_DIR/read.cred" \
		"$@" >"$tmp/fleet.ann" 2>"$tmp/fleet.ann.err"
}
annotate_fleet -s image:"$tmp/funcs" || fail "opannotate --fleet -s failed"
for f in alpha beta gamma_fn; do
	check_eq "$(ann_total "$tmp/fleet.ann" $f)" "$(ann_total "$tmp/local.ann" $f)" \
		"opannotate --fleet: $f's total as the local annotation's"
done
check_grep "$tmp/fleet.ann" "sink \\+= i \\* 3" "the source of alpha, annotated"
# the binary rebuilt at its path: the sampled build's debug file, found by
# build-id below a debug directory, annotates it still
id=$(build_id_of "$tmp/funcs")
mkdir -p "$tmp/dbg/.build-id/$(echo "$id" | cut -c1-2)"
cp "$tmp/funcs" "$tmp/dbg/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
$CC -O2 -g -fno-omit-frame-pointer -fno-inline -DREBUILT=1 -o "$tmp/funcs" \
	"$SRCDIR/tests/funcs.c" -Wl,--build-id=0x0123456789 || fail "cannot rebuild funcs.c"
OPROFILE_DEBUG_DIRS=$tmp/dbg annotate_fleet -s image:"$tmp/funcs" ||
	fail "opannotate --fleet on a rebuilt binary failed"
check_eq "$(ann_total "$tmp/fleet.ann" alpha)" "$(ann_total "$tmp/local.ann" alpha)" \
	"a rebuilt binary: alpha annotated from the sampled build's debug file"
annotate_fleet -s image:"$tmp/funcs"
check_grep "$tmp/fleet.ann.err" "neither the binary \\(another build at its path\\) nor a debug file by build-id" \
	"without it: the image is said not annotated"

# --- a two-shard cluster -----------------------------------------------------
fleet duo1 "$tmp/duo.l" -l || fail "opreport --fleet -l on the cluster failed"
check_grep "$tmp/duo.l" "^Fleet: cluster 'duo': 2 shards, all answered" "the cluster in the header"
norm "$tmp/duo.l" >"$tmp/duo.n"
test_cmp "$tmp/fleet.n" "$tmp/duo.n" "the cluster's -l equals one server's"
check_grep "$tmp/duo.l" "3 hosts, 3 sessions" "all three hosts across the shards"
ch_kill duo2
fleet duo1 "$tmp/duo.down" -l
check_eq $? 1 "a shard down: the report fails"
check_grep "$tmp/duo.down.err" "error: shard 2 \\(127.0.0.1:$(ch_port duo2 2)\\) of cluster 'duo' did not answer: .*HTTP 500" \
	"and names the shard that did not answer"
check_no_grep "$tmp/duo.down" "." "no partial report on stdout"
check_no_grep "$tmp/duo.down.err" "$CH_READ_PW" "no password in the message"
test_done
