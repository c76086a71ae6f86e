#!/bin/sh
# Two control commands at once, 20 times over: --stop and
# --stop, --dump and --dump, --dump and --stop, --save and --save. Each
# sender waits for its own answer (SESSION/reply.ID), so none reads the
# other's answer in the shared control_reply and times out; each pair
# ends within seconds, both commands succeed, and nothing is left behind.
. "${abs_top_srcdir:?}/tests/control/lib.sh"

ctl --event=CPU_CLOCK:1000000 --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
"$SPIN" 30 & spin=$!

# pair A B: opcontrol A and opcontrol B at once; both succeed in 20 s
pair() {
	start=$(date +%s)
	timeout 20 "$OPCONTROL" --session-dir="$S" $1 >"$T/a" 2>&1 & a=$!
	timeout 20 "$OPCONTROL" --session-dir="$S" $2 >"$T/b" 2>&1 & b=$!
	wait $a; ra=$?
	wait $b; rb=$?
	[ $ra -eq 0 ] || { cat "$T/a"; fail "'$1' beside '$2' failed ($ra)"; }
	[ $rb -eq 0 ] || { cat "$T/b"; fail "'$2' beside '$1' failed ($rb)"; }
	took=$(($(date +%s) - start))
	[ $took -le 10 ] || fail "'$1' and '$2' took $took s"
}

for i in $(seq 20); do
	case $((i % 4)) in
	0) pair --stop --stop ;;
	1) pair --dump --dump ;;
	2) pair --dump --stop ;;
	3) pair "--save=a$i" "--save=b$i" ;;
	esac
	ctl --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start after pair $i failed"; }
done
test_ok "20 pairs of commands at once: every command answered, none timed out"
for i in 3 7 11 15 19; do
	[ -d "$S/samples/a$i" ] && [ -d "$S/samples/b$i" ] || fail "save pair $i: not both saved"
done
test_ok "both sessions of every --save pair saved"
ls "$S" | grep '^reply\.' && fail "reply files left behind"
test_ok "no reply file left"
kill "$spin" 2>/dev/null
ctl --shutdown >/dev/null || fail "--shutdown failed"
test_done
