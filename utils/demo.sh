#!/usr/bin/env bash
# The README's main command: from a fresh clone on Debian 12, as root,
#   bash utils/demo.sh
# installs the Debian packages (.ci/install-deps), builds (or reuses a
# build), profiles the whole machine while a small demo workload runs, and
# prints the image summary, `opreport -l`, and `opreport -l` of the demo
# program alone.
#
# Nothing is installed outside the tree: the tools run from the build tree
# (opcontrol finds oprofiled in ../daemon/, the event files come from the
# source tree through OPROFILE_EVENTS_DIR).
#   BUILD_DIR    the build to use or make (default: the source tree when it
#                was configured in place, else ./build)
#   SESSION_DIR  the session directory (default BUILD_DIR/demo/session)
#   DEMO_SECONDS CPU seconds of the demo workload's main-binary phase
#                (default 2; the library phase gets 3/4 of it, the kernel
#                phase 1/2)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

say() { printf '\n=== %s\n' "$*"; }
die() { echo "demo: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] ||
	die "profiling the whole machine needs root: run 'sudo bash utils/demo.sh'"

say "Debian packages (.ci/install-deps)"
bash .ci/install-deps

# --- build, or reuse a build ------------------------------------------------
if [ -z "${BUILD_DIR:-}" ] && [ -f "$top/config.status" ]; then
	build=$top		# configured in place: automake allows no second build
else
	build=${BUILD_DIR:-$top/build}
fi
mkdir -p "$build"
build=$(cd "$build" && pwd)
log=$build/demo-build.log
say "build in $build (log: $log)"
: >"$log"
if [ ! -f "$build/config.status" ]; then
	[ -x "$top/configure" ] || autoreconf -fi >>"$log" 2>&1 ||
		{ tail -30 "$log"; die "autoreconf failed"; }
	(cd "$build" && "$top/configure") >>"$log" 2>&1 ||
		{ tail -30 "$log"; die "configure failed"; }
fi
make -C "$build" -j"$(nproc)" >>"$log" 2>&1 || { tail -40 "$log"; die "make failed"; }
echo "built: $build/utils/opcontrol, $build/daemon/oprofiled, $build/pp/opreport"

export OPROFILE_EVENTS_DIR=$top/events
opcontrol=$build/utils/opcontrol
opreport=$build/pp/opreport
ophelp=$build/utils/ophelp

# --- the demo workload ------------------------------------------------------
demo=$build/demo
mkdir -p "$demo"
cc -O1 -g -fPIC -shared -o "$demo/libdemo.so" utils/demo/libdemo.c
cc -O1 -g -o "$demo/demo_work" utils/demo/demo_work.c -L"$demo" -ldemo \
	-Wl,-rpath,"$demo"

# --- profile ----------------------------------------------------------------
session=${SESSION_DIR:-$demo/session}
ctl() { "$opcontrol" --session-dir="$session" "$@"; }
ctl --shutdown >/dev/null 2>&1 || true	# a daemon left from an earlier run
rm -rf "$session"
trap 'ctl --shutdown >/dev/null 2>&1 || true' EXIT

# --separate=kernel: kernel and library samples are kept per application
# too, so the demo program's own profile (its binary, its library, its
# kernel time) can be shown apart from the rest of the machine.
say "profile the whole machine: cpu type $("$ophelp" -r), event $("$ophelp" -d)"
echo "+ opcontrol --session-dir=$session --separate=kernel --start"
ctl --separate=kernel --start

secs=${DEMO_SECONDS:-2}
lib_s=$(awk -v s="$secs" 'BEGIN { print s * 0.75 }')
kern_s=$(awk -v s="$secs" 'BEGIN { print s * 0.5 }')
say "demo workload: demo_work $secs $lib_s $kern_s, and gzip of 40 MB of /usr/lib"
# Two at once, one per cpu: the demo program, and something ordinary.
(tar -cf - /usr/lib 2>/dev/null | head -c 40M | gzip -6 >/dev/null) || true &
gz=$!
"$demo/demo_work" "$secs" "$lib_s" "$kern_s" | sed "s/^/demo_work CPU seconds: /"
wait "$gz" || true

echo "+ opcontrol --dump; opcontrol --shutdown"
ctl --dump
ctl --shutdown
trap - EXIT

# --- report -----------------------------------------------------------------
say "opreport --session-dir=$session -t 2   (image summary: applications of >= 2%)"
"$opreport" --session-dir="$session" -t 2
say "opreport --session-dir=$session -l -t 0.5   (symbols of >= 0.5%)"
"$opreport" --session-dir="$session" -l -t 0.5
say "opreport --session-dir=$session -l image:$demo/demo_work   (the demo program alone)"
"$opreport" --session-dir="$session" -l -t 0.5 image:"$demo/demo_work"
cat <<EOF

The session stays in $session; look again with e.g.
  $opreport --session-dir=$session -l vmlinux
  $opreport --session-dir=$session -l -d image:$demo/demo_work
EOF
