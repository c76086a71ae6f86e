#!/bin/sh
# The daemon under a low open-file limit: 64, soft and hard, so
# that raising the soft one cannot help. With --callgraph, a spinning
# program beside three rounds over ~100 distinct coreutils binaries (many
# sample and {cg} files, many binaries unwound through): the daemon holds
# no descriptor per binary, `opcontrol --dump` is answered in seconds (an
# EMFILE never leaves it waiting out its 60 s), opreport reads the
# session, the spinner's samples are there for the CPU it got, and the
# stats balance. Before the fix the dump timed out: the unwinder kept an
# fd per binary and the sample files took the rest.
. "${abs_top_srcdir:?}/tests/control/lib.sh"
C=$S/samples/current
EV=CPU_CLOCK.1000000.0.all.all.all

# the binaries: coreutils, each run with --version (prints, exits)
BINS=
for b in cat chgrp chmod chown cp date dd df dir echo false ln ls mkdir \
	mknod mktemp mv pwd readlink rm rmdir sleep stty sync touch true \
	uname vdir arch b2sum base32 base64 basename basenc chcon cksum comm \
	csplit cut dircolors dirname du env expand expr factor fmt fold \
	groups head hostid id install join link logname md5sum mkfifo nice \
	nl nohup nproc numfmt od paste pathchk pinky pr printenv printf ptx \
	realpath runcon seq sha1sum sha224sum sha256sum sha384sum sha512sum \
	shred shuf sort split stat stdbuf sum tac tail tee test timeout tr \
	truncate tsort tty unexpand uniq unlink users wc who whoami yes; do
	p=$(command -v "$b") && [ -x "$p" ] && BINS="$BINS $p"
done
set -- $BINS
[ $# -ge 60 ] || skip "only $# coreutils binaries found (want 60 distinct ones)"

step "oprofiled under ulimit -n 64 (soft and hard), --callgraph=64"
(ulimit -n 64 && exec "$OPROFILED" --session-dir="$S" \
	--events=CPU_CLOCK:1000000 --callgraph=64) || fail "oprofiled failed to start"
pid=$(cat "$S/lock")

step "the workload: spin for 3 s beside $# binaries, three rounds"
"$SPIN" 3 cpu >"$T/spin_ms" & spinner=$!
for r in 1 2 3; do
	for b in $BINS; do
		"$b" --version >/dev/null 2>&1 </dev/null
	done
done
wait $spinner || fail "spin failed"
ls -l "/proc/$pid/fd" >"$T/fds" 2>/dev/null || fail "the daemon is gone"
n=$(grep -c -- '->' "$T/fds")
bin_fds=$(grep -c -- '-> /usr/' "$T/fds")
echo "the daemon holds $n fds, $bin_fds of them binaries (checked below)"

step "--dump is answered in seconds"
start=$(date +%s)
ctl --dump >"$T/dump" 2>&1
rc=$? took=$(($(date +%s) - start))
cat "$T/dump"
echo "--dump: rc $rc after $took s"
[ $rc -eq 0 ] && ! grep -q "timed out" "$T/dump" ||
	fail "--dump failed under the fd limit (rc $rc after $took s)"
[ "$took" -le 20 ] || fail "--dump took $took s"
test_ok "--dump answered in $took s under a 64-fd limit"

[ "$bin_fds" -eq 0 ] || { cat "$T/fds"; fail "the daemon held $bin_fds binaries open"; }
test_ok "the daemon held no binary open ($n fds in all)"

step "the session: opreport, the spinner's samples, the stats"
"$OPREPORT" --session-dir="$S" "image:$SPIN" >"$T/rep" 2>"$T/rep.err" ||
	{ cat "$T/rep" "$T/rep.err"; fail "opreport failed"; }
got=$(awk '$1 ~ /^[0-9]+$/ { n += $1 } END { print n + 0 }' "$T/rep")
ms=$(cat "$T/spin_ms")
echo "spin: $got samples for $ms ms of CPU"
[ "$got" -ge $((ms / 2)) ] && [ "$got" -le $((ms * 12 / 10 + 50)) ] ||
	{ cat "$T/rep"; fail "$got samples of spin for $ms ms of its CPU at 1 kHz"; }
test_ok "the spinner's samples are in the session ($got for $ms ms)"
ctl --shutdown || fail "--shutdown failed"
check_grep "$S/samples/oprofiled.log" "low open-file limit: 64" \
	"the daemon said it runs with a low limit"
"$SFCHECK" "$C" || fail "sample files fail the structural check"
stats_balance "$C"
files=$(find "$C" -path "$C/{*" -type f | wc -l)
echo "$files sample files (the daemon kept at most 32 open)"
[ "$files" -gt 64 ] || fail "only $files sample files: the limit was never pressed"
grep -c "Too many open files" "$S/samples/oprofiled.log" |
	sed 's/^/log lines naming EMFILE: /'
test_done
