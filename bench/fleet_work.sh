#!/bin/bash
# The real workloads the fleet benchmark records sessions of: gzip, sort,
# a C compile and python, in turn, for SECONDS (niced: they only fill idle
# cpu time of a shared machine). Usage: fleet_work.sh SECONDS SCRATCH SRCDIR
secs=$1 dir=$2 src=$3
end=$((SECONDS + secs))
head -c 20000000 /dev/urandom | od -An -tx1 | head -c 30000000 >"$dir/data"
srcs=$(ls "$src"/libpp/*.c "$src"/libop/*.c 2>/dev/null | head -12)
while ((SECONDS < end)); do
	nice gzip -9c <"$dir/data" >/dev/null
	nice sort -S 64M "$dir/data" >/dev/null
	for f in $srcs; do
		((SECONDS < end)) || break
		nice gcc -O2 -I"$src" -I"$src"/libutil -I"$src"/libop -I"$src"/libdb \
			-I"$src"/libstacks -I"$src"/libpp -I"$src"/_b -c "$f" -o "$dir/x.o" 2>/dev/null
	done
	nice python3 -c '
import json, re, collections
c = collections.Counter()
for i in range(200000):
    s = json.dumps({"k": i, "v": [i * 3, str(i)]})
    c[re.sub(r"[0-9]", "d", s)[:12]] += 1
sorted(c.items())'
done
rm -f "$dir/data" "$dir/x.o"
