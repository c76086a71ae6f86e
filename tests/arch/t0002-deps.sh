#!/bin/sh
# The house's two rules, checked on the build itself (tests/arch/deps,
# drawn in doc/architecture.md): no cycle between files, no folder that
# depends on a folder above it. Then the checker is shown to see both: a
# small tree with a two-file cycle and an upward #include is refused.
. "${abs_top_srcdir:?}/tests/lib/test-lib.sh"
test_tmpdir arch-deps
command -v python3 >/dev/null || skip "no python3"
command -v nm >/dev/null || skip "no nm"
DEPS=$abs_top_srcdir/tests/arch/deps

"$DEPS" "$abs_top_builddir" "$abs_top_srcdir" >"$tmp/tree" 2>&1
rc=$?
cat "$tmp/tree" | sed 's/^/# /'
check_eq "$rc" 0 "the tree: no file cycle, no upward dependency"
check_grep "$tmp/tree" '^cycles: 0, upward dependencies: 0$' "the summary says so"
n=$(sed -n 's/^files: \([0-9]*\),.*/\1/p' "$tmp/tree")
[ "${n:-0}" -ge 100 ] && test_ok "the graph holds the tree's $n files" ||
	test_not_ok "the graph holds only ${n:-0} files"

# a tree that breaks both rules
s=$tmp/src b=$tmp/build
mkdir -p "$s/libutil" "$s/libpp" "$b/libutil"
cat >"$s/libutil/a.c" <<'EOC'
int b_fn(void);
int a_fn(void) { return b_fn() + 1; }
EOC
cat >"$s/libutil/b.c" <<'EOC'
int a_fn(void);
int b_fn(void) { return 0; }
int b_other(void) { return a_fn(); }
EOC
cat >"$s/libpp/pp_x.h" <<'EOC'
static inline int pp_x(void) { return 7; }
EOC
cat >"$s/libutil/c.c" <<'EOC'
#include "pp_x.h"
int c_fn(void) { return pp_x(); }
EOC
: >"$b/config.h"
for f in a b c; do
	cc -c -I"$s/libpp" -o "$b/libutil/libutil_a-$f.o" "$s/libutil/$f.c" ||
		fail "cannot compile the small tree's $f.c"
done
"$DEPS" "$b" "$s" >"$tmp/bad" 2>&1
rc=$?
cat "$tmp/bad" | sed 's/^/# /'
check_eq "$rc" 1 "the small tree is refused"
check_grep "$tmp/bad" '^cycle: libutil/a.c <-> libutil/b.c$' "its cycle is named"
check_grep "$tmp/bad" '^upward: libutil/c.c -> libpp/pp_x.h' "its upward include is named"
"$DEPS" "$tmp/nothing" >"$tmp/usage" 2>&1
check_eq "$?" 2 "a directory that is no build: exit 2"
check_grep "$tmp/usage" "is not a configured build directory" "and says so"
test_done
