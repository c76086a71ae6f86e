# sourced by tests/kernel/guest.sh (see guest-lib.sh for the conventions)
# The files refuse what they cannot use: decimal
# only, the whole write or EINVAL, limits checked when written, values read
# back as used; the files that tell what was sampled are root only.
load_driver timer=1; check files_load $? ""

# w FILE VALUE: write VALUE as one write(); prints the status
w() { printf '%b' "$2" > /tmp/w.txt; dd if=/tmp/w.txt of=$D/$1 bs=256k count=1 conv=notrunc 2>/dev/null; echo $?; }

# a write longer than any number is refused, not cut short
head -c 100000 /dev/zero | tr '\000' 0 > /tmp/long.txt; echo 1 >> /tmp/long.txt
dd if=/tmp/long.txt of=$D/backtrace_depth bs=256k count=1 conv=notrunc 2>/dev/null; e=$?
check files_long_write "$([ $e != 0 ] && [ "$(rd $D/backtrace_depth)" = 0 ]; echo $?)" \
	"100,000 zeros then 1: status $e, backtrace_depth=$(rd $D/backtrace_depth)"
# decimal only: 010 is ten, 0x10 and the rest are refused
e1=$(w backtrace_depth 010); v1=$(rd $D/backtrace_depth)
e2=$(w backtrace_depth 0x10)
e3=$(w backtrace_depth "+5"); e4=$(w backtrace_depth " 5"); e5=$(w backtrace_depth "5 5")
e6=$(w backtrace_depth '\n'); e7=$(w enable 01x)
check files_decimal "$([ $e1 = 0 ] && [ "$v1" = 10 ] && [ $e2 != 0 ] && [ $e3 != 0 ] && [ $e4 != 0 ] &&
	[ $e5 != 0 ] && [ $e6 != 0 ] && [ $e7 != 0 ]; echo $?)" \
	"010: $e1 read $v1; 0x10: $e2; +5: $e3; ' 5': $e4; '5 5': $e5; newline alone: $e6; enable 01x: $e7"
echo 0 > $D/backtrace_depth
# cpu_buffer_size reads back the ring's real size
echo 65 > $D/cpu_buffer_size; c=$(rd $D/cpu_buffer_size)
check files_cpu_buffer_size "$([ "$c" = 128 ]; echo $?)" "65 written, reads $c"
echo 8192 > $D/cpu_buffer_size
# the watershed stays below the buffer size, whichever is written last
echo 1024 > $D/buffer_watershed; echo 4096 > $D/buffer_size
e1=$(w buffer_watershed 4096); e2=$(w buffer_size 1024); e3=$(w buffer_watershed 4095)
check files_watershed "$([ $e1 != 0 ] && [ $e2 != 0 ] && [ $e3 = 0 ]; echo $?)" \
	"size 4096: watershed 4096: $e1, 4095: $e3; watershed 1024: size 1024: $e2"
echo 131072 > $D/buffer_size; echo 32768 > $D/buffer_watershed
# a size that cannot be allocated is refused when written, not at open
e1=$(w buffer_size 67108864); s=$(rd $D/buffer_size)
e2=$(w cpu_buffer_size 1048576)
( : <$D/buffer ) 2>/dev/null; e3=$?
check files_sizes "$([ $e1 != 0 ] && [ $e2 != 0 ] && [ "$s" = 131072 ] && [ $e3 = 0 ]; echo $?)" \
	"buffer_size 2^26: $e1 (reads $s), cpu_buffer_size 2^20: $e2, open: $e3"
echo 131072 > $D/buffer_size; echo 8192 > $D/cpu_buffer_size
# modes: root only, except the configuration and the counts
modes=""
for f in enable dump buffer buffer_size buffer_watershed cpu_buffer_size backtrace_depth \
	 pointer_size cpu_type cookies 0/count stats/sample_received; do
	modes="$modes $f=$(stat -c %a $D/$f)"
done
check files_modes "$(echo "$modes" | grep -q ' dump=200 buffer=400 .* cookies=400 '; echo $?)" "$modes"
unload_driver; check files_unload $? ""
