# sourced by tests/kernel/guest.sh (see guest-lib.sh for the conventions)
# munmap before the sync: dlswap maps libhot.so, spins in it, unmaps it and
# maps libother.so at the same address, 40 times 20 ms. With the pcs
# resolved in the interrupt (the default) every sample stays in its own
# library's loop; with irq_resolve=0 (the old driver's way: only at the
# sync, up to 100 ms later) samples are lost or land in libother.so's
# padding -- which shows the check can fail.
for resolve in 0 1; do
	rm -rf $S
	OPROFILE_MODULE_ARGS=irq_resolve=$resolve opcontrol --init >/dev/null 2>&1
	opcontrol --no-vmlinux --event=CPU_CLOCK:1000000 >/dev/null 2>&1
	opcontrol --start >/tmp/start.txt 2>&1; check munmap_start_$resolve $? "$(tr '\n' ' ' </tmp/start.txt)"
	(cd "$KTEST_TESTS_DIR" && dlswap 40 20) >/tmp/dlswap.txt 2>&1
	opcontrol --dump >/dev/null 2>&1
	opcontrol --shutdown >/dev/null 2>&1
	opreport -l > /tmp/munmap-report.txt 2>/tmp/munmap-report.err
	nomap=$(num $D/stats/sample_lost_no_mapping)
	set -- $(report_share /tmp/munmap-report.txt libhot.so hot_lib_loop) \
		$(report_share /tmp/munmap-report.txt libother.so other_loop)
	detail="libhot.so $1/$2 in hot_lib_loop, libother.so $3/$4 in other_loop, lost_no_mapping=$nomap; $(cat /tmp/dlswap.txt)"
	if [ $resolve = 1 ]; then
		check munmap_attribution "$([ "$2" -gt 300 ] && [ "$4" -gt 300 ] &&
			[ $(($1 * 100)) -ge $(($2 * 99)) ] && [ $(($3 * 100)) -ge $(($4 * 99)) ] &&
			[ "$nomap" = 0 ]; echo $?)" "$detail"
		check munmap_accounting "$([ "$(daemon_unaccounted)" = 0 ] && [ "$(num $D/stats/refs_held)" = 0 ]; echo $?)" \
			"daemon unaccounted=$(daemon_unaccounted) refs_held=$(num $D/stats/refs_held)"
	else
		info "irq_resolve=0 (the old way): $detail"
		check munmap_late_resolution_fails "$([ $(($2 - $1 + $4 - $3 + nomap)) -gt 0 ]; echo $?)" \
			"resolving only at the sync, $(($2 - $1 + $4 - $3)) samples misattributed and $nomap lost"
	fi
	opcontrol --deinit >/dev/null 2>&1
done
