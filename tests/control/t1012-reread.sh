#!/bin/sh
# Side-band records lost to a ring overflow, recovered through the daemon
# by re-reading /proc/PID/maps (doc/perf_source.md). oprofiled runs with
# 2-page rings and is stopped (SIGSTOP) while mapstorm, pinned to one cpu,
# maps its binary 3000 times (filling that cpu's ring), dlopens a copy of
# libhot.so (its MMAP2 is lost) and forks (the FORK is lost). After
# SIGCONT the library's samples, the parent's and the unknown child's,
# still land in libhot.so's sample file, >= 90 % in hot_lib_loop; stats/
# show the overflow and the re-reads, and balance.
# The loss counters are system-wide: other tests' short processes add to
# them, so CI runs this test alone after the parallel make check.
. "${abs_top_srcdir:?}/tests/control/lib.sh"
[ "${SKIP_QUIET_TESTS:-0}" = 1 ] &&
	skip "needs a quiet machine (system-wide loss counters): run alone"

W=$B/tests/workloads
cp "$W/mapstorm" "$W/libhot.so" "$T/" || fail "cannot copy the workloads"
C=$S/samples/current

step "oprofiled --buffer-pages=2, stopped while mapstorm maps, dlopens and forks"
"$OPROFILED" --session-dir="$S" --separate=none --buffer-pages=2 \
	--events=CPU_CLOCK:1000000 --sync-interval=1 ||
	fail "oprofiled failed to start"
pid=$(cat "$S/lock")
kill -STOP "$pid"
"$T/mapstorm" 3000 "$T/libhot.so" 0.6 & w=$!
sleep 0.3
kill -CONT "$pid"
wait $w || fail "mapstorm failed"
ctl --dump || fail "--dump failed"

lib_file="$C/{root}$T/libhot.so/{dep}/{root}$T/libhot.so/CPU_CLOCK.1000000.0.all.all.all"
in_range "$lib_file" "$T/libhot.so" hot_lib_loop 90
n=$("$SFRANGE" "$lib_file" "$T/libhot.so" hot_lib_loop | cut -d' ' -f2)
overflow=$(counter "$C" sample_lost_overflow)
no_mapping=$(counter "$C" sample_lost_no_mapping)
no_mm=$(counter "$C" sample_lost_no_mm)
reread=$(counter "$C" maps_reread)
hit=$(counter "$C" maps_reread_hit)
echo "lost: overflow $overflow, no_mapping $no_mapping, no_mm $no_mm;" \
	"maps re-read $reread (hit $hit); $n samples in libhot.so"
[ "$overflow" -gt 0 ] || fail "no records were lost: the test proves nothing"
[ "$reread" -ge 2 ] && [ "$hit" -ge 2 ] ||
	fail "want >= 2 maps re-reads (parent and child) that resolved, got $reread ($hit)"
[ $(((no_mapping + no_mm) * 10)) -le "$n" ] ||
	fail "$((no_mapping + no_mm)) samples lost for want of a mapping, against $n recovered"
"$SFCHECK" "$C" || fail "sample files fail the structural check"
stats_balance "$C"
ctl --shutdown || fail "--shutdown failed"
test_done
