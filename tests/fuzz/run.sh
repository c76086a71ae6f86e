#!/usr/bin/env bash
# Builds every tests/fuzz/fuzz_*.c as a libFuzzer binary (clang,
# ASan+UBSan) and runs each for SECONDS (default 20). A target is linked
# with the libraries' sources (libutil, libop, libdb, libstacks, libfleet:
# libpp's fleet reader uses it), plus any sources named on lines
# "FUZZ-SOURCES: a.c b.c" in the target ($B there is the build directory,
# for sources made at build time) and libraries on "FUZZ-LIBS: -lx" lines.
# The build directory (config.h, generated sources) is $FUZZ_BUILD, by
# default _b: a configured and built tree. Seeds come from the target's
# committed corpus, tests/fuzz/corpus/<target>/ (fuzz_<target>.c; make
# check replays it, see fuzz.am), and its dictionary fuzz_<target>.dict
# when there is one. New finds go to OUTDIR, not into the committed corpus.
# Prints "fuzz NAME: PASS" or "fuzz NAME: FAIL" per target; exits 1 on any
# failure. Usage: tests/fuzz/run.sh [SECONDS] [OUTDIR]
set -uo pipefail
secs=${1:-20}
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${2:-$top/_fuzz}
build=${FUZZ_BUILD:-$top/_b}
mkdir -p "$out"
cd "$top" || exit 1
# libbfd's known leaks (see the file); leaks elsewhere still fail
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$top/libpp/tests/lsan.supp:print_suppressions=0"

status=0
for src in tests/fuzz/fuzz_*.c; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .c)
	extra=$(sed -n 's/.*FUZZ-SOURCES:\(.*\)/\1/p' "$src" | tr '\n' ' ')
	extra=${extra//\$B/$build}
	libs=$(sed -n 's/.*FUZZ-LIBS:\(.*\)/\1/p' "$src" | tr '\n' ' ')
	# shellcheck disable=SC2086
	if ! clang -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined \
		-Ilibutil -Ilibop -Ilibdb -Ilibstacks -Ilibperf -Ilibopd -Ilibpp -Ilibfleet -I"$build" -I"$build/libpp" \
		"$src" libutil/*.c libop/*.c libdb/*.c libstacks/*.c libfleet/*.c $extra $libs -lz -lcurl -o "$out/$name" \
		2>"$out/$name.build.log"; then
		echo "fuzz $name: FAIL (build, see $out/$name.build.log)"
		cat "$out/$name.build.log" >&2
		status=1
		continue
	fi
	corpus="$out/$name.corpus"
	mkdir -p "$corpus"
	seeds=()
	[ -d "tests/fuzz/corpus/${name#fuzz_}" ] &&
		seeds=("tests/fuzz/corpus/${name#fuzz_}")
	dict=()
	[ -f "tests/fuzz/$name.dict" ] && dict=(-dict="tests/fuzz/$name.dict")
	if "$out/$name" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$out/$name-" "${dict[@]}" "$corpus" "${seeds[@]}" \
		>"$out/$name.log" 2>&1; then
		runs=$(grep -o 'Done [0-9]* runs' "$out/$name.log" | tail -1)
		echo "fuzz $name: PASS (${runs:-ran} in ${secs}s)"
	else
		echo "fuzz $name: FAIL (see $out/$name.log)"
		tail -40 "$out/$name.log" >&2
		status=1
	fi
done
exit $status
