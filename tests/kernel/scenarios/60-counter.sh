# sourced by tests/kernel/guest.sh (see guest-lib.sh for the conventions)
# Counter mode (the default; perf_int.c): kernel perf counters. Without a
# PMU (TCG) cpu_type is "timer" with four software clock counters, event 0
# CPU_CLOCK and event 1 TASK_CLOCK; with one (KVM + vPMU) the software
# clocks are asked for with hw_counters=0.
sw_args=""
has_pmu && sw_args=hw_counters=0

# --- 5. counter mode, the driver alone -------------------------------------
load_driver $sw_args; check counter_load $? "params: ${sw_args:-none}"
ct=$(rd $D/cpu_type; echo x)
check counter_mode "$([ "$(driver_mode)" = counter ] && [ "${ct%x}" = timer ] && [ "$(counter_dirs)" = 4 ]; echo $?)" \
	"mode=$(driver_mode) cpu_type='${ct%x}' counter dirs=$(counter_dirs)"
check counter_defaults "$([ "$(rd $D/0/enabled)$(rd $D/1/enabled)$(rd $D/3/enabled)" = 100 ] &&
	[ "$(rd $D/3/count)" = 1000000 ] && [ "$(rd $D/3/user)" = 1 ]; echo $?)" \
	"enabled 0..3: $(rd $D/0/enabled)$(rd $D/1/enabled)$(rd $D/2/enabled)$(rd $D/3/enabled)"
echo 7 > $D/0/event 2>/dev/null; e1=$?
echo 2 > $D/3/event 2>/dev/null; e2=$?
echo 9999 > $D/1/count 2>/dev/null; e3=$?
echo 1 > $D/2/unit_mask 2>/dev/null; e4=$?
echo 1 > $D/3/event; g1=$?
echo 10000 > $D/3/count; g2=$?
check counter_einval "$([ $e1 != 0 ] && [ $e2 != 0 ] && [ $e3 != 0 ] && [ $e4 != 0 ] &&
	[ $g1 = 0 ] && [ $g2 = 0 ]; echo $?)" \
	"event=7:$e1 event=2:$e2 count=9999:$e3 unit_mask=1:$e4; event=1:$g1 count=10000:$g2"
echo 0 > $D/3/enabled; echo 1000000 > $D/3/count; echo 0 > $D/3/event

# two clocks at once, read raw; EBUSY while sampling
echo 1 > $D/1/event; echo 500000 > $D/1/count; echo 1 > $D/1/enabled
cat $D/buffer > /tmp/craw.bin &
catpid=$!
sleep 0.3
echo 1 > $D/enable; check counter_enable $? ""
echo 0 > $D/2/enabled 2>/tmp/ebusy.txt; eb=$?
check counter_ebusy "$([ $eb != 0 ] && grep -qi busy /tmp/ebusy.txt; echo $?)" "$(cat /tmp/ebusy.txt)"
hot_main 0.5
echo 0 > $D/enable
wait $catpid
recv=$(num $D/stats/sample_received)
emit=$(num $D/stats/sample_emitted)
lost=$(driver_lost)
c0=$(num $D/stats/cpu0/sample_received)
c1=$(num $D/stats/cpu1/sample_received)
check counter_raw "$([ "$recv" -gt 300 ] && [ $((emit + lost)) = "$recv" ] && [ "$c0" -gt 0 ] &&
	[ "$c1" -gt 0 ]; echo $?)" \
	"received=$recv (cpu0 $c0, cpu1 $c1) emitted=$emit lost=$lost bytes=$(wc -c < /tmp/craw.bin)"
unload_driver; check counter_unload $? ""

# --- 6. hardware counters where there are none: enable fails, cleanly ------
if has_pmu; then
	info "counter_no_pmu skipped: this guest has a PMU"
else
	load_driver hw_counters=2; check hw_load $? ""
	ct=$(rd $D/cpu_type; echo x)
	# (numbers are decimal: 0xc0, 0x41, 0x100)
	echo 192 > $D/1/event; g1=$?
	echo 65 > $D/1/unit_mask; g2=$?
	echo 100 > $D/1/count 2>/dev/null; e1=$?
	echo 256 > $D/1/event 2>/dev/null; e2=$?
	check hw_files "$([ "${ct%x}" = i386/arch_perfmon ] && [ "$(counter_dirs)" = 2 ] &&
		[ $g1 = 0 ] && [ $g2 = 0 ] && [ $e1 != 0 ] && [ $e2 != 0 ]; echo $?)" \
		"cpu_type='${ct%x}' dirs=$(counter_dirs) event=192:$g1 unit_mask=65:$g2 count=100:$e1 event=256:$e2"
	echo 1 > $D/1/enabled
	exec 3<$D/buffer
	echo 1 > $D/enable 2>/tmp/enoent.txt; r1=$?
	echo 1 > $D/enable 2>/tmp/enoent2.txt; r2=$?
	sleep 0.2
	check hw_enable_fails "$([ $r1 != 0 ] && grep -q 'No such file' /tmp/enoent.txt && [ $r2 != 0 ] &&
		[ "$(rd $D/enable)" = 0 ] && [ "$(num $D/stats/sample_received)" = 0 ]; echo $?)" \
		"rc=$r1 '$(cat /tmp/enoent.txt)', again rc=$r2; enable=$(rd $D/enable) received=$(num $D/stats/sample_received)"
	# still usable: counters may change, buffer closes
	echo 0 > $D/1/enabled; g3=$?
	exec 3<&-
	unload_driver; check hw_unload "$([ $g3 = 0 ]; echo $?)" ""
fi

# --- 7. the daemon in counter mode, two events at once ----------------------
OPROFILE_MODULE_ARGS=$sw_args opcontrol --init >/tmp/init.txt 2>&1
check counter_opcontrol_init "$([ -e $D/buffer ] && [ "$(driver_mode)" = counter ] && [ "$(counter_dirs)" = 4 ]; echo $?)" \
	"mode=$(driver_mode) dirs=$(counter_dirs): $(tr '\n' ' ' </tmp/init.txt)"
opcontrol --reset >/dev/null 2>&1
opcontrol --no-vmlinux --event=CPU_CLOCK:1000000 --event=TASK_CLOCK:500000 >/tmp/setup.txt 2>&1
opcontrol --start >/tmp/start.txt 2>&1
check counter_opcontrol_start "$([ $? = 0 ] && [ "$(rd $D/0/event)$(rd $D/1/event)$(rd $D/1/count)" = 01500000 ] &&
	[ "$(rd $D/1/enabled)$(rd $D/2/enabled)" = 10 ]; echo $?)" \
	"0/event=$(rd $D/0/event) 1/event=$(rd $D/1/event) 1/count=$(rd $D/1/count) $(tr '\n' ' ' </tmp/start.txt)"
hot_main 1.5
(cd "$KTEST_TESTS_DIR" && hot_lib 1.5)
sleep 0.5       # idle: CPU_CLOCK samples it, TASK_CLOCK does not
opcontrol --dump >/tmp/dump.txt 2>&1; check counter_opcontrol_dump $? ""
for ev in CPU_CLOCK TASK_CLOCK; do
	opreport -l event:$ev > /tmp/report-$ev.txt 2>/tmp/report.err
	check "counter_opreport_$ev" $? "$(head -c 300 /tmp/report.err)"
	echo "KTEST-INFO $ev report head:"; head -12 /tmp/report-$ev.txt | sed 's/^/KTEST-INFO /'
	for w in "hot_main hot_main_loop" "libhot.so hot_lib_loop"; do
		set -- $w
		set -- $1 $2 $(report_share /tmp/report-$ev.txt $1 $2)
		check "counter_${ev}_$2" "$([ "$4" -gt 100 ] && [ $(($3 * 100)) -ge $(($4 * 90)) ]; echo $?)" \
			"$3/$4 samples of $1 in $2"
	done
done
# TASK_CLOCK (every 0.5 ms of task time) leaves out the idle task
idle_c=$(awk '$NF=="native_safe_halt" || $NF=="default_idle" {n+=$1} END{print n+0}' /tmp/report-CPU_CLOCK.txt)
idle_t=$(awk '$NF=="native_safe_halt" || $NF=="default_idle" {n+=$1} END{print n+0}' /tmp/report-TASK_CLOCK.txt)
check counter_task_clock_idle "$([ "$idle_c" -gt 100 ] && [ "$idle_t" = 0 ]; echo $?)" \
	"idle samples: CPU_CLOCK $idle_c, TASK_CLOCK $idle_t"
opcontrol --shutdown >/tmp/shutdown.txt 2>&1; check counter_opcontrol_shutdown $? "$(tr '\n' ' ' </tmp/shutdown.txt)"
st=$S/samples/current/stats
drecv=$(num $D/stats/sample_received)
demit=$(num $D/stats/sample_emitted)
dlost=$(driver_lost)
orecv=$(num $st/sample_received)
check counter_stats_accounting "$([ "$drecv" -gt 1000 ] && [ $((demit + dlost)) = "$drecv" ] && [ "$orecv" = "$demit" ]; echo $?)" \
	"driver received=$drecv emitted=$demit lost=$dlost; daemon received=$orecv written=$(rd $st/sample_written) stream_errors=$(rd $st/stream_errors)"
opcontrol --deinit >/tmp/deinit.txt 2>&1
check counter_opcontrol_deinit "$([ $? = 0 ] && ! grep -q oprofile /proc/modules; echo $?)" "$(tr '\n' ' ' </tmp/deinit.txt)"
