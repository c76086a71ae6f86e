# sourced by tests/kernel/guest.sh (see guest-lib.sh for the conventions)
# The daemon's definitions stay bounded: the driver frees a
# cookie unused for 10 s and tells the stream (ESC COOKIE_FORGET), and the
# daemon's decoder drops the definition. Short processes (jit_spin: a new
# binary-backed app cookie use and a new anonymous region each) come and
# go through the daemon for ~40 s, twice, with the module unloaded and
# loaded again in between: after the warm-up, the daemon holds no more
# definitions than the driver has live cookies, and none of a cookie
# created more than 15 s before (10 s idle, the sweep, the 5 s between
# looks) but the few binaries in constant use (20 of slack), while the
# driver keeps creating and forgetting cookies. The churn's rate follows
# the TCG guest's speed, so the held count is not compared across time.
soak=${KTEST_FORGET_SOAK:-40}
for round in 1 2; do
	OPROFILE_MODULE_ARGS=timer=1 opcontrol --init >/tmp/init.txt 2>&1
	check "forget_init_$round" "$([ -e /dev/oprofile/buffer ]; echo $?)" "$(tr '\n' ' ' </tmp/init.txt)"
	opcontrol --reset >/dev/null 2>&1
	opcontrol --no-vmlinux --event=CPU_CLOCK:1000000 >/dev/null 2>&1
	opcontrol --start >/tmp/start.txt 2>&1; check "forget_start_$round" $? "$(tr '\n' ' ' </tmp/start.txt)"
	touch /tmp/churn
	( while [ -f /tmp/churn ]; do jit_spin 0.02 >/dev/null; done ) &
	churn=$!
	t=0; max=0; looks=0; over=""; cr_0=0
	while [ $t -lt $soak ]; do
		sleep 5; t=$((t + 5))
		opcontrol --dump >/dev/null 2>&1
		held=$(dstat decoder_cookies)
		live=$(num $D/stats/cookies_live) created=$(num $D/stats/cookies)
		eval "cr_$t=$created"
		info "forget round $round t=${t}s: daemon holds $held definitions," \
			"forgot $(dstat cookies_forgotten); driver: live=$live" \
			"created=$created forgotten=$(num $D/stats/cookies_forgotten)"
		# 10 s idle before a cookie is freed: the warm-up is 15 s
		if [ $t -ge 15 ]; then
			eval "recent=\$((created - cr_$((t - 15))))"
			looks=$((looks + 1))
			[ "$held" -gt "$max" ] && max=$held
			[ "$held" -le $((live + 5)) ] && [ "$held" -le $((recent + 20)) ] ||
				over="$over t=${t}s: held $held, live $live, created in the last 15 s $recent;"
		fi
	done
	rm -f /tmp/churn
	wait $churn
	# the driver keeps freeing idle cookies: what it had forgotten before
	# the dump, the daemon has dropped after it (and not more than the
	# driver has forgotten by then)
	dforgot=$(num $D/stats/cookies_forgotten)
	opcontrol --dump >/dev/null 2>&1
	forgot=$(dstat cookies_forgotten)
	made=$(num $D/stats/cookies); dforgot2=$(num $D/stats/cookies_forgotten)
	check "forget_told_$round" "$([ "$dforgot" -ge 50 ] && [ "$forgot" -ge "$dforgot" ] &&
		[ "$forgot" -le "$dforgot2" ] && [ "$(dstat stream_errors)" = 0 ]; echo $?)" \
		"driver created $made cookies, forgot $dforgot before the dump ($dforgot2 after); the daemon dropped $forgot definitions; stream errors $(dstat stream_errors)"
	check "forget_flat_$round" "$([ "$looks" -gt 0 ] && [ -z "$over" ] &&
		[ "$made" -ge $((max * 2)) ]; echo $?)" \
		"definitions held after the warm-up: at most $max, within the driver's live cookies and those created in the last 15 s at each of $looks looks;$over cookies created $made"
	opcontrol --shutdown >/dev/null 2>&1
	opcontrol --deinit >/tmp/deinit.txt 2>&1
	check "forget_unload_$round" "$([ $? = 0 ] && ! grep -q '^oprofile ' /proc/modules; echo $?)" "$(tr '\n' ' ' </tmp/deinit.txt)"
done
