#!/bin/sh
# Kernel samples symbolised from the session's saved metadata, never from
# /proc: a fake session/kallsyms and kernel_images give {kern}/vmlinux and
# {kern}/ext4 symbols; a {root}/.../vmlinux image with is_kernel set is
# read with libbfd from _text; a session without kallsyms keeps its
# samples under the image and says why.
. "$SRCDIR/tests/lib.sh"

sess=$SD/samples/current
mkdir -p "$sess/session"
printf '%s\n' \
	'ffffffff81000000 T _text' \
	'ffffffff81000100 T start_kernel' \
	'ffffffff81000400 t do_thing' \
	'ffffffff81001000 T schedule' \
	'ffffffff81002000 D some_data' \
	'ffffffff81003000 T _etext' \
	'ffffffffc0100000 t ext4_read	[ext4]' \
	'ffffffffc0100200 T ext4_write	[ext4]' \
	'ffffffffc0200000 t other_fn	[other]' >"$sess/session/kallsyms"
printf '%s\n' \
	'vmlinux 0xffffffff81000000 0xffffffff81003000' \
	'ext4 0xffffffffc0100000 0xffffffffc0101000' \
	'other 0xffffffffc0200000 0xffffffffc0201000' >"$sess/session/kernel_images"
"$MKSAMPLE" "$(sfile vmlinux vmlinux)" --kernel \
	0x150=60 0x500=20 0x1800=40 || fail mksample
"$MKSAMPLE" "$(sfile ext4 ext4)" --kernel 0x10=30 0x250=50 || fail mksample

run_report "$tmp/k" -l
cat "$tmp/k"
check_grep "$tmp/k" '^samples +% +image name +symbol name$' "image name column (two images)"
check_eq "$(awk '$NF == "start_kernel" {print $1, $2, $3}' "$tmp/k")" "60 30.0000 vmlinux" "start_kernel: key 0x150 from vmlinux start"
check_eq "$(awk '$NF == "do_thing" {print $1, $3}' "$tmp/k")" "20 vmlinux" "do_thing (a local text symbol)"
check_eq "$(awk '$NF == "schedule" {print $1, $3}' "$tmp/k")" "40 vmlinux" "schedule"
check_eq "$(awk '$NF == "ext4_read" {print $1, $2, $3}' "$tmp/k")" "30 15.0000 ext4" "ext4_read: module symbol, key from the module start"
check_eq "$(awk '$NF == "ext4_write" {print $1, $3}' "$tmp/k")" "50 ext4" "ext4_write"
check_no_grep "$tmp/k" 'other_fn|some_data' "no symbols of other images or data"

run_report "$tmp/ks" image:ext4
check_eq "$(awk '$NF == "ext4" {print $1}' "$tmp/ks")" "80" "image:ext4 selects the module"

# --separate=kernel: kernel samples under their application
"$MKSAMPLE" "$(sfile /bin/ddx vmlinux "" sep)" --kernel 0x1010=9 || fail mksample
cp -r "$sess/session" "$SD/samples/sep/"
run_report "$tmp/sep" -l session:sep
cat "$tmp/sep"
check_grep "$tmp/sep" '^9 +100.0000 +vmlinux +ddx +schedule$' "kernel samples of /bin/ddx: image and app name columns"

# a vmlinux given by path: libbfd, vma = key + _text
$CC -O1 -g -nostdlib -static -Wl,-e,_text -o "$tmp/vmlinux" "$SRCDIR/tests/kern.c" ||
	fail "cannot build kern.c"
text=$(nm "$tmp/vmlinux" | awk '$3 == "_text" {print $1}')
k1=$(( 0x$(nm "$tmp/vmlinux" | awk '$3 == "kfunc_one" {print $1}') - 0x$text + 2 ))
k2=$(( 0x$(nm "$tmp/vmlinux" | awk '$3 == "kfunc_two" {print $1}') - 0x$text ))
"$MKSAMPLE" "$(sfile "$tmp/vmlinux" "$tmp/vmlinux" "" vml)" --kernel \
	--mtime-of "$tmp/vmlinux" "$k1=11" "$k2=22" || fail mksample
run_report "$tmp/vml" -l session:vml
cat "$tmp/vml"
check_eq "$(awk '$NF == "kfunc_one" {print $1}' "$tmp/vml")" "11" "vmlinux file: kfunc_one at _text + key"
check_eq "$(awk '$NF == "kfunc_two" {print $1}' "$tmp/vml")" "22" "vmlinux file: kfunc_two"

# OProfile 1.x's name of a kallsyms-resolved kernel, as the daemon writes
# it now: {root}/proc/kallsyms, kernel_images naming /proc/kallsyms. The
# same keys give the same rows, shown as vmlinux, as the older name did.
mkdir -p "$SD/samples/k1x/session"
cp "$sess/session/kallsyms" "$SD/samples/k1x/session/"
sed 's|^vmlinux |/proc/kallsyms |' "$sess/session/kernel_images" \
	>"$SD/samples/k1x/session/kernel_images"
"$MKSAMPLE" "$(sfile /proc/kallsyms /proc/kallsyms "" k1x)" --kernel \
	0x150=60 0x500=20 0x1800=40 || fail mksample
"$MKSAMPLE" "$(sfile ext4 ext4 "" k1x)" --kernel 0x10=30 0x250=50 || fail mksample
run_report "$tmp/k1x" -l session:k1x
run_report "$tmp/k" -l session:current
check_eq "$(cat "$tmp/k1x")" "$(cat "$tmp/k")" "/proc/kallsyms session: the rows of the {kern}/vmlinux one"
run_report "$tmp/k1x" -l session:k1x image:vmlinux
check_grep "$tmp/k1x" '^40 +33.3333 +schedule$' "image:vmlinux selects the /proc/kallsyms image"
# under an application (--separate=kernel)
"$MKSAMPLE" "$(sfile /bin/ddx /proc/kallsyms "" k1x)" --kernel 0x1010=9 || fail mksample
run_report "$tmp/k1x" -l session:k1x image:/bin/ddx
check_grep "$tmp/k1x" '^9 +100.0000 +vmlinux +ddx +schedule$' "/proc/kallsyms under /bin/ddx"

# no saved kallsyms
"$MKSAMPLE" "$(sfile vmlinux vmlinux "" nok)" --kernel 0x150=5 || fail mksample
run_report "$tmp/nok" -l session:nok
cat "$tmp/nok" "$tmp/nok.err"
check_grep "$tmp/nok.err" "warning: no kernel symbols for session 'nok'" "no metadata: warning names the session"
check_grep "$tmp/nok" '^5 +100.0000 +\(no symbols\)$' "no metadata: samples kept under vmlinux"
test_done
