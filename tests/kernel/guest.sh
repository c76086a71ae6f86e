#!/bin/busybox sh
# The qemu guest's /init (see run.sh): the oprofilefs driver scenario.
# Sources guest-lib.sh and runs scenarios/*.sh in name order; prints "KTEST name
# PASS|FAIL detail" per check, then KTEST-DONE, then powers off.
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
. /ktest/guest-lib.sh
for scenario in /ktest/scenarios/*.sh; do
	reset_driver
	info "scenario ${scenario##*/}"
	. "$scenario"
done
exit 0
