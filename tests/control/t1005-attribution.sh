#!/bin/sh
# Attribution through opcontrol and the sample files: copies of hot_main
# (hot_main_loop in the main binary) and hot_lib (hot_lib_loop in a copy of
# libhot.so) run while other processes load both cpus. Their sample files
# have the exact names of doc/formats.md section 3, sound headers (timer
# cpu type, the period, user image, the binary's mtime), and >= 90 % of
# their samples inside the hot function's file-offset range, as the
# independent ELF oracle (tests/lib/elf_range) computes it. Then
# --separate=lib puts the library's samples under the application.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

W=$B/tests/workloads
cp "$W/hot_main" "$W/hot_lib" "$W/libhot.so" "$T/" || fail "cannot copy the workloads"
# distinct mtimes in the past: the headers must carry each binary's own
touch -d @1600000000 "$T/hot_main"
touch -d @1600086400 "$T/libhot.so"
# hot_lib finds libhot.so through its rpath (the build tree) unless
# LD_LIBRARY_PATH names another directory: this test's copy.
LD_LIBRARY_PATH=$T
export LD_LIBRARY_PATH
ldd "$T/hot_lib" | grep -q "libhot.so => $T/libhot.so" ||
	fail "hot_lib does not load $T/libhot.so: $(ldd "$T/hot_lib")"
C=$S/samples/current
EV=CPU_CLOCK.1000000.0

# sfile APP IMAGE TGID.TID.CPU: the sample file of IMAGE's samples in APP
sfile() { echo "$C/{root}$1/{dep}/{root}$2/$EV.$3"; }

# other work on both cpus while the workloads run: a dd and a shell loop
cp /bin/dd "$T/bgdd"
load_start() {
	"$T/bgdd" if=/dev/zero of=/dev/null bs=64k 2>/dev/null & bg1=$!
	(while :; do i=0; while [ $i -lt 1000 ]; do i=$((i + 1)); done; done) & bg2=$!
}
load_stop() { kill "$bg1" "$bg2"; wait "$bg1" "$bg2" 2>/dev/null; }

step "--separate=none: hot_main and hot_lib, 1.5 s CPU each, with other load"
ctl --separate=none --event=CPU_CLOCK:1000000 --start >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "--start failed"; }
grep -q '^cpu_type=timer$' "$C/session.conf" || fail "cpu type is not timer on this machine"
load_start
"$T/hot_main" 1.5 & m=$!
"$T/hot_lib" 1.5 || fail "hot_lib failed"
wait $m || fail "hot_main failed"
load_stop
ctl --dump || fail "--dump failed"

main_file=$(sfile "$T/hot_main" "$T/hot_main" all.all.all)
lib_file=$(sfile "$T/libhot.so" "$T/libhot.so" all.all.all)
check_header "$main_file" 0 "$T/hot_main"
check_header "$lib_file" 0 "$T/libhot.so"
in_range "$main_file" "$T/hot_main" hot_main_loop 90
in_range "$lib_file" "$T/libhot.so" hot_lib_loop 90
# the other load was sampled too, into its own file
bg_file=$(sfile "$T/bgdd" "$T/bgdd" all.all.all)
[ -f "$bg_file" ] || fail "no sample file for the background dd"
# Under --separate=none each of this test's binaries is its own
# application (A = B), except anonymous regions, kept per process under
# their application as in OProfile 1.x, and the vDSO, one image
# ({root}/[vdso]) under each application; nothing names a tgid, tid or
# cpu.
find "$C" -path "$C/{root}$T/*" -type f | sed "s|^$C/||" >"$T/files"
cat "$T/files"
while IFS= read -r f; do
	a=${f%%/\{dep\}/*} rest=${f#*/\{dep\}/}
	case $rest in
	"$a/$EV.all.all.all") ;;
	"{anon:"*"}/"*"/$EV.all.all.all") ;;
	"{root}/[vdso]/$EV.all.all.all") ;;
	*) fail "unexpected sample file under --separate=none: $f" ;;
	esac
done <"$T/files"
"$SFCHECK" "$C" || fail "sample files fail the structural check"
stats_balance "$C"

step "--separate=lib: libhot.so's samples under hot_lib"
ctl --shutdown || fail "--shutdown failed"
ctl --separate=lib --reset --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
grep -q '^separate=lib$' "$C/session.conf" || fail "session.conf lacks separate=lib"
load_start
"$T/hot_lib" 1.0 || fail "hot_lib failed"
load_stop
ctl --dump || fail "--dump failed"
lib_file=$(sfile "$T/hot_lib" "$T/libhot.so" all.all.all)
check_header "$lib_file" 0 "$T/libhot.so"
in_range "$lib_file" "$T/libhot.so" hot_lib_loop 90
[ -e "$(sfile "$T/libhot.so" "$T/libhot.so" all.all.all)" ] &&
	fail "--separate=lib still made libhot.so an application"
find "$C" -path "*/{dep}/{root}$T/libhot.so/*" -type f >"$T/files"
sed "s|^$C/||" "$T/files"
[ "$(grep -vc "^$C/{root}$T/hot_lib/{dep}/" "$T/files")" -eq 0 ] ||
	fail "libhot.so samples under an application other than hot_lib"
"$SFCHECK" "$C" || fail "sample files fail the structural check"
stats_balance "$C"
ctl --shutdown || fail "--shutdown failed"
test_done
