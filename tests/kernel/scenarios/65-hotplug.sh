# sourced by tests/kernel/guest.sh (see guest-lib.sh for the conventions)
# CPU hotplug while sampling (issue 22, item 4), in both modes: cpu1 goes
# offline and comes back; then a spinner pinned to each cpu runs 3 s. Each
# cpu's samples of its spinner must be within 3 sigma of its share of the
# work: the spinner's cpu time times the cpu's sample rate over the run
# (sigma = sqrt of that, plus 2 ticks of the clocks' granularity), and
# none of them may be labelled with the other cpu.
ONLINE=/sys/devices/system/cpu/cpu1/online

hotplug_run() { # mode-name module-args...
	m=$1; shift
	load_driver "$@"; check hotplug_load_$m $? "params: ${*:-none}"
	cat $D/buffer > /tmp/hp.bin &
	cpid=$!
	sleep 0.3
	echo 1 > $D/enable
	echo 0 > $ONLINE; off=$?
	sleep 0.5
	echo 1 > $ONLINE; on=$?
	check hotplug_cycle_$m "$([ $off = 0 ] && [ $on = 0 ] && [ "$(rd $ONLINE)" = 1 ]; echo $?)" \
		"offline: $off, online: $on"
	sleep 0.3
	a0=$(num $D/stats/cpu0/sample_received); a1=$(num $D/stats/cpu1/sample_received)
	ta=$(now_ms)
	taskset 1 hot_main 100 & p0=$!
	taskset 2 hot_main 100 & p1=$!
	sleep 3
	kill -9 $p0 $p1
	sleep 0.1
	tb=$(now_ms)
	b0=$(num $D/stats/cpu0/sample_received); b1=$(num $D/stats/cpu1/sample_received)
	c0=$(proc_ticks $p0); c1=$(proc_ticks $p1)     # zombies keep their times
	wait $p0 $p1 2>/dev/null
	echo 0 > $D/enable
	wait $cpid
	stream_samples /tmp/hp.bin > /tmp/hp.txt
	for c in 0 1; do
		eval p=\$p$c n=\$((b$c - a$c)) t=\$c$c
		own=$(awk -v c=$c -v p=$p '$1==c && $2==p {print $3}' /tmp/hp.txt)
		other=$(awk -v c=$c -v p=$p '$1!=c && $2==p {s+=$3} END {print s+0}' /tmp/hp.txt)
		# expected: cpu time (ticks of 10 ms) x the cpu's samples per ms
		res=$(awk -v own=${own:-0} -v n=$n -v t=$t -v w=$((tb - ta)) 'BEGIN {
			rate = n / w; e = t * 10 * rate; s = sqrt(e) + 20 * rate
			d = own - e; if (d < 0) d = -d
			printf "%d %.0f %.1f %.1f", d <= 3 * s, e, s, (s > 0 ? d / s : 0) }')
		set -- $res
		check hotplug_share_${m}_cpu$c "$([ "$1" = 1 ] && [ "$other" -le $((${own:-0} / 100)) ]; echo $?)" \
			"spinner on cpu$c: $own samples there (expected $2, sigma $3: ${4} sigma off), $other on the other cpu; cpu time ${t}0 ms, cpu samples $n in $((tb - ta)) ms"
	done
	lost=$(driver_lost); recv=$(num $D/stats/sample_received); emit=$(num $D/stats/sample_emitted)
	check hotplug_accounting_$m "$([ $((emit + lost)) = "$recv" ]; echo $?)" \
		"received=$recv emitted=$emit lost=$lost"
	unload_driver; check hotplug_unload_$m $? ""
}

if [ -e $ONLINE ]; then
	hotplug_run timer timer=1
	sw_args=""
	has_pmu && sw_args=hw_counters=0
	hotplug_run counter $sw_args
else
	info "hotplug: no $ONLINE (one cpu?): skipped"
fi
