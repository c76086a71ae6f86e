#!/bin/sh
# opannotate and the kernel: a session's kernel samples (its kallsyms
# saved with a KASLR-like base) on a fake vmlinux built with -g. Without
# --vmlinux, -a says once per kernel image that it has no code to
# disassemble; with --vmlinux FILE, -s annotates kern.c's lines and -a
# the file's instructions (libopcodes), the counts summing to the
# totals; a vmlinux of another kernel is refused by name and kallsyms
# used instead.
. "$SRCDIR/tests/lib.sh"
: "${OPANNOTATE:?}"

$CC -O1 -g -nostdlib -static -Wl,-e,_text -o "$tmp/vmlinux" "$SRCDIR/tests/kern.c" ||
	fail "cannot build kern.c"
base=0x9a000000   # of 0xffffffff9a000000 (sh arithmetic is signed)
text=0x$(nm "$tmp/vmlinux" | awk '$3 == "_text" {print $1}')
sess=$SD/samples/current
mkdir -p "$sess/session"
nm -n "$tmp/vmlinux" | awk '$2 ~ /^[Tt]$/' | while read -r a t n; do
	printf 'ffffffff%08x %s %s\n' $((base + 0x$a - text)) "$t" "$n"
done >"$sess/session/kallsyms"
end=$((base + 0x$(nm -n "$tmp/vmlinux" | awk '$2 ~ /^[Tt]$/ {a = $1} END {print a}') - text + 64))
printf 'ffffffff%08x T _etext\nffffffffc0100000 t ext4_read\t[ext4]\n' "$end" >>"$sess/session/kallsyms"
printf 'vmlinux 0xffffffff%08x 0xffffffff%08x\next4 0xffffffffc0100000 0xffffffffc0101000\n' \
	$((base)) "$end" >"$sess/session/kernel_images"
key() { printf '0x%x' $((0x$(nm "$tmp/vmlinux" | awk -v s="$1" '$3 == s {print $1}') - text + ${2:-0})); }
"$MKSAMPLE" "$(sfile vmlinux vmlinux)" --kernel "$(key kfunc_one 2)=30" \
	"$(key kfunc_one 6)=10" "$(key kfunc_two 1)=20" || fail mksample
"$MKSAMPLE" "$(sfile ext4 ext4)" --kernel 0x10=5 || fail mksample


# without --vmlinux: said once per image, not silently left out
run_annotate "$tmp/a" -a
cat "$tmp/a.err"
check_eq "$(grep -c "cannot disassemble 'vmlinux': no binary to read its code from .*--vmlinux FILE" "$tmp/a.err")" "1" \
	"-a without --vmlinux: vmlinux named once, with the way out"
check_eq "$(grep -c "cannot disassemble 'ext4': no binary to read its code from" "$tmp/a.err")" "1" \
	"-a: the module named once"
run_annotate "$tmp/s" -s
check_grep "$tmp/s" "kfunc_one total: +40 " "-s without --vmlinux: the kallsyms function's total still shown"

# with --vmlinux: the file's code and lines
run_annotate "$tmp/va" -a --vmlinux="$tmp/vmlinux"
sed -n '/<kfunc_one>/,/^$/p' "$tmp/va"
check_no_grep "$tmp/va.err" "cannot disassemble 'vmlinux'" "--vmlinux: vmlinux disassembled"
for f in kfunc_one:40 kfunc_two:20; do
	sum=$(awk -v f="<${f%:*}>:" '$1 ~ /^:[0-9a-f]+$/ { cur = ($2 == f) }
		cur && $1 ~ /^[0-9]+$/ && $3 ~ /^:/ { s += $1 } END { print s + 0 }' "$tmp/va")
	check_eq "$sum" "${f#*:}" "--vmlinux -a: ${f%:*}'s instruction counts sum to its total"
done
run_annotate "$tmp/vs" -s --vmlinux="$tmp/vmlinux"
check_grep "$tmp/vs" "kfunc_one total: +40 " "--vmlinux -s: kfunc_one's total"
check_grep "$tmp/vs" '^ +40 +[0-9.]+ :	for \(int i = 0; i < n; i\+\+\) /\* kfunc_one total' \
	"--vmlinux -s: kfunc_one's samples on its line of kern.c"

# a vmlinux of another kernel: refused by name, kallsyms used
$CC -O0 -g -nostdlib -static -Wl,-e,_text -o "$tmp/other" "$SRCDIR/tests/kern.c" ||
	fail "cannot build kern.c"
run_annotate "$tmp/o" -a --vmlinux="$tmp/other"
check_grep "$tmp/o.err" "--vmlinux '$tmp/other' not used for kernel image 'vmlinux': it is not the sampled kernel" \
	"another kernel's vmlinux: refused by name"
check_grep "$tmp/o.err" "cannot disassemble 'vmlinux'" "and nothing is disassembled from it"
"$OPANNOTATE" --session-dir="$SD" -a --vmlinux="$tmp/nonexistent" >/dev/null 2>"$tmp/n.err"
check_grep "$tmp/n.err" "--vmlinux '$tmp/nonexistent' not used" "a missing vmlinux: named"
test_done
