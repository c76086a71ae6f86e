# sourced by tests/kernel/guest.sh (see guest-lib.sh for the conventions)
# A blocking reader of buffer sleeps until there is something to take and
# any signal ends its wait: the three ways that once made it spin in the
# kernel at 100% of a cpu, deaf to kill -9. Each reader
# must use < 5% of a cpu over 2 s (10 of 200 ticks) and be gone 1 s after
# kill -9.

# reader_check NAME PID: measure, kill -9, reap.
reader_check() {
	t0=$(proc_ticks $2); sleep 2; t1=$(proc_ticks $2)
	kill -9 $2 2>/dev/null
	sleep 1
	st=$(proc_state $2)
	check read_sleeps_$1 "$([ $((t1 - t0)) -lt 10 ]; echo $?)" \
		"reader's cpu ticks in 2 s: $((t1 - t0)) of 200"
	check read_killable_$1 "$([ "$st" = Z ] || [ "$st" = gone ]; echo $?)" \
		"reader's state 1 s after kill -9: $st"
	# a reader that ignored the kill ends when sampling stops
	if [ "$st" != Z ] && [ "$st" != gone ]; then
		{ echo 1 > $D/enable; echo 0 > $D/enable; } 2>/dev/null
	fi
	wait $2 2>/dev/null
}

# 1. a dump before the first enable: nothing to flush
load_driver timer=1; check read_load $? ""
cat $D/buffer >/dev/null &
pid=$!
sleep 0.3
echo 1 > $D/dump
reader_check dump_before_enable $pid

# 2. a watershed as large as the buffer: the driver refuses it now; the
# largest one it takes must not make an empty buffer "ready" either
echo 1024 > $D/buffer_watershed 2>/dev/null
echo 1024 > $D/buffer_size 2>/dev/null
info "buffer_size=$(rd $D/buffer_size) buffer_watershed=$(rd $D/buffer_watershed)"
if [ "$(rd $D/buffer_size)" != 1024 ]; then
	echo 1023 > $D/buffer_watershed; echo 1024 > $D/buffer_size
fi
cat $D/buffer >/dev/null &
pid=$!
sleep 0.3
reader_check full_watershed $pid
echo 32768 > $D/buffer_watershed 2>/dev/null
echo 131072 > $D/buffer_size; echo 32768 > $D/buffer_watershed
unload_driver; check read_unload1 $? ""

# 3. counter mode, an event that samples nothing; enable, dump
sw_args=""
has_pmu && sw_args=hw_counters=0
load_driver $sw_args
echo 1 > $D/0/event; echo 0 > $D/0/kernel; echo 1000000000 > $D/0/count
cat $D/buffer >/dev/null &
pid=$!
sleep 0.3
echo 1 > $D/enable
echo 1 > $D/dump
reader_check counter_no_samples $pid
echo 0 > $D/enable
unload_driver; check read_unload2 $? ""
