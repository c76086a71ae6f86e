#!/bin/sh
# Every setting is checked the same way whichever way it comes in (an
# option, a line of the settings file, a line of daemonrc), by the first
# command that reads it, with an error naming the option or the file and
# line: a bad value from the settings file is refused by opcontrol --setup
# (nothing saved), --start and oprofiled itself, not copied into daemonrc
# and refused later. The settings file and daemonrc are read safely: a
# FIFO does not hang the reader, a huge file is not read whole, daemonrc
# is not read through a symbolic link; escape bytes of a value are printed
# escaped.
. "${abs_top_srcdir:?}/tests/control/lib.sh"
CONF=$T/oprofiled.conf
OPROFILE_CONFIG=$CONF
export OPROFILE_CONFIG
ESC=$(printf '\033')

# refused WHAT PATTERN CMD...: CMD fails (within 10 s), its output holds
# PATTERN (fixed string) and no raw escape byte
refused() {
	what=$1 pattern=$2
	shift 2
	if [ "$1" = ctl ]; then	# timeout runs programs, not functions
		shift
		set -- "$OPCONTROL" --session-dir="$S" "$@"
	fi
	timeout 10 "$@" >"$T/out" 2>&1
	rc=$?
	[ "$rc" -ne 124 ] || fail "$what: '$*' still ran after 10 s"
	[ "$rc" -ne 0 ] || { cat "$T/out"; fail "$what: '$*' was accepted"; }
	grep -qF -e "$pattern" "$T/out" ||
		{ cat "$T/out"; fail "$what: the error lacks '$pattern'"; }
	! grep -q "$ESC" "$T/out" || fail "$what: a raw escape byte in the error"
	test_ok "$what: refused ($(head -1 "$T/out" | cut -c1-150))"
}
conf() { printf '%b' "$1" >"$CONF"; }
no_daemon() { [ ! -f "$S/lock" ] || fail "a daemon runs after a refused $1"; }

step "the settings file's events, kernel and user both 0"
conf '# as an administrator writes it\nevents = CPU_CLOCK:100000:0:0:0\n'
refused "--setup" "$CONF:2: invalid event specification 'CPU_CLOCK:100000:0:0:0'" ctl --setup
grep -qs 'CPU_CLOCK:100000:0:0:0' "$S/daemonrc" && fail "the refused events were saved in daemonrc"
refused "--start" "$CONF:2:" ctl --start
no_daemon --start
refused "oprofiled" "$CONF:2:" "$OPROFILED" --session-dir="$S"
no_daemon oprofiled

step "the settings file's events below the cpu type's minimum"
conf 'events = CPU_CLOCK:100\n'
refused "--setup" "$CONF:1: invalid events 'CPU_CLOCK:100': count 100 for event CPU_CLOCK is below the minimum" ctl --setup
refused "--start" "$CONF:1:" ctl --start
no_daemon --start
refused "oprofiled" "$CONF:1: invalid events 'CPU_CLOCK:100'" "$OPROFILED" --session-dir="$S"
no_daemon oprofiled

step "other bad values of the settings file"
conf 'keep_size = abc\n'
refused "non-numeric keep_size" "$CONF:1: keep_size: 'abc' is not a size" ctl --setup
conf 'rotate = 99999999999999999999\n'
refused "overflowing rotate" "$CONF:1: rotate: '99999999999999999999' is not a duration" ctl --setup
conf 'callgraph =\n'
refused "empty callgraph" "$CONF:1: invalid --callgraph depth ''" ctl --setup
conf 'image =\n'
refused "empty image" "$CONF:1: image: '' is not 'all' or absolute paths" ctl --setup
conf 'separate = \033[31mred\n'
refused "escape bytes in separate" "$CONF:1: invalid --separate value '\\x1b[31mred'" ctl --setup
refused "escape bytes, oprofiled" "$CONF:1: invalid --separate value '\\x1b[31mred'" "$OPROFILED" --session-dir="$S"
no_daemon oprofiled
rm -f "$CONF"

step "daemonrc edited by hand"
mkdir -p "$S"
printf 'events=CPU_CLOCK:100\n' >"$S/daemonrc"
refused "daemonrc events" "$S/daemonrc:1: invalid events 'CPU_CLOCK:100'" ctl --setup
printf 'events=default\ncpu_buffer_size=-1\n' >"$S/daemonrc"
refused "daemonrc cpu_buffer_size=-1" "$S/daemonrc:2: cpu_buffer_size: '-1' is not a positive number" ctl --start
no_daemon --start
printf 'kernel_range=-1,5\n' >"$S/daemonrc"
refused "daemonrc kernel_range" "$S/daemonrc:1: kernel_range: '-1,5' is not START,END" ctl --status
printf 'events=CPU_CLOCK:1000000\n' >"$T/elsewhere"
rm -f "$S/daemonrc"
ln -s "$T/elsewhere" "$S/daemonrc"
refused "daemonrc a symbolic link" "$S/daemonrc': refusing to follow a symbolic link" ctl --setup --separate=lib
grep -qx 'events=CPU_CLOCK:1000000' "$T/elsewhere" || fail "the link's target was changed"
rm -f "$S/daemonrc"

step "the settings file: a FIFO, a huge file"
mkfifo "$T/fifo.conf"
OPROFILE_CONFIG=$T/fifo.conf refused "a FIFO settings file" "$T/fifo.conf': not a regular file" ctl --status
OPROFILE_CONFIG=$T/fifo.conf refused "a FIFO settings file, oprofiled" "$T/fifo.conf': not a regular file" "$OPROFILED" --session-dir="$S"
no_daemon oprofiled
awk 'BEGIN { for (i = 0; i < 40000; i++) printf "# padding line %d of a settings file far too big\n", i }' >"$T/huge.conf"
OPROFILE_CONFIG=$T/huge.conf refused "a 2 MB settings file" "$T/huge.conf' is larger than 1024 KiB" ctl --status

step "opcontrol's options"
refused "--cpu-buffer-size overflow" "--cpu-buffer-size: '99999999999999999999' is not a positive number" ctl --cpu-buffer-size=99999999999999999999 --setup
refused "--cpu-buffer-size=-1" "--cpu-buffer-size: '-1' is not a positive number" ctl --cpu-buffer-size=-1 --setup
refused "--cpu-buffer-size empty" "--cpu-buffer-size: '' is not a positive number" ctl --cpu-buffer-size= --setup
refused "--kernel-range with a sign" "--kernel-range: '-1,5' is not START,END" ctl --kernel-range=-1,5 --setup
[ ! -f "$S/daemonrc" ] || fail "a refused --setup saved daemonrc"

step "oprofiled --stack-size and --buffer-pages, operf --stack-size"
for v in 1 2 3 4 5 6 7 -1 "" abc 99999999999999999999; do
	refused "oprofiled --stack-size=$v" "--stack-size: '$v' is not a stack size" "$OPROFILED" --session-dir="$S" --callgraph=4 --stack-size="$v"
	no_daemon "--stack-size=$v"
done
refused "operf --stack-size=5" "--stack-size: '5' is not a stack size" "$B/utils/operf" -g --stack-size=5 true
for v in -1 0 3 "" abc 99999999999999999999 "${ESC}[31m"; do
	shown=$(printf '%s' "$v" | sed 's/\x1b/\\x1b/')	# as the error prints it
	refused "oprofiled --buffer-pages=$shown" "--buffer-pages: '$shown' is not a ring size" "$OPROFILED" --session-dir="$S" --buffer-pages="$v"
	no_daemon "--buffer-pages=$shown"
done
test_done
