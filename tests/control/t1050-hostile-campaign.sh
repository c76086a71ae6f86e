#!/bin/bash
# The hostile-input campaign: every tool that reads a session, an archive,
# a stream, a binary or writes an output tree, run against what a local
# attacker can plant where it reads or writes. A real session is recorded
# once (operf -g on a two-function program); then each file of it in turn
# is replaced by each plant, and each tool and output mode runs on it:
#
#   plants:  a FIFO (no writer), a character device, a directory, a link to
#            a victim's file, a link to /dev/zero, a 64 GiB sparse file,
#            garbage holding ESC, BEL, C1 controls and invalid UTF-8, empty
#   tools:   opreport (default, -l, -c, --stacks, --folded, --pprof,
#            --flame), opannotate (-a, -s -o), oparchive -o, opgprof, and
#            opreport archive: of an archive planted the same way;
#            opreport --stream, opwatch -P and ocount/operf's output paths
#            against the same plants; output directories with links planted
#            at every top component of what the tools write
#
# Every run must end within LIMIT seconds (a hang is killed and counted),
# never die of a signal, never print a sanitizer report, never write
# outside its output directory (a victim directory is fingerprinted before
# and after every run, and nothing new may appear elsewhere in $tmp), and
# never print a raw ESC, BEL or C1 control (0x9b, \xc2\x9b) that the
# plants hold. The figures are printed as notes; any finding fails.
#
# CAMPAIGN_BUILD=DIR runs the tools of another build (say an ASan build).
. "${abs_top_srcdir:?}/tests/lib/test-lib.sh"
B=${CAMPAIGN_BUILD:-$abs_top_builddir}
LIMIT=${CAMPAIGN_LIMIT:-20}
OPREPORT=$B/pp/opreport
OPANNOTATE=$B/pp/opannotate
OPARCHIVE=$B/pp/oparchive
OPGPROF=$B/pp/opgprof
OPERF=$B/utils/operf
OPWATCH=$B/utils/opwatch
OCOUNT=$B/utils/ocount

[ "$(id -u)" -eq 0 ] || skip "the campaign records a real session and needs root"
msg=$("$abs_top_builddir/tests/control/perfprobe") || skip "$msg"
command -v mkfifo >/dev/null && command -v mknod >/dev/null || skip "no mkfifo/mknod"

test_tmpdir hostile
V=$tmp/victim             # what no run may change
O=$tmp/out                # each run's output directory (made anew)
W=$tmp/work               # the planted copy of the session
P=$tmp/plants             # planted streams and binaries
export TMPDIR=$tmp/tmpdir # a tool's temporary files stay in $tmp
mkdir -p "$V/dir" "$TMPDIR" "$P"
echo precious >"$V/precious"
echo precious >"$V/dir/file"

# --- the session: a real -g recording of a program with two hot functions
cat >"$tmp/hot.c" <<'EOF'
#include <stdio.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void leaf_a(void)
{ for (unsigned long i = 0; i < 30000000; i++) sink += i; }
__attribute__((noinline)) static void leaf_b(void)
{ for (unsigned long i = 0; i < 15000000; i++) sink ^= i; }
int main(void) { leaf_a(); leaf_b(); printf("%lu\n", sink); return 0; }
EOF
${CC:-cc} -O1 -g -fno-omit-frame-pointer -o "$tmp/hot" "$tmp/hot.c" || bail "cannot compile hot.c"
# recorded and archived by this build's tools; CAMPAIGN_BUILD's are attacked
(cd "$tmp" && "$abs_top_builddir/utils/operf" -g -d "$tmp/sd" --record-stream="$tmp/stream" ./hot) \
	>"$tmp/operf.out" 2>&1 || { cat "$tmp/operf.out"; bail "operf failed"; }
"$abs_top_builddir/pp/opreport" --session-dir="$tmp/sd" -l >"$tmp/base.txt" 2>&1 ||
	{ cat "$tmp/base.txt"; bail "opreport on the clean session failed"; }
grep -q leaf_a "$tmp/base.txt" || { cat "$tmp/base.txt"; bail "the clean session has no leaf_a"; }
"$abs_top_builddir/pp/oparchive" --session-dir="$tmp/sd" -o "$tmp/arch" >/dev/null 2>&1 ||
	bail "oparchive failed"
test_ok "a real -g session of hot recorded, reported and archived"

# garbage: lines with escapes, C1 controls, invalid UTF-8, NULs
garbage() {
	printf 'x\033]0;pwned\007y\033[2J\n\2330;31m\302\233z\n\377\376\300\257\n'
	printf '/tmp/\033[31mred 0 1 2 3\n'
	head -c 2048 /dev/urandom
	printf '\n%s\n' "$(head -c 300 /dev/zero | tr '\0' A)"
}

fingerprint() {
	find "$V" -printf '%p %y %s %T@ %m\n' | sort | md5sum
}
victim_print=$(fingerprint)
: >"$tmp/stamp"

runs=0 hangs=0 crashes=0 san=0 outside=0 escapes=0 slow=0
findings=$tmp/findings
: >"$findings"

# finding WHAT: a run broke a rule (listed at the end, and the test fails)
finding() {
	echo "$*" >>"$findings"
}

# run LABEL CMD...: one run under the limit, its output in $O.out/$O.err,
# judged by every rule above
run() {
	local label=$1 rc t0 t1 new
	shift
	runs=$((runs + 1))
	t0=$(date +%s%N)
	(cd "$O" && exec timeout -k 5 "$LIMIT" "$@") >"$O.out" 2>"$O.err" </dev/null
	rc=$?
	t1=$(date +%s%N)
	[ $(( (t1 - t0) / 1000000 )) -gt "$slow" ] && slow=$(( (t1 - t0) / 1000000 ))
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		hangs=$((hangs + 1))
		finding "hang ($LIMIT s): $label"
	elif [ "$rc" -ge 128 ]; then
		crashes=$((crashes + 1))
		finding "signal $((rc - 128)): $label"
	fi
	if grep -qE 'Sanitizer|runtime error:' "$O.err"; then
		san=$((san + 1))
		finding "sanitizer: $label: $(grep -m1 -E 'Sanitizer|runtime error:' "$O.err")"
	fi
	if LC_ALL=C grep -q $'\033\|\007\|\233' "$O.out" "$O.err"; then
		escapes=$((escapes + 1))
		finding "raw control printed: $label"
	fi
	if [ "$(fingerprint)" != "$victim_print" ]; then
		outside=$((outside + 1))
		finding "victim changed: $label"
		rm -rf "$V" && mkdir -p "$V/dir" && echo precious >"$V/precious" &&
			echo precious >"$V/dir/file"
		victim_print=$(fingerprint)
	fi
	new=$(find "$tmp" \( -path "$O" -o -path "$W" -o -path "$TMPDIR" -o -path "$V" \
		-o -path "$P" \) -prune \
		-o -newer "$tmp/stamp" -print | grep -v -e "^$O\.\(out\|err\)$" -e "^$tmp/findings$" \
		-e "^$tmp$" | head -3)
	if [ -n "$new" ]; then
		outside=$((outside + 1))
		finding "wrote outside its directory: $label: $new"
	fi
	: >"$tmp/stamp"
	rm -rf "$O"
	mkdir -p "$O"
	rm -rf "${TMPDIR:?}"/*
}

# plant KIND FILE: replace FILE by what an attacker leaves there
plant() {
	local kind=$1 f=$2
	rm -rf "$f"
	mkdir -p "$(dirname "$f")"
	case $kind in
	fifo) mkfifo "$f" ;;
	chardev) mknod "$f" c 1 5 ;;	# /dev/zero's numbers
	dir) mkdir "$f" ;;
	link-victim) ln -s "$V/precious" "$f" ;;
	link-zero) ln -s /dev/zero "$f" ;;
	huge) truncate -s 64G "$f" ;;
	garbage) garbage >"$f" ;;
	empty) : >"$f" ;;
	esac
	# planted by another user (nobody): a link of root's own, as
	# /dev/stdout, a tool may follow
	chown -h 65534:65534 "$f"
}
KINDS="fifo chardev dir link-victim link-zero huge garbage empty"

# every tool and output mode on the session in $1
report_all() {
	local sd=$1 what=$2
	run "opreport $what" "$OPREPORT" --session-dir="$sd"
	run "opreport -l $what" "$OPREPORT" --session-dir="$sd" -l
	run "opreport -c $what" "$OPREPORT" --session-dir="$sd" -c
	run "opreport --stacks $what" "$OPREPORT" --session-dir="$sd" --stacks
	run "opreport --folded $what" "$OPREPORT" --session-dir="$sd" --folded
	run "opreport --pprof $what" "$OPREPORT" --session-dir="$sd" --pprof="$O/p.pb.gz"
	run "opreport --flame $what" "$OPREPORT" --session-dir="$sd" --flame="$O/f.html"
	run "opannotate -a $what" "$OPANNOTATE" --session-dir="$sd" -a
	run "opannotate -s -o $what" "$OPANNOTATE" --session-dir="$sd" -s -o "$O/ann"
	run "oparchive -o $what" "$OPARCHIVE" --session-dir="$sd" -o "$O/arch"
	run "opgprof $what" "$OPGPROF" --session-dir="$sd" -o "$O/gmon.out" "$tmp/hot"
}

mkdir -p "$O"
# --- 1. each file of the session replaced by each plant
files=$(cd "$tmp/sd" && find samples -type f -not -path "*/stats/*" \( -path "*/session/*" -o -path "*/stacks/*" -o -path "*hot*" \) | sort)
for f in $files session/kallsyms.gz session/session.conf; do
	case $f in session/*) f=samples/current/$f ;; esac
	for kind in $KINDS; do
		rm -rf "$W"
		cp -a "$tmp/sd" "$W"
		plant "$kind" "$W/$f"
		report_all "$W" "[$kind at ${f#samples/current/}]"
	done
done
test_note "session plants: $(echo $files | wc -w) files x $(echo $KINDS | wc -w) plants"

# --- 2. the same plants inside an archive, read as archive:DIR
afiles=$(cd "$tmp/arch" && find . -type f -path '*samples*' -not -path '*/stats/*' | sort)
for f in $afiles; do
	for kind in $KINDS; do
		rm -rf "$W"
		cp -a "$tmp/arch" "$W"
		plant "$kind" "$W/$f"
		run "opreport archive: [$kind at $f]" "$OPREPORT" "archive:$W" -l --session-dir="$tmp/sd"
		run "opreport archive: --stacks [$kind at $f]" "$OPREPORT" "archive:$W" --stacks --session-dir="$tmp/sd"
	done
done
# the archived binaries themselves
bins=$(cd "$tmp/arch" && find . -type f -name hot | sort)
for f in $bins; do
	for kind in $KINDS; do
		rm -rf "$W"
		cp -a "$tmp/arch" "$W"
		plant "$kind" "$W/$f"
		run "opreport archive: -l [$kind at binary $f]" "$OPREPORT" "archive:$W" -l --session-dir="$tmp/sd"
	done
done

# --- 3. output directories with a link to the victim at each top component
rm -rf "$W"
cp -a "$tmp/sd" "$W"
for tool in ann arch; do
	for top in tmp usr proc var work lib root; do
		pre=$P/pre
		rm -rf "$pre"
		mkdir -p "$pre/$tool"
		ln -s "$V/dir" "$pre/$tool/$top"
		chown -h 65534:65534 "$pre/$tool/$top"
		if [ "$tool" = ann ]; then
			run "opannotate -s -o with $tool/$top -> victim" \
				"$OPANNOTATE" --session-dir="$W" -s -o "$pre/$tool"
		else
			run "oparchive -o with $tool/$top -> victim" \
				"$OPARCHIVE" --session-dir="$W" -o "$pre/$tool"
		fi
	done
done
rm -rf "$P/pre"
# the output file itself planted
for kind in fifo chardev link-victim; do
	plant "$kind" "$O/p.pb.gz"
	run "opreport --pprof onto [$kind]" "$OPREPORT" --session-dir="$W" --pprof="$O/p.pb.gz"
	plant "$kind" "$O/f.html"
	run "opreport --flame onto [$kind]" "$OPREPORT" --session-dir="$W" --flame="$O/f.html"
	plant "$kind" "$O/gmon.out"
	run "opgprof -o onto [$kind]" "$OPGPROF" --session-dir="$W" -o "$O/gmon.out" "$tmp/hot"
done

# --- 4. the recorded stream, and a stream replaced by each plant
run "opreport --stream" "$OPREPORT" --stream="$tmp/stream" -l
for kind in $KINDS; do
	plant "$kind" "$P/stream"
	run "opreport --stream [$kind]" "$OPREPORT" --stream="$P/stream" -l
	run "opreport --stream --folded [$kind]" "$OPREPORT" --stream="$P/stream" --folded
done

# --- 5. opwatch's binary, and the session directory of operf
for kind in $KINDS; do
	plant "$kind" "$P/bin"
	run "opwatch -P [$kind]:main" "$OPWATCH" -P "$P/bin:main" -- /bin/true
done
for sub in samples samples/current samples/current/session samples/current/stacks; do
	rm -rf "$W"
	mkdir -p "$(dirname "$W/$sub")"
	ln -s "$V/dir" "$W/$sub"
	chown -h 65534:65534 "$W/$sub"
	run "operf -d with $sub -> victim" "$OPERF" -d "$W" /bin/true
done

test_note "runs: $runs; hangs past ${LIMIT} s: $hangs; killed by a signal: $crashes;" \
	"sanitizer reports: $san; writes outside: $outside; raw controls printed: $escapes;" \
	"slowest run: $slow ms"
if [ -s "$findings" ]; then
	sort "$findings" | uniq -c | sort -rn | head -60 | sed 's/^/# /'
	test_not_ok "the campaign found $(wc -l <"$findings") broken rules in $runs runs"
else
	test_ok "$runs runs: 0 hangs, 0 crashes, 0 sanitizer reports, 0 writes outside, 0 raw controls"
fi
test_done
