#!/bin/sh
# debuginfod servers that misbehave (dind_hostile.py: one that never lets
# a connection complete, one that accepts and never answers, one that
# trickles, 300 MB answers, endless headers, answers that are not the
# wanted debug file) and a debuginfod cache with FIFOs and symbolic
# links in it: opreport -l ends within the limits
# (DEBUGINFOD_TIMEOUT, DEBUGINFOD_MAXTIME, DEBUGINFOD_MAXSIZE, set or by
# default), writes no more than the size limit (and one burst of reads),
# names what it refused, leaves no bad download in the cache and writes
# nowhere else, and its report still has the binary's own symbols.
#
# Every opreport runs under timeout -s KILL and prlimit --fsize, so a
# hang or an unbounded download fails the test instead of hanging it.
# The servers listen on loopback in a network namespace of the test's
# own (unshare -n), as t2012's debuginfod does.
if [ -z "${PP_T0031_NETNS:-}" ] && [ "$(id -u)" = 0 ] &&
	command -v ip >/dev/null && unshare -n true 2>/dev/null; then
	PP_T0031_NETNS=1 exec unshare -n sh "$0" "$@"
fi
. "$SRCDIR/tests/lib.sh"

[ -n "${PP_T0031_NETNS:-}" ] ||
	skip "needs root, ip and unshare -n (a network namespace of its own)"
command -v python3 >/dev/null || skip "needs python3"
command -v prlimit >/dev/null || skip "needs prlimit (util-linux)"
ip link set lo up || bail "cannot bring up lo"
unset DEBUGINFOD_URLS DEBUGINFOD_TIMEOUT DEBUGINFOD_MAXTIME \
	DEBUGINFOD_MAXSIZE DEBUGINFOD_PROGRESS DEBUGINFOD_VERBOSE \
	DEBUGINFOD_RETRY_LIMIT DEBUGINFOD_CACHE_PATH
export OPROFILE_DEBUG_DIRS="$tmp/nodebug"
MIB=1048576

# Its symbols but no DWARF: opreport asks for its debug file.
build funcs.c prog.full
prog=$tmp/prog
strip -p --strip-debug -o "$prog" "$tmp/prog.full" || bail strip
"$MKSAMPLE" "$(sfile "$prog" "$prog")" --mtime-of "$prog" \
	"$(symoff "$prog" alpha)=70" "$(symoff "$prog" alpha 9)=5" \
	"$(symoff "$prog" beta)=30" || fail mksample
id=$(build_id_of "$prog")
[ -n "$id" ] || bail "the compiler wrote no build-id"

# The answers: the right debug file, and four that are not.
cd "$tmp" || bail "no $tmp"
objcopy --only-keep-debug prog.full good.debug || bail objcopy
printf 'not an ELF file\n' >garbage.answer
$CC -O1 -g -fno-inline -DOTHER_BUILD=1 -o other "$SRCDIR/tests/funcs.c" \
	-Wl,--build-id=0x1234 || bail "other build"
objcopy --only-keep-debug other other.debug || bail objcopy
# a second program of the session without DWARF, for one lookup after
# another
strip -p --strip-debug -o other2 other || bail strip
"$MKSAMPLE" "$(sfile "$tmp/other2" "$tmp/other2")" --mtime-of other2 \
	"$(symoff other2 beta)=10" || fail mksample
head -c 3000 good.debug >truncated.debug
objcopy --remove-section .note.gnu.build-id good.debug noid.debug ||
	bail objcopy

mkdir srv out
timeout 300 python3 "$SRCDIR/tests/dind_hostile.py" "$tmp/srv" \
	8101=hang 8102=trickle 8103=big 8104=biglen 8105=file:garbage.answer \
	8106=file:other.debug 8107=file:truncated.debug \
	8108=file:noid.debug 8109=file:good.debug 8110=headers 8111=syn \
	>srv/log 2>&1 &
srv=$!
test_cleanup_hook() { kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null; }
wait_for test -e srv/ready || { cat srv/log; bail "the servers did not start"; }

# dind NAME PORT SECS [VAR=VALUE...]: opreport $ARGS (default -l
# image:prog) asking only the server at PORT, with the cache c.NAME and the variables
# given, killed after SECS, its file size limited to $FSIZE bytes
# (default 16 MiB); in out/: its report in NAME, messages in NAME.err,
# exit status in NAME.rc, whole seconds taken in NAME.secs.
dind() {
	local name=$1 port=$2 secs=$3 t0
	shift 3
	t0=$(date +%s)
	env DEBUGINFOD_URLS="http://127.0.0.1:$port" \
		DEBUGINFOD_CACHE_PATH="$tmp/c.$name" "$@" \
		prlimit --fsize="${FSIZE:-$((16 * MIB))}" \
		timeout -s KILL "$secs" "$OPREPORT" --session-dir="$SD" \
		${ARGS:--l image:"$prog"} >"out/$name" 2>"out/$name.err"
	echo "$?" >"out/$name.rc"
	echo $(($(date +%s) - t0)) >"out/$name.secs"
}

# ended NAME MAX: NAME's opreport exited 0 within MAX s with alpha's
# samples under the binary's own symbol
within() { [ "$(cat "out/$1.rc")" = 0 ] && [ "$(cat "out/$1.secs")" -le "$2" ]; }
ended() {
	test_expect "$1: opreport exits 0 within $2 s (status $(cat "out/$1.rc"), $(cat "out/$1.secs") s)" \
		within "$1" "$2"
	test_expect "$1: the report has alpha" grep -Eq '^75 .* alpha$' "out/$1"
}
# says NAME REGEX: NAME's messages have a line matching REGEX
says() {
	if grep -Eq -- "$2" "out/$1.err"; then
		test_ok "$1: says /$2/"
	else
		sed 's/^/# /' "out/$1.err"
		test_not_ok "$1: says /$2/"
	fi
}
# no_cached NAME: no download is left in the cache c.NAME (libdebuginfod's
# empty files that remember a miss may be)
no_cached() {
	test_expect "$1: no download left in the cache" \
		[ -z "$(find "c.$1" -mindepth 2 -type f -size +0c 2>/dev/null)" ]
}
maxsent() { sort -n "srv/sent.$1" 2>/dev/null | tail -1; }
nb='cannot fetch the debug file of build-id '$id' from debuginfod'

# (a) by default, a server that never answers costs at most 30 s: in
# the background while the cases below run
dind hang_default 8101 70 &
bg=$!

# (a) accepts and never answers, DEBUGINFOD_TIMEOUT=2
dind hang 8101 40 DEBUGINFOD_TIMEOUT=2
ended hang 8
says hang "$nb: less than 100 KiB in 2 s \(DEBUGINFOD_TIMEOUT\); debuginfod is not asked again"
test_expect "hang: not remembered as a miss (a longer limit asks again)" \
	[ ! -e "c.hang/$id/debuginfo" ]

# a connect that never ends (SYNs unanswered), DEBUGINFOD_TIMEOUT=2
dind syn 8111 40 DEBUGINFOD_TIMEOUT=2
ended syn 8
says syn "$nb: less than 100 KiB in 2 s \(DEBUGINFOD_TIMEOUT\)"

# one time limit hit, the next image's lookup does not wait again
ARGS=-l dind hang_two 8101 40 DEBUGINFOD_TIMEOUT=2
ended hang_two 8
test_expect "hang_two: one lookup timed out, the other not tried" \
	[ "$(grep -c 'cannot fetch' out/hang_two.err)" = 1 ]

# (b) trickles 200 B/s: DEBUGINFOD_TIMEOUT=2 (100 KiB within it), then
# no such limit but DEBUGINFOD_MAXTIME=3
dind trickle 8102 40 DEBUGINFOD_TIMEOUT=2
ended trickle 8
says trickle "$nb: less than 100 KiB in 2 s \(DEBUGINFOD_TIMEOUT\)"
dind trickle_maxtime 8102 40 DEBUGINFOD_TIMEOUT=0 DEBUGINFOD_MAXTIME=3
ended trickle_maxtime 9
test_expect "trickle_maxtime: not remembered as a miss" \
	[ ! -e "c.trickle_maxtime/$id/debuginfo" ]
says trickle_maxtime "$nb: not complete in 3 s \(DEBUGINFOD_MAXTIME\)"

# (c) 300 MB without a length, DEBUGINFOD_MAXSIZE=1000000: stopped after
# at most one burst of reads past it (libcurl's: 1.6 MB), so no file of
# opreport's grows past 1000000 + 4 MiB (else SIGXFSZ kills it)
FSIZE=$((1000000 + 4 * MIB)) dind big 8103 40 DEBUGINFOD_MAXSIZE=1000000
ended big 20
says big "$nb: larger than 1000000 bytes \(DEBUGINFOD_MAXSIZE\)"
no_cached big
test_expect "big: the server got under 64 MiB away ($(maxsent 8103) bytes)" \
	[ "$(maxsent 8103)" -lt $((64 * MIB)) ]
# by default: 256 MiB; refused at once when announced (no file past
# 16 MiB), stopped past it when not (none past 256 + 16 MiB)
dind biglen 8104 40
ended biglen 20
says biglen "$nb: larger than 268435456 bytes \(DEBUGINFOD_MAXSIZE\)"
no_cached biglen
FSIZE=$((272 * MIB)) dind big_default 8103 60
ended big_default 40
says big_default "$nb: larger than 268435456 bytes \(DEBUGINFOD_MAXSIZE\)"
no_cached big_default

# headers without end: libcurl stops them (300 KiB), nothing is kept
dind headers 8110 40
ended headers 10
no_cached headers

# (d) answers that are not the debug file: named, not used, removed
for c in garbage:8105:'file format not recognized' \
	other:8106:"its build-id 1234 is not the binary's $id" \
	truncated:8107:'file (format not recognized|truncated)' \
	noid:8108:'it has no build-id'; do
	name=${c%%:*} port=${c#*:} why=${c#*:*:}
	port=${port%%:*}
	dind "$name" "$port" 20
	ended "$name" 10
	says "$name" "debug file '$tmp/c.$name/$id/debuginfo' not used: $why"
	says "$name" "removed '$tmp/c.$name/$id/debuginfo' from debuginfod's cache"
	no_cached "$name"
done

# the right file is used (its line numbers), kept; a limit that is not a
# number is named and the default used
ARGS="-l -g image:$prog" dind good 8109 20 DEBUGINFOD_TIMEOUT=abc
ended good 10
test_expect "good: alpha with its line from the debug file" \
	grep -Eq '^75 .*funcs\.c:[0-9]+ +alpha$' out/good
says good "DEBUGINFOD_TIMEOUT 'abc' is not a number: 30 used"
test_expect "good: kept in the cache" cmp -s good.debug "c.good/$id/debuginfo"

# A cache with a FIFO, a symbolic link for the build-id's directory, for
# its file and for a control file: no hang, nothing written elsewhere.
mkdir -p "c.fifo/$id" "c.flink/$id" c.ctl elsewhere
mkfifo "c.fifo/$id/debuginfo"
mkdir c.dlink2 && ln -s "$tmp/elsewhere" "c.dlink2/$id"
printf 'secret\n' >secret
ln -s "$tmp/secret" "c.flink/$id/debuginfo"
ln -s "$tmp/victim" c.ctl/cache_clean_interval_s
dind fifo 8109 20
ended fifo 10
says fifo "debuginfod cache entry '$tmp/c.fifo/$id/debuginfo' is a FIFO, not a regular file: debuginfod not asked for build-id $id"
dind dlink2 8109 20
ended dlink2 10
says dlink2 "debuginfod cache entry '$tmp/c.dlink2/$id' is a symbolic link, not a directory"
test_expect "dlink2: nothing written where the link points" \
	[ -z "$(ls -A elsewhere)" ]
dind flink 8109 20
ended flink 10
says flink "debuginfod cache entry '$tmp/c.flink/$id/debuginfo' is a symbolic link, not a regular file"
test_expect "flink: the link's target untouched" \
	[ "$(cat secret)" = secret ]
dind ctl 8109 20
ended ctl 10
says ctl "debuginfod cache entry '$tmp/c.ctl/cache_clean_interval_s' is a symbolic link, not a regular file: debuginfod not asked in this run"
test_expect "ctl: nothing created where the link points" [ ! -e victim ]

# A FIFO in place of a local debug file: named, no hang.
mkdir -p "fifodbg/.build-id/${id%"${id#??}"}"
mkfifo "fifodbg/.build-id/${id%"${id#??}"}/${id#??}.debug"
OPROFILE_DEBUG_DIRS=$tmp/fifodbg dind local_fifo 1 20
ended local_fifo 10
says local_fifo "debug file '$tmp/fifodbg/.build-id/${id%"${id#??}"}/${id#??}.debug' not used: not a regular file"

wait "$bg"
ended hang_default 60
says hang_default "$nb: less than 100 KiB in 30 s \(DEBUGINFOD_TIMEOUT\)"
test_done
