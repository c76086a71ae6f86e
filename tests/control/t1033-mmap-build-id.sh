#!/bin/sh
# Build-ids from the kernel (MMAP2 records with attr.build_id, Linux
# 5.12): a program whose binary is replaced by another build, or deleted,
# before it runs a loop (tests/control/selfreplace) still gets its own
# build-id in session/build-ids - the one readelf -n shows in a copy saved
# before - where reading the file by its path (the fallback) would give
# the replacement's or none. Skips where the kernel gives no build-ids
# (the daemon says so and reads the files, as before).
. "${abs_top_srcdir:?}/tests/control/lib.sh"

C=$S/samples/current
SR=$B/tests/control/selfreplace
cp "$SR" "$T/victim" && cp "$SR" "$T/gone" && cp "$SR" "$T/saved" &&
	cp "$B/tests/control/spin" "$T/other" || fail "cannot copy the workloads"
want=$(build_id_of "$T/saved") other=$(build_id_of "$T/other")
[ -n "$want" ] && [ -n "$other" ] && [ "$want" != "$other" ] ||
	fail "workloads without distinct build-ids ('$want', '$other')"
echo "selfreplace: build-id $want; its replacement (spin): $other"

step "a binary replaced, another deleted, at their start"
ctl --separate=none --start >"$T/out" 2>&1 || { cat "$T/out"; fail "--start failed"; }
cat "$T/out"
if grep -q "gives no build-ids in mmap records" "$T/out" "$S/samples/oprofiled.log"; then
	ctl --shutdown
	skip "this kernel gives no build-ids in MMAP2 records (before Linux 5.12)"
fi
"$T/victim" 0.5 "$T/other" || fail "victim failed"
"$T/gone" 0.5 || fail "gone failed"
[ "$(build_id_of "$T/victim")" = "$other" ] && [ ! -e "$T/gone" ] ||
	fail "the workloads did not replace and delete themselves"
ctl --dump || fail "--dump failed"
ctl --shutdown || fail "--shutdown failed"

step "session/build-ids has the sampled builds"
ids=$C/session/build-ids
[ -f "$ids" ] || fail "no $ids"
grep -F " $T/" "$ids"
for p in victim gone; do
	f=$C/{root}$T/$p/{dep}/{root}$T/$p/CPU_CLOCK.1000000.0.all.all.all
	n=$("$SFRANGE" "$f") || fail "no samples of $p"
	got=$(awk -v p="$T/$p" '{ path = $0; sub(/^[^ ]+ [^ ]+ /, "", path) }
		path == p { print $1 }' "$ids" | sort -u)
	[ "$got" = "$want" ] ||
		fail "$p: build-ids '$got' in session/build-ids, want '$want' (the replacement's: $other)"
	test_ok "$p ($n samples): build-id $want, as the kernel read it at exec"
done
"$SFCHECK" "$C" || fail "sample files fail the structural check"
stats_balance "$C"
test_done
