#!/bin/sh
# Separate debug info: a stripped binary whose debug file is found by
# build-id, by .gnu_debuglink, then only through a local debuginfod
# server gives the same opreport -l -g and opannotate -s as the binary
# built with -g; bad debug files and a corrupt ELF are warned about by
# name; libc6-dbg names libc's functions.
#
# The debuginfod server listens on every address of its network
# namespace: the test runs in a namespace of its own (unshare -n) whose
# only interface is loopback, and the server dies with the test.
if [ -z "${PP_T0012_NETNS:-}" ] && [ "$(id -u)" = 0 ] &&
	command -v ip >/dev/null && unshare -n true 2>/dev/null; then
	PP_T0012_NETNS=1 exec unshare -n sh "$0" "$@"
fi
. "$SRCDIR/tests/lib.sh"

unset DEBUGINFOD_URLS
export OPROFILE_DEBUG_DIRS="$tmp/nodebug"

build funcs.c prog
prog=$tmp/prog
cp -p "$prog" "$tmp/prog.full"
"$MKSAMPLE" "$(sfile "$prog" "$prog")" --mtime-of "$prog" \
	"$(symoff "$prog" alpha)=70" "$(symoff "$prog" alpha 9)=5" \
	"$(symoff "$prog" beta)=30" "$(symoff "$prog" gamma_fn 4)=12" ||
	fail mksample
# both reports of a case into OUT and OUT.ann
reports() {
	local out=$1
	run_report "$out" -l -g image:"$prog"
	"$OPANNOTATE" --session-dir="$SD" -s image:"$prog" >"$out.ann" 2>"$out.ann.err" ||
		{ cat "$out.ann.err"; fail "opannotate -s failed"; }
}
same() {  # same OUT WHAT: OUT's reports are the -g binary's
	check_eq "$(cat "$1")" "$(cat "$tmp/ref")" "$2: opreport -l -g"
	check_eq "$(cat "$1.ann")" "$(cat "$tmp/ref.ann")" "$2: opannotate -s"
}
reports "$tmp/ref"
cat "$tmp/ref"
check_grep "$tmp/ref.ann" 'alpha total: +75 ' "the -g binary: opannotate -s has alpha's total"
check_grep "$tmp/ref" '^75 .*funcs\.c:[0-9]+ +alpha$' "the -g binary: alpha with its line"

id=$(readelf -n "$prog" | awk '/Build ID:/ {print $3}')
[ -n "$id" ] || bail "the compiler wrote no build-id"
objcopy --only-keep-debug "$prog" "$tmp/prog.debug" || bail objcopy
id_dir=${id%"${id#??}"}
id_rest=${id#??}

# stripped, keeping its mtime (the samples' header records it)
strip_prog() {
	strip -p --strip-all -o "$prog" "$tmp/prog.full" || bail strip
	nm "$prog" 2>&1 | grep -q "no symbols" || bail "strip left symbols"
}

# --- by build-id
strip_prog
mkdir -p "$tmp/dbg/.build-id/$id_dir"
cp "$tmp/prog.debug" "$tmp/dbg/.build-id/$id_dir/$id_rest.debug"
OPROFILE_DEBUG_DIRS=$tmp/dbg reports "$tmp/byid"
same "$tmp/byid" "by build-id"
check_eq "$(cat "$tmp/byid.err")" "" "by build-id: no warning"

# --- by .gnu_debuglink, next to the binary and in its .debug/
objcopy -p --add-gnu-debuglink="$tmp/prog.debug" "$prog" || bail debuglink
reports "$tmp/link"
same "$tmp/link" "by debuglink next to the binary"
mkdir "$tmp/.debug"
mv "$tmp/prog.debug" "$tmp/.debug/prog.debug"
run_report "$tmp/link2" -l -g image:"$prog"
check_eq "$(cat "$tmp/link2")" "$(cat "$tmp/ref")" "by debuglink in .debug/"
mkdir -p "$tmp/dbg2$tmp"
mv "$tmp/.debug/prog.debug" "$tmp/dbg2$tmp/prog.debug"
OPROFILE_DEBUG_DIRS=$tmp/dbg2 run_report "$tmp/link3" -l -g image:"$prog"
check_eq "$(cat "$tmp/link3")" "$(cat "$tmp/ref")" "by debuglink under the debug dir"

# --- bad debug files: named, not used
printf 'x' >>"$tmp/dbg2$tmp/prog.debug"
OPROFILE_DEBUG_DIRS=$tmp/dbg2 run_report "$tmp/crc" -l image:"$prog"
check_grep "$tmp/crc.err" "debug file '$tmp/dbg2$tmp/prog.debug' not used: CRC" "a debug file with the wrong CRC is named"
check_grep "$tmp/crc" '(no symbols)|_start|->' "and not used"
mkdir -p "$tmp/bad/.build-id/$id_dir"
echo "not an ELF file" >"$tmp/bad/.build-id/$id_dir/$id_rest.debug"
OPROFILE_DEBUG_DIRS=$tmp/bad run_report "$tmp/corrupt" -l image:"$prog"
check_grep "$tmp/corrupt.err" "debug file '$tmp/bad/.build-id/$id_dir/$id_rest.debug' not used: file format not recognized" "a corrupt debug file is named"
$CC -O1 -g -fno-inline -DOTHER_BUILD=1 -o "$tmp/other" "$SRCDIR/tests/funcs.c" -Wl,--build-id=0x1234 || bail "other build"
objcopy --only-keep-debug "$tmp/other" "$tmp/bad/.build-id/$id_dir/$id_rest.debug"
OPROFILE_DEBUG_DIRS=$tmp/bad run_report "$tmp/mism" -l image:"$prog"
check_grep "$tmp/mism.err" "debug file '$tmp/bad/.build-id/$id_dir/$id_rest.debug' not used: its build-id 1234 is not the binary's $id" "a debug file of another build is named"

# --- only through debuginfod
if [ -z "${PP_T0012_NETNS:-}" ]; then
	test_note "debuginfod case skipped: needs root, ip and unshare -n"
elif ! command -v debuginfod >/dev/null || ! command -v debuginfod-find >/dev/null; then
	test_note "debuginfod case skipped: apt-get install debuginfod"
else
	ip link set lo up || bail "cannot bring up lo"
	strip_prog
	mkdir "$tmp/srv"
	objcopy --only-keep-debug "$tmp/prog.full" "$tmp/srv/prog.debug"
	timeout 120 debuginfod -F -p 8002 -d "$tmp/srv.sqlite" -t 0 -g 0 \
		"$tmp/srv" >"$tmp/srv.log" 2>&1 &
	srv=$!
	test_cleanup_hook() { kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null; }
	export DEBUGINFOD_URLS=http://127.0.0.1:8002 \
		DEBUGINFOD_CACHE_PATH="$tmp/cache" DEBUGINFOD_TIMEOUT=10
	served() {
		rm -rf "$tmp/probe"
		DEBUGINFOD_CACHE_PATH="$tmp/probe" debuginfod-find debuginfo \
			"$id" >/dev/null 2>&1
	}
	for _ in $(seq 60); do served && break; sleep 0.5; done
	served || { cat "$tmp/srv.log"; fail "debuginfod never served $id"; }
	reports "$tmp/dind"
	same "$tmp/dind" "from debuginfod"
	check_eq "$(find "$tmp/cache" -name debuginfo | wc -l)" "1" "debuginfod's cache holds the file"
	kill "$srv"
	wait "$srv" 2>/dev/null
	run_report "$tmp/dcache" -l -g image:"$prog"
	check_eq "$(cat "$tmp/dcache")" "$(cat "$tmp/ref")" "the server gone: from the cache"
	unset DEBUGINFOD_URLS
fi

# --- a corrupt ELF where the binary was (its mtime kept): named, no crash
head -c 3000 "$tmp/prog.full" >"$prog"
touch -r "$tmp/prog.full" "$prog"
"$OPANNOTATE" --session-dir="$SD" -s -a image:"$prog" >"$tmp/corrupt.ann" 2>"$tmp/corrupt.ann.err"
check_eq "$?" "0" "opannotate on a corrupt ELF: no crash"
check_grep "$tmp/corrupt.ann.err" "cannot read symbols of '$prog'" "the corrupt ELF is named"
run_report "$tmp/corrupt.rep" -l image:"$prog"
check_grep "$tmp/corrupt.rep" '^117 +100\.0000 +\(no symbols\)$' "its samples kept without symbols"

# --- libc's own names from libc6-dbg
libc=$(ldd "$prog" | awk '/libc\.so/ {print $3}')
libc=$(readlink -f "$libc")
lid=$(readelf -n "$libc" | awk '/Build ID:/ {print $3}')
ldbg=/usr/lib/debug/.build-id/${lid%"${lid#??}"}/${lid#??}.debug
if [ ! -f "$ldbg" ]; then
	test_note "libc6-dbg case skipped: no $ldbg (apt-get install libc6-dbg)"
else
	addr=$(nm "$ldbg" | awk '$3 == "__strlen_avx2" {print $1; exit}')
	[ -n "$addr" ] || bail "no __strlen_avx2 in $ldbg"
	set -- $(readelf -SW "$libc" | sed -n 's/^ *\[ *[0-9]*\] //p' | awk '$1 == ".text" {print $3, $4}')
	off=$(printf '0x%x' $((0x$addr - 0x$1 + 0x$2 + 4)))
	"$MKSAMPLE" "$(sfile "$prog" "$libc")" --mtime-of "$libc" "$off=9" || fail mksample
	unset OPROFILE_DEBUG_DIRS
	run_report "$tmp/libc" -l lib-image:"$libc"
	check_grep "$tmp/libc" '^9 .* __strlen_avx2$' "libc6-dbg: libc's own function name"
fi
test_done
