# sourced by tests/kernel/guest.sh (see guest-lib.sh for the conventions)
# --- 4. the kernel stayed clean -------------------------------------------
bugs=$(dmesg | grep -E 'BUG|WARNING|Oops' | head -3 | tr '\n' ' ')
check dmesg_clean "$([ -z "$bugs" ]; echo $?)" "$bugs"
dmesg | grep -i oprofile | sed 's/^/KTEST-INFO dmesg /'
