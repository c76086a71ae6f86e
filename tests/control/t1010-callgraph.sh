#!/bin/sh
# opcontrol --callgraph=DEPTH end to end (perf source, real sampling):
# the depth is checked (0..128, and the events' minimum counts are 15
# times higher with a callgraph, as ophelp --callgraph says), saved in
# daemonrc and session.conf, and the daemon writes {cg} files: copies of
# hot_main (hot_main_loop called from main) and hot_lib (main calling
# libhot.so's hot_lib_loop: an arc between two images), built with frame
# pointers, run while sampling at depth 8. Their arcs are read with
# sfrange --arcs against the ELF oracle's function ranges: >= 90 % of the
# arcs into each hot loop come from its main, and the loops' samples
# nearly all carry such an arc. The stats balance. opreport -c on the
# session shows main as hot_main_loop's caller (>= 90 % of its incoming
# arcs) and libhot.so's hot_lib_loop as a callee of hot_lib's main.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

W=$B/tests/workloads
cp "$W/hot_main" "$W/hot_lib" "$W/libhot.so" "$T/" || fail "cannot copy the workloads"
LD_LIBRARY_PATH=$T
export LD_LIBRARY_PATH
C=$S/samples/current
EV=CPU_CLOCK.1000000.0.all.all.all

step "--callgraph values and the 15x minimum count"
# refused: expect_refused WHAT MESSAGE-PART OPCONTROL-ARGS...
expect_refused() {
	what=$1 msg=$2
	shift 2
	ctl "$@" >"$T/out" 2>&1 && { cat "$T/out"; fail "$what was accepted"; }
	grep -q -- "$msg" "$T/out" || { cat "$T/out"; fail "$what: no '$msg' in the message"; }
	echo "refused, $what: $(cat "$T/out")"
}
expect_refused "--callgraph=abc" "invalid --callgraph depth 'abc'" --callgraph=abc
expect_refused "--callgraph=-1" "invalid --callgraph depth '-1'" --callgraph=-1
expect_refused "--callgraph=129" "use 0 (no backtraces) to 128" --callgraph=129
expect_refused "a count below 15 x the minimum" "below the minimum 150000 (15 x 10000 with --callgraph)" \
	--callgraph=8 --event=CPU_CLOCK:100000
# a saved event fine without a callgraph is checked again under one
ctl --event=CPU_CLOCK:100000 >"$T/out" 2>&1 || { cat "$T/out"; fail "CPU_CLOCK:100000 without a callgraph refused"; }
expect_refused "--callgraph=8 over a saved CPU_CLOCK:100000" "below the minimum 150000" --callgraph=8
grep -q '^callgraph=0$' "$S/daemonrc" || fail "a refused --callgraph was saved: $(cat "$S/daemonrc")"
ctl --callgraph=8 --event=CPU_CLOCK:1000000 >"$T/out" 2>&1 || { cat "$T/out"; fail "--callgraph=8 refused"; }
grep -q '^callgraph=8$' "$S/daemonrc" || fail "daemonrc lacks callgraph=8: $(cat "$S/daemonrc")"
ctl --status | grep -q '^Callgraph: 8$' || fail "--status does not show 'Callgraph: 8'"

step "--callgraph=8 --start: hot_main and hot_lib, 1.5 s CPU each"
ctl --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
grep -q '^callgraph=8$' "$C/session.conf" || fail "session.conf lacks callgraph=8"
"$T/hot_main" 1.5 & m=$!
"$T/hot_lib" 1.5 || fail "hot_lib failed"
wait $m || fail "hot_main failed"
ctl --dump || fail "--dump failed"
ctl --shutdown || fail "--shutdown failed"
"$SFCHECK" "$C" || fail "sample files fail the structural check"
stats_balance "$C"
arcs_written=$(counter "$C" cg_arcs_written)
echo "cg_arcs_written=$arcs_written"
[ "$arcs_written" -gt 0 ] || fail "no arcs written"

# arcs_into BIN FUNC CALLER_IMAGE CALLER_FUNC: the arcs into FUNC of BIN
# from every image ({cg} files whose callee is BIN), and those from
# CALLER_FUNC of CALLER_IMAGE; checks the share and that FUNC's samples
# nearly all came with an arc
arcs_into() {
	into=0 from=0
	find "$C" -path "*/{cg}/{root}$1/$EV" -type f >"$T/cgfiles"
	[ -s "$T/cgfiles" ] || fail "no {cg} file with callee $1"
	while IFS= read -r f; do
		r=$("$SFRANGE" --arcs "$f" "$1:$2" "$3:$4") || fail "sfrange --arcs $f failed"
		set -- "$@" $r
		into=$((into + $6))
		case $f in
		"$C/{root}$3/{dep}/{root}$3/{cg}/"*) from=$((from + $5)) ;;
		esac
		set -- "$1" "$2" "$3" "$4"
	done <"$T/cgfiles"
	r=$("$SFRANGE" "$C/{root}$1/{dep}/{root}$1/$EV" "$1" "$2") || fail "sfrange on $1's samples failed"
	set -- "$@" $r
	echo "$into arcs into $2 ($(wc -l <"$T/cgfiles") {cg} files), $from of them from $4 of ${3##*/}; $5 samples in $2"
	[ "$into" -ge 300 ] || fail "only $into arcs into $2"
	[ $((from * 100)) -ge $((into * 90)) ] || fail "only $from of $into arcs into $2 come from $4 (want >= 90 %)"
	[ $((into * 100)) -ge $(($5 * 90)) ] || fail "only $into arcs for $5 samples in $2 (want >= 90 %)"
	check_header "$C/{root}$3/{dep}/{root}$3/{cg}/{root}$1/$EV" 0 "$3"
}

step "arcs into hot_main_loop"
arcs_into "$T/hot_main" hot_main_loop "$T/hot_main" main
step "arcs into libhot.so's hot_lib_loop, from hot_lib (another image)"
arcs_into "$T/libhot.so" hot_lib_loop "$T/hot_lib" main

# block SYMBOL IMAGE: the lines of SYMBOL's block (of IMAGE, base name) in
# the opreport -c report $T/cg, each tagged "caller" or "callee"; fields
# then: samples, %, image, [app,] symbol (last)
block() {
	awk -v sym="$1" -v img="$2" '
	/^-+$/ { if (inblk) exit; n = 0; seen = 0; next }
	/^  / { if (!seen) buf[n++] = $0; else if (inblk) print "callee", $0; next }
	{ seen = 1
	  if ($NF == sym && $3 == img) { inblk = 1; for (i = 0; i < n; i++) print "caller", buf[i] } }
	' "$T/cg"
}

step "opreport -c: main calls hot_main_loop, hot_lib's main calls libhot.so's hot_lib_loop"
"$OPREPORT" --session-dir="$S" -c >"$T/cg" 2>"$T/cg.err" || { cat "$T/cg" "$T/cg.err"; fail "opreport -c failed"; }
grep -Eq '^-{79}$' "$T/cg" || { cat "$T/cg"; fail "opreport -c: no dashed block lines"; }
block hot_main_loop hot_main >"$T/b1"
echo "hot_main_loop's block:"
cat "$T/b1"
pct=$(awk '$1 == "caller" && $4 == "hot_main" && $NF == "main" {print $3}' "$T/b1")
[ -n "$pct" ] || { cat "$T/cg"; fail "hot_main_loop's block lists no caller main of hot_main"; }
awk -v p="$pct" 'BEGIN { exit !(p >= 90) }' ||
	fail "main has $pct % of hot_main_loop's incoming arcs (want >= 90 %)"
echo "main: $pct % of the arcs into hot_main_loop"
block main hot_lib >"$T/b2"
echo "hot_lib's main's block:"
cat "$T/b2"
grep -Eq '^callee +[0-9]+ +[0-9.]+ +libhot\.so( +[^ ]+)? +hot_lib_loop$' "$T/b2" ||
	{ cat "$T/cg"; fail "hot_lib's main does not list libhot.so's hot_lib_loop as a callee"; }

# kernel_apps SEPARATE WANT [SPEC]: a program in write(2) sampled with
# --separate=SEPARATE; every kernel row of opreport -c -l (entry, caller
# or callee, under a user caller or a kernel one) carries app WANT
kernel_apps() {
	ctl --reset >/dev/null 2>&1
	ctl --separate="$1" --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--separate=$1 --start failed"; }
	"$T/sysw" 1.5 || fail "sysw failed"
	ctl --dump || fail "--dump failed"
	ctl --shutdown || fail "--shutdown failed"
	# with --separate=kernel the program's kernel samples are its own:
	# its report (image:) holds them; kernel threads keep app vmlinux
	"$OPREPORT" --session-dir="$S" -c -l ${3-} >"$T/k.$1" 2>"$T/k.err" ||
		{ cat "$T/k.err"; fail "opreport -c -l failed (--separate=$1)"; }
	awk '$3 == "vmlinux" && ($4 == "sysw" || $4 == "vmlinux")' "$T/k.$1" >"$T/k.rows"
	awk '$1 ~ /^[0-9]/ && $3 == "libc.so.6" && $5 == "write" { on = 1; next }
	     /^-+$/ { on = 0 } on && $3 == "vmlinux" { print }' "$T/k.$1" >"$T/k.under"
	echo "--separate=$1: $(wc -l <"$T/k.rows") kernel rows of sysw or vmlinux, $(wc -l <"$T/k.under") kernel callees of write"
	[ -s "$T/k.under" ] || { cat "$T/k.$1"; fail "--separate=$1: no kernel callee under libc's write"; }
	awk -v want="$2" '$3 == "vmlinux" && $4 != want && ($4 == "sysw" || $4 == "vmlinux")' \
		"$T/k.$1" >"$T/k.bad"
	check_eq "$(wc -l <"$T/k.bad")" 0 "--separate=$1: kernel rows of another app than $2"
	sed 's/^/#   /' "$T/k.bad" | head -5
}

step "kernel callees carry one app: the process's with --separate=kernel, vmlinux's with --separate=lib"
cat >"$T/sysw.c" <<'EOC'
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static char buf[4096];
__attribute__((noinline)) static void writer(int fd)
{
	for (int i = 0; i < 256; i++)
		if (write(fd, buf, sizeof(buf)) < 0)
			exit(1);
}
int main(int argc, char **argv)
{
	struct timespec t0, t;
	double secs = argc > 1 ? atof(argv[1]) : 1;
	int fd = open("/dev/null", O_WRONLY);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		writer(fd);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return 0;
}
EOC
cc -O1 -g -fno-omit-frame-pointer -o "$T/sysw" "$T/sysw.c" || fail "cannot build sysw"
kernel_apps kernel sysw "image:$T/sysw"
kernel_apps lib vmlinux
test_done
