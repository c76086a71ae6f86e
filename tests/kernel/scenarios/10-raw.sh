# sourced by tests/kernel/guest.sh (see guest-lib.sh for the conventions)
# The driver alone, in timer mode (timer=1, the hrtimer): files,
# EINVAL/EBUSY, a streaming read, overflows. 60-counter.sh: counter mode.
# --- 1. the module loads, oprofilefs mounts, the files are there ----------
load_driver timer=1; check load_mount $? ""
check timer_mode "$([ "$(driver_mode)" = timer ] && [ "$(counter_dirs)" = 1 ]; echo $?)" \
	"mode=$(driver_mode) counter dirs=$(counter_dirs)"
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
echo 1 > /dev/oprofile/0/event 2>/dev/null; e4=$?  # TASK_CLOCK: counter mode only
check einval "$([ $e1 != 0 ] && [ $e2 != 0 ] && [ $e3 != 0 ] && [ $e4 != 0 ]; echo $?)" \
	"count=5:$e1 size=abc:$e2 event=7:$e3 event=1:$e4"

# --- 2. raw driver: cat buffer while sampling, EBUSY, a module load -------
echo 1000000 > /dev/oprofile/0/count
# (the watershed must stay below the size: lower it first)
echo 1024 > /dev/oprofile/buffer_watershed
echo 4096 > /dev/oprofile/buffer_size
cat /dev/oprofile/buffer > /tmp/raw.bin &
catpid=$!
sleep 0.3
echo 1 > /dev/oprofile/enable; check enable $? ""
echo 500000 > /dev/oprofile/0/count 2>/tmp/ebusy.txt; eb=$?
check ebusy "$([ $eb != 0 ] && grep -qi busy /tmp/ebusy.txt; echo $?)" "$(cat /tmp/ebusy.txt)"
hot_main 0.5
insmod /lib/spinmod.ko; rmmod spinmod
dd if=/dev/zero of=/dev/null bs=64k count=2000 2>/dev/null
echo 1 > /dev/oprofile/dump
echo 0 > /dev/oprofile/enable
wait $catpid; catrc=$?
bytes=$(wc -c < /tmp/raw.bin)
recv=$(num /dev/oprofile/stats/sample_received)
emit=$(num /dev/oprofile/stats/sample_emitted)
lost=$(driver_lost)
check raw_read "$([ $catrc = 0 ] && [ "$bytes" -gt 8000 ]; echo $?)" "cat rc=$catrc bytes=$bytes"
check raw_accounting "$([ "$recv" -gt 300 ] && [ $((emit + lost)) = "$recv" ]; echo $?)" \
	"received=$recv emitted=$emit lost=$lost modules=$(rd /dev/oprofile/stats/module_loads)"
# MODULE_LOADED (ESC 6): ff*8 06 00.. as 16 bytes
esc6=$(od -An -v -tx8 -w8 /tmp/raw.bin | tr -d ' ' | awk 'p && $1=="0000000000000006"{n++} {p=($1=="ffffffffffffffff")} END{print n+0}')
check module_loaded "$([ "$esc6" -ge 1 ]; echo $?)" "module_loaded records=$esc6"

# --- 2b. overflows: tiny buffers, nobody reading until the end ------------
echo 64 > /dev/oprofile/cpu_buffer_size
echo 512 > /dev/oprofile/buffer_watershed
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
lost=$(driver_lost)
# (how many overflow where depends on timing under TCG: ask for some loss)
check overflow_accounting "$([ $((ovf + evl)) -gt 0 ] && [ $((emit + lost)) = "$recv" ]; echo $?)" \
	"received=$recv emitted=$emit cpu_overflow=$ovf event_overflow=$evl read=$(wc -c < /tmp/ovf.bin)B"
echo 1000000 > /dev/oprofile/0/count
echo 8192 > /dev/oprofile/cpu_buffer_size
echo 131072 > /dev/oprofile/buffer_size
echo 32768 > /dev/oprofile/buffer_watershed
unload_driver; check raw_unload $? ""
