#!/bin/bash
# A recorded session as the fleet schema's rows, without the common
# columns (fleet_load adds them per host-hour): the interim row maker of
# bench/fleet_bench.sh, from opreport's text, until the shipper's own
# (ship-time symbolisation in libfleet) can be called on its own.
#   fleet_rows.sh BUILD SESSION_DIR NAME OUT
# writes OUT.samples (app, image, build_id, symbol, offset, samples) and
# OUT.stacks (app, frames, frame_offsets, samples) as TabSeparated fields.
# What opreport's text does not carry is approximated: a stack frame's
# image is the one -l shows its symbol in ('' if never a leaf) and its
# offset is that symbol's start (the return address is not printed).
# Offsets are hex here (awk's numbers are doubles); fleet_load converts.
set -e -o pipefail
build=$1 sdir=$2 name=$3 out=$4
opreport=$build/pp/opreport

"$opreport" --session-dir="$sdir" "session:$name" -l --details -f 2>/dev/null >"$out.det"
"$opreport" --session-dir="$sdir" "session:$name" --folded -f 2>/dev/null >"$out.fold"

# build-ids of the images that are still here (readelf -n), else ''
awk '/^  [0-9a-f]+ +[0-9]+ +[0-9.]+$/ { next } /^[0-9a-f]+ +[0-9]+ +[0-9.]+ / { print $4 } /^ +[0-9]+ +[0-9.]+ +[^ ]+ +[^ ]+ / { print $3 }' "$out.det" |
	sort -u | while read -r img; do
		[ -f "$img" ] || continue
		id=$(LC_ALL=C readelf -n "$img" 2>/dev/null | awk '/Build ID:/ { print $3; exit }')
		[ -n "$id" ] && printf '%s\t%s\n' "$img" "$id"
	done >"$out.ids" || true

LC_ALL=C awk -v ids="$out.ids" -v symout="$out.syms" '
function esc(s) { gsub(/\\/, "\\\\", s); gsub(/\t/, "\\t", s); return s }
BEGIN { FS = "\n"; while ((getline l < ids) > 0) { split(l, f, "\t"); bid[f[1]] = f[2] } }
/^  [0-9a-f]+ +[0-9]+ +[0-9.]+$/ {
	if (!insym) next
	split($0, f, " ")
	printf "%s\t%s\t%s\t%s\t%s\t%s\n", app, img, bid[img], sym, f[1], f[2]
	nd++
	next
}
/^[0-9a-f]+ +[0-9]+ +[0-9.]+ / || /^ +[0-9]+ +[0-9.]+ +[^ ]+ +[^ ]+ / {
	line = $0; n = split(line, f, " ")
	hasvma = (substr(line, 1, 1) != " ")
	i = hasvma ? 4 : 3; img = f[i]
	# an anonymous region is named "anon (TGID:NAME)"
	if (img == "anon" && substr(f[i + 1], 1, 1) == "(") img = img " " f[++i]
	img = esc(img); app = esc(f[i + 1])
	for (k = i + 1; k > 0; k--) sub(/^ *[^ ]+ +/, "", line)
	sym = (line == "(no symbols)") ? "" : esc(line)
	insym = 1
	if (sym != "" && !(sym in seen)) { seen[sym] = 1; print sym "\t" img "\t" (hasvma ? f[1] : 0) > symout }
	next
}
' "$out.det" >"$out.samples"

# folded: process;root;...;leaf count -> app, ['image\tsymbol',...], [offsets], count
LC_ALL=C awk -v syms="$out.syms" '
function q(s) { gsub(/\\/, "\\\\", s); gsub(/'\''/, "\\'\''", s); return s }
BEGIN { while ((getline l < syms) > 0) { split(l, f, "\t"); simg[f[1]] = f[2]; soff[f[1]] = f[3] } }
{
	c = $NF; line = $0; sub(/ [0-9]+$/, "", line)
	n = split(line, fr, ";")
	fs = ""; os = ""
	for (i = 2; i <= n; i++) {
		s = fr[i]
		if (s ~ /^\[.*\]$/ && s !~ /^\[unwinding/) { im = substr(s, 2, length(s) - 2); sy = ""; o = 0 }
		else { im = (s in simg) ? simg[s] : ""; sy = s; o = (s in soff) ? soff[s] : 0 }
		fs = fs (i > 2 ? "," : "") "'\''" q(im) "\\t" q(sy) "'\''"
		os = os (i > 2 ? "," : "") o
	}
	printf "%s\t[%s]\t[%s]\t%s\n", q(fr[1]), fs, os, c
}' "$out.fold" >"$out.stacks"
rm -f "$out.det" "$out.fold" "$out.ids" "$out.syms"
