#!/bin/bash
# retention_stall.sh BUILD [FILES]   (default 20000)
#
# Does retention stall the daemon's loop? An old rotated session of FILES
# small files is made, the daemon starts with --rotate=3s --keep=2s, and
# for 12 s the loop's latency is measured as opcontrol --dump round trips
# (each is a command the loop answers). Retention removes the old session
# after the first rotation: when the loop removes it itself, one round trip
# lasts as long as the removal.
set -euo pipefail
build=$(cd "${1:?usage: retention_stall.sh BUILD_DIR [FILES]}" && pwd)
files=${2:-20000}
here=$(cd "$(dirname "$0")" && pwd)
export OPROFILE_EVENTS_DIR=${OPROFILE_EVENTS_DIR:-$here/../events}
out=$(mktemp -d "${TMPDIR:-/tmp}/retention_stall.XXXXXX")
S=$out/session
oc() { "$build/utils/opcontrol" --session-dir="$S" "$@"; }
trap 'oc --shutdown >/dev/null 2>&1 || true; rm -rf "$out"' EXIT

old=$S/samples/2026-01-01T00
python3 - "$old" "$files" <<'PY'
import os, sys
top, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(top, '{root}', 'x', 'd%d' % (i // 100))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'f%d' % i), 'w') as f:
        f.write('x' * 100)
PY
sync
oc --event=CPU_CLOCK:20408163 --rotate=3s --keep=2s --start >/dev/null
end=$(($(date +%s) + 12))
while [ "$(date +%s)" -lt "$end" ]; do
	t0=$(date +%s%N)
	oc --dump >/dev/null
	echo $((($(date +%s%N) - t0) / 1000000)) >>"$out/lat"
done
oc --shutdown >/dev/null
grep -q "retention: removed session '2026-01-01T00'" "$S/samples/oprofiled.log" &&
	removed=yes || removed=no
sort -n "$out/lat" | awk -v f="$files" -v r="$removed" '{ a[NR] = $1 }
	END { printf "%d files, removed: %s; --dump round trips: %d, median %d ms, max %d ms\n",
		f, r, NR, a[int((NR + 1) / 2)], a[NR] }'
