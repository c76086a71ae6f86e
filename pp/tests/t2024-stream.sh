#!/bin/sh
# opreport --stream on streams written word by word (tests/mkstream), no
# sampling needed (tests/control/t1023 records a real one):
# - the disk it takes: a stream of 20,000 binaries of one sample each
#   (2 MB) replays in memory, not into 20,000 sample files (each a page
#   and a directory per component of its path: 630 MB);
# - its temporary directory goes however opreport ends: SIGTERM, SIGHUP,
#   SIGKILL mid-way, an error;
# - every output mode reads the stream (-l, -c, -X, --folded, --stacks,
#   --pprof read back by go tool pprof, --flame, --processes,
#   --timeline), or is refused with exit 2 and why; --stream=- a pipe;
# - hostile streams: truncated, huge claimed sizes, escape bytes and ..
#   in names, a FIFO, a directory, a device.
. "$SRCDIR/tests/lib.sh"
: "${MKSTREAM:?}"

build funcs.c prog
prog=$tmp/prog
o() { symoff "$@"; }
A=$(o "$prog" alpha 4) B=$(o "$prog" beta 2) G=$(o "$prog" gamma_fn 2)
M=$(o "$prog" main 9)

# mkstream FILE ITEM...: fail if it cannot
mkstream() { "$MKSTREAM" "$@" || fail "mkstream $*"; }
# tmpdir_of NAME: an empty directory for opreport's TMPDIR
tmpdir_of() { mkdir "$tmp/$1" && echo "$tmp/$1"; }
# empty DIR: nothing in it (the temporary session is gone)
empty() { [ -z "$(ls -A "$1")" ]; }
not_empty() { ! empty "$1"; }

# --- every output mode on a stream with stacks and time codes ----------
# alpha 3 (2 stacks through main), beta 1 (a stack) + 5, gamma_fn 2
mkstream "$tmp/s.ops" cpu=0 "task=100,100,$prog" user time=1000000 \
	"trace=$A@$prog,$M@$prog" "trace=$A@$prog,$M@$prog" \
	"trace=$B@$prog,$M@$prog" time=2000000 "in=$prog" "sample=$B*5" \
	"sample=$A" time=3000000 "sample=$G*2"
T=$(tmpdir_of t)
rs() { TMPDIR=$T "$OPREPORT" --stream="$tmp/s.ops" "$@"; }
# run_rs OUT ARGS...: opreport --stream ARGS into OUT; fail unless exit 0
run_rs() {
	out=$1
	shift
	rs "$@" >"$out" 2>"$out.err" ||
		{ cat "$out" "$out.err"; fail "opreport --stream $* failed"; }
}

run_rs "$tmp/l" -l
check_eq "$(report_samples "$tmp/l" prog beta)/$(report_samples "$tmp/l" prog alpha)/$(report_samples "$tmp/l" prog gamma_fn)" \
	6/3/2 "-l: beta 6, alpha 3, gamma_fn 2 samples"
run_rs "$tmp/c" -c
check_grep "$tmp/c" '^ +2 +[0-9.]+ +alpha$' "-c: main calls alpha twice"
run_rs "$tmp/x" -X
check_grep "$tmp/x" '<options session="[^"]*s\.ops"' "-X: the session is the stream, not a removed directory"
check_grep "$tmp/x" 'name="beta"' "-X: the symbols"
if command -v xmllint >/dev/null 2>&1; then
	test_expect "-X: well-formed XML" xmllint --noout "$tmp/x"
fi
run_rs "$tmp/folded" --folded
sort "$tmp/folded" >"$tmp/folded.s"
printf '%s\n' 'prog;[unwinding stopped: fp_chain_end];main;alpha 2' \
	'prog;[unwinding stopped: fp_chain_end];main;beta 1' >"$tmp/want"
diff -u "$tmp/want" "$tmp/folded.s" || fail "--folded: the stream's stacks"
test_ok "--folded: the stream's two paths"
run_rs "$tmp/stacks" --stacks
check_grep "$tmp/stacks" '3 samples, 2 stacks' "--stacks: the stream's stacks"
run_rs "$tmp/pp" --pprof="$tmp/prof.pb.gz"
test_expect "--pprof writes a gzip file" gzip -t "$tmp/prof.pb.gz"
if command -v go >/dev/null 2>&1; then
	export GOCACHE=$tmp/gocache GOPATH=$tmp/gopath GOFLAGS=-mod=mod \
		GOPROXY=off GOTOOLCHAIN=local HOME=$tmp PPROF_TMPDIR=$tmp/pprof
	go tool pprof -top -symbolize=none -sample_index=samples \
		"$tmp/prof.pb.gz" >"$tmp/top" 2>"$tmp/top.err" ||
		{ cat "$tmp/top.err"; fail "go tool pprof cannot read the profile"; }
	awk '$1 ~ /^[0-9]+$/ && $1 > 0 { print $6, $1 }' "$tmp/top" | sort >"$tmp/top.flat"
	printf 'alpha 2\nbeta 1\n' >"$tmp/want"
	diff -u "$tmp/want" "$tmp/top.flat" || fail "go tool pprof -top"
	test_ok "go tool pprof -top reads the stream's stacks"
fi
run_rs "$tmp/fl" --flame="$tmp/flame.html"
check_grep "$tmp/flame.html" 'alpha' "--flame writes the page with the stream's symbols"
run_rs "$tmp/ps" --processes
check_grep "$tmp/ps" '^ +100 prog +11 ' "--processes: the stream's one process, 11 samples"
run_rs "$tmp/tl" --timeline=1
check_grep "$tmp/tl" '^ +total +11 ' "--timeline: 11 samples"
run_rs "$tmp/w" -l --time=0,0.0005
check_eq "$(report_samples "$tmp/w" prog alpha)/$(report_samples "$tmp/w" prog beta)" 2/1 \
	"--time: the first time code's samples only (alpha 2, beta 1)"
# --stream=-: a pipe, copied (read twice as a file is)
cat "$tmp/s.ops" | TMPDIR=$T "$OPREPORT" --stream=- -l >"$tmp/pipe" 2>"$tmp/pipe.err" ||
	{ cat "$tmp/pipe.err"; fail "--stream=- failed"; }
cmp -s "$tmp/pipe" "$tmp/l" || { diff "$tmp/l" "$tmp/pipe"; fail "--stream=- reports otherwise"; }
test_ok "--stream=- reads a pipe: the file's report"
head -c 100 "$tmp/s.ops" | TMPDIR=$T "$OPREPORT" --stream=- >"$tmp/pipe" 2>&1
check_eq "$?" 1 "--stream=- of a cut stream fails"
check_grep "$tmp/pipe" "stream file 'standard input' ends with a partial word" "and says where"
wait_for empty "$T" || fail "the reports left '$(ls "$T")' in TMPDIR"
test_ok "the reports leave nothing in TMPDIR"

# refused: what has no meaning for a stream, exit 2 and why
# refused ARGS...: opreport --stream ARGS exits 2 and says why
refused() {
	rs "$@" >"$tmp/r" 2>&1
	rc=$?
	[ "$rc" -eq 2 ] || { cat "$tmp/r"; fail "--stream $*: exit $rc, not 2"; }
	grep -q 'error:' "$tmp/r" || { cat "$tmp/r"; fail "--stream $*: no error said"; }
	test_ok "--stream $*: refused ($(grep -m1 'error:' "$tmp/r" | cut -c1-70)...)"
}
refused -l "{" image:x "}" "{" image:y "}"
refused --session-dir="$tmp"
refused --since=2020-01-01T00
refused -l session:current
refused -l archive:"$tmp"
refused --timeline=1 --folded
refused --timeline=1 --output-file="$tmp/o"
refused --folded -c
refused --pprof="$tmp/p.gz" -X
refused --stacks=nobody
refused --processes -X
# refused before the replay: no temporary session was ever made
empty "$T" || fail "a refusal left '$(ls "$T")' in TMPDIR"
test_ok "the refusals leave nothing in TMPDIR"

# --- TMPDIR: a many-binary stream replays in memory ------------------
# Each binary: a definition, a switch, a sample (about 13 words). Into
# sample files each costs a page and its path's directories (630 MB for
# 2 MB); in memory only the session's own files are written (the kernel
# symbols, copied here as in any session: the one-binary baseline), plus
# one line of build-ids per binary. The bound, 20 times the stream over
# the baseline, leaves room for such per-binary lines and none for a
# file per binary (a page each is 40 times a 100-byte record).
mkstream "$tmp/one.ops" cpu=0 "task=1,1,/opt/s/app" user many=1,/opt/s/bin/p
mkstream "$tmp/many.ops" cpu=0 "task=1,1,/opt/s/app" user many=20000,/opt/s/bin/p
size_kb=$(( $(wc -c <"$tmp/many.ops") / 1024 ))
# peak NAME STREAM BOUND_KB: $max, the most TMPDIR held (kB, du every
# 50 ms) while opreport reported STREAM; stopped (and the test failed)
# past BOUND_KB, so that a failure does not fill the disk
peak() {
	P=$(tmpdir_of "$1")
	TMPDIR=$P "$OPREPORT" --stream="$2" >"$tmp/$1.out" 2>&1 &
	pid=$!
	max=0
	while kill -0 "$pid" 2>/dev/null; do
		kb=$(du -sk "$P" 2>/dev/null | cut -f1)
		[ "${kb:-0}" -gt "$max" ] && max=$kb
		if [ "$max" -gt "$3" ]; then
			kill -TERM "$pid"
			wait "$pid"
			fail "opreport --stream '$2' held $max kB in TMPDIR, more than $3 kB"
		fi
		sleep 0.05
	done
	wait "$pid" || { cat "$tmp/$1.out"; fail "opreport --stream '$2' failed"; }
}
t0=$(date +%s)
peak base "$tmp/one.ops" 1000000
base=$max
peak many "$tmp/many.ops" $((base + 20 * size_kb))
many=$max
t1=$(date +%s)
test_ok "20,000 binaries, a $size_kb kB stream: TMPDIR peak $many kB, $base kB for one binary (bound $((base + 20 * size_kb)) kB), $((t1 - t0)) s"
check_eq "$(awk '$1 ~ /^[0-9]+$/ { n += $1 } END { print n + 0 }' "$tmp/many.out")" 20000 \
	"the 20,000 binaries' samples are all reported"

# --- the temporary directory goes however opreport ends ---------------
# killed SIG: stopped once its temporary session exists, so that SIG
# comes mid-way however fast the machine, then continued
killed() {
	K=$(tmpdir_of "kill-$1")
	# --default-signal: a run under nohup (SIGHUP ignored, inherited)
	# must not make opreport deaf to the signal this sends
	TMPDIR=$K env --default-signal "$OPREPORT" --stream="$tmp/many.ops" >/dev/null 2>&1 &
	pid=$!
	wait_for not_empty "$K" || fail "no temporary session appeared"
	kill -STOP "$pid"
	kill "-$1" "$pid"
	kill -CONT "$pid"
	wait "$pid"
	rc=$?
	[ "$rc" -gt 128 ] || fail "SIG$1: opreport exited $rc, not killed by it"
	# removed by the helper the moment opreport is gone
	wait_for empty "$K" || fail "SIG$1 left '$(ls "$K")' in TMPDIR"
	test_ok "SIG$1 mid-way: nothing left in TMPDIR"
}
killed TERM
killed HUP
killed KILL
E=$(tmpdir_of err)
TMPDIR=$E "$OPREPORT" --stream="$tmp/s.ops" -l --output-file="$tmp/no/such/dir" >"$tmp/e" 2>&1
check_eq "$?" 1 "an unwritable --output-file fails"
wait_for empty "$E" || fail "the failure left '$(ls "$E")' in TMPDIR"
test_ok "a failed report leaves nothing in TMPDIR"

# --- hostile streams -------------------------------------------------
H=$(tmpdir_of hostile)
# a 1 GB address space, unless opreport cannot start in one (ASan's
# shadow memory)
vlimit=1048576
(ulimit -v $vlimit && exec "$OPREPORT" --version) >/dev/null 2>&1 ||
	vlimit=unlimited
# hostile NAME WHAT: opreport on $tmp/NAME.ops under that limit exits 0
# or 1 (not a signal), leaving nothing behind
hostile() {
	(ulimit -v $vlimit; TMPDIR=$H exec "$OPREPORT" --stream="$tmp/$1.ops" -l) \
		>"$tmp/$1.out" 2>&1
	rc=$?
	[ "$rc" -le 1 ] || { cat "$tmp/$1.out"; fail "$2: exit $rc"; }
	empty "$H" || fail "$2: left '$(ls "$H")' in TMPDIR"
	test_ok "$2: exit $rc, $(grep -m1 -o 'error: .*\|warning: .*' "$tmp/$1.out" | cut -c1-60)"
}
# the words of s.ops cut in the middle of a word, and of a record
head -c $(( $(wc -c <"$tmp/s.ops") - 3 )) "$tmp/s.ops" >"$tmp/cut.ops"
hostile cut "a stream cut mid-word"
check_grep "$tmp/cut.out" "cut.ops" "and the error names the file"
mkstream "$tmp/rec.ops" cpu=0 "task=1,1,$prog" user word=0xffffffffffffffff word=32 \
	word=7 word=100
hostile rec "a stream cut inside a COOKIE_DEF"
# a definition claiming 2^62 bytes of name, a switch to a cookie with a
# huge number, an ANON_DEF of a huge region and name, a trace of 2^40
# frames claimed by none
mkstream "$tmp/huge.ops" cpu=0 "task=1,1,$prog" user \
	word=0xffffffffffffffff word=32 word=9 word=0x4000000000000000 word=1 \
	word=0xffffffffffffffff word=3 word=0x7fffffffffffffff "sample=$A" \
	word=0xffffffffffffffff word=33 word=10 word=1 word=0 \
	word=0xfffffffffffffff0 word=0x4000000000000000 word=0x6e6f6e61 \
	word=0xffffffffffffffff word=40 word=0x10000000000 \
	"in=$prog" "sample=$A*3"
hostile huge "huge claimed sizes"
check_eq "$(report_samples "$tmp/huge.out" prog alpha)" 3 "the good samples after them are reported"
# escape bytes and a newline in binary names: reported; a name with ..
# makes no sample file (the daemon's rule, said in a warning)
esc=$(printf '/tmp/a\033[31mred\nline')
mkstream "$tmp/esc.ops" cpu=0 "task=1,1,$esc" user "in=$esc" "sample=0x10*4" \
	"in=/x/$(printf '\001\177\377')" "sample=0x20*2" \
	"in=/tmp/../../../etc/evil" "sample=0x30*3"
hostile esc "escape bytes, a newline and .. in names"
check_eq "$(awk '/^[0-9]/ { n += $1 } END { print n + 0 }' "$tmp/esc.out")" 6 \
	"the 6 samples of the escaped names are reported"
check_grep "$tmp/esc.out" "evil.*'\.\.' path component" "the 3 under a .. name are dropped, and said"
[ ! -e /etc/evil ] || fail "a path outside TMPDIR was made"
# names too long for a sample file's path (4000 bytes; 1500 components)
long=/$(printf '%4000s' '' | tr ' ' a)
deep=/$(printf 'd/%.0s' $(seq 1500))x
mkstream "$tmp/long.ops" cpu=0 "task=1,1,$long" user "in=$long" "sample=0x10*3" \
	"in=$deep" "sample=0x20*2"
hostile long "names too long for a path"
check_grep "$tmp/long.out" "cannot name a sample file for '/d/d/d" "their samples are dropped, and said"
# not a regular file: a FIFO would hang opreport (it reads the stream twice)
mkfifo "$tmp/fifo.ops"
(sleep 5; exec 3>"$tmp/fifo.ops") 2>/dev/null &
opener=$!
hostile fifo "a FIFO"
kill "$opener" 2>/dev/null
check_grep "$tmp/fifo.out" "'.*fifo\.ops' is not a regular file" "a FIFO is refused, not read"
mkdir "$tmp/dir.ops"
hostile dir "a directory"
ln -s /dev/zero "$tmp/zero.ops"
hostile zero "/dev/zero"
check_grep "$tmp/zero.out" "not a regular file" "a device is refused"
test_done
