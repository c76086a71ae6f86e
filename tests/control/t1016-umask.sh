#!/bin/sh
# Modes do not come from the caller's umask:
# under umask 000 nothing in the session is writable by others, and the
# kernel symbol data (kernel addresses: a KASLR leak) is readable by root
# only (0600), as doc/formats.md section 1 says.
. "${abs_top_srcdir:?}/tests/control/lib.sh"
C=$S/samples/current

umask 000
ctl --separate=lib --start >/dev/null || fail "--start under umask 000 failed"
"$SPIN" 0.3
ctl --dump || fail "--dump failed"
ctl --save=saved >/dev/null || fail "--save failed"
ctl --shutdown >/dev/null || fail "--shutdown failed"
umask 022
find "$S" -perm -o+w ! -type l >"$T/out"
[ ! -s "$T/out" ] || { cat "$T/out"; fail "world-writable entries under umask 000"; }
test_ok "find SESSION -perm -o+w is empty under umask 000"
for f in "$C/session/kallsyms.gz" "$C/session/kernel_images" "$C/session/modules" \
	 "$S/samples/saved/session/kallsyms.gz" "$S/kernel-cache/kallsyms.gz" \
	 "$S/kernel-cache/kernel_range"; do
	[ -e "$f" ] || fail "no $f"
	m=$(stat -c %a "$f")
	[ "$m" = 600 ] || fail "$f is mode $m, not 600"
done
test_ok "kernel symbol data is 0600"
m=$(find "$C" -path "$C/{*" -type f | head -1 | xargs -d '\n' stat -c %a)
check_eq "$m" 644 "sample files are 0644"
test_done
