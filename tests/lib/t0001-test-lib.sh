#!/bin/sh
# The shell test library's own checks: a failed value check (check_eq,
# test_cmp, check_grep, check_no_grep) says "not ok", shows what was
# expected and what was there, and lets the test go on; test_done then
# fails the test, counting a check failed in a subshell too; fail ends it.
. "${abs_top_srcdir:?}/tests/lib/test-lib.sh"
test_tmpdir test-lib-test

# run_case NAME: runs $tmp/NAME.sh (test-lib.sh sourced first) into
# $tmp/NAME.out, its status into $tmp/NAME.rc; its own $tmp in $tmp/cases
run_case() {
	{
		echo ". \"$abs_top_srcdir/tests/lib/test-lib.sh\""
		echo "test_tmpdir test-lib-case"
		cat
	} >"$tmp/$1.sh"
	mkdir -p "$tmp/cases"
	TMPDIR=$tmp/cases sh "$tmp/$1.sh" >"$tmp/$1.out" 2>&1
	echo $? >"$tmp/$1.rc"
}

run_case values <<'EOF'
check_eq 1 1 "same"
check_eq "$(echo two)" three "differ"
printf 'a\nb\nc\n' >"$tmp/expect"
printf 'a\nB\nc\n' >"$tmp/actual"
test_cmp "$tmp/expect" "$tmp/expect" "files the same"
test_cmp "$tmp/expect" "$tmp/actual" "files differ"
check_grep "$tmp/actual" '^B$' "a line matches"
check_grep "$tmp/actual" '^z' "no line matches"
check_no_grep "$tmp/actual" '^b$' "no b"
check_no_grep "$tmp/actual" '^c$' "a c"
echo "went on"
test_done
EOF
check_eq "$(cat "$tmp/values.rc")" 1 "failed checks fail the test"
sed -E 's|/[^ ]*/test-lib-case\.[^/ ]*|TMP|g' "$tmp/values.out" >"$tmp/values.txt"
test_cmp - "$tmp/values.txt" "each check's report, expected and actual" <<'EOF'
ok 1 - same
not ok 2 - differ
#   expected: 'three'
#   actual:   'two'
ok 3 - files the same
not ok 4 - files differ
#   --- expected
#   +++ actual
#   @@ -1,3 +1,3 @@
#    a
#   -b
#   +B
#    c
ok 5 - a line matches
not ok 6 - no line matches
#   expected: a line matching /^z/
#   TMP/actual (3 lines):
#     a
#     B
#     c
ok 7 - no b
not ok 8 - a c
#   expected: no line matching /^c$/; these do:
#     3:c
went on
1..8
# 4 of 8 checks failed
EOF

run_case subshell <<'EOF'
( check_eq a b "in a subshell" )
echo "went on"
test_done
EOF
check_eq "$(cat "$tmp/subshell.rc")" 1 "a check failed in a subshell fails the test"
check_grep "$tmp/subshell.out" '^# failed in a subshell: in a subshell;$' \
	"test_done names it"

run_case passing <<'EOF'
check_eq a a "same"
printf 'x\n' >"$tmp/x"
printf 'x\n' | test_cmp - "$tmp/x" "the expected text from stdin"
test_done
EOF
check_eq "$(cat "$tmp/passing.rc")" 0 "passing checks pass the test"

run_case fatal <<'EOF'
check_eq a b "first"
fail "the end"
echo "not reached"
EOF
check_eq "$(cat "$tmp/fatal.rc")" 1 "fail ends the test, failed"
check_no_grep "$tmp/fatal.out" 'not reached' "nothing runs after fail"
check_eq "$(ls -A "$tmp/cases" | wc -l)" 0 \
	"each case's \$tmp and its mark are removed at exit"
test_done
