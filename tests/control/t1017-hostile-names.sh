#!/bin/sh
# Names from files and binaries reach the terminal with their control
# characters escaped: a binary whose name holds an
# escape sequence, and a sample file named
# X<ESC>]0;pwned<BEL><ESC>[2J.1000000.0.all.all.all.
. "${abs_top_srcdir:?}/tests/control/lib.sh"
C=$S/samples/current
esc=$(printf '\033')
bad="$T/sp${esc}[2Jin"
cp "$SPIN" "$bad"

ctl --separate=none --event=CPU_CLOCK:1000000 --start >/dev/null || fail "--start failed"
"$bad" 0.5
ctl --dump || fail "--dump failed"
ctl --shutdown >/dev/null || fail "--shutdown failed"
"$OPREPORT" --session-dir="$S" >"$T/rep" 2>&1 || { cat "$T/rep"; fail "opreport failed"; }
! grep -q "$esc" "$T/rep" || fail "a raw ESC in opreport's output"
grep -q 'sp\\x1b\[2Jin' "$T/rep" || { cat "$T/rep"; fail "the binary's name is not shown escaped"; }
test_ok "a binary name with an escape sequence is printed escaped"

step "a sample file named with terminal escapes"
f=$(find "$C" -path "*{dep}*" -name 'CPU_CLOCK.*' -type f | head -1)
[ -n "$f" ] || fail "no sample file"
mv "$f" "${f%/*}/X${esc}]0;pwned$(printf '\a')${esc}[2J.1000000.0.all.all.all"
"$OPREPORT" --session-dir="$S" >"$T/rep" 2>&1
! grep -q "$esc" "$T/rep" || fail "a raw ESC in opreport's output for a hostile file name"
! grep -q "$(printf '\a')" "$T/rep" || fail "a raw BEL in opreport's output"
test_ok "no raw control character reaches the terminal"

step "a header that contradicts its name, a path longer than PATH_MAX"
f=$(find "$C" -path "*{dep}*" -name 'CPU_CLOCK.1000000.*' -type f | head -1)
[ -n "$f" ] || fail "no sample file left"
mv "$f" "${f%/*}/CPU_CLOCK.999.0.all.all.all"
long="$C/{root}"
i=0
while [ $i -lt 45 ]; do long="$long/$(printf '%0100d' $i)"; i=$((i + 1)); done
mkdir -p "$long" 2>/dev/null || (cd "$C/{root}" && i=0 &&
	while [ $i -lt 45 ]; do mkdir "$(printf '%0100d' $i)" && cd "$(printf '%0100d' $i)"; i=$((i + 1)); done)
"$OPREPORT" --session-dir="$S" >"$T/rep" 2>&1
check_grep "$T/rep" "CPU_CLOCK.999.0.all.all.all': its header says count 1000000, its name 999" \
	"a count that contradicts the name is said, naming the file"
check_grep "$T/rep" "skipping .*File name too long" "a path longer than PATH_MAX is said"
test_done
