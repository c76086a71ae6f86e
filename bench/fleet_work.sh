#!/bin/bash
# The real workloads the fleet benchmark records sessions of: gzip, sort,
# a C compile and python, in turn, for SECONDS (niced: they only fill idle
# cpu time of a shared machine; each step is short, so the run ends on
# time). Usage: fleet_work.sh SECONDS SCRATCH SRCDIR BUILDDIR
secs=$1 dir=$2 src=$3 build=$4
end=$((SECONDS + secs))
head -c 3000000 /dev/urandom | od -An -tx1 >"$dir/data"
srcs=$(ls "$src"/libpp/*.c "$src"/libop/*.c 2>/dev/null | head -12)
more() { ((SECONDS < end)); }
while more; do
	nice gzip -9c <"$dir/data" >/dev/null
	more && nice sort -S 16M "$dir/data" >/dev/null
	for f in $srcs; do
		more || break
		nice gcc -O2 -I"$src" -I"$src"/libutil -I"$src"/libop -I"$src"/libdb \
			-I"$src"/libstacks -I"$src"/libpp -I"$build" -c "$f" -o "$dir/x.o" 2>/dev/null
	done
	more && nice python3 -c '
import json, re, collections
c = collections.Counter()
for i in range(50000):
    s = json.dumps({"k": i, "v": [i * 3, str(i)]})
    c[re.sub(r"[0-9]", "d", s)[:12]] += 1
sorted(c.items())'
done
rm -f "$dir/data" "$dir/x.o"
