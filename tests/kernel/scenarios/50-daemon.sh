# sourced by tests/kernel/guest.sh (see guest-lib.sh for the conventions)
# --- 3. the daemon: opcontrol --init/--start, workloads, opreport ---------
# in timer mode (the hrtimer); 60-counter.sh runs it in counter mode
OPROFILE_MODULE_ARGS=timer=1 opcontrol --init >/tmp/init.txt 2>&1; check opcontrol_init "$([ -e /dev/oprofile/buffer ]; echo $?)" "$(tr '\n' ' ' </tmp/init.txt)"
check daemon_timer_mode "$([ "$(driver_mode)" = timer ] && [ "$(counter_dirs)" = 1 ]; echo $?)" \
	"mode=$(driver_mode) counter dirs=$(counter_dirs) cpu_type=$(rd /dev/oprofile/cpu_type)"
opcontrol --reset >/dev/null 2>&1
opcontrol --no-vmlinux --event=CPU_CLOCK:1000000 >/tmp/setup.txt 2>&1
opcontrol --start >/tmp/start.txt 2>&1; check opcontrol_start $? "$(tr '\n' ' ' </tmp/start.txt)"
t0=$(cut -d' ' -f1 /proc/uptime)
hot_main 1.5
hot_main_static 3  # longer: static glibc start-up (cpuid, slow under TCG) is in this image
(cd "$KTEST_TESTS_DIR" && hot_lib 1.5)
dd if=/dev/zero of=/dev/null bs=64k count=8000 2>/dev/null
jit_spin 1 > /tmp/jit.txt &
jitpid=$!
wait $jitpid
t1=$(cut -d' ' -f1 /proc/uptime)
opcontrol --dump >/tmp/dump.txt 2>&1; check opcontrol_dump $? "workloads took $t0..$t1 s"
opreport -l > /tmp/report.txt 2>/tmp/report.err; check opreport $? "$(head -c 300 /tmp/report.err)"
echo "KTEST-INFO report head:"; head -30 /tmp/report.txt | sed 's/^/KTEST-INFO /'
awk '$3 == "hot_main_static"' /tmp/report.txt | head -5 | sed 's/^/KTEST-INFO static: /'
# share of each workload's samples in its hot function
for w in "hot_main hot_main_loop" "hot_main_static hot_main_loop" "libhot.so hot_lib_loop"; do
	set -- $w
	set -- $1 $2 $(report_share /tmp/report.txt $1 $2)
	check "hot_$1" "$([ "$4" -gt 100 ] && [ $(($3 * 100)) -ge $(($4 * 90)) ]; echo $?)" "$3/$4 samples of $1 in $2"
done
dds=$(awk '$3=="vmlinux"{n+=$1} END{print n+0}' /tmp/report.txt)
check kernel_samples "$([ "$dds" -gt 100 ]; echo $?)" "vmlinux samples=$dds"
# code written at run time (jit_spin): an anonymous region of its process,
# "anon (PID:jit_spin)"
jitat=$(sed -n 's/^jit_spin: code at 0x//p' /tmp/jit.txt)
set -- $(awk -v me="($jitpid:jit_spin)" '$3=="anon" && $4 == me {hot+=$1}
	$(NF-2)=="jit_spin" || $(NF-1)=="jit_spin" || $NF=="jit_spin" {tot+=$1}
	END {printf "%d %d\n", hot, tot}' /tmp/report.txt)
check jit_anon "$([ "$2" -gt 100 ] && [ $(($1 * 100)) -ge $(($2 * 90)) ]; echo $?)" \
	"$1/$2 samples of app jit_spin in its anonymous region at 0x$jitat"
# The same opreport's per-address details (-d) against the hot functions'
# ELF symbol ranges taken on the host (ranges.txt: image symbol start size):
# symbol rows are "vma samples % image symbol", detail rows "  vma samples %".
opreport -l -d > /tmp/details.txt 2>/dev/null
while read -r img sym start size; do
	awk -v img="$img" '/^[0-9a-f]/ {cur = $4; if (cur == img) tot += $2}
		/^  [0-9a-f]/ && cur == img {print $1, $2}
		END {print "total", tot + 0}' /tmp/details.txt >/tmp/addrs.txt
	lo=$((0x$start)); hi=$((0x$start + 0x$size)); in=0; tot=0
	while read -r vma n; do
		if [ "$vma" = total ]; then tot=$n; continue; fi
		v=$((0x$vma))
		[ $v -ge $lo ] && [ $v -lt $hi ] && in=$((in + n))
	done </tmp/addrs.txt
	check "elf_range_$img" "$([ "$tot" -gt 100 ] && [ $((in * 100)) -ge $((tot * 90)) ]; echo $?)" \
		"$in/$tot samples of $img at addresses in $sym [0x$start, +0x$size) by opreport -d"
done </ranges.txt
opcontrol --shutdown >/tmp/shutdown.txt 2>&1; check opcontrol_shutdown $? "$(tr '\n' ' ' </tmp/shutdown.txt)"
st=$S/samples/current/stats
drecv=$(num /dev/oprofile/stats/sample_received)
demit=$(num /dev/oprofile/stats/sample_emitted)
dlost=$(driver_lost)
orecv=$(num $st/sample_received)
check stats_accounting "$([ "$drecv" -gt 1000 ] && [ $((demit + dlost)) = "$drecv" ] && [ "$orecv" = "$demit" ]; echo $?)" \
	"driver received=$drecv emitted=$demit lost=$dlost; daemon received=$orecv written=$(rd $st/sample_written) stream_errors=$(rd $st/stream_errors)"
opcontrol --deinit >/tmp/deinit.txt 2>&1; check opcontrol_deinit "$([ $? = 0 ] && ! grep -q oprofile /proc/modules; echo $?)" "$(tr '\n' ' ' </tmp/deinit.txt)"
