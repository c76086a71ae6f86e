#!/bin/sh
# Symbolic links planted in the session directory are never followed for a
# write: a link at samples/current/{root}, dangling and
# file links at sample file paths, the log, the kernel cache, the answer
# files. Every target stays as it was; the refusals are clear. Root's
# operf refuses the same plants: a link at samples/current/session in a
# --session-dir, a link or another user's directory at its default
# ./oprofile_data.
. "${abs_top_srcdir:?}/tests/control/lib.sh"
C=$S/samples/current
EV=CPU_CLOCK.1000000.0.all.all.all
mkdir -p "$C" "$T/elsewhere" "$T/cache-elsewhere"
printf precious >"$T/victim"
: >"$T/empty"
cp "$SPIN" "$T/spin2"
cp "$SPIN" "$T/spin3"

step "samples/oprofiled.log is a link: the daemon refuses to start"
ln -s "$T/victim" "$S/samples/oprofiled.log"
"$OPROFILED" --session-dir="$S" >"$T/out" 2>&1 && fail "oprofiled started with a linked log"
check_grep "$T/out" "oprofiled.log.*refusing to follow a symbolic link" "the log link is refused by name"
rm "$S/samples/oprofiled.log"

step "links at {root}, at two sample file paths, the kernel cache, complete_dump"
ln -s "$T/elsewhere" "$C/{root}"
ln -s "$T/cache-elsewhere" "$S/kernel-cache"
ln -s "$T/victim" "$S/complete_dump"
"$OPROFILED" --session-dir="$S" --events=CPU_CLOCK:1000000 --separate=none \
	>"$T/start" 2>&1 || { cat "$T/start"; fail "oprofiled failed to start"; }
"$SPIN" 0.5
ctl --dump || fail "--dump failed"
[ -z "$(ls -A "$T/elsewhere")" ] || { ls -R "$T/elsewhere"; fail "samples written through {root}"; }
test_ok "nothing written through samples/current/{root}"
check_grep "$S/samples/oprofiled.log" "refusing to follow a symbolic link" "the refusal is logged"
[ -z "$(ls -A "$T/cache-elsewhere")" ] || fail "kernel cache written through a link"
check_grep "$T/start" "kernel cache.*symbolic link" "the cache link is refused by name"
ctl --shutdown >/dev/null || fail "--shutdown failed"
[ "$(cat "$T/victim")" = precious ] || fail "a write went through complete_dump"
test_ok "complete_dump's target untouched (the link itself was replaced)"

step "a dangling link and a link to an empty file at sample file paths"
rm "$C/{root}"
f2="$C/{root}$T/spin2/{dep}/{root}$T/spin2/$EV"
f3="$C/{root}$T/spin3/{dep}/{root}$T/spin3/$EV"
mkdir -p "${f2%/*}" "${f3%/*}"
ln -s "$T/created" "$f2"
ln -s "$T/empty" "$f3"
"$OPROFILED" --session-dir="$S" --events=CPU_CLOCK:1000000 --separate=none ||
	fail "oprofiled failed to start"
"$T/spin2" 0.3
"$T/spin3" 0.3
ctl --shutdown >/dev/null || fail "--shutdown failed"
[ ! -e "$T/created" ] || fail "a dangling link's target was created"
[ ! -s "$T/empty" ] || fail "a file behind a link was overwritten"
test_ok "no file created or overwritten through a sample file link"
grep -q "spin2.*refusing to follow a symbolic link" "$S/samples/oprofiled.log" ||
	fail "the dangling link is not named in the log"
test_ok "the refused sample file is named in the log"

OPERF=$abs_top_builddir/utils/operf
# victim DIR: a directory of files an operf run must leave as they are
victim() {
	mkdir -p "$1"
	for f in build-ids segments other; do printf precious >"$1/$f"; done
}
check_victim() {  # check_victim DIR WHAT
	[ "$(ls "$1" | tr '\n' ' ')" = "build-ids other segments " ] &&
		[ "$(cat "$1/build-ids" "$1/segments" "$1/other")" = preciouspreciousprecious ] ||
		{ ls -l "$1"; fail "$2: the victim directory was written"; }
	test_ok "$2: the victim directory untouched"
}

step "operf -d DIR: DIR/samples/current/session is a link to a victim directory"
victim "$T/victim-s"
mkdir -p "$T/od/samples/current"
ln -s "$T/victim-s" "$T/od/samples/current/session"
"$OPERF" -d "$T/od" "$SPIN" 0.2 >"$T/out" 2>&1 && { cat "$T/out"; fail "operf ran through a linked session/"; }
check_victim "$T/victim-s" "session/ link"
check_grep "$T/out" "samples/current/session'.*refusing to follow a symbolic link" "the link is refused by name"

step "operf in a directory others can write: ./oprofile_data planted"
mkdir "$T/cwd" && chmod 1777 "$T/cwd"
victim "$T/victim-d"
ln -s "$T/victim-d" "$T/cwd/oprofile_data"
(cd "$T/cwd" && "$OPERF" "$SPIN" 0.2) >"$T/out" 2>&1 && { cat "$T/out"; fail "operf ran into a planted ./oprofile_data link"; }
check_victim "$T/victim-d" "./oprofile_data link"
check_grep "$T/out" "session directory 'oprofile_data' is a symbolic link: refusing" "the default's link is refused by name"
rm "$T/cwd/oprofile_data"
mkdir "$T/cwd/oprofile_data" && chown 65534 "$T/cwd/oprofile_data"
(cd "$T/cwd" && "$OPERF" "$SPIN" 0.2) >"$T/out" 2>&1 && { cat "$T/out"; fail "operf ran into another user's ./oprofile_data"; }
check_grep "$T/out" "session directory 'oprofile_data' belongs to uid 65534, not to you" "another user's ./oprofile_data is refused"
[ -z "$(ls -A "$T/cwd/oprofile_data")" ] || fail "operf wrote into another user's ./oprofile_data"

step "operf -d LINK: a session directory the user names through a link is used"
mkdir "$T/real"
ln -s "$T/real" "$T/named"
"$OPERF" -d "$T/named" "$SPIN" 0.2 >"$T/out" 2>&1 || { cat "$T/out"; fail "operf -d LINK failed"; }
[ -d "$T/real/samples/current" ] || fail "no session in the link's target"
test_ok "operf -d LINK: the session in the link's target"
test_done
