#!/bin/sh
# Kernel samples under --separate=kernel: a syscall-heavy dd (/dev/zero to
# /dev/null in 1 MiB blocks, run as /bin/dd, which is /usr/bin/dd on a
# merged-/usr system) gets {root}/usr/bin/dd/{dep}/{root}/proc/kallsyms/...
# (OProfile 1.x's name of a kallsyms-resolved kernel) with is_kernel set,
# and opreport -l image:/usr/bin/dd, resolving kernel symbols from the
# session's saved kallsyms only (/proc/kallsyms is hidden from it), puts on
# top, as "vmlinux", the kernel functions that zero the user buffer.
#
# Which functions those are depends on the kernel: perf record -g on this
# machine's 6.18 shows ~96 % of dd's samples in read_zero (clear_user is
# inlined there as rep stosb), the rest in __cond_resched and syscall entry.
# Older kernels spend it in read_iter_zero / iov_iter_zero / __clear_user /
# clear_user / rep_stos_alternative; memset and the copy_*_user family are
# accepted too.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

ZERO_RE='^(read_zero|read_iter_zero|iov_iter_zero|__?clear_user|clear_user_[a-z_]*|rep_stos_alternative|rep_stos[a-z_]*|copy_[a-z_]*user[a-z_]*|_copy_to_iter|memset[a-z_]*|__memset)$'
C=$S/samples/current
EV=CPU_CLOCK.1000000.0
DD=$(readlink -f /bin/dd)
[ "$DD" = /usr/bin/dd ] || echo "note: /bin/dd is $DD here"

step "--separate=kernel: dd if=/dev/zero of=/dev/null bs=1M"
ctl --separate=kernel --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
grep -q '^separate=lib,kernel$' "$C/session.conf" || fail "session.conf lacks separate=lib,kernel (kernel implies lib)"
/bin/dd if=/dev/zero of=/dev/null bs=1M count=30000 status=none & dd=$!
wait $dd || fail "dd failed"
ctl --dump || fail "--dump failed"
ctl --shutdown || fail "--shutdown failed"

kfile=$C/{root}$DD/{dep}/{root}/proc/kallsyms/$EV.all.all.all
check_header "$kfile" 1
k=$("$SFRANGE" "$kfile") || fail "cannot read $kfile"
all=0
for f in $(find "$C/{root}$DD/{dep}" -type f); do
	all=$((all + $("$SFRANGE" "$f")))
done
echo "dd: $k kernel samples of $all ($((k * 100 / all)) %)"
[ "$k" -ge 300 ] || fail "only $k kernel samples of dd"
[ $((k * 100)) -ge $((all * 70)) ] || fail "dd spent less than 70 % in the kernel"
[ -f "$C/session/kallsyms.gz" ] || [ -f "$C/session/kallsyms" ] ||
	fail "no kallsyms saved in the session"
"$SFCHECK" "$C" || fail "sample files fail the structural check"
stats_balance "$C"

step "opreport -l image:$DD, kernel symbols from the session only"
# /proc/kallsyms and /proc/modules (a kernel without modules has none)
# read as empty for opreport when a mount namespace can hide them;
# otherwise say so and report anyway.
report() { "$OPREPORT" --session-dir="$S" -l image:"$DD"; }
hide='mount --bind /dev/null /proc/kallsyms'
[ -e /proc/modules ] && hide="$hide && mount --bind /dev/null /proc/modules"
if unshare -m sh -c "$hide" 2>/dev/null; then
	export OPREPORT S DD
	unshare -m sh -c "$hide"' && [ ! -s /proc/kallsyms ] &&
		"$OPREPORT" --session-dir="$S" -l image:"$DD"' >"$T/rep" 2>"$T/err" ||
		{ cat "$T/err"; fail "opreport failed with /proc/kallsyms hidden"; }
	echo "(opreport ran with /proc/kallsyms empty, and /proc/modules if any)"
else
	echo "note: no mount namespace here, /proc/kallsyms not hidden from opreport"
	report >"$T/rep" 2>"$T/err" || { cat "$T/err"; fail "opreport failed"; }
fi
head -15 "$T/rep"
# rows: samples % image app symbol (the app column: --separate=kernel)
sed -n '/symbol name$/,$p' "$T/rep" | sed 1d >"$T/rows"
awk '$3 == "vmlinux"' "$T/rows" >"$T/krows"
[ -s "$T/krows" ] || fail "no vmlinux rows for dd"
top=$(awk 'NR == 1 { print $5 }' "$T/krows")
awk '{ print $4 }' "$T/krows" | grep -qv '^dd$' && fail "vmlinux rows under an app other than dd"
echo "$top" | grep -Eq "$ZERO_RE" ||
	fail "dd's top kernel symbol is '$top', not one zeroing or copying user memory"
kern=$(awk '{ s += $1 } END { print s + 0 }' "$T/krows")
zero=$(awk -v re="$ZERO_RE" '$5 ~ re { s += $1 } END { print s + 0 }' "$T/krows")
check_eq "$kern" "$k" "opreport shows every kernel sample of dd's file"
echo "top kernel symbol of dd: $top; $zero of $kern kernel samples ($((zero * 100 / kern)) %) in $ZERO_RE"
[ $((zero * 100)) -ge $((kern * 50)) ] || fail "less than 50 % of dd's kernel samples zero user memory"
grep -q 'no symbols' "$T/krows" && echo "note: some kernel samples without a symbol"

step "the top symbol's count, from the saved kallsyms and the sample keys"
# An oracle apart from opreport: keys are pc - vmlinux start (formats.md
# 2.4); the symbol spans [its address, the next higher address).
kimg=$C/session/kernel_images
ksyms() { if [ -f "$C/session/kallsyms.gz" ]; then gzip -dc "$C/session/kallsyms.gz"; else cat "$C/session/kallsyms"; fi; }
kstart=$(awk '$1 == "/proc/kallsyms" { sub(/^0x/, "", $2); print $2 }' "$kimg")
ksyms | LC_ALL=C sort >"$T/ksyms"
saddr=$(awk -v s="$top" '$3 == s && NF == 3 { print $1; exit }' "$T/ksyms")
snext=$(awk -v a="$saddr" '$1 > a { print $1; exit }' "$T/ksyms")
[ -n "$kstart" ] && [ -n "$saddr" ] && [ -n "$snext" ] ||
	fail "cannot find vmlinux ($kstart) or $top ($saddr, next $snext) in the session"
hi() { echo "$1" | cut -c1-8; }
lo() { echo "$1" | cut -c9-16; }
[ "$(hi "$kstart")" = "$(hi "$saddr")" ] && [ "$(hi "$saddr")" = "$(hi "$snext")" ] ||
	fail "vmlinux $kstart and $top $saddr are not in one 4 GiB window"
from=$((0x$(lo "$saddr") - 0x$(lo "$kstart")))
to=$((0x$(lo "$snext") - 0x$(lo "$kstart")))
"$SFCHECK" --dump "$C/{root}$DD/{dep}" >"$T/keys" || fail "cannot dump dd's files"
n=0 in_k=0
while read -r key val; do
	case $key in
	file) [ "$val" = "{root}/proc/kallsyms/$EV.all.all.all" ] && in_k=1 || in_k=0 ;;
	0x*) [ $in_k = 1 ] && [ $((key)) -ge $from ] && [ $((key)) -lt $to ] && n=$((n + val)) ;;
	esac
done <"$T/keys"
rep=$(awk 'NR == 1 { print $1 }' "$T/krows")
echo "$top at $saddr..$snext: keys [$from, $to) hold $n samples; opreport says $rep"
check_eq "$rep" "$n" "opreport gives $top the samples of its key range"
test_done
