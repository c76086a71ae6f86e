# sourced by tests/kernel/guest.sh (see guest-lib.sh for the conventions)
# No user copy under a lock the writers need: a reader
# whose destination page stays in a page fault for 10 s (uffd_read, a
# userfaultfd page it serves only then) must not stop the periodic sync,
# and "echo 0 > enable" must return at once.
load_driver timer=1; check uffd_load $? ""
uffd_read $D/buffer 10 >/tmp/uffd.txt 2>&1 &
upid=$!
sleep 0.5
echo 1 > $D/enable
hot_main 0.3
echo 1 > $D/dump        # words for the reader: its copy now faults
sleep 1
info "reader: $(proc_state $upid), $(tr '\n' ' ' </tmp/uffd.txt)"
s0=$(num $D/stats/syncs); sleep 1; s1=$(num $D/stats/syncs)
check uffd_sync_runs "$([ $((s1 - s0)) -ge 5 ]; echo $?)" \
	"syncs in 1 s while the reader is stalled in a fault: $((s1 - s0))"
t0=$(now_ms)
timeout 3 sh -c "echo 0 > $D/enable"; rc=$?
t1=$(now_ms)
check uffd_disable_at_once "$([ $rc = 0 ] && [ $((t1 - t0)) -lt 1000 ]; echo $?)" \
	"echo 0 > enable: status $rc after $((t1 - t0)) ms"
wait $upid; urc=$?
check uffd_reader_done "$([ $urc = 0 ]; echo $?)" "$(tr '\n' ' ' </tmp/uffd.txt)"
unload_driver; check uffd_unload $? ""
