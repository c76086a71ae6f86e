#!/usr/bin/env bash
# End-to-end test of the oprofilefs driver in a qemu guest running Debian's
# 6.1 kernel: builds driver/ against that kernel's headers, packs busybox,
# the module, our tools and the workloads into an initramfs, boots it and
# runs tests/kernel/guest.sh as the guest's /init, which prints
# "KTEST name PASS|FAIL detail" lines and "KTEST-DONE" on the serial line.
#
# Exit 0: every KTEST passed. 1: a check failed, or the guest never said
# KTEST-DONE (panic, WARN with panic_on_warn, hang). 77: skipped, with the
# Debian package to install (nothing is ever reported as passed here unless
# the guest ran the checks).
#
# Environment: abs_top_srcdir, abs_top_builddir (set by make check; else
# the source tree and its build/ dir), KVER/KDIR/KIMG (kernel version,
# build dir, image), QEMU_ACCEL (default tcg), KTEST_DIR (work dir, default
# $abs_top_builddir/tests/kernel/work), SKIP_KERNEL_TESTS=1, KTEST_SCENARIOS
# (name prefixes of the scenarios to run, e.g. "55 70"; default all),
# KTEST_CMDLINE (more guest kernel parameters, e.g. ktest_soak=600 for
# scenarios/80-cookies.sh), KTEST_TIMEOUT (qemu's limit, default 600 s).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${abs_top_srcdir:-$(cd "$here/../.." && pwd)}
bld=${abs_top_builddir:-$src/build}
abs_top_srcdir=$src abs_top_builddir=$bld
# the common shell test library: skip, fail, the guest's checks as TAP
. "$src/tests/lib/test-lib.sh"
[ "${SKIP_KERNEL_TESTS:-0}" = 1 ] && skip "SKIP_KERNEL_TESTS=1"
[ "$(uname -m)" = x86_64 ] || skip "needs an x86_64 host"

command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"
command -v cpio >/dev/null || skip "cpio missing (apt-get install cpio)"
command -v gzip >/dev/null || skip "gzip missing (apt-get install gzip)"
command -v make >/dev/null && command -v gcc >/dev/null || skip "gcc/make missing (apt-get install build-essential)"
busybox=${BUSYBOX:-/bin/busybox}
[ -x "$busybox" ] && file -L "$busybox" 2>/dev/null | grep -q 'statically linked' ||
	{ [ -x /usr/bin/busybox ] && busybox=/usr/bin/busybox && file -L "$busybox" | grep -q 'statically linked'; } ||
	skip "a static busybox missing (apt-get install busybox-static)"

# The newest kernel with both an image and headers with Module.symvers.
if [ -z "${KVER:-}" ]; then
	for d in $(ls -d /lib/modules/*/ 2>/dev/null | sort -V -r); do
		v=$(basename "$d")
		if [ -f "/boot/vmlinuz-$v" ] && [ -f "/lib/modules/$v/build/Module.symvers" ]; then
			KVER=$v; break
		fi
	done
fi
[ -n "${KVER:-}" ] || {
	ls /boot/vmlinuz-* >/dev/null 2>&1 || skip "no kernel image (apt-get install linux-image-amd64 linux-headers-amd64)"
	skip "no kernel headers matching an image in /boot (apt-get install linux-headers-amd64)"
}
KDIR=${KDIR:-/lib/modules/$KVER/build}
KIMG=${KIMG:-/boot/vmlinuz-$KVER}
[ -f "$KDIR/Module.symvers" ] || skip "$KDIR/Module.symvers missing (apt-get install linux-headers-amd64)"
[ -r "$KIMG" ] || skip "$KIMG missing or unreadable (apt-get install linux-image-amd64)"
case $KVER in 6.1.*) ;; *) echo "note: kernel $KVER is not 6.1; the driver targets 6.1";; esac

# The workload programs the scenarios run, and their libraries (found in
# the guest through the programs' rpath: the build dir, same path there).
programs="hot_main hot_lib jit_spin dlswap"
libraries="libhot.so libother.so"
for p in daemon/oprofiled utils/opcontrol utils/ophelp pp/opreport utils/opwatch \
	 $(for w in $programs $libraries; do echo tests/workloads/$w; done) \
	 tests/control/sfrange tests/control/sfcheck; do
	[ -x "$bld/$p" ] || [ -f "$bld/$p" ] || {
		# the workloads and sample file readers are check programs: build them
		make -C "$bld/tests" "${p#tests/}" >/dev/null 2>&1 ||
			fail "$bld/$p missing (build the tree first)"
	}
done

work=${KTEST_DIR:-$bld/tests/kernel/work}
rm -rf "$work"
mkdir -p "$work/driver" "$work/root"
t0=$(date +%s.%N)

# --- the module -----------------------------------------------------------
cp "$src"/driver/*.[ch] "$src/driver/Kbuild" "$src/libop/op_stream.h" "$work/driver/"
cp "$src/tests/kernel/spinmod.c" "$work/driver/"
echo 'obj-m += spinmod.o' >>"$work/driver/Kbuild"
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$KDIR" M="$work/driver" modules >"$work/module-build.log" 2>&1; then
	cat "$work/module-build.log"
	fail "the module does not build against $KDIR"
fi
if grep -E '\.[ch]:[0-9]+:[0-9]+: warning:|ERROR' "$work/module-build.log"; then
	fail "the module build has warnings or errors"
fi

# hot_main linked statically (not PIE: addresses are not file offsets).
# Built here, not by automake: -static does not go with the sanitizer
# flags CI builds the test programs with.
if ! ${CC:-gcc} -O2 -g -fno-omit-frame-pointer -static -o "$work/hot_main_static" \
	"$src/tests/workloads/hot_main.c" >"$work/static-build.log" 2>&1; then
	cat "$work/static-build.log"
	grep -q 'cannot find -lc' "$work/static-build.log" &&
		skip "libc.a missing for a static workload (apt-get install libc6-dev)"
	fail "cannot build the static workload"
fi

# The guest helper programs of tests/kernel/ (static: nothing to pack).
for h in uffd_read; do
	if ! ${CC:-gcc} -O2 -Wall -static -pthread -o "$work/$h" "$here/$h.c" >"$work/$h-build.log" 2>&1; then
		cat "$work/$h-build.log"
		fail "cannot build the guest helper $h"
	fi
done

# --- the initramfs --------------------------------------------------------
r=$work/root
mkdir -p "$r"/{bin,sbin,usr/bin,lib,lib64,proc,sys,dev,tmp,var/lib,root,etc,mnt} "$r/usr/share/oprofile-ng"
cp "$busybox" "$r/bin/busybox"
cp "$work/driver/oprofile.ko" "$work/driver/spinmod.ko" "$r/lib/"
cp -r "$src/events" "$r/usr/share/oprofile-ng/events"
# sfrange and sfcheck read sample files ({cg} arcs) for the scenarios
bins="$bld/daemon/oprofiled $bld/utils/opcontrol $bld/utils/ophelp $bld/pp/opreport
	$bld/tests/control/sfrange $bld/tests/control/sfcheck
	$bld/utils/opwatch"
for b in $bins; do cp "$b" "$r/usr/bin/"; done
for w in $programs; do cp "$bld/tests/workloads/$w" "$r/usr/bin/"; done
cp "$work/hot_main_static" "$work/uffd_read" "$r/usr/bin/"
libdir=$bld/tests/workloads
mkdir -p "$r$libdir"
for l in $libraries; do cp "$libdir/$l" "$r$libdir/"; done
# shared libraries of every dynamic binary, at the same absolute paths
for b in $bins $(for w in $programs; do echo "$bld/tests/workloads/$w"; done); do
	ldd "$b" | awk '{for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i}' | while read -r lib; do
		[ -e "$r$lib" ] && continue
		mkdir -p "$r$(dirname "$lib")"
		cp -L "$lib" "$r$lib"
	done
done
# The expected hot functions, from the host's ELF symbol tables.
{
	nm -S --defined-only "$bld/tests/workloads/hot_main" | awk '$4=="hot_main_loop"{print "hot_main hot_main_loop", $1, $2}'
	nm -S --defined-only "$work/hot_main_static" | awk '$4=="hot_main_loop"{print "hot_main_static hot_main_loop", $1, $2}'
	nm -S -D --defined-only "$bld/tests/workloads/libhot.so" | awk '$4=="hot_lib_loop"{print "libhot.so hot_lib_loop", $1, $2}'
} >"$r/ranges.txt"
cp "$here/guest.sh" "$r/init"
mkdir -p "$r/ktest"
cp "$here/guest-lib.sh" "$r/ktest/"
mkdir -p "$r/ktest/scenarios"
for f in "$here"/scenarios/*.sh; do
	# KTEST_SCENARIOS="55 70": only the scenarios whose names start so
	# (the final dmesg check always runs)
	keep=${KTEST_SCENARIOS:+no}
	for p in ${KTEST_SCENARIOS:-} 90; do case ${f##*/} in "$p"*) keep=yes;; esac; done
	[ "${keep:-yes}" = no ] || cp "$f" "$r/ktest/scenarios/"
done
echo "KTEST_TESTS_DIR=$bld/tests" >"$r/ktest.env"
chmod +x "$r/init"
(cd "$r" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$work/initrd.gz"
t1=$(date +%s.%N)

# --- boot -----------------------------------------------------------------
timeout "${KTEST_TIMEOUT:-600}" qemu-system-x86_64 -accel "${QEMU_ACCEL:-tcg}" -cpu max -smp 2 -m 512 \
	-net none -nographic -no-reboot -kernel "$KIMG" -initrd "$work/initrd.gz" \
	-append "console=ttyS0 quiet panic=-1 oops=panic panic_on_warn=1 ${KTEST_CMDLINE:-}" \
	</dev/null >"$work/serial.log" 2>&1
qrc=$?
t2=$(date +%s.%N)
tr -d '\r' <"$work/serial.log" | grep -a -o 'KTEST.*' >"$work/result.log"
grep -v '^KTEST ' "$work/result.log" | sed 's/^/# /'
printf '# kernel test: kernel %s, build+pack %.1f s, boot-to-verdict %.1f s (qemu rc %d)\n' \
	"$KVER" "$(awk "BEGIN{print $t1 - $t0}")" "$(awk "BEGIN{print $t2 - $t1}")" "$qrc"
# the guest's "KTEST name PASS|FAIL detail" lines, one check each
while read -r _ name verdict detail; do
	case $verdict in
	PASS) test_ok "$name $detail" ;;
	*) test_not_ok "$name $verdict $detail" ;;
	esac
done < <(grep -a '^KTEST ' "$work/result.log")
if ! grep -q '^KTEST-DONE' "$work/result.log"; then
	tail -60 "$work/serial.log" | sed 's/^/# /'
	fail "the guest did not finish (the end of $work/serial.log above)"
fi
[ "$test_nr" -gt 0 ] || fail "no checks ran"
[ "$test_failed" -eq 0 ] || test_note "some guest checks failed (log: $work/serial.log)"
test_done
