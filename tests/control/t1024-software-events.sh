#!/bin/sh
# The software events live in events/software: ophelp --software lists
# them, ocount takes them by that name, perf's name or perf's alias and
# counts them, and a broken events/software is an error naming the file.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

OCOUNT=$B/utils/ocount
OPHELP=$B/utils/ophelp
SW="CPU_CLOCK TASK_CLOCK PAGE_FAULTS CONTEXT_SWITCHES CPU_MIGRATIONS MINOR_FAULTS MAJOR_FAULTS"

step "ophelp --software and ocount --list-events read events/software"
"$OPHELP" --software >"$T/help" 2>&1 || { cat "$T/help"; fail "ophelp --software failed"; }
"$OCOUNT" --list-events >"$T/list" 2>&1 || { cat "$T/list"; fail "ocount --list-events failed"; }
for e in $SW; do
	grep -q "^$e: " "$T/help" || fail "ophelp --software does not list $e"
	grep -q " $e " "$T/list" || fail "ocount --list-events does not list $e"
done
test_ok "both list the 7 software events"

step "ocount: the events file's names, perf's names and aliases"
"$OCOUNT" -b -e TASK_CLOCK,cs,minor-faults,MAJOR_FAULTS "$B/tests/workloads/hot_main" 0.1 \
	>"$T/out" 2>"$T/err" || { cat "$T/err"; fail "ocount failed"; }
sed 's/^/# /' "$T/out"
# each reported as named: the events file's name (OProfile's ocount prints
# the name it was given, scripts look it up), else perf's name
tc=$(awk -F, '$1 == "TASK_CLOCK" { print $2 }' "$T/out")
mi=$(awk -F, '$1 == "minor-faults" { print $2 }' "$T/out")
[ -n "$tc" ] && [ "$tc" -ge 50000000 ] || fail "TASK_CLOCK of 0.1 s of CPU: '$tc' ns"
[ -n "$mi" ] && [ "$mi" -gt 0 ] || fail "no minor faults counted: '$mi'"
grep -q '^context-switches,' "$T/out" || fail "cs is not reported by its perf name"
grep -q '^MAJOR_FAULTS,' "$T/out" || fail "MAJOR_FAULTS is not reported as given"
test_ok "task-clock $tc ns, minor-faults $mi"

step "a broken events/software names the file"
mkdir -p "$T/ev/software"
cp "$abs_top_srcdir/events/software/unit_masks" "$T/ev/software/"
echo "event:0x1 counters:0 um:nosuch minimum:1 name:TASK_CLOCK : x" >"$T/ev/software/events"
OPROFILE_EVENTS_DIR=$T/ev "$OCOUNT" -e task-clock true >"$T/out" 2>&1
check_eq "$?" 2 "ocount refuses to start"
check_grep "$T/out" "$T/ev/software/events" "the error names the file"
test_done
