#!/bin/sh
# Our side of what OProfile's DejaGnu suite (oprofile-tests) reads from
# the tools, as its .exp files parse it (doc/compat.md has the by-hand run
# of the suite itself): every tool's -v line, whose first dotted number
# the suite takes as the OProfile version; op-check-perfevents' exit
# status; ocount -e NAME:um:kernel:user, the name reported as given, and
# --time-interval MS:COUNT (COUNT intervals, then exit).
. "${abs_top_srcdir:?}/tests/control/lib.sh"
PATH=$B/pp:$PATH
OCOUNT=$B/utils/ocount
CHECK=$B/utils/op-check-perfevents

# the suite's regexp for a version, on the whole output of 'TOOL -v'
suite_version() {
	grep -Eo '[0-9]+(.[0-9]+)+[a-zA-Z_]*' "$1" | head -n 1
}

step "-v and --version: OProfile's line, the OProfile version first"
for tool in opcontrol opreport ophelp oprofiled operf ocount opannotate opgprof; do
	"$tool" -v >"$T/v" 2>&1 || { cat "$T/v"; fail "$tool -v failed"; }
	check_grep "$T/v" "^$tool: oprofile [0-9]+\.[0-9]+\.[0-9]+ compiled on .* [(]oprofile-ng [0-9][0-9.]*[)]$" "$tool -v"
	"$tool" --version | cmp -s - "$T/v" || fail "$tool --version differs from -v"
	v=$(suite_version "$T/v")
	case $v in
	0.*|'') fail "$tool -v: the suite reads version '$v' (0.x: opcontrol 0.1-0.5 paths, or none)" ;;
	esac
	test_ok "$tool -v: the suite reads $v"
done
# the suite skips opcontrol when its version is below operf's (Tcl string <)
[ "$(opcontrol -v | cut -d' ' -f3)" = "$(operf -v | cut -d' ' -f3)" ] ||
	fail "opcontrol and operf give different versions"

step "op-check-perfevents: 0 where perf_events counts (lib.sh checked it does)"
"$CHECK" 2>"$T/err"
check_eq "$?" 0 "op-check-perfevents exit status"
[ ! -s "$T/err" ] || { cat "$T/err"; fail "op-check-perfevents printed without -v"; }
"$CHECK" -v 2>"$T/err"
check_eq "$?" 0 "op-check-perfevents -v exit status"
check_grep "$T/err" "^perf_event_open: " "-v says what opened"
"$CHECK" -h >"$T/out" 2>&1
check_eq "$?" 0 "op-check-perfevents -h"
"$CHECK" --bogus >"$T/out" 2>&1
check_eq "$?" 1 "op-check-perfevents refuses an unknown option"
check_grep "$T/out" "unknown option" "it says so"
"$CHECK" -v -v >"$T/out" 2>&1
check_eq "$?" 1 "op-check-perfevents refuses two arguments"

# the suite's get_event_count: the word after the last whose part before
# ':' is the event
suite_count() {
	tr -s ' \t' '\n\n' <"$1" | awk -v ev="$2" '
		{ split($0, f, ":") } want { c = $0; want = 0 }
		f[1] == ev { want = 1 } END { gsub(",", "", c); print c + 0 }'
}

step "ocount --time-interval MS:COUNT on a running process: COUNT rows, then exit"
"$SPIN" 30 & spin=$!
start=$(date +%s%N)
"$OCOUNT" -e TASK_CLOCK --time-interval 300:2 -p $spin >"$T/out" 2>&1 ||
	{ cat "$T/out"; kill $spin; fail "ocount -i 300:2 -p failed"; }
ms=$(( ($(date +%s%N) - start) / 1000000 ))
kill -0 $spin 2>/dev/null || fail "the counted process died"
sed 's/^/# /' "$T/out"
[ "$ms" -ge 550 ] && [ "$ms" -lt 5000 ] || fail "ocount -i 300:2 took $ms ms"
check_eq "$(grep -c '^ *[0-9.]*  TASK_CLOCK ' "$T/out")" 2 "two interval rows"
c=$(suite_count "$T/out" TASK_CLOCK)
[ "$c" -gt 0 ] || fail "the suite would read TASK_CLOCK count '$c'"
test_ok "stopped after $ms ms; the suite reads TASK_CLOCK $c"

step "brief format (-b): the event as given, then its count"
"$OCOUNT" -b -e TASK_CLOCK -i 200:1 -p $spin >"$T/out" 2>&1 ||
	{ cat "$T/out"; kill $spin; fail "ocount -b -i 200:1 failed"; }
sed 's/^/# /' "$T/out"
check_grep "$T/out" "^[0-9.]+,TASK_CLOCK,[1-9][0-9]*,[0-9.]+$" "one CSV interval row"

step "NAME:um:kernel:user: one mode, reported NAME:user / NAME:kernel"
"$OCOUNT" -e PAGE_FAULTS:0:0:1,PAGE_FAULTS:0:1:1 -i 200:1 -p $spin >"$T/out" 2>&1 ||
	{ cat "$T/out"; kill $spin; fail "ocount with modes failed"; }
check_grep "$T/out" "^PAGE_FAULTS:user +[0-9]+ " "user mode row"
check_grep "$T/out" "^PAGE_FAULTS +[0-9]+ " "both modes row"
"$OCOUNT" -e CPU_CLOCK:0:0:1 -p $spin >"$T/out" 2>&1
check_eq "$?" 2 "a clock in one mode is refused (the kernel ignores the mode)"
check_grep "$T/out" "counts time in both kernel and user mode" "it says why"
kill $spin; wait $spin 2>/dev/null
# opwatch --count takes ocount's names but counts both modes: refused
"$B/utils/opwatch" --count cs:0:0:1 -P "$SPIN:main" "$SPIN" 0.1 >"$T/out" 2>&1
check_eq "$?" 2 "opwatch --count NAME:um:0:1 refused"
check_grep "$T/out" "counts one mode; opwatch counts both" "opwatch says why"

step "a command: killed after COUNT intervals, ocount exits 0"
start=$(date +%s%N)
"$OCOUNT" -e TASK_CLOCK -i 100:3 "$SPIN" 30 >"$T/out" 2>&1
check_eq "$?" 0 "ocount -i 100:3 COMMAND exit status"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$ms" -lt 5000 ] || fail "the command ran on: $ms ms"
check_grep "$T/out" "^Stopped after 3 intervals: the command was killed[.]$" "ocount says so"
check_eq "$(grep -c '^ *[0-9.]*  TASK_CLOCK ' "$T/out")" 3 "three interval rows, no partial fourth"

step "bad --time-interval and event forms: usage errors naming them"
for bad in 0:2 10:0 10:x 10: x:1 -5 1:2:3 99999999999; do
	"$OCOUNT" -i "$bad" true >"$T/out" 2>&1
	check_eq "$?" 2 "-i '$bad' refused"
	check_grep "$T/out" "time-interval: '$bad'" "the message names '$bad'"
done
for bad in cs:1 cs:0:2 cs:0:1:1:1 :0 cs:0:0:0 cs:zz; do
	"$OCOUNT" -e "$bad" true >"$T/out" 2>&1
	check_eq "$?" 2 "-e '$bad' refused"
	check_grep "$T/out" "event '$bad'" "the message names '$bad'"
done
test_done
