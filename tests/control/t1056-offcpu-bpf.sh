#!/bin/sh
# t1055's off-CPU checks (places within 2 points under their own
# functions with operf and with the daemon, OFF_CPU:7, --wall, every
# report in microseconds) with the eBPF mechanism forced
# (OPROFILE_OFFCPU=bpf, doc/offcpu.md); t1055 skips where it cannot load
# (a build without libbpf, no kernel BTF).
OFFCPU_MECH=bpf
export OFFCPU_MECH
exec "${abs_top_srcdir:?}/tests/control/t1055-offcpu.sh" "$@"
