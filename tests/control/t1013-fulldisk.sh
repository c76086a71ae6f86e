#!/bin/sh
# A full disk: the session on a 2 MB tmpfs,
# --separate=all, a few hundred short processes (the only image sampled:
# the machine's other processes, other tests' under make -j, would fill
# the space again as soon as it returns). Every sample file passes
# the strict check (length == size field, as OProfile 1.x's odb_open
# wants), the stats balance with the unwritten samples counted in
# sample_dropped_no_space, "no space left on DEVICE" is logged once,
# --dump says it at once, and writing resumes when space returns.
. "${abs_top_srcdir:?}/tests/control/lib.sh"
SFSTRICT=$B/tests/control/sfstrict

mkdir "$T/mnt"
mount -t tmpfs -o size=2m tmpfs "$T/mnt" 2>/dev/null || skip "cannot mount a tmpfs"
UMOUNT=$T/mnt
S=$T/mnt/s
C=$S/samples/current
ctl --separate=all --image="$SPIN" --start >/dev/null || fail "--start on a 2 MB tmpfs failed"
# leave ~300 KB for the sample files; the filler gives space back later
free=$(df -k --output=avail "$T/mnt" | tail -1)
[ "$free" -gt 400 ] || skip "only $free KB free after start: kallsyms too large for 2 MB"
dd if=/dev/zero of="$T/mnt/filler" bs=1k count=$((free - 300)) 2>/dev/null
sync

step "a few hundred short processes fill the disk"
i=0
while [ $i -lt 300 ]; do "$SPIN" 0.003; i=$((i + 1)); done
t0=$(date +%s%N)
ctl --dump >"$T/out" 2>&1 && { cat "$T/out"; fail "--dump on a full disk succeeded"; }
ms=$((($(date +%s%N) - t0) / 1000000))
cat "$T/out"
check_grep "$T/out" "no space left on tmpfs \(mounted on $T/mnt\)" "--dump names the full device"
[ "$ms" -lt 5000 ] || fail "--dump took $ms ms to say the disk is full"
test_ok "--dump said it in $ms ms"
n=$(grep -c "error: no space left on tmpfs" "$S/samples/oprofiled.log")
check_eq "$n" 1 "the log says 'no space left' once"

step "space returns: writing resumes"
rm "$T/mnt/filler"
"$SPIN" 0.3
wait_for ctl --dump >/dev/null 2>&1 || fail "--dump still fails once space returned"
check_grep "$S/samples/oprofiled.log" "space available again.*writing resumes" "the log says writing resumes"
ctl --shutdown >/dev/null || fail "--shutdown failed"

step "the strict check of every file, the balance"
"$SFSTRICT" "$C" >"$T/out" 2>&1 || { cat "$T/out"; fail "sample files fail the strict check"; }
cat "$T/out"
stats_balance "$C"
nospace=$(counter "$C" sample_dropped_no_space)
[ "$nospace" -gt 0 ] || fail "no sample counted in sample_dropped_no_space"
test_ok "sample_dropped_no_space=$nospace, sample_written=$(counter "$C" sample_written)"
[ ! -e "$C/stats.new" ] || fail "stats.new left behind"
[ "$(tail -c1 "$S/samples/oprofiled.log" | od -An -c | tr -d ' ')" = '\n' ] ||
	fail "the log ends mid-line"
test_ok "no stats.new left, the log ends with a whole line"
test_done
