# sourced by tests/kernel/guest.sh (see guest-lib.sh for the conventions)
# opwatch --probe kernel:vfs_read through the kprobe PMU (Debian's kernel
# has one; the host's VM kernel does not): busybox dd reading a file in
# N blocks (one read(2), so one vfs_read, per block) is timed. opwatch
# follows only its command, so the guest's other reads are not counted:
# calls == N (+2 at most: the command's own start), times plausible.
N=200
if [ ! -e /sys/bus/event_source/devices/kprobe/type ]; then
	bad opwatch_kprobe_pmu "no kprobe PMU in the guest kernel $(uname -r)"
elif ! command -v opwatch >/dev/null; then
	bad opwatch_packed "opwatch is not in the initramfs"
else
	dd if=/dev/zero of=/tmp/kp.data bs=512 count=$((N + 10)) 2>/dev/null
	opwatch -P kernel:vfs_read -f csv -o /tmp/kp.csv \
		dd if=/tmp/kp.data of=/dev/null bs=512 count=$N >/tmp/kp.out 2>&1
	rc=$?
	check opwatch_kprobe_runs "$rc" "opwatch rc $rc $(tr '\n' ' ' </tmp/kp.out | head -c 300)"
	info "opwatch: $(tr '\n' ' ' </tmp/kp.csv)"
	row=$(grep '^kernel:vfs_read,' /tmp/kp.csv)
	calls=$(echo "$row" | cut -d, -f3)
	min=$(echo "$row" | cut -d, -f4)
	mean=$(echo "$row" | cut -d, -f5)
	max=$(echo "$row" | cut -d, -f6)
	check opwatch_kprobe_calls "$([ "${calls:-0}" -ge $N ] && [ "${calls:-0}" -le $((N + 2)) ]; echo $?)" \
		"vfs_read calls of dd: ${calls:-none} (dd read $N blocks)"
	# reading 512 cached bytes: above 0, a mean below 2 ms even under TCG
	check opwatch_kprobe_times "$([ "${min:-0}" -gt 0 ] && [ "${mean%.*}" -lt 2000000 ] && [ "${max:-0}" -lt 100000000 ]; echo $?)" \
		"vfs_read min ${min:-?} mean ${mean:-?} max ${max:-?} ns"
fi
