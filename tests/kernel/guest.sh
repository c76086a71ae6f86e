#!/bin/busybox sh
# The qemu guest's /init (see run.sh): the oprofilefs driver scenario.
# Prints "KTEST name PASS|FAIL detail" per check, then KTEST-DONE, then
# powers off.
export PATH=/usr/bin:/bin:/sbin
export OPROFILE_EVENTS_DIR=/usr/share/oprofile-ng/events
export OPROFILE_MODULE=/lib/oprofile.ko
if [ "${1:-}" != run ]; then
	# pid 1: set up, run the scenario in a child shell (so that a shell
	# error cannot kill init), then always say KTEST-DONE and power off.
	/bin/busybox --install -s /bin
	mount -t proc proc /proc
	mount -t sysfs sys /sys
	mount -t devtmpfs dev /dev
	mkdir -p /dev/pts /tmp
	echo
	echo "KTEST-BEGIN $(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo)"
	/bin/sh /init run
	rc=$?
	[ $rc = 0 ] || echo "KTEST scenario FAIL the scenario script exited with $rc"
	echo KTEST-DONE
	poweroff -f
	sleep 10
fi
. /ktest.env
S=/var/lib/oprofile
num() { v=$(cat "$1" 2>/dev/null); echo "${v:-0}"; }

ok() { echo "KTEST $1 PASS $2"; }
bad() { echo "KTEST $1 FAIL $2"; }
check() { # name condition-status detail
	if [ "$2" = 0 ]; then ok "$1" "$3"; else bad "$1" "$3"; fi
}
rd() { cat "$1" 2>/dev/null; }

# --- 1. the module loads, oprofilefs mounts, the files are there ----------
insmod /lib/oprofile.ko; check insmod $? ""
mkdir -p /dev/oprofile
mount -t oprofilefs nodev /dev/oprofile; check mount $? ""
missing=""
for f in enable dump buffer buffer_size buffer_watershed cpu_buffer_size \
	 backtrace_depth pointer_size cpu_type cookies 0/enabled 0/event 0/count \
	 0/unit_mask 0/kernel 0/user stats/sample_received stats/cpu0/sample_lost_overflow; do
	[ -e /dev/oprofile/$f ] || missing="$missing $f"
done
check files "$([ -z "$missing" ]; echo $?)" "missing:${missing:-none}"
ct=$(rd /dev/oprofile/cpu_type; echo x)
check cpu_type "$([ "$ct" = timerx ]; echo $?)" "'${ct%x}'"
check number_format "$([ "$(rd /dev/oprofile/buffer_size)" = 131072 ] && [ "$(rd /dev/oprofile/pointer_size)" = 8 ]; echo $?)" \
	"buffer_size=$(rd /dev/oprofile/buffer_size) pointer_size=$(rd /dev/oprofile/pointer_size)"
echo 5 > /dev/oprofile/0/count 2>/dev/null; e1=$?
echo abc > /dev/oprofile/buffer_size 2>/dev/null; e2=$?
echo 7 > /dev/oprofile/0/event 2>/dev/null; e3=$?
check einval "$([ $e1 != 0 ] && [ $e2 != 0 ] && [ $e3 != 0 ]; echo $?)" "count=5:$e1 size=abc:$e2 event=7:$e3"

# --- 2. raw driver: cat buffer while sampling, EBUSY, a module load -------
echo 1000000 > /dev/oprofile/0/count
echo 4096 > /dev/oprofile/buffer_size
echo 1024 > /dev/oprofile/buffer_watershed
cat /dev/oprofile/buffer > /tmp/raw.bin &
catpid=$!
sleep 0.3
echo 1 > /dev/oprofile/enable; check enable $? ""
echo 500000 > /dev/oprofile/0/count 2>/tmp/ebusy.txt; eb=$?
check ebusy "$([ $eb != 0 ] && grep -qi busy /tmp/ebusy.txt; echo $?)" "$(cat /tmp/ebusy.txt)"
hot_main 0.5
insmod /lib/dummy.ko; rmmod dummy
dd if=/dev/zero of=/dev/null bs=64k count=2000 2>/dev/null
echo 1 > /dev/oprofile/dump
echo 0 > /dev/oprofile/enable
wait $catpid; catrc=$?
bytes=$(wc -c < /tmp/raw.bin)
recv=$(num /dev/oprofile/stats/sample_received)
emit=$(num /dev/oprofile/stats/sample_emitted)
lost=0
for f in sample_lost_overflow sample_lost_no_mm sample_lost_no_mapping event_lost_overflow; do
	lost=$((lost + $(num /dev/oprofile/stats/$f)))
done
check raw_read "$([ $catrc = 0 ] && [ "$bytes" -gt 8000 ]; echo $?)" "cat rc=$catrc bytes=$bytes"
check raw_accounting "$([ "$recv" -gt 300 ] && [ $((emit + lost)) = "$recv" ]; echo $?)" \
	"received=$recv emitted=$emit lost=$lost modules=$(rd /dev/oprofile/stats/module_loads)"
# MODULE_LOADED (ESC 6): ff*8 06 00.. as 16 bytes
esc6=$(od -An -v -tx8 -w8 /tmp/raw.bin | tr -d ' ' | awk 'p && $1=="0000000000000006"{n++} {p=($1=="ffffffffffffffff")} END{print n+0}')
check module_loaded "$([ "$esc6" -ge 1 ]; echo $?)" "module_loaded records=$esc6"

# --- 2b. overflows: tiny buffers, nobody reading until the end ------------
echo 64 > /dev/oprofile/cpu_buffer_size
echo 1024 > /dev/oprofile/buffer_size
echo 100000 > /dev/oprofile/0/count
exec 3</dev/oprofile/buffer
echo 1 > /dev/oprofile/enable
hot_main 0.5
echo 0 > /dev/oprofile/enable
cat <&3 > /tmp/ovf.bin
exec 3<&-
recv=$(num /dev/oprofile/stats/sample_received)
emit=$(num /dev/oprofile/stats/sample_emitted)
ovf=$(num /dev/oprofile/stats/sample_lost_overflow)
evl=$(num /dev/oprofile/stats/event_lost_overflow)
lost=0
for f in sample_lost_overflow sample_lost_no_mm sample_lost_no_mapping event_lost_overflow; do
	lost=$((lost + $(num /dev/oprofile/stats/$f)))
done
# (how many overflow where depends on timing under TCG: ask for some loss)
check overflow_accounting "$([ $((ovf + evl)) -gt 0 ] && [ $((emit + lost)) = "$recv" ]; echo $?)" \
	"received=$recv emitted=$emit cpu_overflow=$ovf event_overflow=$evl read=$(wc -c < /tmp/ovf.bin)B"
echo 1000000 > /dev/oprofile/0/count
echo 8192 > /dev/oprofile/cpu_buffer_size
echo 131072 > /dev/oprofile/buffer_size
echo 32768 > /dev/oprofile/buffer_watershed

# --- 3. the daemon: opcontrol --init/--start, workloads, opreport ---------
umount /dev/oprofile && rmmod oprofile; check raw_unload $? ""
opcontrol --init >/tmp/init.txt 2>&1; check opcontrol_init "$([ -e /dev/oprofile/buffer ]; echo $?)" "$(tr '\n' ' ' </tmp/init.txt)"
opcontrol --no-vmlinux --event=CPU_CLOCK:1000000 >/tmp/setup.txt 2>&1
opcontrol --start >/tmp/start.txt 2>&1; check opcontrol_start $? "$(tr '\n' ' ' </tmp/start.txt)"
t0=$(cut -d' ' -f1 /proc/uptime)
hot_main 1.5
(cd "$KTEST_TESTS_DIR" && hot_lib 1.5)
dd if=/dev/zero of=/dev/null bs=64k count=8000 2>/dev/null
t1=$(cut -d' ' -f1 /proc/uptime)
opcontrol --dump >/tmp/dump.txt 2>&1; check opcontrol_dump $? "workloads took $t0..$t1 s"
opreport -l > /tmp/report.txt 2>/tmp/report.err; check opreport $? "$(head -c 300 /tmp/report.err)"
echo "KTEST-INFO report head:"; head -30 /tmp/report.txt | sed 's/^/KTEST-INFO /'
# share of each workload's samples in its hot function (opreport -l
# columns: samples % image symbol)
share() { # image symbol
	awk -v img="$1" -v sym="$2" '$3==img {tot+=$1; if ($4==sym) hot+=$1}
		END {printf "%d %d\n", hot, tot}' /tmp/report.txt
}
for w in "hot_main hot_main_loop" "libhot.so hot_lib_loop"; do
	set -- $w
	set -- $1 $2 $(share $1 $2)
	check "hot_$2" "$([ "$4" -gt 100 ] && [ $(($3 * 100)) -ge $(($4 * 90)) ]; echo $?)" "$3/$4 samples of $1 in $2"
done
dds=$(awk '$3=="vmlinux"{n+=$1} END{print n+0}' /tmp/report.txt)
check kernel_samples "$([ "$dds" -gt 100 ]; echo $?)" "vmlinux samples=$dds"
echo "KTEST-INFO ranges: $(cat /ranges.txt | tr '\n' ';')"
opcontrol --shutdown >/tmp/shutdown.txt 2>&1; check opcontrol_shutdown $? "$(tr '\n' ' ' </tmp/shutdown.txt)"
st=$S/samples/current/stats
drecv=$(num /dev/oprofile/stats/sample_received)
demit=$(num /dev/oprofile/stats/sample_emitted)
dlost=0
for f in sample_lost_overflow sample_lost_no_mm sample_lost_no_mapping event_lost_overflow; do
	dlost=$((dlost + $(num /dev/oprofile/stats/$f)))
done
orecv=$(num $st/sample_received)
check stats_accounting "$([ "$drecv" -gt 1000 ] && [ $((demit + dlost)) = "$drecv" ] && [ "$orecv" = "$demit" ]; echo $?)" \
	"driver received=$drecv emitted=$demit lost=$dlost; daemon received=$orecv written=$(rd $st/sample_written) stream_errors=$(rd $st/stream_errors)"
opcontrol --deinit >/tmp/deinit.txt 2>&1; check opcontrol_deinit "$([ $? = 0 ] && ! grep -q oprofile /proc/modules; echo $?)" "$(tr '\n' ' ' </tmp/deinit.txt)"

# --- 4. the kernel stayed clean -------------------------------------------
bugs=$(dmesg | grep -E 'BUG|WARNING|Oops' | head -3 | tr '\n' ' ')
check dmesg_clean "$([ -z "$bugs" ]; echo $?)" "$bugs"
dmesg | grep -i oprofile | sed 's/^/KTEST-INFO dmesg /'
exit 0
