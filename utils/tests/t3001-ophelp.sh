#!/bin/sh
# ophelp end to end: accepted and refused event specs (exit code, stdout,
# the message on stderr), cpu type selection and detection, the default
# event and unit mask queries, and a listing for every cpu type that has
# events. Uses tests/lib/test-lib.sh; needs abs_top_builddir and
# abs_top_srcdir, set with OPHELP by utils/Makefile.am.
. "${abs_top_srcdir:?}/tests/lib/test-lib.sh"
unset OPROFILE_CPU_TYPE

test_tmpdir ophelp-test
run_env=	# VAR=value words for the next accept/reject; see with_env

# with_env VAR=value...: the environment of the following checks (none: reset).
# (A plain "VAR=value function" may leak VAR past the call in some shells.)
with_env() {
	run_env="$*"
}

# not_ok WHAT: a failed check (the test goes on), with ophelp's output
not_ok() {
	test_not_ok "$1"
	test_note "stdout: $(cat "$tmp/out")"
	test_note "stderr: $(cat "$tmp/err")"
}

# accept TITLE EXPECTED-STDOUT ARGS...: exit 0, that output, quiet stderr
accept() {
	title=$1 expect=$2
	shift 2
	if env $run_env "$OPHELP" "$@" >"$tmp/out" 2>"$tmp/err" &&
	   [ "$(cat "$tmp/out")" = "$expect" ] && [ ! -s "$tmp/err" ]; then
		test_ok "$title"
	else
		not_ok "$title (expected '$expect')"
	fi
}

# reject TITLE MESSAGE ARGS...: exit 1, nothing on stdout, MESSAGE on stderr
reject() {
	title=$1 msg=$2
	shift 2
	env $run_env "$OPHELP" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 1 ] && [ ! -s "$tmp/out" ] && grep -qF -- "$msg" "$tmp/err"; then
		test_ok "$title"
	else
		not_ok "$title (rc $rc, expected 1 and '$msg')"
	fi
}

# --- accepted specs: the counters chosen ---
accept "timer clock" "0 " -c timer -e CPU_CLOCK:1000000
accept "timer two clocks" "0 1 " -c timer -e CPU_CLOCK:1000000 TASK_CLOCK:1000000
accept "timer same event, kernel and user apart" "0 1 " \
	-c timer -e CPU_CLOCK:1000000:0:1:0 CPU_CLOCK:1000000:0:0:1
accept "timer minimum x15 with --callgraph" "0 " --callgraph=5 -c timer -e CPU_CLOCK:150000
accept "haswell two events" "0 1 " -c i386/haswell -e CPU_CLK_UNHALTED:100000 INST_RETIRED:100000
accept "haswell named unit mask" "0 " -c i386/haswell -e L2_RQSTS:500:miss
accept "haswell bitmask unit mask" "0 1 " -c i386/haswell -e BR_INST_EXEC:500:0x41 L2_LINES_IN:500:0x6
accept "haswell restricted counters" "2 1 0 " \
	-c i386/haswell -e L1D_PEND_MISS:6000 INST_RETIRED_PREC_DIST:6000 UOPS_ISSUED:6000
accept "family15h by number, counters 3 and 4" "3 4 " \
	-c 53 -e DISPATCHED_FPU_OPS:500 CYCLES_FPU_EMPTY:500
accept "generic AMD" "0 1 2 3 " -c x86-64/generic -e CPU_CLK_UNHALTED:100000 \
	RETIRED_INSTRUCTIONS:100000 DATA_CACHE_MISSES:500 REQUESTS_TO_L2:500:0x3
accept "arch_perfmon mandatory unit mask" "0 " -c i386/arch_perfmon -e LLC_MISSES:6000:0x41

# -i (OProfile's --ignore-count, for ocount): the count is not checked and
# may be left out; -E (--extra-mask): our event files have no extra bits
accept "-i: a count below the minimum" "0 " -c i386/arch_perfmon -i -e CPU_CLK_UNHALTED:5000
accept "-i: no count" "0 1 " -c i386/haswell -i -e CPU_CLK_UNHALTED L2_RQSTS::miss
accept "-E: extra mask 0" "0" -c i386/haswell -E L2_RQSTS:500:miss
accept "-i -E: no count" "0" -c timer -i -E CPU_CLOCK
reject "-E: one spec only" "--extra-mask takes one event spec, not 2" \
	-c timer -E CPU_CLOCK:1000000 TASK_CLOCK:1000000
reject "-E: the spec is checked" "count 10 for event CPU_CLOCK is below the minimum 10000" \
	-c timer -E CPU_CLOCK:10
reject "-i: the unit mask is still checked" "no unit mask named 'hit' for event L2_RQSTS" \
	-c i386/haswell -i -e L2_RQSTS::hit

# --- refused specs: exit 1 and the reason ---
reject "unknown event" "no event named 'FOO' for cpu type 'timer'; run ophelp to list events" \
	-c timer -e FOO:3000
reject "bad unit mask" "invalid unit mask 0x3 for event CPU_CLOCK: valid values are 0x0" \
	-c timer -e CPU_CLOCK:1000000:0x3
reject "bad bitmask unit mask" "invalid unit mask 0x8 for event L2_LINES_IN: valid values are combinations of 0x1, 0x2, 0x4 and 0x7" \
	-c i386/haswell -e L2_LINES_IN:500:0x8
reject "bad unit mask name" "no unit mask named 'hit' for event L2_RQSTS" \
	-c i386/haswell -e L2_RQSTS:500:hit
reject "below minimum" "count 5000 for event CPU_CLK_UNHALTED is below the minimum 6000" \
	-c i386/arch_perfmon -e CPU_CLK_UNHALTED:5000
reject "below minimum x15" "count 6000 for event CPU_CLK_UNHALTED is below the minimum 90000 (15 x 6000 with --callgraph)" \
	--callgraph=1 -c i386/arch_perfmon -e CPU_CLK_UNHALTED:6000
reject "timer below minimum x15" "below the minimum 150000" \
	--callgraph=2 -c timer -e CPU_CLOCK:100000
reject "too many counters" "need 5 counters but cpu type 'i386/haswell' has only 4" \
	-c i386/haswell -e UOPS_ISSUED:6000 UOPS_RETIRED:6000 IDQ:6000 L2_RQSTS:500 BR_INST_EXEC:500
reject "too many timer counters" "need 5 counters but cpu type 'timer' has only 4" \
	-c timer -e CPU_CLOCK:1000000 TASK_CLOCK:1000000 CPU_CLOCK:1000000:0:0:1 \
	TASK_CLOCK:1000000:0:0:1 CPU_CLOCK:1000000:0:1:0
reject "duplicate" "event CPU_CLOCK (unit mask 0x0) given twice" \
	-c timer -e CPU_CLOCK:1000000 CPU_CLOCK:2000000
reject "no schedule" "events L1D_PEND_MISS and L1D_PEND_MISS cannot be scheduled together: both can only use counter 2" \
	-c i386/haswell -e L1D_PEND_MISS:6000:0x1:1:0 L1D_PEND_MISS:6000:0x1:0:1
reject "count not a number" "bad event spec 'CPU_CLOCK:abc': count is not a number" \
	-c timer -e CPU_CLOCK:abc
reject "empty name" "bad event spec ':1000': empty event name" -c timer -e :1000
reject "too many fields" "too many fields" -c timer -e CPU_CLOCK:1000000:0:1:1:1
reject "kernel flag" "kernel must be 0 or 1" -c timer -e CPU_CLOCK:1000000:0:2
reject "no specs" "--check-events needs at least one event spec" -c timer -e
reject "unknown cpu type" "unknown cpu type 'nope'" -c nope -r
reject "cpu type without events" "cpu type 'i386/ppro' has no event descriptions" -c i386/ppro
reject "code of unknown event" "no event named 'NOPE' for cpu type 'timer'" -c timer NOPE
with_env OPROFILE_EVENTS_DIR=/nonexistent
reject "no events directory" "cannot open '/nonexistent/timer/unit_masks'" \
	-c timer -e CPU_CLOCK:1000000
with_env

# usage errors exit 2
"$OPHELP" --no-such-option >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 2 ] && grep -qF -- "--no-such-option" "$tmp/err"; then test_ok "bad option exits 2"; else not_ok "bad option exits 2"; fi

# --- queries ---
accept "default event, timer" "CPU_CLOCK:1000000" -c timer -d
accept "default event, haswell" "CPU_CLK_UNHALTED:100000" -c i386/haswell -d
accept "default unit mask" "65" -c i386/arch_perfmon -u LLC_MISSES
accept "default named unit mask" "255" -c i386/haswell --unit-mask=L2_RQSTS
accept "event code in decimal" "60" -c i386/arch_perfmon CPU_CLK_UNHALTED
accept "event code, timer" "1" -c timer TASK_CLOCK
accept "cpu type by -c" "x86-64/family15h" -c x86-64/family15h -r
accept "cpu type by number" "i386/haswell" -c 67 -r
with_env OPROFILE_CPU_TYPE=i386/haswell
accept "OPROFILE_CPU_TYPE honoured" "i386/haswell" -r
accept "-c wins over OPROFILE_CPU_TYPE" "timer" -c timer -r
accept "OPROFILE_CPU_TYPE for checks" "2 " -e L1D_PEND_MISS:6000
with_env OPROFILE_CPU_TYPE=bogus
reject "bad OPROFILE_CPU_TYPE" "OPROFILE_CPU_TYPE='bogus' names no cpu type" -r
with_env
if "$OPHELP" -v >"$tmp/out" 2>"$tmp/err" && grep -q '^ophelp: oprofile [0-9.]* compiled on .* (oprofile-ng [0-9.]*)$' "$tmp/out"; then
	test_ok "version"
else
	not_ok "version"
fi

# Without a driver or a hardware PMU (VMs, this build host) the type is timer.
has_pmu=no
for pmu in /sys/bus/event_source/devices/cpu /sys/bus/event_source/devices/cpu_core \
	   /dev/oprofile/cpu_type; do
	[ -e "$pmu" ] && has_pmu=yes
done
if [ $has_pmu = no ]; then
	accept "detected timer" "timer" -r
	accept "detected timer checks" "0 " -e CPU_CLOCK:1000000
fi

# --- listings: every cpu type with events lists all its own events ---
for cpu in timer i386/arch_perfmon i386/haswell x86-64/family15h x86-64/generic; do
	if ! "$OPHELP" -c $cpu >"$tmp/out" 2>"$tmp/err" || [ -s "$tmp/err" ] ||
	   ! grep -q "available events for cpu type \".*\" ($cpu)" "$tmp/out"; then
		not_ok "listing $cpu"
		continue
	fi
	missing=
	for name in $(sed -n 's/.*name:\([A-Za-z0-9_-]*\) .*/\1/p' "$OPROFILE_EVENTS_DIR/$cpu/events"); do
		grep -q "^$name: (counter: " "$tmp/out" || missing="$missing $name"
	done
	if [ -z "$missing" ]; then test_ok "listing $cpu lacks$missing"; else not_ok "listing $cpu lacks$missing"; fi
	if "$OPHELP" -X -c $cpu >"$tmp/out" 2>"$tmp/err" && grep -q '^</help_events>$' "$tmp/out"; then
		test_ok "xml listing $cpu"
	else
		not_ok "xml listing $cpu"
	fi
	if command -v xmllint >/dev/null 2>&1; then
		if xmllint --noout --schema "$abs_top_srcdir/doc/ophelp.xsd" "$tmp/out" 2>"$tmp/err"; then
			test_ok "xml $cpu validates against doc/ophelp.xsd"
		else
			cat "$tmp/err"; not_ok "xml $cpu validates against doc/ophelp.xsd"
		fi
	fi
done
# the schema accepts OProfile 1.x's own ophelp -X output (its elements and
# attributes: header doc, event group and ext, named unit masks)
if command -v xmllint >/dev/null 2>&1; then
	cat >"$tmp/oprofile.xml" <<'XML'
<?xml version="1.0" ?>
<help_events schemaversion="2.0">
<header title="oprofile: available events for CPU type &quot;Intel Haswell microarchitecture&quot;" doc="See Intel 64 and IA-32 Architectures Software Developer's Manual"/>
<event event_name="CPU_CLK_UNHALTED" group="0" counter_mask="255" min_count="100000" desc="Clock cycles when not halted">
<unit_masks default="0" category="mandatory"><unit_mask mask="0" desc="No unit mask"/></unit_masks>
</event>
<event event_name="IBS_FETCH_ALL" counter_mask="0" min_count="50000" desc="All IBS fetch samples" ext="ibs_fetch"/>
<event event_name="L1D_PEND_MISS" counter_mask="4" min_count="2000003" desc="L1D miss outstanding">
<unit_masks default="1" category="exclusive"><unit_mask name="pending" mask="1" desc="Cycles with L1D load misses outstanding"/></unit_masks>
</event>
</help_events>
XML
	if xmllint --noout --schema "$abs_top_srcdir/doc/ophelp.xsd" "$tmp/oprofile.xml" 2>"$tmp/err"; then
		test_ok "doc/ophelp.xsd accepts OProfile's ophelp XML"
	else
		cat "$tmp/err"; not_ok "doc/ophelp.xsd accepts OProfile's ophelp XML"
	fi
fi
"$OPHELP" -c i386/haswell >"$tmp/out" 2>"$tmp/err"
if grep -q '^CPU_CLK_UNHALTED: (counter: all)$' "$tmp/out" &&
   grep -q '^L1D_PEND_MISS: (counter: 2)$' "$tmp/out" &&
   grep -q '(name=miss) ' "$tmp/out" &&
   grep -q 'bitmask: OR any of these together' "$tmp/out"; then
	test_ok "haswell listing details"
else
	not_ok "haswell listing details"
fi
"$OPHELP" --callgraph=1 -c timer >"$tmp/out" 2>"$tmp/err"
if grep -q '(min count: 150000)' "$tmp/out" && grep -q 'in nanoseconds' "$tmp/out"; then
	test_ok "timer listing with --callgraph"
else
	not_ok "timer listing with --callgraph"
fi

test_done
