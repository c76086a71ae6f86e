#!/bin/sh
# The always-on service: oprofiled started as its systemd unit
# starts it, rotating its session every few seconds for ~20 s under
# fork/exec churn and a CPU-bound program. Then: each sample is in exactly
# one session (per-session stats balance, sum to the daemon's total, and
# match the samples in each session's files), a time range reports the
# sum of its sessions, SIGHUP (the unit's ExecReload) changes the
# interval, retention removes the oldest sessions, and a saved session
# reports the same after the kernel's symbols changed (a reboot).
#
# How the unit is run: systemd is not this machine's init here (no
# /run/systemd/system; a container), so the unit's own ExecStart,
# ExecReload and ExecStop command lines, parsed out of the built unit
# file, are run directly as systemd would (Type=simple: ExecStart in the
# foreground, its stderr the journal; $MAINPID its pid). Only the
# installed path of oprofiled is replaced by the built one. The unit is
# checked with systemd-analyze verify when that exists.
. "${abs_top_srcdir:?}/tests/control/lib.sh"
PATH=$B/pp:$PATH

UNIT=$B/daemon/oprofiled.service
JOURNAL=$T/journal
CONF=$T/oprofiled.conf
OPROFILE_CONFIG=$CONF
export OPROFILE_CONFIG
SAMPLES=$S/samples

test_fail_hook() {
	test_note "--- the daemon's stderr (journal)"
	tail -40 "$JOURNAL" 2>/dev/null | sed 's/^/# /'
}

[ -f "$UNIT" ] || fail "no $UNIT (make builds it)"
unit_line() { sed -n "s/^$1=//p" "$UNIT"; }
exec_start=$(unit_line ExecStart)
exec_reload=$(unit_line ExecReload)
exec_stop=$(unit_line ExecStop)
[ -n "$exec_start" ] && [ -n "$exec_reload" ] && [ -n "$exec_stop" ] ||
	fail "the unit lacks ExecStart, ExecReload or ExecStop"
case $exec_start in
*/oprofiled\ --foreground*) ;;
*) fail "ExecStart is not oprofiled --foreground: '$exec_start'" ;;
esac
# the installed oprofiled is the one built here
exec_start="$OPROFILED ${exec_start#* }"
if [ -d /run/systemd/system ]; then
	test_note "systemd runs this machine, but the test does not install units: the command lines run directly"
else
	test_note "no systemd here: the unit's command lines run directly"
fi
if command -v systemd-analyze >/dev/null; then
	sed "s|^ExecStart=[^ ]*|ExecStart=$OPROFILED|" "$UNIT" >"$T/oprofiled.service"
	systemd-analyze verify --man=no "$T/oprofiled.service" >"$T/verify" 2>&1 ||
		{ cat "$T/verify"; fail "systemd-analyze verify refuses the unit"; }
	test_ok "systemd-analyze verify accepts the unit"
fi

# wait_long CMD...: up to 30 s
wait_long() {
	for _ in $(seq 300); do "$@" && return 0; sleep 0.1; done
	return 1
}
# service_start: ExecStart in the background, as Type=simple
service_start() {
	$exec_start 2>>"$JOURNAL" &
	MAINPID=$!
	wait_long grep -q "daemon started: pid $MAINPID," "$JOURNAL" || fail "the service did not start"
	alive "$MAINPID" || fail "the service exited at once"
}
# service_reload / service_stop: the unit's lines, $MAINPID substituted
service_reload() { eval "$exec_reload" || fail "ExecReload failed"; }
service_stop() {
	eval "$exec_stop" || fail "ExecStop failed"
	wait "$MAINPID"
	status=$?
	[ "$status" -eq 0 ] || fail "oprofiled exited $status after ExecStop"
}

cp "$B/tests/workloads/churn" "$T/churn" || fail "cannot copy churn"

step "the service, rotating every 3 s under churn"
cat >"$CONF" <<EOF
# as an administrator writes /etc/oprofile/oprofiled.conf
session_dir = $S
events = CPU_CLOCK:1000000
separate = none
rotate = 3s
EOF
service_start
ctl --status >"$T/status" 2>&1 || { cat "$T/status"; fail "--status failed"; }
check_grep "$T/status" "^Daemon running: pid $MAINPID" "--status finds the service's daemon"
check_grep "$T/status" "^Rotate: 3s" "--status shows the rotation"
check_grep "$T/status" "^Service: (not under systemd|oprofiled.service )" "--status shows the service's state"
"$SPIN" 22 & spin=$!
( end=$(($(date +%s) + 21)); while [ "$(date +%s)" -lt "$end" ]; do "$T/churn" 100 >/dev/null || exit 1; done ) &
churn=$!
sleep 10
step "ExecReload with rotate = 2s"
sed -i 's/^rotate = 3s$/rotate = 2s/' "$CONF"
service_reload
sleep 11
wait "$churn" || fail "churn failed"
wait "$spin"
service_stop
grep -q "reload: settings file '$CONF' read: rotate 2s" "$JOURNAL" ||
	fail "the reload did not take rotate = 2s"
test_ok "SIGHUP read the settings file again: rotate 2s"

step "each sample in exactly one session"
ls "$SAMPLES" | grep '^20[0-9-]*T' >"$T/sessions"
n=$(wc -l <"$T/sessions")
[ "$n" -ge 6 ] || { cat "$T/sessions"; fail "only $n rotated sessions in ~21 s"; }
total=$(sed -n 's/.*received since start \([0-9]*\) samples; \([0-9]*\) sessions rotated$/\1 \2/p' "$JOURNAL")
set -- $total
[ $# -eq 2 ] || fail "no final 'received since start' line"
total=$1
check_eq "$2" "$n" "the daemon's count of rotated sessions is the sessions there"
rsum=0
while read -r name; do
	d=$SAMPLES/$name
	stats_balance "$d" >/dev/null
	r=$(counter "$d" sample_received)
	w=$(counter "$d" sample_written)
	# what the log said of this session is what its stats say
	grep -q "rotated: session '$name' holds received $r, written $w," "$JOURNAL" ||
		fail "session $name: stats received $r written $w, not as logged"
	# and the files hold exactly the written samples
	# (the image summary's rows; the indented ones split an image up)
	f=$(opreport --session-dir="$S" "session:$name" -n 2>/dev/null |
		awk '!/^\t/ { s += $1 } END { print s + 0 }')
	[ "$f" -eq "$w" ] || fail "session $name: its files hold $f samples, stats/sample_written says $w"
	for k in session/kallsyms.gz session/kernel_images session.conf; do
		[ -s "$d/$k" ] || fail "session $name has no $k of its own"
	done
	[ -f "$d/session/modules" ] || fail "session $name has no session/modules"
	rsum=$((rsum + r))
	echo "$name: received $r, written $w, in its files $f"
done <"$T/sessions"
check_eq "$rsum" "$total" "the $n sessions' received add up to the daemon's total"
[ "$total" -ge 5000 ] || fail "only $total samples in ~21 s of a busy machine"

step "the interval follows the reload"
# names are the periods' UTC starts: 3 s apart before the reload, 2 s after
sed 's/\.[0-9]*$//' "$T/sessions" | while read -r name; do
	date -u -d "$(echo "$name" | tr T ' ')" +%s
done >"$T/times"
awk 'NR > 1 { print $1 - prev } { prev = $1 }' "$T/times" >"$T/gaps"
test_note "gaps between sessions: $(tr '\n' ' ' <"$T/gaps")"
[ "$(grep -c '^3$' "$T/gaps")" -ge 2 ] || fail "no two 3 s periods before the reload"
[ "$(grep -c '^2$' "$T/gaps")" -ge 3 ] || fail "no three 2 s periods after the reload"
test_ok "3 s periods, then 2 s periods"

step "a time range reports the sum of its sessions"
# three sessions from the middle: the range from the 2nd up to the 5th
a=$(sed -n 2p "$T/sessions")
e=$(sed -n 5p "$T/sessions")
# samples by (binary, module, symbol) from opreport's XML: the text
# report shows an app name column only when its sessions have samples of
# a binary under an app, and names may hold spaces ("prog (build ID)").
# Other tests' binaries in /tmp come and go between two reports (a gone
# one's samples are "(no symbols)"): theirs are summed per module.
sum_rows() {
	OWN=$T python3 - "$@" <<'PY' | sort
import os, sys, xml.etree.ElementTree as ET
own = os.environ["OWN"] + "/"
def transient(name):
    return name.startswith("/tmp/") and not name.startswith(own)
tot = {}
for path in sys.argv[1:]:
    root = ET.parse(path).getroot()
    names = {d.get("id"): d.get("name") for d in root.iter("symboldata")}
    for b in root.iter("binary"):
        for owner in [b] + b.findall("module"):
            for sym in owner.findall("symbol"):
                sname = names.get(sym.get("idref"))
                if transient(b.get("name")) or transient(owner.get("name")):
                    sname = "(any)"
                k = (b.get("name"), owner.get("name"), sname)
                tot[k] = tot.get(k, 0) + sum(int(c.text) for c in sym.findall("count"))
for k, v in tot.items():
    print(v, " | ".join(k))
PY
}
n=0
for name in $(sed -n 2,4p "$T/sessions"); do
	n=$((n + 1))
	opreport --session-dir="$S" "session:$name" -l -X >"$T/each.$n" ||
		fail "opreport -l -X session:$name failed"
done
sum_rows "$T/each.1" "$T/each.2" "$T/each.3" >"$T/each.sum" ||
	fail "cannot read the sessions' XML reports"
opreport --session-dir="$S" "session:$a..$e" -l -X >"$T/range" ||
	fail "opreport -l -X session:$a..$e failed"
sum_rows "$T/range" >"$T/range.sum" || fail "cannot read the range's XML report"
diff "$T/each.sum" "$T/range.sum" >"$T/diff" ||
	{ cat "$T/diff"; fail "session:$a..$e is not the sum of its three sessions"; }
test_ok "opreport -l session:$a..$e = the sum of 3 sessions ($(wc -l <"$T/range.sum") symbols, $(awk '{ s += $1 } END { print s }' "$T/range.sum") samples)"
opreport --session-dir="$S" --since="$a" --until="$e" -l -X >"$T/opts" ||
	fail "--since/--until failed"
sum_rows "$T/opts" | diff - "$T/range.sum" ||
	fail "--since=$a --until=$e differs from session:$a..$e"
test_ok "--since/--until select the same sessions"
last=$(tail -1 "$T/sessions")
opreport --session-dir="$S" "{" "session:$a..$e" "}" "{" "session:$e..$last" "}" >"$T/diffrep" 2>&1 ||
	{ cat "$T/diffrep"; fail "the differential report of two ranges failed"; }
check_grep "$T/diffrep" "spin" "{ range } { range } compares two ranges"
opreport --session-dir="$S" "session:2001-01-01..2001-01-02" >"$T/none" 2>&1 &&
	fail "an empty range was accepted"
check_grep "$T/none" "no rotated session in range 2001-01-01..2001-01-02" "an empty range says so"

step "reboot-safety: the session's own kernel symbols"
name=$(sed -n 3p "$T/sessions")
opreport --session-dir="$S" "session:$name" -l >"$T/before" || fail "opreport -l $name failed"
grep -q ' vmlinux ' "$T/before" || fail "no kernel samples in $name"
# the next boot: other kernel addresses (KASLR), in the boot's kernel
# cache and the live session, replaced as the daemon replaces them
gzip -dc "$SAMPLES/current/session/kallsyms.gz" |
	perl -pe 'no warnings; s/^([0-9a-f]+)/sprintf("%016x", hex($1) + 0x200000)/e' |
	gzip -1 >"$T/kallsyms.gz"
for k in "$S/kernel-cache/kallsyms.gz" "$SAMPLES/current/session/kallsyms.gz"; do
	cp "$T/kallsyms.gz" "$k.new" && mv "$k.new" "$k" || fail "cannot replace $k"
done
opreport --session-dir="$S" "session:$name" -l >"$T/after" || fail "opreport -l $name failed after the reboot"
# the kernel's rows are what a reboot could change; the rest of a
# system-wide report may change meanwhile as other programs' binaries
# are deleted (tests running beside this one)
kernel_rows() { grep ' vmlinux ' "$1"; }
kernel_rows "$T/before" >"$T/before.k"
kernel_rows "$T/after" >"$T/after.k"
cmp -s "$T/before.k" "$T/after.k" || { diff "$T/before.k" "$T/after.k" | head; fail "the report of $name changed with the next boot's kernel"; }
test_ok "session $name reports the same after the kernel's kallsyms changed"
# the control: the same change made in the session itself shows
cp "$SAMPLES/$name/session/kallsyms.gz" "$T/own.gz"
cp "$T/kallsyms.gz" "$SAMPLES/$name/session/kallsyms.gz.new" &&
	mv "$SAMPLES/$name/session/kallsyms.gz.new" "$SAMPLES/$name/session/kallsyms.gz"
opreport --session-dir="$S" "session:$name" -l >"$T/changed" 2>&1
kernel_rows "$T/changed" >"$T/changed.k"
cmp -s "$T/before.k" "$T/changed.k" && fail "the control: the session's own kallsyms is not what its report uses"
mv "$T/own.gz" "$SAMPLES/$name/session/kallsyms.gz"
test_ok "the control: its report does change with its own kallsyms"
rm -rf "$S/kernel-cache"	# the next start makes it again, as after a reboot

step "retention: keep_size, then keep"
# disk usage as the daemon counts it: blocks, a file of N links 1/N
usage() { find "$1" -printf '%y %b %n\n' | awk '{ s += $1 == "f" ? $2 * 512 / $3 : $2 * 512 } END { printf "%d\n", s }'; }
rotated() { ls "$SAMPLES" | grep '^20[0-9-]*T'; }
rotated >"$T/sessions"
n=$(wc -l <"$T/sessions")
# room for the newest 4 (and a little): the others must go, oldest first.
# An hourly rotation: no new session comes while this is checked.
# The kernel data the sessions share (session/kallsyms.gz and .idx, hard
# links to one file) would count 1/N, N falling as sessions go: each
# session gets its own copy, so the newest 4 take then what they take now.
for name in $(cat "$T/sessions"); do
	for f in "$SAMPLES/$name/session/kallsyms.gz" "$SAMPLES/$name/session/kallsyms.idx"; do
		[ ! -f "$f" ] || { cp "$f" "$f.own" && mv "$f.own" "$f"; } || fail "cannot copy $f"
	done
done
keep=0
for name in $(tail -4 "$T/sessions"); do keep=$((keep + $(usage "$SAMPLES/$name"))); done
keep=$((keep + 2048))
sed -i 's/^rotate = .*/rotate = 1h/' "$CONF"
echo "keep_size = $keep" >>"$CONF"
service_start
# removing a session of a few thousand files takes a while here
head -n $((n - 4)) "$T/sessions" >"$T/gone"
wait_long grep -q "retention: removed session '$(tail -1 "$T/gone")'" "$JOURNAL" ||
	fail "the newest of the $((n - 4)) oldest sessions was not removed at start over keep_size = $keep"
rotated >"$T/left"
while read -r name; do
	grep -qx "$name" "$T/left" && fail "$name, among the oldest, was kept over keep_size"
	grep -q "retention: removed session '$name' (rotated sessions took [0-9]* bytes, over --keep-size=$keep)" "$JOURNAL" ||
		fail "the removal of $name is not logged"
done <"$T/gone"
tail -4 "$T/sessions" | cmp -s - "$T/left" || { cat "$T/left"; fail "not the newest 4 sessions left"; }
[ -d "$SAMPLES/current" ] || fail "the live session was removed"
test_ok "keep_size removed the $((n - 4)) oldest sessions, kept the newest 4 and the live one"
# no limits (a reload), then the last period is a session at the stop
sed -i '/^keep_size/d' "$CONF"
service_reload
wait_long grep -q "read: rotate 1h, keep 0s, keep_size 0 bytes" "$JOURNAL" || fail "no reload"
service_stop
rotated >"$T/left"
[ "$(wc -l <"$T/left")" -eq 5 ] || { cat "$T/left"; fail "not 5 sessions after the stop"; }
# keep: sessions that ended more than AGE ago; AGE between the ends of
# the 1st and 3rd (each ends where the next begins)
now=$(date +%s)
end1=$(date -u -d "$(sed -n 2p "$T/left" | sed 's/\.[0-9]*$//' | tr T ' ')" +%s)
age=$((now - end1 - 1))
[ $((age % 60)) -ne 0 ] || age=$((age - 1))	# said in seconds, not "2m"
echo "keep = ${age}s" >>"$CONF"
service_start
name=$(head -1 "$T/left")
wait_long grep -q "retention: removed session '$name' (ended more than --keep=${age}s ago)" "$JOURNAL" ||
	fail "$name ended more than ${age}s ago but its removal is not logged"
[ ! -d "$SAMPLES/$name" ] || fail "$name ended more than ${age}s ago but was kept"
for name in $(sed -n 3,5p "$T/left"); do
	[ -d "$SAMPLES/$name" ] || fail "$name ended less than ${age}s ago but was removed"
done
test_ok "keep = ${age}s removed the session that ended before, kept the later ones"

step "kill -9, then a start: the samples left behind are a session of their own"
"$SPIN" 1.5
wait_long sh -c "ls -d '$SAMPLES'/current/{* >/dev/null 2>&1" || fail "no sample files after 1.5 s"
start=$(sed -n 's/^start_time=//p' "$SAMPLES/current/session.conf")
kill -KILL "$MAINPID"
wait "$MAINPID" 2>/dev/null
service_start
left=$(date -u -d "@$start" +%Y-%m-%dT%H:%M:%S)
# named by its start, with .2, .3 when a session of that second exists
# (the run before this one may have ended in the same second)
saved=$(sed -n "s/.*the live session held samples of an earlier run: saved as '\($left\(\.[0-9]*\)\{0,1\}\)'.*/\1/p" "$JOURNAL" | tail -n 1)
[ -n "$saved" ] || fail "the samples left by kill -9 were not saved as '$left'"
left=$saved
ls -d "$SAMPLES/$left"/{* >/dev/null 2>&1 || fail "$left holds no sample files"
service_stop
test_ok "the run killed with -9 became session $left, apart from the next run"
test_done
