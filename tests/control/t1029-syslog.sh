#!/bin/sh
# When the log cannot be written, the daemon's messages go to syslog,
# checked with a real listener. This machine has no /dev/log,
# so the test makes one where nothing else sees it: in a private mount
# namespace (unshare -m) a small tmpfs on /dev (the device nodes the
# daemon uses bound in from the real /dev) gets a datagram socket at
# /dev/log, served by a perl listener; the session is on a 2 MB tmpfs.
# The disk is filled and the log padded to a page boundary, so the next
# line cannot be written: the daemon says so and every message after it
# reaches the listener, as glibc's syslog(3) sends it.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

command -v unshare >/dev/null || skip "no unshare(1)"
perl -MIO::Socket::UNIX -e 1 2>/dev/null || skip "no perl IO::Socket::UNIX"
unshare -m true 2>/dev/null || skip "cannot make a mount namespace"

cat >"$T/listen.pl" <<'PERL'
# listen.pl SOCKET OUT READY: each datagram a line of OUT
use IO::Socket::UNIX;
my ($path, $out, $ready) = @ARGV;
my $s = IO::Socket::UNIX->new(Type => SOCK_DGRAM, Local => $path) or die "bind $path: $!";
open(my $f, '>>', $out) or die "$out: $!";
$f->autoflush(1);
open(my $r, '>', $ready) and close($r);
while (defined $s->recv(my $msg, 8192)) { print $f "$msg\n"; }
PERL

cat >"$T/inner.sh" <<'INNER'
set -u
T=$1 OPROFILED=$2
log() { echo "inner: $*"; }
mount --make-rprivate / || exit 2
mkdir -p "$T/olddev" "$T/small"
mount --bind /dev "$T/olddev" || exit 2
mount -t tmpfs -o size=64k,mode=755 tmpfs /dev || exit 2
for n in null zero urandom random full; do
	[ -e "$T/olddev/$n" ] || continue
	touch "/dev/$n" && mount --bind "$T/olddev/$n" "/dev/$n" || exit 2
done
perl "$T/listen.pl" /dev/log "$T/syslog" "$T/ready" & listener=$!
pid=
trap '[ -z "$pid" ] || kill -TERM $pid 2>/dev/null; kill $listener 2>/dev/null' EXIT
for _ in $(seq 100); do [ -e "$T/ready" ] && break; sleep 0.1; done
[ -S /dev/log ] || { log "no listener at /dev/log"; exit 2; }
mount -t tmpfs -o size=2m tmpfs "$T/small" || exit 2
S=$T/small/s
"$OPROFILED" --session-dir="$S" --events=CPU_CLOCK:1000000 || { log "oprofiled did not start"; exit 1; }
pid=$(cat "$S/lock")
# the disk full, then the log's last page (already its own, so padding
# it needs no space): its next line needs a page. In this order a line
# the daemon writes meanwhile cannot leave room in the page.
L=$S/samples/oprofiled.log
grep -q "daemon started" "$L" || { log "the start line was not in the log when oprofiled returned"; exit 1; }
dd if=/dev/zero of="$T/small/filler" bs=4k 2>/dev/null
for _ in 1 2 3; do
	pad=$(( (4096 - $(stat -c %s "$L") % 4096) % 4096 ))
	[ $pad -eq 0 ] && break
	# a line the daemon adds meanwhile makes this write short: again
	head -c $pad /dev/zero | tr '\0' '#' >>"$L" 2>/dev/null
done
[ $pad -eq 0 ] || { log "cannot pad the log to a page boundary"; exit 1; }
kill -HUP "$pid"
for _ in $(seq 100); do grep -q "SIGHUP: sample files closed" "$T/syslog" 2>/dev/null && break; sleep 0.1; done
cp "$L" "$T/log.copy"
kill -TERM "$pid"
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && { log "daemon still running"; exit 1; }
pid=
exit 0
INNER

unshare -m sh "$T/inner.sh" "$T" "$OPROFILED" >"$T/inner.out" 2>&1
rc=$?
cat "$T/inner.out"
[ $rc -ne 2 ] || skip "cannot set up /dev/log in a mount namespace"
[ $rc -eq 0 ] || fail "the run in the mount namespace failed ($rc)"
[ -s "$T/syslog" ] || fail "the listener at /dev/log received nothing"
grep -v '^$' "$T/syslog" | sed 's/^/# syslog: /'
check_grep "$T/syslog" "oprofiled\[[0-9]+\]: cannot write the log '$T/small/s/samples/oprofiled.log': No space left on device; messages go to syslog" \
	"the daemon says at once, in syslog, that its log cannot be written"
check_grep "$T/syslog" "oprofiled\[[0-9]+\]: .*SIGHUP: sample files closed, log reopened" \
	"the message the log could not take reached syslog"
check_grep "$T/syslog" "exiting" "so did the messages after it"
check_grep "$T/syslog" "oprofiled\[[0-9]+\]: .*sample_received [0-9]+" \
	"the statistics at exit too (each a line of the log, not raw stderr)"
check_no_grep "$T/log.copy" "SIGHUP: sample files closed" "and the log holds no part of it"
[ "$(tail -c 1 "$T/log.copy" | od -An -c | tr -d ' ')" = "#" ] ||
	fail "the log does not end where it was full"
test_ok "no cut line at the end of the log"
test_done
