# sourced by tests/kernel/guest.sh (see guest-lib.sh for the conventions)
# --- 5. backtraces: opcontrol --callgraph=8 through the driver ------------
# hot_main (main -> hot_main_loop: user frames, one image), hot_lib (main ->
# libhot.so's hot_lib_loop: an arc between images) and dd (kernel frames,
# unwound with ORC) under --separate=kernel, so that dd's kernel arcs are
# under its application (busybox). The {cg} files are read with sfrange
# --arcs: user ranges from the ELF files, kernel ranges from /proc/kallsyms
# as offsets from _text (the daemon's vmlinux keys).
C=$S/samples/current
EV=CPU_CLOCK.1000000.0.all.all.all
LIB=$KTEST_TESTS_DIR/workloads/libhot.so
opcontrol --init >/tmp/cg-init.txt 2>&1
check cg_init "$([ -e $D/buffer ]; echo $?)" "$(tr '\n' ' ' </tmp/cg-init.txt)"
# backtrace_depth: 0 .. 128, fixed while sampling (EBUSY)
echo 129 > $D/backtrace_depth 2>/dev/null; e1=$?
echo 128 > $D/backtrace_depth; e2=$?
v=$(rd $D/backtrace_depth)
echo 0 > $D/backtrace_depth
check cg_depth_file "$([ $e1 != 0 ] && [ $e2 = 0 ] && [ "$v" = 128 ]; echo $?)" "129:$e1 128:$e2 read $v"
opcontrol --reset >/dev/null 2>&1
opcontrol --no-vmlinux --event=CPU_CLOCK:1000000 --separate=kernel --callgraph=8 >/tmp/cg-setup.txt 2>&1
check cg_setup $? "$(tr '\n' ' ' </tmp/cg-setup.txt)"
opcontrol --start >/tmp/cg-start.txt 2>&1
check cg_start "$([ $? = 0 ] && [ "$(rd $D/backtrace_depth)" = 8 ]; echo $?)" \
	"backtrace_depth=$(rd $D/backtrace_depth) $(tr '\n' ' ' </tmp/cg-start.txt)"
echo 4 > $D/backtrace_depth 2>/tmp/cg-ebusy.txt; eb=$?
check cg_depth_busy "$([ $eb != 0 ] && grep -qi busy /tmp/cg-ebusy.txt && [ "$(rd $D/backtrace_depth)" = 8 ]; echo $?)" \
	"$(cat /tmp/cg-ebusy.txt)"
t0=$(cut -d' ' -f1 /proc/uptime)
hot_main 1.0
hot_lib 1.0
dd if=/dev/zero of=/dev/null bs=64k count=4000 2>/dev/null
t1=$(cut -d' ' -f1 /proc/uptime)
opcontrol --dump >/tmp/cg-dump.txt 2>&1; check cg_dump $? "workloads took $t0..$t1 s"
opcontrol --shutdown >/tmp/cg-shutdown.txt 2>&1; check cg_shutdown $? "$(tr '\n' ' ' </tmp/cg-shutdown.txt)"

# --- the stats: driver received = emitted + lost, daemon received = emitted
st=$C/stats
drecv=$(num $D/stats/sample_received)
demit=$(num $D/stats/sample_emitted)
dlost=$(driver_lost)
orecv=$(num $st/sample_received)
osum=0
for f in sample_written sample_saturated sample_dropped_no_app sample_dropped_bad_event \
	 sample_dropped_unresolved_kernel sample_dropped_unknown_cookie \
	 sample_dropped_no_mapping sample_dropped_sfile_error; do
	osum=$((osum + $(num $st/$f)))
done
check cg_stats "$([ "$drecv" -gt 1000 ] && [ $((demit + dlost)) = "$drecv" ] && [ "$orecv" = "$demit" ] &&
	[ "$osum" = "$orecv" ] && [ "$(num $st/stream_errors)" = 0 ] &&
	[ "$(num $st/bt_lost_no_mapping)" = "$(num $D/stats/bt_lost_no_mapping)" ]; echo $?)" \
	"driver received=$drecv emitted=$demit lost=$dlost bt_lost_no_mapping=$(rd $D/stats/bt_lost_no_mapping); daemon received=$orecv accounted=$osum arcs=$(rd $st/cg_arcs_written) bt_lost_no_mapping=$(rd $st/bt_lost_no_mapping) stream_errors=$(rd $st/stream_errors)"

# arcs NAME FILE TO FROM MIN [SAMPLES]: >= 90 % of FILE's arcs into TO come
# from FROM, there are at least MIN of them, and (given the sample file of
# TO's image) they are >= 90 % of TO's samples: nearly every sample there
# came with its caller
arcs() {
	r=$(sfrange --arcs "$2" "$3" "$4" 2>/tmp/cg-sfrange.txt) || r="0 0 0"
	in=0
	[ $# -ge 6 ] && in=$(sfrange "$6" "${3%:*}" "${3##*:}" 2>/dev/null | cut -d' ' -f1)
	set -- "$1" "$2" "$3" "$4" "$5" $r
	check "$1" "$([ "$7" -ge "$5" ] && [ $(($6 * 100)) -ge $(($7 * 90)) ] && [ $(($7 * 100)) -ge $((${in:-0} * 90)) ]; echo $?)" \
		"$6 of $7 arcs into $3 from $4 ($8 arcs in ${2#$C/}; ${in:-0} samples in ${3##*:}) $(cat /tmp/cg-sfrange.txt)"
}
arcs cg_hot_main "$C/{root}/usr/bin/hot_main/{dep}/{root}/usr/bin/hot_main/{cg}/{root}/usr/bin/hot_main/$EV" \
	/usr/bin/hot_main:hot_main_loop /usr/bin/hot_main:main 200 \
	"$C/{root}/usr/bin/hot_main/{dep}/{root}/usr/bin/hot_main/$EV"
arcs cg_hot_lib "$C/{root}/usr/bin/hot_lib/{dep}/{root}/usr/bin/hot_lib/{cg}/{root}$LIB/$EV" \
	$LIB:hot_lib_loop /usr/bin/hot_lib:main 200 \
	"$C/{root}/usr/bin/hot_lib/{dep}/{root}$LIB/$EV"

# --- kernel arcs of dd (busybox): symbols from /proc/kallsyms ------------
# Kernel keys are offsets from _text. /proc/kallsyms lists the kernel's own
# symbols first, in address order: its text symbols up to _etext are the
# ones vmlinux keys fall in (the ascending check keeps the order honest).
# They share _text's 4 GiB window (checked), so offsets are differences of
# the addresses' low 32 bits, which busybox awk's doubles hold exactly.
awk 'tolower($2) == "t" && $1 >= p { print; p = $1 } $3 == "_etext" { exit }' /proc/kallsyms >/tmp/ktext
text=$(awk '$3 == "_text" { print $1; exit }' /tmp/ktext)
HEX='function hex(s,   i, v) { v = 0; s = tolower(s)
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v }'
# the functions the checks name, as "NAME START-END" (offsets from _text;
# a function ends where the next symbol begins)
awk -v names="clear_user_erms read_zero vfs_read ksys_read" -v text="$text" "$HEX"'
	BEGIN { n = split(names, w); for (i = 1; i <= n; i++) want[w[i]] = 1 }
	a != "" { if (substr($1, 1, 8) == substr(text, 1, 8))
		printf "%s %d-%d\n", s, hex(substr(a, 9)) - hex(substr(text, 9)), hex(substr($1, 9)) - hex(substr(text, 9))
		a = "" }
	$3 in want { a = $1; s = $3 }' /tmp/ktext >/tmp/kranges
KF="$C/{root}/bin/busybox/{dep}/{root}/proc/kallsyms/{cg}/{root}/proc/kallsyms/$EV"
# karcs NAME CALLEE CALLER MIN: as arcs, for kernel functions
karcs() {
	to=$(awk -v s="$2" '$1 == s { print $2 }' /tmp/kranges)
	from=$(awk -v s="$3" '$1 == s { print $2 }' /tmp/kranges)
	[ -n "$to" ] && [ -n "$from" ] || { bad "$1" "no text symbol $2 or $3 in /proc/kallsyms"; return; }
	r=$(sfrange --arcs "$KF" "$to" "$from" 2>/dev/null) || r="0 0 0"
	set -- "$@" $r
	check "$1" "$([ "$6" -ge "$4" ] && [ $(($5 * 100)) -ge $(($6 * 90)) ]; echo $?)" \
		"$5 of $6 arcs into $2 [$to) from $3 [$from) ($7 arcs in ${KF#$C/})"
}
# dd reads /dev/zero: read_zero -> clear_user_erms (clear_user inlined,
# on 6.1 with ERMS), called through vfs_read from ksys_read
karcs cg_kernel_clear_user clear_user_erms read_zero 100
karcs cg_kernel_read_zero read_zero vfs_read 100
karcs cg_kernel_vfs_read vfs_read ksys_read 100
# The most frequent kernel arcs of busybox, symbolised (for the log): the
# ends, sorted, are merged into the symbols, each taking the name of the
# last symbol at or below it. (busybox awk's printf %x takes only 32-bit
# signed values: addresses are spelt out by hand.)
sfcheck --dump "$C/{root}/bin/busybox/{dep}/{root}/proc/kallsyms/{cg}" 2>&1 |
	awk '$1 ~ /^0x/ { k = substr($1, 3); while (length(k) < 16) k = "0" k
		print $2, substr(k, 1, 8), substr(k, 9) }' | sort -rn | head -12 >/tmp/karcs
awk -v text="$text" "$HEX"'
	function addr(o,   v, s, i) { v = hex(substr(text, 9)) + hex(o)
		for (i = 0; i < 8; i++) { s = substr("0123456789abcdef", v % 16 + 1, 1) s; v = int(v / 16) }
		return substr(text, 1, 8) s }
	{ print addr($2), NR ".from"; print addr($3), NR ".to" }' /tmp/karcs | sort >/tmp/kends
awk "$HEX"'
	function name(j) { printf "%s %s+%#x\n", id[j], sn, hex(substr(ad[j], 9)) - hex(substr(sa, 9)) }
	FNR == NR { ad[++m] = $1; id[m] = $2; next }
	{ while (j < m && ad[j + 1] < $1) name(++j); sa = $1; sn = $3 }
	END { while (j < m) name(++j) }' /tmp/kends /tmp/ktext >/tmp/knames
awk 'FNR == NR { nm[$1] = $2; next }
	{ print "KTEST-INFO karc", $1, nm[FNR ".from"], "->", nm[FNR ".to"] }' /tmp/knames /tmp/karcs
# --- the same opreport -c as on the perf source --------------------------
# hot_main_loop's block: its callers (indented lines before the symbol's
# own line) must give main of hot_main >= 90 % of the incoming arcs
opreport -c > /tmp/cg-report.txt 2>/tmp/cg-report.err; check cg_opreport $? "$(head -c 300 /tmp/cg-report.err)"
awk '/^-+$/ { if (inblk) exit; n = 0; seen = 0; next }
	/^  / { if (!seen) buf[n++] = $0; next }
	{ seen = 1; if ($NF == "hot_main_loop" && $3 == "hot_main") { inblk = 1; print; for (i = 0; i < n; i++) print "caller", buf[i] } }
	' /tmp/cg-report.txt >/tmp/cg-block.txt
sed 's/^/KTEST-INFO cg block /' /tmp/cg-block.txt
pct=$(awk '$1 == "caller" && $4 == "hot_main" && $NF == "main" {print int($3)}' /tmp/cg-block.txt)
check cg_opreport_main_calls_hot "$([ "${pct:-0}" -ge 90 ]; echo $?)" "opreport -c: main has ${pct:-no} % of the arcs into hot_main_loop"
opcontrol --callgraph=0 --separate=none >/dev/null 2>&1
opcontrol --deinit >/tmp/cg-deinit.txt 2>&1
check cg_deinit "$([ $? = 0 ] && ! grep -q '^oprofile ' /proc/modules; echo $?)" "$(tr '\n' ' ' </tmp/cg-deinit.txt)"
