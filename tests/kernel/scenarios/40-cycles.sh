# sourced by tests/kernel/guest.sh (see guest-lib.sh for the conventions)
# 50 start/stop cycles, raw and through the daemon, then an unload: no
# task/mm reference, cookie or memory may be left behind.
tasks0=$(slab_objs task_struct); mms0=$(slab_objs mm_struct)
load_driver; check cycles_load $? ""
echo 1000000 > $D/0/count
# raw: each cycle opens buffer (allocating every buffer), enables, samples
# short-lived processes, disables (read ends at EOF) and closes
fails=0; held=0; i=0
while [ $i -lt 50 ]; do
	cat $D/buffer > /dev/null &
	cpid=$!
	n=0
	until echo 1 > $D/enable 2>/dev/null; do
		n=$((n + 1)); [ $n -gt 200 ] && break; sleep 0.01
	done
	hot_main 0.02; true | cat > /dev/null
	echo 0 > $D/enable || fails=$((fails + 1))
	wait $cpid || fails=$((fails + 1))
	h=$(num $D/stats/refs_held); [ "$h" = 0 ] || held=$((held + 1))
	i=$((i + 1))
done
recv=$(num $D/stats/sample_received)
check raw_cycles "$([ $fails = 0 ] && [ $held = 0 ]; echo $?)" \
	"50 cycles: $fails failed steps, $held cycles ended with references held; last cycle $recv samples"
unload_driver; check raw_cycles_unload $? ""

# through the daemon: --start/--stop 50 times, one session
opcontrol --init >/tmp/init.txt 2>&1
opcontrol --no-vmlinux --event=CPU_CLOCK:1000000 >/dev/null 2>&1
opcontrol --start >/tmp/start.txt 2>&1; check cycles_start $? "$(tr '\n' ' ' </tmp/start.txt)"
fails=0; i=0
t0=$(now_ms)
while [ $i -lt 50 ]; do
	hot_main 0.02
	opcontrol --stop >/dev/null 2>&1 || fails=$((fails + 1))
	opcontrol --start >/dev/null 2>&1 || fails=$((fails + 1))
	i=$((i + 1))
done
t1=$(now_ms)
# stopped, the daemon must idle (it once spun on the buffer's end of file)
opcontrol --stop >/dev/null 2>&1
pid=$(pidof oprofiled)
c0=$(awk '{print $14 + $15}' /proc/$pid/stat)
sleep 1
c1=$(awk '{print $14 + $15}' /proc/$pid/stat)
check daemon_idle_when_stopped "$([ $((c1 - c0)) -le 10 ]; echo $?)" "daemon cpu ticks in 1 s stopped: $((c1 - c0))"
opcontrol --start >/dev/null 2>&1
hot_main 0.3
opcontrol --dump >/dev/null 2>&1
opreport > /tmp/cycles-report.txt 2>&1
hm=$(awk '$3=="hot_main" || $NF=="hot_main" {print $1; exit}' /tmp/cycles-report.txt)
check daemon_cycles "$([ $fails = 0 ] && [ "${hm:-0}" -gt 50 ]; echo $?)" \
	"50 --stop/--start cycles in $((t1 - t0)) ms: $fails failed; hot_main samples after them: ${hm:-0}"
opcontrol --shutdown >/dev/null 2>&1
drecv=$(num $D/stats/sample_received); demit=$(num $D/stats/sample_emitted); dlost=$(driver_lost)
check cycles_accounting "$([ $((demit + dlost)) = "$drecv" ] && [ "$(dstat sample_received)" = "$demit" ] && [ "$(daemon_unaccounted)" = 0 ]; echo $?)" \
	"driver received=$drecv emitted=$demit lost=$dlost; daemon received=$(dstat sample_received) unaccounted=$(daemon_unaccounted)"
check cycles_refs "$([ "$(num $D/stats/refs_held)" = 0 ]; echo $?)" "refs_held=$(num $D/stats/refs_held) after shutdown"
opcontrol --deinit >/tmp/deinit.txt 2>&1; check cycles_unload "$([ $? = 0 ] && ! grep -q '^oprofile ' /proc/modules; echo $?)" "$(tr '\n' ' ' </tmp/deinit.txt)"
# the processes the cycles sampled are gone: their task_structs and mms
# must be freed (a leaked reference per context would leave hundreds)
sleep 0.5
tasks1=$(slab_objs task_struct); mms1=$(slab_objs mm_struct)
check cycles_no_leak "$([ $((tasks1 - tasks0)) -lt 40 ] && [ $((mms1 - mms0)) -lt 40 ] && ! dmesg | grep -q 'oprofile: leak'; echo $?)" \
	"task_struct objects $tasks0 -> $tasks1, mm_struct $mms0 -> $mms1; $(dmesg | grep 'oprofile: leak')"
