#!/bin/sh
# The daemon's log on a full disk holds whole lines only: a line is
# written whole or cut back off (and sent to syslog, t1029), never left
# torn. The session on a 2 MB tmpfs, the disk filled, the log padded so
# its last page has ROOM bytes left; then --verbose's exit lines (the
# statistics, the sources' counters, all through the log's one writer)
# meet the full disk. ROOM 30 held a bare "name value" statistics line
# whole and the next one in part; ROOM 5 any line in part; ROOM 300 a few
# whole lines, then one in part.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

mkdir "$T/mnt"
mount -t tmpfs -o size=2m tmpfs "$T/mnt" 2>/dev/null || skip "cannot mount a tmpfs"
UMOUNT=$T/mnt

for room in 30 5 300; do
	step "room for $room bytes in the log's last page"
	S=$T/mnt/s$room
	L=$S/samples/oprofiled.log
	"$OPROFILED" --session-dir="$S" --events=CPU_CLOCK:1000000 --verbose ||
		fail "oprofiled did not start"
	pid=$(cat "$S/lock")
	grep -q "daemon started" "$L" || fail "no start line in the log"
	rm -f "$T/mnt/filler"
	dd if=/dev/zero of="$T/mnt/filler" bs=4k 2>/dev/null
	# the pad a line of its own; a daemon line meanwhile: pad again
	for _ in 1 2 3; do
		pad=$(( (4096 - $(stat -c %s "$L") % 4096 - room) % 4096 ))
		[ $pad -lt 0 ] && pad=$((pad + 4096))
		[ $pad -eq 0 ] && break
		{ head -c $((pad - 1)) /dev/zero | tr '\0' '#'; echo; } >>"$L" 2>/dev/null
	done
	[ $(( $(stat -c %s "$L") % 4096 )) -eq $((4096 - room)) ] ||
		fail "cannot leave $room bytes in the log's last page"
	padded=$(stat -c %s "$L")
	kill -TERM "$pid"
	for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$pid" 2>/dev/null && fail "the daemon did not exit"
	test_note "log: $padded bytes padded, $(stat -c %s "$L") at exit"
	[ "$(tail -c 1 "$L" | od -An -c | tr -d ' ')" = '\n' ] || {
		tail -c 200 "$L" | od -c | tail -5 | sed 's/^/# /'
		fail "room $room: the log ends mid-line"
	}
	test_ok "room $room: the log ends with a whole line"
	tail -c +$((padded + 1)) "$L" >"$T/after"
	n=$(grep -cv '^oprofiled: ' "$T/after")
	check_eq "$n" 0 "room $room: what follows the pad is whole lines of the daemon"
	if [ "$room" -eq 300 ]; then
		n=$(grep -c '^oprofiled: ' "$T/after")
		[ "$n" -gt 0 ] || fail "room 300: no line was written"
		test_ok "room 300: the $n lines that fit were written"
	fi
	rm -rf "$S"
done
test_done
