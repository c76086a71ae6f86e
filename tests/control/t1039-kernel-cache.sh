#!/bin/sh
# The machine-wide per-boot kernel cache (libopd/opd_kernel.c):
# two operf sessions of one boot share one cache entry (their kallsyms.gz
# is the cache's file, hard-linked); a past boot's entry is replaced; a
# cache dir that is a symbolic link, group-writable or another user's is
# refused by name, nothing is written through it, and the session dir's
# own kernel-cache/ is used instead; a user's operf leaves root's cache.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

OPERF=$B/utils/operf
KC=$T/kcache
export OPROFILE_KERNEL_CACHE="$KC"
boot=$(cat /proc/sys/kernel/random/boot_id)

# run NAME: operf on the spinning workload into $T/NAME, its output in $T/NAME.out
run() {
	"$OPERF" -d "$T/$1" "$SPIN" 0.1 >"$T/$1.out" 2>&1 ||
		{ cat "$T/$1.out"; fail "operf -d $T/$1 failed"; }
}
inode() { stat -c %i "$1"; }
session_ks() { echo "$T/$1/samples/current/session/kallsyms.gz"; }

step "two sessions of one boot: one cache entry"
run a
run b
[ -f "$KC/kallsyms.gz" ] || fail "no kallsyms.gz in the machine's cache $KC"
check_eq "$(stat -c %a "$KC")" 700 "the cache dir is made 0700"
check_eq "$(head -1 "$KC/key")" "$boot" "the cache is keyed by this boot's id"
check_eq "$(inode "$(session_ks a)")" "$(inode "$KC/kallsyms.gz")" "session a links the cached kallsyms.gz"
check_eq "$(inode "$(session_ks b)")" "$(inode "$KC/kallsyms.gz")" "session b links the same file"
[ ! -e "$T/a/kernel-cache" ] && [ ! -e "$T/b/kernel-cache" ] ||
	fail "a session dir has its own kernel-cache beside the machine's"
test_ok "no session dir has its own kernel-cache"
gzip -dc "$(session_ks b)" | grep -q ' [Tt] _etext$' || fail "the shared kallsyms.gz has no _etext"
test_ok "the shared kallsyms.gz is the kernel's symbols"

step "a past boot's entry is replaced"
old=$(inode "$KC/kallsyms.gz")
printf 'a-past-boot-id\n' >"$KC/key"
run c
check_eq "$(head -1 "$KC/key")" "$boot" "the key is this boot's again"
[ "$(inode "$KC/kallsyms.gz")" != "$old" ] || fail "the past boot's kallsyms.gz was kept"
test_ok "the past boot's kallsyms.gz was replaced"
check_eq "$(inode "$(session_ks c)")" "$(inode "$KC/kallsyms.gz")" "session c links the new entry"
gzip -t "$(session_ks a)" || fail "session a's kallsyms.gz was damaged by the replacement"
test_ok "session a keeps its own (old) copy intact"

# refused CASE MESSAGE: operf runs without the machine's cache, says so
# by name, and caches in its session dir
refused() {
	run "$1"
	check_grep "$T/$1.out" "kernel cache '$KC' $2" "$1: the cache is refused by name"
	[ -f "$T/$1/kernel-cache/kallsyms.gz" ] || fail "$1: no session kernel-cache/ instead"
	[ -f "$(session_ks "$1")" ] || fail "$1: no kallsyms.gz in the session"
	test_ok "$1: the session dir's kernel-cache/ is used instead"
}

step "a planted symbolic link"
rm -rf "$KC"
mkdir "$T/elsewhere"
ln -s "$T/elsewhere" "$KC"
refused link "is a symbolic link"
[ -z "$(ls -A "$T/elsewhere")" ] || fail "the cache was written through a link"
test_ok "nothing written through the link"

step "a group-writable cache dir"
rm "$KC"
mkdir -m 0770 "$KC"
chmod 0770 "$KC"
refused groupw "is writable by group or others"
[ -z "$(ls -A "$KC")" ] || fail "a group-writable cache was written"
test_ok "nothing written into it"

step "another user's cache dir"
U=opftest
if ! id "$U" >/dev/null 2>&1; then
	useradd -M -s /bin/sh "$U" 2>/dev/null || { test_note "skip: cannot create user $U"; test_done; }
fi
chmod 0700 "$KC"
chown "$U" "$KC"
refused other "is owned by another user"

step "a user's operf leaves root's cache alone"
chown root "$KC"
command -v runuser >/dev/null || { test_note "skip: no runuser"; test_done; }
chmod 755 "$T"
mkdir "$T/user" && chown "$U" "$T/user"
(cd "$T/user" && runuser -u "$U" -- env OPROFILE_EVENTS_DIR="$OPROFILE_EVENTS_DIR" \
	OPROFILE_KERNEL_CACHE="$KC" "$OPERF" "$SPIN" 0.1) >"$T/user.out" 2>&1 ||
	{ cat "$T/user.out"; fail "operf as $U failed"; }
test_ok "operf as $U succeeds"
grep -q "kernel cache" "$T/user.out" && { cat "$T/user.out"; fail "a user's operf complains about root's cache"; }
test_ok "no complaint about root's cache"
[ -z "$(ls -A "$KC")" ] || fail "a user's operf wrote into root's cache"
test_ok "root's cache is untouched"
test_done
