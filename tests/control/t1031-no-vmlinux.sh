#!/bin/sh
# No kallsyms for the daemon (as a non-root reader or kptr_restrict sees
# it: every address zero): the daemon still starts, says why, and puts a
# syscall-heavy dd's kernel samples on OProfile's "no-vmlinux" image
# ({kern}/no-vmlinux, is_kernel set), keyed by the raw pc; the session
# saves no kallsyms and lists no-vmlinux as [0, 2^64-1); the stats
# balance; opreport shows the samples as "no-vmlinux" without symbols and
# says why. $OPROFILE_KALLSYMS (libopd/opd_kernel.c) makes the daemon
# read a zeroed copy of /proc/kallsyms instead of the real one.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

C=$S/samples/current
EV=CPU_CLOCK.1000000.0
DD=$T/dd
cp /bin/dd "$DD" || fail "cannot copy /bin/dd"

step "a zeroed kallsyms: the daemon starts anyway"
sed 's/^[0-9a-f]*/0000000000000000/' /proc/kallsyms >"$T/kallsyms0"
grep -q ' _text$' "$T/kallsyms0" || fail "no _text in the copy of /proc/kallsyms"
OPROFILE_KALLSYMS=$T/kallsyms0 ctl --separate=kernel --start >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "--start failed without kallsyms"; }
# said on the starting terminal (the daemon's stderr until it is ready)
cat "$T/out"
grep -q "kernel samples go to the image 'no-vmlinux'" "$T/out" ||
	fail "the daemon does not say where kernel samples go"
"$DD" if=/dev/zero of=/dev/null bs=1M count=20000 status=none || fail "dd failed"
ctl --dump || fail "--dump failed"
ctl --shutdown || fail "--shutdown failed"

step "dd's kernel samples are on {kern}/no-vmlinux"
kfile=$C/{root}$DD/{dep}/{kern}/no-vmlinux/$EV.all.all.all
check_header "$kfile" 1
k=$("$SFRANGE" "$kfile") || fail "cannot read $kfile"
[ "$k" -ge 300 ] || fail "only $k kernel samples of dd on no-vmlinux"
find "$C" -path '*proc/kallsyms*' | grep . && fail "sample files name /proc/kallsyms"
grep -qx 'no-vmlinux 0x0 0xffffffffffffffff' "$C/session/kernel_images" ||
	{ cat "$C/session/kernel_images"; fail "kernel_images does not list no-vmlinux as [0, 2^64-1)"; }
[ -e "$C/session/kallsyms.gz" ] && fail "a kallsyms.gz was saved"
"$SFCHECK" "$C" || fail "sample files fail the structural check"
stats_balance "$C"

step "the keys are raw pcs: inside the running kernel's text"
text=$(awk '$3 == "_text" { print $1; exit }' /proc/kallsyms)
etext=$(awk '$3 == "_etext" { print $1; exit }' /proc/kallsyms)
"$SFCHECK" --dump "$C/{root}$DD/{dep}" >"$T/keys" || fail "cannot dump dd's files"
# 64-bit keys compared as 16 hex digits (the shell's arithmetic is signed)
in=$(awk -v lo="$text" -v hi="$etext" '
	$1 == "file" { mine = $2 == "{kern}/no-vmlinux/'"$EV"'.all.all.all" }
	mine && $1 ~ /^0x/ { k = substr($1, 3); while (length(k) < 16) k = "0" k
		if (k >= lo && k < hi) s += $2 } END { print s + 0 }' "$T/keys")
echo "no-vmlinux: $in of $k samples in [_text 0x$text, _etext 0x$etext)"
[ $((in * 100)) -ge $((k * 90)) ] || fail "fewer than 90 % of the keys are kernel text pcs"

step "opreport shows them as no-vmlinux, without symbols, and says why"
"$OPREPORT" --session-dir="$S" -l image:"$DD" >"$T/rep" 2>&1 || { cat "$T/rep"; fail "opreport failed"; }
cat "$T/rep"
rows=$(awk '$3 == "no-vmlinux" && $5 == "(no" { s += $1 } END { print s + 0 }' "$T/rep")
check_eq "$rows" "$k" "opreport shows every sample of the file as no-vmlinux"
grep -q "could not read kallsyms while sampling" "$T/rep" ||
	fail "opreport does not say why no-vmlinux has no symbols"
test_done
