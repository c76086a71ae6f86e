# sourced by tests/kernel/guest.sh (see guest-lib.sh for the conventions)
# A module loaded while profiling runs code: its samples must be reported
# under its own name, in its own function.
opcontrol --init >/dev/null 2>&1
opcontrol --no-vmlinux --event=CPU_CLOCK:1000000 >/dev/null 2>&1
opcontrol --start >/tmp/start.txt 2>&1; check module_start $? "$(tr '\n' ' ' </tmp/start.txt)"
sleep 0.3
insmod /lib/spinmod.ko; check module_insmod $? ""
echo 1500 > /sys/module/spinmod/parameters/spin_ms
opcontrol --dump >/dev/null 2>&1
rmmod spinmod
opcontrol --shutdown >/dev/null 2>&1
# after rmmod: opreport must use what the session saved
opreport -l > /tmp/module-report.txt 2>/tmp/module-report.err; check module_opreport $? "$(head -c 300 /tmp/module-report.err)"
head -8 /tmp/module-report.txt | sed 's/^/KTEST-INFO /'
cat $S/samples/current/session/kernel_images | sed 's/^/KTEST-INFO images /'
set -- $(report_share /tmp/module-report.txt spinmod spinmod_burn)
check module_samples "$([ "$2" -gt 500 ] && [ $(($1 * 100)) -ge $(($2 * 90)) ]; echo $?)" \
	"$1/$2 samples of image spinmod in spinmod_burn (1.5 s burnt; module_loads=$(num $D/stats/module_loads))"
# (a kernel pc in no known image, e.g. a module's init text, is counted as
# sample_dropped_unresolved_kernel: it must stay rare, and be counted)
check module_accounting "$([ "$(daemon_unaccounted)" = 0 ] && [ $(($(dstat sample_dropped_unresolved_kernel) * 100)) -le "$(dstat sample_received)" ]; echo $?)" \
	"daemon received=$(dstat sample_received) unresolved_kernel=$(dstat sample_dropped_unresolved_kernel) unaccounted=$(daemon_unaccounted)"
opcontrol --deinit >/dev/null 2>&1
