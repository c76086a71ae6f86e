#!/bin/sh
# Binaries as they are found at report time: a stripped library (dynamic
# symbol ranges), a deleted and a rebuilt binary (warning, samples kept
# under the image), --image-path and --root, and C++ names with
# -D none/normal/smart.
. "$SRCDIR/tests/lib.sh"

# --- stripped library: ranges between exported symbols
$CC -O1 -g -fno-toplevel-reorder -fPIC -shared -o "$tmp/libt.so" \
	"$SRCDIR/tests/lib.c" || fail "cannot build lib.c"
check_eq "$(nm -n "$tmp/libt.so" | awk '$3 ~ /^(lib_(one|two|three)|helper)$/ {printf "%s ", $3}')" \
	"lib_one helper lib_two lib_three " "helper lies between lib_one and lib_two"
mkdir "$tmp/s"
strip --strip-all -o "$tmp/s/libt.so" "$tmp/libt.so" || fail strip
toff() { readelf -SW "$1" | awk '$2 == ".text" || $3 == ".text" {print}' | sed 's/^ *\[ *[0-9]*\] //' | awk '{print $3, $4}'; }
check_eq "$(toff "$tmp/s/libt.so")" "$(toff "$tmp/libt.so")" "strip keeps .text where it was"
lib=$tmp/s/libt.so
"$MKSAMPLE" "$(sfile "$lib" "$lib")" --mtime-of "$lib" \
	"$(symoff "$tmp/libt.so" lib_one 2)=10" "$(symoff "$tmp/libt.so" helper 2)=20" \
	"$(symoff "$tmp/libt.so" lib_two 1)=40" "$(symoff "$tmp/libt.so" lib_three 3)=30" ||
	fail mksample
nm "$lib" 2>&1 | grep -q "no symbols" || fail "the stripped copy still has a symbol table"
test_ok "the stripped copy has no symbol table"
run_report "$tmp/strip" -l
cat "$tmp/strip"
check_eq "$(awk '$NF == "lib_one->lib_two" {print $1}' "$tmp/strip")" "30" "lib_one->lib_two holds lib_one and the static helper (10 + 20)"
check_eq "$(awk '$NF == "lib_two->lib_three" {print $1}' "$tmp/strip")" "40" "lib_two->lib_three"
check_eq "$(awk '$NF ~ /^lib_three->/ {print $1}' "$tmp/strip")" "30" "lib_three's range to the next symbol or the end"

# --- deleted binary
build funcs.c prog
prog=$tmp/prog
"$MKSAMPLE" "$(sfile "$prog" "$prog")" --mtime-of "$prog" \
	"$(symoff "$prog" alpha)=70" "$(symoff "$prog" beta)=30" || fail mksample
mkdir "$tmp/elsewhere"
mv "$prog" "$tmp/elsewhere/prog"
run_report "$tmp/gone" -l image:"$prog"
cat "$tmp/gone" "$tmp/gone.err"
check_grep "$tmp/gone.err" "warning: cannot find binary '$prog'.*100 samples are shown without symbols" "deleted binary: warning on stderr"
check_eq "$(grep -c 'cannot find binary' "$tmp/gone.err")" "1" "deleted binary: warned once"
check_grep "$tmp/gone" "^Note: cannot find binary '$prog'" "deleted binary: said in the report"
check_grep "$tmp/gone" '^100 +100.0000 +\(no symbols\)$' "deleted binary: its samples stay under the image"

# --- found again with --image-path, and with --root
run_report "$tmp/ip" -l image:"$prog" -p "$tmp/elsewhere"
check_eq "$(awk '$NF == "alpha" {print $1}' "$tmp/ip")" "70" "--image-path finds the binary by name"
mkdir -p "$tmp/root$tmp"
cp -p "$tmp/elsewhere/prog" "$tmp/root$prog"
run_report "$tmp/root.out" -l image:"$prog" -R "$tmp/root"
check_eq "$(awk '$NF == "beta" {print $1}' "$tmp/root.out")" "30" "--root finds it below a sysroot"

# --- an archive: sessions and binaries below one directory
mkdir -p "$tmp/arch$SD" "$tmp/arch$tmp"
cp -r "$SD/samples" "$tmp/arch$SD/"
cp -p "$tmp/elsewhere/prog" "$tmp/arch$prog"
run_report "$tmp/arch.out" -l archive:"$tmp/arch" image:"$prog"
check_eq "$(awk '$NF == "alpha" {print $1}' "$tmp/arch.out")" "70" "archive:DIR reads sessions and binaries below DIR"

# --- a binary rebuilt since it was sampled
cp -p "$tmp/elsewhere/prog" "$prog"
"$MKSAMPLE" "$(sfile "$prog" "$prog")" --mtime 12345 \
	"$(symoff "$prog" alpha)=70" "$(symoff "$prog" beta)=30" || fail mksample
run_report "$tmp/changed" -l image:"$prog"
cat "$tmp/changed" "$tmp/changed.err"
check_grep "$tmp/changed.err" "warning: '$prog' has changed since it was profiled: 100 of its samples" "changed binary: warning"
check_grep "$tmp/changed" '^100 +100.0000 +\(no symbols\)$' "changed binary: samples under the image, no wrong symbols"

# --- C++
if ! command -v g++ >/dev/null 2>&1; then
	test_note "g++ not found: the C++ demangling checks are skipped"
	test_done
fi
g++ -O1 -g -fno-inline -o "$tmp/cxx" "$SRCDIR/tests/cxx.cc" || fail "g++ cannot build cxx.cc"
cxx=$tmp/cxx
make_sym=$(nm "$cxx" | awk '$3 ~ /^_ZN2ns4make/ {print $3; exit}')
count_sym=$(nm "$cxx" | awk '$3 ~ /^_ZN2ns5count/ {print $3; exit}')
"$MKSAMPLE" "$(sfile "$cxx" "$cxx")" --mtime-of "$cxx" \
	"$(symoff "$cxx" "$make_sym")=60" "$(symoff "$cxx" "$count_sym")=40" || fail mksample
run_report "$tmp/none" -l -D none image:"$cxx"
check_eq "$(awk '$1 == 60 {print $3}' "$tmp/none")" "$make_sym" "-D none: the mangled name"
run_report "$tmp/normal" -l -D normal image:"$cxx"
check_eq "$(awk '$1 == 60 {$1 = $2 = ""; sub(/^ +/, ""); print}' "$tmp/normal")" \
	"$(echo "$make_sym" | c++filt)" "-D normal: as c++filt demangles it"
run_report "$tmp/smart" -l -D smart image:"$cxx"
cat "$tmp/smart"
check_eq "$(awk '$1 == 60 {$1 = $2 = ""; sub(/^ +/, ""); print}' "$tmp/smart")" \
	"ns::make(string const&)" "-D smart: std::string, as OProfile shows it"
check_eq "$(awk '$1 == 40 {$1 = $2 = ""; sub(/^ +/, ""); print}' "$tmp/smart")" \
	"ns::count(map<string, vector<int>> const&)" "-D smart: map and vector without defaults or std::"
test_done
