#!/bin/bash
# binary_churn.sh BUILD [DURATION] [RATE_HZ] [INTERVAL]   (600 s, 49 Hz, 60 s)
#
# The service's budgets (files, memory, definitions) while binaries come and go: for DURATION seconds,
# build NEW binaries (cc of a tiny CPU loop with a changing constant: each
# a distinct path and build-id, as a build tree or a CI job makes them),
# run each for a moment, and delete the older ones, while the daemon
# samples the machine at RATE_HZ (the continuous default is 49 Hz). Every
# INTERVAL: the daemon's CPU seconds, RSS, open files, the session's disk
# and sample files, the decoder's definitions held and forgotten. The
# budgets are flat when the last intervals hold what the first held
# (definitions handed out grow with the binaries; held ones must not;
# nor the images the daemon holds, stats/images_live).
# RSS is split: the heap (RssAnon) must stay flat; the mapped sample files
# (RssFile) grow until --max-open-files (256) are open, and with them.
# Rows in bench/out/binary_churn-DATE/samples.tsv, a summary at the end.
set -euo pipefail
build=$(cd "${1:?usage: binary_churn.sh BUILD_DIR [DURATION] [RATE_HZ] [INTERVAL]}" && pwd)
duration=${2:-600}
rate=${3:-49}
interval=${4:-60}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bench_setup "$build"
cc=${CC:-cc}
out=${OUT:-$here/out/binary_churn-$(date -u +%Y%m%dT%H%M%S)-${rate}hz}
mkdir -p "$out/bin"
S=$out/session
stop=$out/stop
churn_pid=
cleanup() {
	touch "$stop"
	[ -z "$churn_pid" ] || wait "$churn_pid" 2>/dev/null || true
	"$opcontrol" --session-dir="$S" --shutdown >/dev/null 2>&1 || true
}
trap cleanup EXIT

# the binary: about SECONDS of CPU in a loop whose constant is K
cat >"$out/loop.c" <<'EOF'
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
static double cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
int main(int argc, char **argv)
{
	double end = cpu() + (argc > 1 ? atof(argv[1]) : 0.05);
	unsigned long x = K;
	while (cpu() < end)
		for (int i = 0; i < 10000; i++)
			sink = x = x * 6364136223846793005ul + K;
	return 0;
}
EOF

# build, run, and keep only the last 10 binaries on disk
churn() {
	local i=0
	while [ ! -e "$stop" ]; do
		"$cc" -O1 -DK="$((i * 2 + 1))" -o "$out/bin/b_$i" "$out/loop.c"
		"$out/bin/b_$i" 0.05
		rm -f "$out/bin/b_$((i - 10))"
		i=$((i + 1))
		echo "$i" >"$out/built"
	done
}

bench_start_daemon "$rate"
log "binary churn: rate=${rate} Hz duration=${duration}s interval=${interval}s daemon pid $dpid"
log "uptime: $(uptime)"
echo 0 >"$out/built"
churn & churn_pid=$!

printf '%s\n' "t_s load1 binaries daemon_cpu_s rss_kb fds disk_bytes sample_files definitions_held definitions_forgotten churn_files rss_anon_kb rss_file_kb images_live" >"$out/samples.tsv"
t0=$(date +%s)
while :; do
	sleep "$interval"
	t=$(($(date +%s) - t0))
	"$opcontrol" --session-dir="$S" --dump >/dev/null
	row=$(printf '%s %s %s %s %s %s %s %s %s %s %s %s %s %s' "$t" \
		"$(cut -d' ' -f1 /proc/loadavg)" "$(cat "$out/built")" \
		"$(daemon_cpu "$dpid")" \
		"$(awk '/^VmRSS/ { print $2 }' "/proc/$dpid/status")" \
		"$(ls "/proc/$dpid/fd" | wc -l)" \
		"$(du -sb "$S/samples" 2>/dev/null | cut -f1 || true)" \
		"$(find "$S/samples/current" -path "$S/samples/current/{*" -type f | wc -l)" \
		"$(stat_of decoder_cookies)" "$(stat_of cookies_forgotten)" \
		"$(find "$S/samples/current" -path "*$out/bin/*" -type f | wc -l)" \
		"$(awk '/^RssAnon/ { print $2 }' "/proc/$dpid/status")" \
		"$(awk '/^RssFile/ { print $2 }' "/proc/$dpid/status")" \
		"$(stat_of images_live)")
	echo "$row" >>"$out/samples.tsv"
	log "$row"
	[ "$t" -ge "$duration" ] && break
done
touch "$stop"
wait "$churn_pid" || true
churn_pid=
log "uptime: $(uptime)"

# first interval against the last: per-binary growth of each budget
awk -v rate="$rate" '
	NR == 2 { t1 = $1; b1 = $3; c1 = $4; r1 = $5; f1 = $6; d1 = $7; n1 = $8; h1 = $9; g1 = $10; a1 = $12; m1 = $13; i1 = $14 }
	NR > 2 { t2 = $1; b2 = $3; c2 = $4; r2 = $5; f2 = $6; d2 = $7; n2 = $8; h2 = $9; g2 = $10; a2 = $12; m2 = $13; i2 = $14; l += $2; nl++ }
	END {
		b = b2 - b1; if (b < 1) b = 1
		printf "== binary churn summary: rate %d Hz, %d s, %d new binaries (%d after the first interval)\n", rate, t2, b2, b
		printf "definitions held: %d .. %d (%+.3f per binary); forgotten %d .. %d\n", h1, h2, (h2 - h1) / b, g1, g2
		printf "daemon RSS: %d .. %d kB (%+.3f kB per binary): heap and stacks (RssAnon) %d .. %d kB (%+.3f), mapped files (RssFile: the open sample files, at most --max-open-files) %d .. %d kB\n", r1, r2, (r2 - r1) / b, a1, a2, (a2 - a1) / b, m1, m2
		printf "images live: %d .. %d (%+.3f per binary)\n", i1, i2, (i2 - i1) / b
		printf "daemon open files: %d .. %d\n", f1, f2
		printf "daemon CPU: %.2f s per interval (%.2f s first interval .. %.2f s at the end)\n", (c2 - c1) / (nl ? nl : 1), c1, c2
		printf "disk: %d .. %d bytes (%.0f per binary); sample files %d .. %d\n", d1, d2, (d2 - d1) / b, n1, n2
		printf "mean load average (1 min): %.2f\n", nl ? l / nl : 0
	}' "$out/samples.tsv" | tee -a "$out/log"
