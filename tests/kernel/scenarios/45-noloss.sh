# sourced by tests/kernel/guest.sh (see guest-lib.sh for the conventions)
# A 5-second run at 1 kHz per cpu with the default buffer sizes, both cpus
# busy with user and kernel work: no sample may be lost, and every sample
# the driver took is accounted for down to the sample files.
# Both modes: the hrtimer (timer=1) and the perf clock (counter mode).
for mode in timer counter; do
	args=; [ $mode = timer ] && args=timer=1
	rm -rf $S
	OPROFILE_MODULE_ARGS=$args opcontrol --init >/tmp/init.txt 2>&1; check noloss_init_$mode $? "$(tr '\n' ' ' </tmp/init.txt)"
	sizes="buffer_size=$(rd $D/buffer_size) watershed=$(rd $D/buffer_watershed) cpu_buffer_size=$(rd $D/cpu_buffer_size)"
	opcontrol --no-vmlinux --event=CPU_CLOCK:1000000 >/dev/null 2>&1
	opcontrol --start >/tmp/start.txt 2>&1; check noloss_start_$mode $? "$(tr '\n' ' ' </tmp/start.txt)"
	t0=$(now_ms)
	hot_main 5 &
	p1=$!
	(cd "$KTEST_TESTS_DIR" && hot_lib 2.5)
	dd if=/dev/zero of=/dev/null bs=64k count=200000 2>/dev/null &
	p2=$!
	wait $p1
	kill $p2 2>/dev/null; wait $p2 2>/dev/null
	t1=$(now_ms)
	opcontrol --shutdown >/dev/null 2>&1
	drecv=$(num $D/stats/sample_received); demit=$(num $D/stats/sample_emitted); dlost=$(driver_lost)
	ncpu=$(grep -c ^processor /proc/cpuinfo)
	want=$(( (t1 - t0) * ncpu * 9 / 10 ))    # 1 kHz per cpu, 10 % slack for timer jitter
	# Ticks a starved virtual cpu could not take (qemu TCG on a busy host)
	# are counted as timer_overrun (timer mode: the hrtimer's overruns;
	# counter mode: gaps between CPU_CLOCK ticks): they were never samples.
	ovr=$(num $D/stats/timer_overrun)
	check noloss_rate_$mode "$([ $((drecv + ovr)) -ge "$want" ]; echo $?)" \
		"$drecv samples + $ovr late timer periods in $((t1 - t0)) ms on $ncpu cpus (want >= $want at 1 kHz per cpu); $sizes"
	check noloss_driver_$mode "$([ "$dlost" = 0 ] && [ "$demit" = "$drecv" ]; echo $?)" \
		"driver received=$drecv emitted=$demit lost=$dlost (overflow $(num $D/stats/sample_lost_overflow), event buffer $(num $D/stats/event_lost_overflow))"
	check noloss_daemon_$mode "$([ "$(dstat sample_received)" = "$demit" ] && [ "$(daemon_lost)" = 0 ] && [ "$(daemon_unaccounted)" = 0 ] && [ "$(dstat stream_errors)" = 0 ] && [ "$(dstat sample_dropped_no_mapping)" = 0 ]; echo $?)" \
		"daemon received=$(dstat sample_received) written=$(dstat sample_written) lost=$(daemon_lost) unaccounted=$(daemon_unaccounted) stream_errors=$(dstat stream_errors) drops: $(daemon_drops)"
	opcontrol --deinit >/dev/null 2>&1
done
