# Shell helpers for the guest scenarios (sourced by guest.sh). The guest
# runs busybox and reports over the serial line, so this is its own
# library, not tests/lib/test-lib.sh (run.sh turns the KTEST lines into TAP).
#
# Conventions: guest.sh sources scenarios/*.sh in name order, in one shell.
# Each scenario starts with the oprofile module unloaded and /dev/oprofile
# unmounted, and leaves it that way (guest.sh enforces it between
# scenarios). A scenario prints one "KTEST name PASS|FAIL detail" line per
# check (check/ok/bad) and "KTEST-INFO ..." lines for the log.
S=/var/lib/oprofile
D=/dev/oprofile
num() { v=$(cat "$1" 2>/dev/null); echo "${v:-0}"; }
rd() { cat "$1" 2>/dev/null; }

ok() { echo "KTEST $1 PASS $2"; }
bad() { echo "KTEST $1 FAIL $2"; }
check() { # name condition-status detail
	if [ "$2" = 0 ]; then ok "$1" "$3"; else bad "$1" "$3"; fi
}
info() { echo "KTEST-INFO $*"; }

# insmod the driver with module parameters "$@", mount oprofilefs.
load_driver() {
	insmod /lib/oprofile.ko "$@" && mkdir -p $D && mount -t oprofilefs nodev $D
}

# The loaded driver's mode: "timer" (hrtimer, module parameter timer=1)
# or "counter" (kernel perf counters, the default); and its N/ dirs.
driver_mode() {
	if [ "$(cat /sys/module/oprofile/parameters/timer 2>/dev/null)" = Y ]; then
		echo timer
	else
		echo counter
	fi
}
counter_dirs() {
	n=0
	while [ -d $D/$n ]; do n=$((n + 1)); done
	echo $n
}

# Does the guest cpu have an Intel architectural PMU (KVM with a vPMU)?
# Under TCG it has none: counter mode then offers the software clocks.
has_pmu() { grep -qw arch_perfmon /proc/cpuinfo; }

# "hot total": samples of image in symbol, and of image, in an
# "opreport -l" output file (columns: samples % image symbol).
report_share() { # file image symbol
	# (the symbol is the last column: an "app name" column may come first)
	awk -v img="$2" -v sym="$3" '$3==img {tot+=$1; if ($NF==sym) hot+=$1}
		END {printf "%d %d\n", hot, tot}' "$1"
}

# Unmount and unload; status 0 when the module is gone.
unload_driver() {
	umount $D 2>/dev/null
	rmmod oprofile 2>/dev/null
	! grep -q '^oprofile ' /proc/modules
}

# Between scenarios: whatever a failed scenario left behind goes away.
reset_driver() {
	pidof oprofiled >/dev/null && opcontrol --shutdown >/dev/null 2>&1
	rm -rf $S	# each scenario has a session of its own
	grep -q '^oprofile ' /proc/modules || return 0
	unload_driver || bad scenario_cleanup "the oprofile module would not unload"
}

# The driver's lost samples, all categories (as the daemon counts them).
driver_lost() {
	l=0
	for f in sample_lost_overflow sample_lost_no_mm sample_lost_no_mapping event_lost_overflow; do
		l=$((l + $(num $D/stats/$f)))
	done
	echo $l
}

# The daemon's stats file NAME of the current session.
dstat() { num $S/samples/current/stats/$1; }

# The daemon's counters of samples received but not written (doc/formats.md
# section 5).
DAEMON_DROPS="sample_saturated sample_dropped_no_app sample_dropped_bad_event
	sample_dropped_unresolved_kernel sample_dropped_unknown_cookie
	sample_dropped_no_mapping sample_dropped_sfile_error"

# Daemon samples received but neither written nor counted as dropped: must be 0.
daemon_unaccounted() {
	u=$(($(dstat sample_received) - $(dstat sample_written)))
	for f in $DAEMON_DROPS; do
		u=$((u - $(dstat $f)))
	done
	echo $u
}

# The daemon's nonzero drop counters, "name=count ..." (for the log).
daemon_drops() {
	for f in $DAEMON_DROPS; do
		v=$(dstat $f); [ "$v" = 0 ] || printf '%s=%s ' $f $v
	done
	echo
}

# Samples the daemon was told were lost before the stream, all categories.
daemon_lost() {
	l=0
	for f in sample_lost_overflow sample_lost_no_mm sample_lost_no_mapping \
		 event_lost_overflow sample_invalid_eip sample_lost_throttled; do
		l=$((l + $(dstat $f)))
	done
	echo $l
}

# Active objects of a slab cache (0 if the kernel does not show it).
slab_objs() { awk -v c="$1" '$1==c {print $2; f=1} END {if (!f) print 0}' /proc/slabinfo; }

# uptime in ms
now_ms() { awk '{printf "%d\n", $1 * 1000}' /proc/uptime; }

# cpu ticks (utime + stime, USER_HZ: 100 a second) a process used so far,
# and its state letter ("gone" once reaped).
proc_ticks() { awk '{print $14 + $15}' /proc/$1/stat 2>/dev/null || echo 0; }
proc_state() { s=$(awk '{print $3}' /proc/$1/stat 2>/dev/null); echo "${s:-gone}"; }

# Samples per (cpu, tid) in a raw event stream file (libop/op_stream.h's
# words, 8 bytes each): "cpu tid count" lines; with SKIP, only those after
# the stream's first SKIP words (which still set the decoder's state).
stream_samples() { # file [skip]
	od -An -v -td8 -w8 "$1" | awk -v skip=${2:-0} '{ a[NR] = $1 } END {
		i = 1; cpu = -1; tid = -1
		while (i <= NR) {
			if (a[i] != -1) { if (i > skip) n[cpu " " tid]++; i += 2; continue }
			c = a[i + 1]; i += 2
			if (c == 1) { tid = a[i]; i += 2 }      # CTX_SWITCH tid app
			else if (c == 2) { cpu = a[i]; i++ }    # CPU_SWITCH cpu
			else if (c == 3 || c == 7) i++          # COOKIE_SWITCH, CTX_TGID
			else if (c == 32) i += 2 + int((a[i + 1] + 7) / 8)  # COOKIE_DEF
			else if (c == 33) i += 5 + int((a[i + 4] + 7) / 8)  # ANON_DEF
			else if (c == 34 || c == 36) i += 2     # LOST, COUNT
			else if (c == 35) i += 3 + int((a[i + 2] + 7) / 8)  # KERNEL_IMAGE
		}
		for (k in n) print k, n[k]
	}'
}
