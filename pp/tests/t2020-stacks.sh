#!/bin/sh
# opreport --stacks, --folded, --pprof and --flame on a synthetic session:
# sample files written by mksample and a stack table written with the
# daemon's writer (mkstacks) over a real binary (funcs.c: main calls
# alpha, beta and gamma_fn) and a library, at their real functions'
# offsets, so symbolisation is the flat profile's. Checked: the exact
# folded text and that it sums to opreport's total; --stacks' paths, their
# shares, the paths into each hot symbol, the stopped stack shown with its
# frame and reason, the per-reason totals; --stacks=pid, --stacks-limit,
# --threshold; another event's stacks left out; go tool pprof -top on --pprof equals
# opreport -l; the flame graph page; the errors. A flat session (sample
# files, no stack table) gives every output too, one frame a sample.
. "$SRCDIR/tests/lib.sh"
: "${MKSTACKS:?}"

build funcs.c prog
prog=$tmp/prog
$CC -O1 -g -fPIC -shared -o "$tmp/libt.so" "$SRCDIR/tests/lib.c" ||
	fail "cannot build lib.c"
lib=$tmp/libt.so
o() { symoff "$@"; }
P=$(mangle "$prog")
L=$(mangle "$lib")

# 1050 samples: alpha 600 (500 from main, 100 through beta), beta 300,
# gamma_fn 100 (10 of them in a stack whose unwinding stopped there), and
# lib_one 50 under prog (--separate=lib) called from gamma_fn.
"$MKSAMPLE" "$(sfile "$prog" "$prog")" --mtime-of "$prog" \
	"$(o $prog alpha 4)=500" "$(o $prog alpha)=100" "$(o $prog beta 2)=300" \
	"$(o $prog gamma_fn)=90" "$(o $prog gamma_fn 2)=10" || fail mksample
"$MKSAMPLE" "$(sfile "$prog" "$lib")" --mtime-of "$lib" \
	"$(o $lib lib_one 2)=50" || fail mksample
# return addresses: one past the call, inside the caller
"$MKSTACKS" "$SD/samples/current" CPU_CLOCK.100000.0 \
	"500 4242 0 $P $P+$(o $prog alpha 4) $P+$(o $prog main 9)" \
	"100 4242 0 $P $P+$(o $prog alpha) $P+$(o $prog beta 6) $P+$(o $prog main 13)" \
	"300 4242 0 $P $P+$(o $prog beta 2) $P+$(o $prog main 13)" \
	"90 4243 0 $P $P+$(o $prog gamma_fn) $P+$(o $prog main 17)" \
	"10 4243 1 $P $P+$(o $prog gamma_fn 2)" \
	"50 4242 0 $P $L+$(o $lib lib_one 2) $P+$(o $prog gamma_fn 4) $P+$(o $prog main 17)" ||
	fail mkstacks
# another event's stacks are not mixed in
"$MKSTACKS" "$SD/samples/current" BR_MISS_PRED_RETIRED.5000.0 \
	"77 4242 0 $P $P+$(o $prog beta 2) $P+$(o $prog main 13)" || fail mkstacks

run_report "$tmp/flat" -l
total=$(awk '/^[0-9]/ { s += $1 } END { print s }' "$tmp/flat")
check_eq "$total" 1050 "opreport -l: 1050 samples"

# --- --folded: exact, and the sum is the sample total
run_report "$tmp/folded" --folded
sort "$tmp/folded" >"$tmp/folded.sorted"
cat >"$tmp/want" <<'EOF'
prog;[unwinding stopped: no_cfi];gamma_fn 10
prog;main;alpha 500
prog;main;beta 300
prog;main;beta;alpha 100
prog;main;gamma_fn 90
prog;main;gamma_fn;lib_one 50
EOF
diff -u "$tmp/want" "$tmp/folded.sorted" || fail "--folded text"
test_ok "--folded: one line per path, root first, process first"
check_eq "$(awk '{ s += $NF } END { print s }' "$tmp/folded")" "$total" \
	"--folded sums to opreport's sample total"

# --- --stacks
run_report "$tmp/st" --stacks
check_grep "$tmp/st" '^Stacks of event CPU_CLOCK.100000.0: 1050 samples, 6 stacks, 6 distinct paths' \
	"header: event, samples, stacks, paths"
check_grep "$tmp/st" '^Unwinding stopped before the root: 10 samples \(0\.95%\)' \
	"header: stopped stacks counted"
check_grep "$tmp/st" '^  no_cfi  *10 samples \(0\.95%\)' "header: per-reason totals"
check_grep "$tmp/st" '^  500  *47.62%  prog: main -> alpha$' "most common path first, with its share"
check_grep "$tmp/st" '^  10  *0.95%  prog: \[unwinding stopped: no_cfi\] -> gamma_fn$' \
	"a stopped stack shows where it stopped and why"
sed -n '/^alpha (/,/^$/p' "$tmp/st" >"$tmp/alpha"
check_grep "$tmp/alpha" '^alpha \(.*prog\): 600 samples \(57\.14%\)' "hot symbol alpha with its samples"
check_grep "$tmp/alpha" '^  500  *83.33%  prog: main -> alpha$' "most common path into alpha, share of alpha"
check_grep "$tmp/alpha" '^  100  *16.67%  prog: main -> beta -> alpha$' "second path into alpha"
sed -n '/^lib_one (/,/^$/p' "$tmp/st" >"$tmp/lib_one"
check_grep "$tmp/lib_one" '^lib_one \(.*libt\.so\): 50 samples' "a library symbol, its image named"
check_grep "$tmp/lib_one" '100.00%  prog: main -> gamma_fn -> lib_one$' "the path into the library"
check_no_grep "$tmp/st" 'unknown' "no silent [unknown] frame"
check_no_grep "$tmp/st" ' 77 ' "the other event's stack is left out"

run_report "$tmp/pid" --stacks=pid
check_grep "$tmp/pid" '^  500  *47.62%  prog/4242: main -> alpha$' "--stacks=pid: per process id"
check_grep "$tmp/pid" 'prog/4243: main -> gamma_fn$' "--stacks=pid: the other process"
run_report "$tmp/lim" --stacks --stacks-limit=2 -n
check_eq "$(sed -n '/^Most common paths (/,/^$/p' "$tmp/lim" | grep -c ' prog: ')" 2 \
	"--stacks-limit=2: two paths"
check_no_grep "$tmp/lim" '^Stacks of event' "-n: no header"
run_report "$tmp/thr" --stacks -t 20
check_eq "$(sed -n '/^Most common paths (/,/^$/p' "$tmp/thr" | grep -c ' prog: ')" 2 \
	"-t 20: the two paths of at least 20%"

# --- --pprof, read by go tool pprof: the same functions and counts as -l
run_report "$tmp/pp" --pprof="$tmp/prof.pb.gz"
test_expect "--pprof writes a gzip file" gzip -t "$tmp/prof.pb.gz"
if command -v go >/dev/null 2>&1; then
	export GOCACHE=$tmp/gocache GOPATH=$tmp/gopath GOFLAGS=-mod=mod \
		GOPROXY=off GOTOOLCHAIN=local HOME=$tmp PPROF_TMPDIR=$tmp/pprof
	go tool pprof -top -noinlines -nodecount=100000 -nodefraction=0 -edgefraction=0 -symbolize=none \
		-sample_index=samples "$tmp/prof.pb.gz" >"$tmp/top" 2>"$tmp/top.err" ||
		{ cat "$tmp/top.err"; fail "go tool pprof cannot read the profile"; }
	cat "$tmp/top"
	awk '$1 ~ /^[0-9]+$/ && $1 > 0 { print $6, $1 }' "$tmp/top" | sort >"$tmp/top.flat"
	awk '/^[0-9]/ { print $NF, $1 }' "$tmp/flat" | sort >"$tmp/flat.flat"
	check_eq "$(wc -l <"$tmp/flat.flat")" 4 "opreport -l: four symbols"
	diff -u "$tmp/flat.flat" "$tmp/top.flat" || fail "pprof -top differs from opreport -l"
	test_ok "go tool pprof -top: the same functions with the same counts as opreport -l"
	check_grep "$tmp/top" 'of 1050 total' "pprof: 1050 samples in all"
	go tool pprof -traces -symbolize=none "$tmp/prof.pb.gz" >"$tmp/traces" 2>&1 ||
		fail "pprof -traces"
	check_grep "$tmp/traces" 'unwinding stopped: no_cfi' "pprof: the stopped stack keeps its reason"
	go tool pprof -raw -symbolize=none "$tmp/prof.pb.gz" >"$tmp/raw" 2>&1 ||
		fail "pprof -raw"
	check_grep "$tmp/raw" "$prog" "pprof: a mapping names the binary"
	check_grep "$tmp/raw" 'funcs.c:[0-9]' "pprof: frames carry source lines"
else
	test_note "go (golang-go) not installed: go tool pprof checks skipped"
fi

# --- --flame: one HTML file, the tree inside
run_report "$tmp/fl" --flame="$tmp/flame.html"
check_grep "$tmp/flame.html" '"n":"alpha","v":500' "--flame: the tree is in the page"
check_no_grep "$tmp/flame.html" 'http://\|https://\|<script src\|<link ' "--flame: no network"

# --- a flat session (no stack table): every stacks output still works,
# each sample its function under its process, the counts -l's
mkdir -p "$tmp/nostacks/samples/current"
cp -r "$SD/samples/current/{root}" "$tmp/nostacks/samples/current/"
NS=$tmp/nostacks
"$OPREPORT" --session-dir="$NS" -l >"$tmp/nsl" 2>&1 || { cat "$tmp/nsl"; fail "-l on the flat session"; }
awk '/^[0-9]/ { s[$NF] += $1 } END { for (f in s) print f, s[f] }' "$tmp/nsl" | sort >"$tmp/nsl.flat"
"$OPREPORT" --session-dir="$NS" --folded >"$tmp/nsf" 2>"$tmp/nsf.err" ||
	{ cat "$tmp/nsf.err"; fail "--folded on a flat session"; }
cat "$tmp/nsf"
check_no_grep "$tmp/nsf" '^[^;]*;[^;]*;' "--folded, flat: two frames deep (process;function)"
awk '{ n = $NF; sub(/ [0-9]+$/, ""); sub(/^[^;]*;/, ""); s[$0] += n }
     END { for (f in s) print f, s[f] }' "$tmp/nsf" | sort >"$tmp/nsf.flat"
diff -u "$tmp/nsl.flat" "$tmp/nsf.flat" || fail "--folded of the flat session differs from -l"
test_ok "--folded, flat: the functions and counts of -l"
check_grep "$tmp/nsf.err" 'no stack table' "--folded, flat: a note says the session has no stacks"
"$OPREPORT" --session-dir="$NS" --stacks >"$tmp/nss" 2>&1 || { cat "$tmp/nss"; fail "--stacks, flat"; }
check_grep "$tmp/nss" '^Without stacks \(recorded without --callgraph\): 1050 samples \(100.00%\)' \
	"--stacks, flat: says every sample is without a stack"
check_no_grep "$tmp/nss" 'Every stack was unwound' "--stacks, flat: claims no unwinding"
"$OPREPORT" --session-dir="$NS" --flame="$tmp/nsflame.html" >/dev/null 2>&1 || fail "--flame, flat"
check_grep "$tmp/nsflame.html" '"n":"alpha","v":600' "--flame, flat: alpha's samples in the page"
"$OPREPORT" --session-dir="$NS" --pprof="$tmp/ns.pb.gz" >/dev/null 2>&1 || fail "--pprof, flat"
if command -v go >/dev/null 2>&1; then
	go tool pprof -top -noinlines -nodecount=100000 -nodefraction=0 -edgefraction=0 -symbolize=none \
		-sample_index=samples "$tmp/ns.pb.gz" >"$tmp/nstop" 2>"$tmp/nstop.err" ||
		{ cat "$tmp/nstop.err"; fail "go tool pprof cannot read the flat profile"; }
	awk '$1 ~ /^[0-9]+$/ && $1 > 0 { print $6, $1 }' "$tmp/nstop" | sort >"$tmp/nstop.flat"
	diff -u "$tmp/nsl.flat" "$tmp/nstop.flat" || fail "pprof -top of the flat session differs from -l"
	test_ok "--pprof, flat: go tool pprof -top gives -l's functions and counts"
fi

# --- errors
"$OPREPORT" --session-dir="$SD" --stacks=tid >"$tmp/e2" 2>&1
check_eq "$?" 2 "--stacks=tid: usage error"
"$OPREPORT" --session-dir="$SD" --folded "{" "}" "{" "}" >"$tmp/e3" 2>&1
check_eq "$?" 2 "--folded of two profiles: usage error"
"$OPREPORT" --session-dir="$SD" --stacks -c >"$tmp/e4" 2>&1
check_eq "$?" 2 "--stacks with -c: usage error"
test_done
