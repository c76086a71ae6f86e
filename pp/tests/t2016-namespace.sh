#!/bin/sh
# A process in another mount namespace names its binaries by paths of its
# own namespace. Here a -g program (annot_main: annot_main_hot) is
# bind-mounted inside `unshare -m` over the path of another program
# (funcs.c's prog) and run as that path while the session samples. The
# daemon reads the binary through /proc/PID/root while the process lives,
# records its build-id and, since the host's file at that path is another
# build, keeps a copy in the session: opreport -l shows the program's own
# function names and shares (not the host file's, nor "(no symbols)").
# Without the copy the report says plainly that the binary is not the one
# sampled. Needs root, unshare -m and perf_event_open.
. "$SRCDIR/tests/lib.sh"
: "${abs_top_builddir:?}"
live_session
unshare -m true 2>/dev/null || skip "unshare -m does not work here"

$CC -O1 -g -fPIC -shared -o "$tmp/libannot.so" "$SRCDIR/tests/annot_lib.c" ||
	fail "cannot build annot_lib.c"
$CC -O1 -g -o "$tmp/inner" "$SRCDIR/tests/annot_main.c" -L"$tmp" -lannot \
	-Wl,-rpath,"$tmp" || fail "cannot build annot_main.c"
build funcs.c outer
outer=$tmp/outer
inner_id=$(readelf -n "$tmp/inner" | awk '/Build ID:/ {print $3}')

ctl_start --event=CPU_CLOCK:200000 --separate=kernel
unshare -m --propagation private sh -c \
	'mount --bind "$1" "$2" && exec "$2" 1.5 0.1' _ "$tmp/inner" "$outer" ||
	fail "the workload in its own mount namespace failed"
ctl --dump || fail "opcontrol --dump failed"
ctl --shutdown || fail "opcontrol --shutdown failed"

check_grep "$S/samples/current/session/build-ids" "^$inner_id [0-9]+ $outer\$" \
	"the session recorded the build-id of the file the process ran"
test -f "$S/samples/current/session/binaries/$inner_id" ||
	fail "no copy of the namespace's binary in the session"
test_ok "the session keeps a copy of it (the host's file is another build)"

run_report "$tmp/l" -l image:"$outer"
head -12 "$tmp/l"
top=$(sed -n '/symbol name$/,$p' "$tmp/l" | sed -n 2p)
check_eq "$(echo "$top" | awk '{print $NF}')" "annot_main_hot" "opreport -l: the program's own function on top"
share=$(echo "$top" | awk '{print $2}')
awk -v s="$share" 'BEGIN { exit !(s >= 70) }' || fail "annot_main_hot has only $share%"
test_ok "its share: $share% (the workload spent about 94% of its time there)"
check_no_grep "$tmp/l" ' (alpha|beta|gamma_fn)$' "none of the host file's symbols"

# without the copy: said plainly
rm -r "$S/samples/current/session/binaries"
run_report "$tmp/nocopy" -l image:"$outer"
check_grep "$tmp/nocopy.err" "'$outer' is not the binary that was sampled: its build-id is [0-9a-f]+, the session recorded $inner_id" \
	"no copy: the report says the binary is not the one sampled"
check_no_grep "$tmp/nocopy" ' (alpha|beta|gamma_fn)$' "and shows no wrong symbol"
test_done
