#!/bin/sh
# OProfile 0.9's usual script, as its users wrote it (with --session-dir):
# version check, --init, --setup, --start-daemon, --start, workload,
# --dump, opreport, --shutdown, --deinit. On a host that cannot load the
# driver, --init and --deinit say perf_events serves and succeed. Then
# the --image filter: only the listed binary's samples are written.
. "${abs_top_srcdir:?}/tests/control/lib.sh"
PATH=$B/pp:$PATH

step "opcontrol -v, as scripts parse it"
for tool in opcontrol opreport ophelp oprofiled; do
	"$tool" -v >"$T/v" || fail "$tool -v failed"
	check_grep "$T/v" "^$tool: oprofile [0-9][0-9.]* compiled on .* [(]oprofile-ng [0-9][0-9.]*[)]$" "$tool -v"
	"$tool" --version | cmp -s - "$T/v" || fail "$tool --version differs from -v"
done

step "the 0.9 script"
opcontrol --init >"$T/init" 2>&1 || { cat "$T/init"; fail "--init failed"; }
cat "$T/init"
if [ -e /dev/oprofile/buffer ]; then
	test_note "the driver is loaded: the script runs against it"
else
	check_grep "$T/init" "perf_events instead" "--init says perf_events serves"
fi
opcontrol --session-dir="$S" --setup --no-vmlinux --event=CPU_CLOCK:100000 >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "--setup failed"; }
[ ! -f "$S/lock" ] || fail "--setup started a daemon"
check_grep "$S/daemonrc" "^events=CPU_CLOCK:100000:0:1:1$" "--setup stores the event"
opcontrol --session-dir="$S" --start-daemon >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "--start-daemon failed"; }
cat "$T/out"
pid=$(cat "$S/lock") && kill -0 "$pid" || fail "no daemon after --start-daemon"
opcontrol --session-dir="$S" --status >"$T/status" || fail "--status failed"
check_grep "$T/status" "^Daemon paused: pid $pid" "--start-daemon leaves the daemon paused"
"$SPIN" 0.3
opcontrol --session-dir="$S" --dump || fail "--dump while paused failed"
check_eq "$(counter "$S/samples/current" sample_received)" 0 "no samples before --start"
opcontrol --session-dir="$S" --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
check_grep "$T/out" "already running \(pid $pid\); starting sampling" "--start samples with that daemon"
"$SPIN" 1.5
opcontrol --session-dir="$S" --dump || fail "--dump failed"
opreport --session-dir="$S" -l image:"$SPIN" >"$T/rep" 2>&1 || { cat "$T/rep"; fail "opreport -l failed"; }
cat "$T/rep"
n=$(report_samples "$T/rep" spin spin_hot)
[ "$n" -gt 0 ] || { cat "$T/rep"; fail "the report has no spin_hot row of spin"; }
test_ok "the report has the workload's symbol: $n samples of spin_hot in spin"
if command -v xmllint >/dev/null 2>&1; then
	opreport --session-dir="$S" -X >"$T/rep.xml" 2>/dev/null || fail "opreport -X failed"
	xmllint --noout --schema "$abs_top_srcdir/doc/opreport.xsd" "$T/rep.xml" 2>"$T/lint" ||
		{ cat "$T/lint"; fail "the whole session's opreport -X does not validate"; }
	test_ok "opreport -X of the whole session validates against doc/opreport.xsd"
fi
opcontrol --session-dir="$S" --shutdown >"$T/out" 2>&1 || { cat "$T/out"; fail "--shutdown failed"; }
wait_gone "$pid" || fail "daemon $pid still runs after --shutdown"
opcontrol --deinit >"$T/out" 2>&1 || { cat "$T/out"; fail "--deinit failed"; }
cat "$T/out"

step "settings that do not apply to perf_events are said"
opcontrol --session-dir="$S" --buffer-size=65536 --buffer-watershed=16384 \
	--cpu-buffer-size=4096 --kernel-range=ffffffff81000000,ffffffff82000000 \
	--start-daemon >"$T/out" 2>&1 || { cat "$T/out"; fail "--start-daemon with buffer sizes failed"; }
cat "$T/out"
check_grep "$T/out" "buffer-watershed .* not used" "the driver buffer sizes are said to be unused"
check_grep "$T/out" "perf ring of 64 pages" "--cpu-buffer-size sizes the perf ring"
check_grep "$T/out" "Kernel range .* recorded but not used" "--kernel-range is said to be recorded only"
opcontrol --session-dir="$S" --shutdown >/dev/null || fail "--shutdown failed"
! opcontrol --session-dir="$S" --buffer-size=0 --setup 2>"$T/err" || fail "--buffer-size=0 accepted"
check_grep "$T/err" "not a positive number" "--buffer-size=0 is refused"

step "an empty driver directory, as --deinit leaves it, is no driver"
mkdir "$T/nodriver"
OPROFILE_DRIVER_DIR=$T/nodriver opcontrol --session-dir="$S" --start-daemon >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "--start-daemon beside an empty driver directory failed"; }
check_grep "$T/out" "Using the perf_events source" "the perf_events source serves"
opcontrol --session-dir="$S" --shutdown >/dev/null || fail "--shutdown failed"

step "--image keeps only the listed binary"
opcontrol --session-dir="$S" --reset >/dev/null || fail "--reset failed"
opcontrol --session-dir="$S" --image="$SPIN" --start >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "--start with --image failed"; }
"$SPIN" 1 & sp=$!
# another binary busy at the same time: filtered out
cp "$SPIN" "$T/other"
"$T/other" 1
wait "$sp"
opcontrol --session-dir="$S" --dump || fail "--dump failed"
C=$S/samples/current
find "$C" -path "$C/{root}*" -type f >"$T/files"
check_grep "$T/files" "^$C/\{root\}$SPIN/" "the listed binary has sample files"
check_no_grep "$T/files" "other" "the unlisted binary has none"
[ "$(counter "$C" sample_dropped_image_filter)" -gt 0 ] || fail "nothing counted as filtered"
stats_balance "$C"
opcontrol --session-dir="$S" --status | grep -q "^Image filter: $SPIN$" || fail "--status does not show the filter"
opcontrol --session-dir="$S" --shutdown >/dev/null || fail "--shutdown failed"
test_done
