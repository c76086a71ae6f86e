#!/bin/sh
# Binary churn: a few hundred NEW binaries (distinct paths and
# build-ids: copies of spin with the build-id patched), each run once for
# a moment at 1 kHz. The perf source must forget a binary's cookie once no
# process maps it (10 s grace, then ESC COOKIE_FORGET), so while the
# definitions handed out grow with every binary (cookies_defined =
# decoder_cookies + cookies_forgotten), the definitions held and the
# daemon's open files stay under a bound, and so do the images the daemon
# holds (stats/images_live: a binary's image is freed with its cookie). Every binary's samples are in
# its own sample file (each copy reports the CPU it got: at 1 kHz that many
# samples, less its kernel time, which is vmlinux's), a forgotten binary run again counts on in the same file, and
# the stats balance. After a save, each session's build-ids lists the
# builds it has samples of, not every build the daemon saw.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

N=${CHURN_BINARIES:-240}
C=$S/samples/current
BIN=$T/bin
mkdir -p "$BIN"

# N copies of spin, build-id bytes 0-3 replaced by the copy's number
bid=$(build_id_of "$SPIN")
[ ${#bid} -eq 40 ] || skip "spin has no 20-byte build-id (readelf -n)"
python3 - "$SPIN" "$BIN" "$N" "$bid" <<'EOF' || fail "cannot make the binaries"
import os, sys
src, out, n, bid = sys.argv[1], sys.argv[2], int(sys.argv[3]), bytes.fromhex(sys.argv[4])
data = open(src, 'rb').read()
at = data.index(bid)
for k in range(n):
    path = os.path.join(out, 'b_%d' % k)
    with open(path, 'wb') as f:
        f.write(data[:at] + (0x5c000000 + k).to_bytes(4, 'big') + data[at + 4:])
    os.chmod(path, 0o755)
EOF

# the daemon records its stream: which definitions it forgot is read
# from it at the end, per binary
"$OPROFILED" --session-dir="$S" --separate=none --events=CPU_CLOCK:1000000 \
	--record-stream="$T/run.ops" >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "oprofiled did not start"; }
pid=$(cat "$S/lock")
fds() { ls "/proc/$pid/fd" | wc -l; }
held() { counter "$C" decoder_cookies; }
forgotten() { counter "$C" cookies_forgotten; }
images() { counter "$C" images_live; }
# the anonymous regions' images, which the core keeps for the daemon's
# life (bounded: 64 per app, 4096 in all; doc/formats.md): one sample
# file directory {anon:NAME}/TGID.0xSTART.0xEND each (the folded ones
# 0.0x0.0x0, one per NAME)
anon_images() {
	find "$C" -type d -path '*/{anon:*}/[0-9]*.0x*.0x*' |
		sed 's|.*/\({anon:[^/]*}/[^/]*\)$|\1|' | sort -u | wc -l
}

: >"$T/cpu"
sleep 1
ctl --dump || fail "--dump failed"
h0=$(held) i0=$(images) a0=$(anon_images)
echo "before: definitions held $h0, images live $i0 ($a0 anonymous), open files $(fds)"
echo "binaries_run definitions_held definitions_defined images_live open_fds"
i=0
while [ $i -lt "$N" ]; do
	"$BIN/b_$i" 0.02 cpu >>"$T/cpu" || fail "b_$i failed"
	i=$((i + 1))
	if [ $((i % 50)) -eq 0 ]; then
		ctl --dump || fail "--dump failed"
		alive "$pid" || fail "the daemon died"
		h=$(held) f=$(forgotten) im=$(images) o=$(fds)
		echo "$i $h $((h + f)) $im $o" | tee -a "$T/rows"
	fi
done
# the grace period (10 s) and a sweep (1 s) pass
sleep 13
ctl --dump || fail "--dump failed"
h=$(held) f=$(forgotten) im=$(images) o=$(fds) a=$(anon_images)
echo "after 13 s: $N definitions_held $h definitions_defined $((h + f)) images_live $im open_fds $o" | tee -a "$T/rows"
echo "anonymous regions' images: $a0 before, $a after"

max_held=$(awk '{ if ($2 > m) m = $2 } END { print m }' "$T/rows")
max_fds=$(awk '{ f = $NF; if (f > m) m = f } END { print m }' "$T/rows")
[ $((h + f)) -ge "$N" ] ||
	fail "only $((h + f)) definitions for $N binaries: the churn was not seen"
test_ok "$((h + f)) definitions handed out for $N new binaries"
# the churn's go within ~12 s of their exit: about 12 s' worth of
# binaries are held at once, none at the end. The machine's other
# processes define and hold their own meanwhile (under make -j, a few
# hundred), so the per-binary check is made on the recorded stream below.
[ "$f" -ge $((N * 9 / 10)) ] ||
	fail "only $f definitions forgotten after $N binaries ran and exited"
test_ok "definitions held $h0 before, at most $max_held, $h at the end; $f forgotten"

# images: a binary's freed with its cookies, so they follow the
# definitions held (the same slack); were they kept for the session, N
# or more would stay. The anonymous regions' images stay by design: under
# make -j other tests' JIT code (chromium's, the JIT test's) adds a
# hundred of them during the churn, so they are counted apart.
max_images=$(awk '$1 ~ /^[0-9]+$/ { if ($4 > m) m = $4 } END { print m + 0 }' "$T/rows")
[ "$im" -gt 0 ] || fail "stats/images_live is $im"
[ $((im - a)) -le $((i0 - a0 + N / 4)) ] ||
	fail "$im images live after $N binaries exited, $a of them anonymous regions ($i0 and $a0 before)"
test_ok "images live $i0 before, at most $max_images, $im at the end ($a0 and $a of them anonymous regions)"

# sample files: the LRU bound of 256, plus the daemon's own files
[ "$max_fds" -le 300 ] || fail "the daemon had $max_fds files open"
test_ok "open files at most $max_fds"

# each binary's samples in its own file
files=$(find "$C" -path "*$BIN/b_*" -type f | wc -l)
dirs=$(find "$C" -path "*$BIN/b_*" -type f | sed "s|.*$BIN/\(b_[0-9]*\)/.*|\1|" | sort -u | wc -l)
[ "$dirs" -ge $((N * 9 / 10)) ] || fail "samples of only $dirs of $N binaries in files"
"$OPREPORT" --session-dir="$S" "image:$BIN/b_*" >"$T/rep" 2>"$T/rep.err" ||
	{ cat "$T/rep.err"; fail "opreport failed"; }
got=$(awk '$1 ~ /^[0-9]+$/ { n += $1 } END { print n + 0 }' "$T/rep")
want=$(awk '{ n += $1 } END { print n + 0 }' "$T/cpu")
echo "samples of the binaries: $got in $files files of $dirs binaries; their CPU: $want ms"
[ "$got" -ge $((want * 7 / 10)) ] && [ "$got" -le $((want * 12 / 10 + 50)) ] ||
	fail "$got samples in the binaries' files for $want ms of their CPU at 1 kHz"
test_ok "the $N binaries' samples are in their files ($got for $want ms of CPU)"

# b_0 was forgotten: run again, a new cookie finds its image and file
one() { "$OPREPORT" --session-dir="$S" "image:$BIN/b_0" 2>/dev/null |
	awk '$1 ~ /^[0-9]+$/ { n += $1 } END { print n + 0 }'; }
before=$(one) f0=$(forgotten)
"$BIN/b_0" 0.3 cpu >"$T/cpu0" || fail "b_0 failed"
sleep 13
ctl --dump || fail "--dump failed"
after=$(one) ms=$(cat "$T/cpu0")
n0=$(find "$C" -path "*$BIN/b_0/*" -type f | wc -l)
echo "b_0: $before samples, then $after after $ms ms more CPU; $n0 sample file(s); forgotten $f0 -> $(forgotten)"
check_eq "$n0" 1 "b_0 has one sample file"
[ $((after - before)) -ge $((ms * 7 / 10)) ] ||
	fail "b_0 run again: $((after - before)) more samples for $ms ms of CPU"
[ "$(forgotten)" -gt "$f0" ] || fail "b_0's second cookie was not forgotten"
test_ok "a forgotten binary run again counts on in its one sample file"

"$SFCHECK" "$C" || fail "sample files fail the structural check"
stats_balance "$C"

# build-ids by session: b_0 (sampled above) in the saved one; the next
# session lists b_1, run in it, and not b_0
ctl --save=churn || fail "--save failed"
"$BIN/b_1" 0.3 cpu >/dev/null || fail "b_1 failed"
ctl --dump || fail "--dump failed"
saved=$S/samples/churn/session/build-ids cur=$C/session/build-ids
b0=$(build_id_of "$BIN/b_0") b1=$(build_id_of "$BIN/b_1")
grep -q "^$b0 " "$saved" || fail "the saved session's build-ids has no line of b_0"
grep -q "^$b1 " "$cur" || fail "the new session's build-ids has no line of b_1, run in it"
! grep -q "^$b0 " "$cur" || fail "the new session's build-ids lists b_0, not run in it"
test_ok "build-ids: the saved session $(wc -l <"$saved") lines (b_0's among them), the next one $(wc -l <"$cur") (b_1's, not b_0's)"
ctl --shutdown || fail "--shutdown failed"

# every definition of every b_i was forgotten, but b_1's last (run just
# before the shutdown, inside its grace): nothing of the churn is held
"$B/daemon/opstream" dump "$T/run.ops" >"$T/dump" 2>&1 || { tail "$T/dump"; fail "opstream dump failed"; }
awk -v bin="$BIN/b_" '
	$1 == "cookie" && index($4, bin) == 1 { def[$4]++ }
	$1 == "forget" && index($4, bin) == 1 { gone[$4]++ }
	END {
		for (b in def) {
			held = def[b] - gone[b]
			if (held > (b == bin "1" ? 1 : 0)) { print b, def[b], gone[b]; bad++ }
			n += def[b]; g += gone[b]
		}
		print "definitions of the binaries", n, "forgotten", g, "still held (bad)", bad + 0
	}' "$T/dump" >"$T/held"
sed 's/^/# /' "$T/held"
[ "$(awk 'END { print $NF }' "$T/held")" -eq 0 ] ||
	fail "definitions of the churn's binaries still held after their exit (path, defined, forgotten above)"
n=$(awk 'END { print $5 }' "$T/held")
[ "$n" -ge "$N" ] || fail "the recorded stream defines the binaries $n times for $N binaries"
test_ok "the recorded stream: each of the $N binaries' $n definitions forgotten after its exit (b_1's last one excepted)"
test_done
