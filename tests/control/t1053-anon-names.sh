#!/bin/sh
# What reports call code in anonymous memory, sampled for real
# (tests/workloads/jit_named): four regions of one process, each spun in
# for the same CPU time. Two mapped before the daemon starts (read from
# /proc/PID/maps): one named with PR_SET_VMA_ANON_NAME (a 79-byte name,
# the kernel's longest, with '}' and '/'), one not; two mapped after (seen
# in perf's MMAP2 records): one more without a name, and a memfd whose
# name holds ESC, BEL, '}' and "/../". Reports name each region by its
# process and program, "anon (PID:jit_named)" or "[anon:NAME]
# (PID:jit_named)", never by a range or a tgid:0; --processes lists the
# samples under PID; the hostile name stays inside the session (no '/' of
# it makes a directory) and is shown escaped. Where the kernel has no
# CONFIG_ANON_VMA_NAME (Debian's 6.1: EINVAL) the named region is "anon".
. "${abs_top_srcdir:?}/tests/control/lib.sh"

C=$S/samples/current
cp "$B/tests/workloads/jit_named" "$T/" || fail "cannot copy jit_named"
name=$(printf 'v8}/../../escaped%062d' 0)
mfd=$(printf 'E\033]0;t\007}/../../../escaped')

step "jit_named: two regions mapped, then the daemon, then two more"
"$T/jit_named" 0.4 "$name" "$mfd" "$T/go" >"$T/jn" 2>&1 &
wl=$!
wait_for grep -q '^jit_named: pid' "$T/jn" || fail "jit_named did not start"
pid=$(sed -n 's/^jit_named: pid //p' "$T/jn")
check_eq "$pid" "$wl" "jit_named says its pid"
ctl --separate=thread --event=CPU_CLOCK:1000000 --start >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "--start failed"; }
touch "$T/go"
wait "$wl" || { cat "$T/jn"; fail "jit_named failed"; }
cat "$T/jn"
ctl --dump || fail "--dump failed"
ctl --shutdown || fail "--shutdown failed"

rep() { # OUT ARGS...: opreport on the session, its stderr in OUT.err
	local out=$1
	shift
	"$OPREPORT" --session-dir="$S" "$@" >"$out" 2>"$out.err" ||
		{ cat "$out" "$out.err"; fail "opreport $* failed"; }
}
rep "$T/l" -l "image:$T/jit_named"
cat "$T/l"
# rows: samples % image-name... symbol; the region's name is all the
# words between the % and "(no symbols)"
rows() { # REGEX: samples of the -l rows whose image matches REGEX
	awk -v re="$1" '/^[0-9]/ { img = $0; sub(/^[0-9]+ +[0-9.]+ +/, "", img)
		sub(/ +\(no symbols\)$/, "", img); sub(/ +[^ ]+$/, "", img)
		if (img ~ re) n += $1 } END { print n + 0 }' "$T/l"
}
tot=$(awk '/^[0-9]/ { n += $1 } END { print n + 0 }' "$T/l")
anon=$(rows "^anon \\($pid:jit_named\\)$")
memfd=$(rows "^memfd:E.*\\(deleted\\) \\($pid:jit_named\\)$")
echo "jit_named: $tot samples, $anon in anon ($pid:jit_named), $memfd in its memfd"
[ "$tot" -ge 600 ] || fail "only $tot samples of jit_named"
if grep -q '^jit_named: region named' "$T/jn"; then
	named=$(rows "^\\[anon:v8_\\.\\._\\.\\._escaped0+\\] \\($pid:jit_named\\)$")
	check_eq "$([ $((named * 100)) -ge $((tot * 15)) ]; echo $?)" 0 \
		"[anon:NAME] ($pid:jit_named): $named of $tot samples ('/' and '}' as '_')"
	check_eq "$([ $((anon * 100)) -ge $((tot * 35)) ]; echo $?)" 0 \
		"anon ($pid:jit_named): the two unnamed regions, $anon of $tot samples"
else
	test_note "$(sed -n 's/^jit_named: no region name: //p' "$T/jn"): this kernel names no region (CONFIG_ANON_VMA_NAME); the named one is anon"
	check_eq "$([ $((anon * 100)) -ge $((tot * 55)) ]; echo $?)" 0 \
		"anon ($pid:jit_named): three regions, $anon of $tot samples"
fi
check_eq "$([ $((memfd * 100)) -ge $((tot * 15)) ]; echo $?)" 0 \
	"the memfd region by its name, escaped, and ($pid:jit_named): $memfd of $tot samples"
check_grep "$T/l" '^[0-9].* memfd:E\\x1b\]0;t\\x07__\.\._\.\._\.\._escaped \(deleted\) \('"$pid"':jit_named\) ' \
	"-l: the memfd's name escaped, '}' and '/' as '_'"
check_no_grep "$T/l" 'tgid:|range:0x|\(0:' "-l: no range, no tgid:, no process 0"
check_no_grep "$T/l" "$(printf '[\001-\010\033\177]')" "-l: no raw control bytes"

# the hostile name made one directory component in the session, nothing
# outside it
check_eq "$(find "$T" -name '*escaped*' ! -path "$C/*" | wc -l)" 0 \
	"no file or directory of the hostile names outside the session"
check_eq "$(find "$C/{root}$T/jit_named/{dep}" -maxdepth 1 -name '{anon:memfd:E*__.._.._.._escaped (deleted)}' | wc -l)" 1 \
	"the memfd region: one {anon:...} directory under its program"

rep "$T/pr" --processes
check_grep "$T/pr" "^ *$pid jit_named " "--processes: jit_named under pid $pid"
check_grep "$T/pr" "^ +[0-9]+ +[0-9.]+ +\\(no symbols\\) +anon \\($pid:jit_named\\)$" \
	"--processes: its regions named in its profile"
check_no_grep "$T/pr" '^ +0 +jit_named|tgid:|range:0x' "--processes: jit_named not as process 0, no range"

rep "$T/fo" --folded
check_grep "$T/fo" "^jit_named;\\[anon\\] [0-9]+$" "--folded: the regions' frames under jit_named"
check_no_grep "$T/fo" 'tgid:|range:0x' "--folded: no range"

rep "$T/x" -X "image:$T/jit_named"
check_grep "$T/x" "<module name=\"anon \\($pid:jit_named\\)\">" "-X: the region a module named anon ($pid:jit_named)"
"$SFCHECK" "$C" || fail "sample files fail the structural check"
stats_balance "$C"
test_done
