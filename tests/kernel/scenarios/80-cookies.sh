# sourced by tests/kernel/guest.sh (see guest-lib.sh for the conventions)
# Cookies stay bounded in a long session: JIT code in
# short-lived processes (jit_spin, one new anonymous region per process)
# makes a new cookie every few tens of ms; the driver frees those unused
# for 10 s, so after a warm-up the cookie count and the table's memory
# stay flat while cookies keep being created. 45 s here; the guest kernel
# parameter ktest_soak=SECONDS makes it longer (bench/driver_soak.sh: 600).
soak=$(sed -n 's/.*ktest_soak=\([0-9]*\).*/\1/p' /proc/cmdline)
soak=${soak:-45}
step=$(( soak > 100 ? 60 : 10 ))
load_driver timer=1; check cookies_load $? ""
cat $D/buffer >/dev/null &
cpid=$!
sleep 0.3
echo 1 > $D/enable
touch /tmp/churn
( while [ -f /tmp/churn ]; do jit_spin 0.02; done ) &
churn=$!
t=0; first_live=""; max_live=0; first_made=0
slab0=$(awk '$1 ~ /^kmalloc-/ {s += $3 * $4} END {print s}' /proc/slabinfo)
while [ $t -lt $soak ]; do
	sleep $step; t=$((t + step))
	live=$(num $D/stats/cookies_live); made=$(num $D/stats/cookies)
	bytes=$(num $D/stats/cookie_bytes)
	slab=$(awk '$1 ~ /^kmalloc-/ {s += $3 * $4} END {print s}' /proc/slabinfo)
	info "cookies t=${t}s: live=$live bytes=$bytes created=$made freed=$(num $D/stats/cookies_freed) kmalloc slabs=$((slab / 1024))KiB (at start $((slab0 / 1024))KiB)"
	# the first minute (or 15 s in CI) is the warm-up
	if [ $t -ge $(( soak > 100 ? 60 : 15 )) ]; then
		[ -n "$first_live" ] || { first_live=$live; first_bytes=$bytes; first_made=$made; }
		[ "$live" -gt "$max_live" ] && max_live=$live && max_bytes=$bytes
	fi
done
rm -f /tmp/churn
wait $churn
made=$(num $D/stats/cookies)
[ -e $D/stats/cookies_live ]; has=$?   # 0: the driver counts them
check cookies_churn "$([ $has = 0 ] && [ $((made - first_made)) -ge 50 ]; echo $?)" \
	"cookies created after the warm-up: $((made - first_made)) (no stats/cookies_live: $has)"
# flat: never more than half again (plus 20) what it was after the warm-up
check cookies_flat "$([ $has = 0 ] && [ "$max_live" -le $((first_live * 3 / 2 + 20)) ] &&
	[ "${max_bytes:-0}" -le $((first_bytes * 3 / 2 + 20 * 256)) ]; echo $?)" \
	"live cookies after the warm-up: $first_live, at most $max_live; bytes $first_bytes, at most ${max_bytes:-0}"
echo 0 > $D/enable
wait $cpid
recv=$(num $D/stats/sample_received); emit=$(num $D/stats/sample_emitted); lost=$(driver_lost)
check cookies_accounting "$([ $((emit + lost)) = "$recv" ]; echo $?)" \
	"received=$recv emitted=$emit lost=$lost"
unload_driver; check cookies_unload $? ""
