#!/bin/sh
# opannotate -s --output-dir=OUT writes only inside OUT. A program built
# from "$tmp/x/../../(...)/VICTIM/anything.c" carries that path, '..'
# and all, in its DWARF; OUT + that path is the victim's file: it is not
# truncated, nor created when absent, and the source is named in a
# warning while the program's other source file is annotated. A link
# planted in an existing OUT sends nothing elsewhere. The sources read
# are regular files only: a FIFO, a device and a huge file at a source
# path do not stall or swallow opannotate.
. "$SRCDIR/tests/lib.sh"
: "${OPANNOTATE:?}"
unset DEBUGINFOD_URLS

victim=$(mktemp -d) || bail mktemp
test_cleanup_hook() { rm -rf "$victim"; }
mkdir "$tmp/x" "$tmp/src"
cat >"$victim/anything.c" <<'EOC'
int evil_loop(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += i * i;
	return s;
}
EOC
cat >"$tmp/src/ok.c" <<'EOC'
int evil_loop(int n);

int ok_loop(int n)
{
	return evil_loop(n) + 1;
}

int main(int argc, char **argv)
{
	(void)argv;
	return ok_loop(argc) & 1;
}
EOC
# enough '..' to climb from OUT as well as from $tmp/x to /
ups=$(printf '../%.0s' $(seq 40))
evil="$tmp/x/$ups${victim#/}/anything.c"
$CC -O1 -g -fno-inline -o "$tmp/prog" "$tmp/src/ok.c" "$evil" ||
	fail "cannot build the program"
readelf --debug-dump=info "$tmp/prog" | grep -qF "$tmp/x/../../" ||
	bail "the compiler did not keep the '..' of the source path"
"$MKSAMPLE" "$(sfile "$tmp/prog" "$tmp/prog")" --mtime-of "$tmp/prog" \
	"$(symoff "$tmp/prog" evil_loop 4)=60" "$(symoff "$tmp/prog" ok_loop 2)=40" ||
	fail mksample
sum=$(md5sum <"$victim/anything.c")

"$OPANNOTATE" --session-dir="$SD" -s -o "$tmp/out" >"$tmp/o" 2>"$tmp/o.err"
rc=$?
cat "$tmp/o.err"
check_eq "$(md5sum <"$victim/anything.c")" "$sum" "the victim's file is not truncated"
check_eq "$(ls "$victim")" "anything.c" "nothing else is created in the victim directory"
check_eq "$rc" 0 "opannotate -o: the refused source is not an error of the run"
check_grep "$tmp/o.err" "source file '$tmp/x/\\.\\./.*/anything\\.c' not annotated into '$tmp/out': its path has a '\\.\\.' component" \
	"the refused source is named"
check_grep "$tmp/out$tmp/src/ok.c" 'ok_loop total: +40 ' "the other source file is annotated in OUT"
[ -z "$(find "$tmp/out" -name anything.c)" ] || fail "the refused source was written in OUT"

rm "$victim/anything.c"
"$OPANNOTATE" --session-dir="$SD" -s -o "$tmp/out" >"$tmp/o" 2>"$tmp/o.err"
[ ! -e "$victim/anything.c" ] || fail "opannotate -o created the victim's file"
test_ok "the victim's file is not created when absent"

# a link planted in an existing OUT, where the copy of ok.c goes
first=${tmp#/}
first=${first%%/*}
mkdir "$tmp/out2" "$tmp/elsewhere"
ln -s "$tmp/elsewhere" "$tmp/out2/$first"
"$OPANNOTATE" --session-dir="$SD" -s -o "$tmp/out2" >"$tmp/o2" 2>"$tmp/o2.err"
rc=$?
cat "$tmp/o2.err"
[ -z "$(ls -A "$tmp/elsewhere")" ] || { ls -R "$tmp/elsewhere"; fail "written through a link in OUT"; }
test_ok "nothing written through a link planted in OUT"
check_eq "$rc" 1 "a copy that cannot be written fails the run"
check_grep "$tmp/o2.err" "cannot write '$tmp/out2$tmp/src/ok.c': refusing to follow a symbolic link" \
	"the refused copy is named"

# sources that are not regular files, or too big: skipped, said, no stall
for what in FIFO device 100MB; do
	rm -f "$tmp/src/ok.c"
	case $what in
	FIFO) mkfifo "$tmp/src/ok.c"; kind="a FIFO" ;;
	device) ln -s /dev/zero "$tmp/src/ok.c"; kind="a link to /dev/zero" ;;
	100MB) truncate -s 100M "$tmp/src/ok.c"; kind="a 100 MB file" ;;
	esac
	timeout 20 "$OPANNOTATE" --session-dir="$SD" -s >"$tmp/k" 2>"$tmp/k.err"
	rc=$?
	[ "$rc" -ne 124 ] || fail "$kind at the source path stalled opannotate"
	check_eq "$rc" 0 "$kind at the source path: opannotate -s completes"
	check_grep "$tmp/k.err" "$tmp/src/ok\\.c" "$kind at the source path is named"
	check_grep "$tmp/k" 'ok_loop total: +40 ' "$kind at the source path: the function's total kept"
done
test_done
