# sourced by tests/kernel/guest.sh (see guest-lib.sh for the conventions)
# --- OProfile 0.9's opcontrol script, verbatim (with --session-dir), ---
# against the driver: --init, --setup, --start-daemon, --start, workload,
# --dump, opreport, --shutdown, --deinit (tests/control/t1022-compat09.sh
# runs the same on the host, with perf_events)
C9=/tmp/compat09
opcontrol -v >/tmp/c9.txt 2>&1
check compat09_version "$(grep -q '^opcontrol: oprofile [0-9.]* compiled on .* (oprofile-ng [0-9.]*)$' /tmp/c9.txt; echo $?)" "$(cat /tmp/c9.txt)"
opcontrol --init >/tmp/c9.txt 2>&1
check compat09_init "$([ -e $D/buffer ]; echo $?)" "$(tr '\n' ' ' </tmp/c9.txt)"
opcontrol --setup --no-vmlinux --event=CPU_CLOCK:1000000 --session-dir=$C9 >/tmp/c9.txt 2>&1
check compat09_setup "$([ $? = 0 ] && [ ! -e $C9/lock ]; echo $?)" "$(tr '\n' ' ' </tmp/c9.txt)"
opcontrol --start-daemon --session-dir=$C9 >/tmp/c9.txt 2>&1
check compat09_start_daemon $? "$(tr '\n' ' ' </tmp/c9.txt)"
opcontrol --status --session-dir=$C9 >/tmp/c9.txt 2>&1
check compat09_paused "$(grep -q '^Daemon paused: pid' /tmp/c9.txt && grep -q '^Source: driver' /tmp/c9.txt; echo $?)" \
	"$(tr '\n' ' ' </tmp/c9.txt)"
opcontrol --start --session-dir=$C9 >/tmp/c9.txt 2>&1
check compat09_start $? "$(tr '\n' ' ' </tmp/c9.txt)"
hot_main 1.5
opcontrol --dump --session-dir=$C9 >/tmp/c9.txt 2>&1
check compat09_dump $? "$(tr '\n' ' ' </tmp/c9.txt)"
opreport --session-dir=$C9 -l >/tmp/c9report.txt 2>/tmp/c9.txt
check compat09_opreport $? "$(head -c 300 /tmp/c9.txt)"
set -- $(report_share /tmp/c9report.txt hot_main hot_main_loop)
check compat09_symbols "$([ "$2" -gt 100 ] && [ $(($1 * 100)) -ge $(($2 * 90)) ]; echo $?)" \
	"$1/$2 samples of hot_main in hot_main_loop"
opcontrol --shutdown --session-dir=$C9 >/tmp/c9.txt 2>&1
check compat09_shutdown $? "$(tr '\n' ' ' </tmp/c9.txt)"
opcontrol --deinit >/tmp/c9.txt 2>&1
check compat09_deinit "$([ $? = 0 ] && [ ! -e $D/buffer ] && ! grep -q '^oprofile ' /proc/modules; echo $?)" \
	"$(tr '\n' ' ' </tmp/c9.txt)"
rm -rf $C9
