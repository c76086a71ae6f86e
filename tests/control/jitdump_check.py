#!/usr/bin/env python3
"""Check a jit-PID.dump against perf's jitdump specification, on its own.

    jitdump_check.py DUMP --pid PID --machine N [--no-close]

Written from tools/perf/Documentation/jitdump-specification.txt, not from
the agent: the file header (magic 0x4A695444 in either byte order,
version 1, total_size, e_machine, pid, a CLOCK_MONOTONIC timestamp not in
the future, flags), then whole records: each record header's total_size
fits the file, timestamps never go back; JIT_CODE_LOAD's fields, its
NUL-terminated name and exactly code_size bytes of code ending the
record; JIT_CODE_DEBUG_INFO's entries, all inside the code of the
JIT_CODE_LOAD that follows it; JIT_CODE_CLOSE last (unless --no-close: a
dump cut short, which must still end on a whole record).

Prints, for the test to assert on:
    header pid=P machine=M version=V
    records N loads L debug D close C
    loaded again N                         (loads at an address and size loaded
                                           before: legal, code can be reused)
    load NAME LOADS NONZERO                (per distinct name: its loads, and
                                           how many had a code byte not 0)
    lines NAME FILE MIN MAX COUNT          (per name and source file)
Exit status 0 when the file is well formed, 1 with "error: ..." lines when not.
"""

import struct
import sys
import time

errors = []


def err(msg):
    errors.append(msg)


def main(argv):
    path, pid, machine, need_close = None, None, None, True
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "--pid":
            pid = int(argv[i + 1]); i += 2
        elif a == "--machine":
            machine = int(argv[i + 1]); i += 2
        elif a == "--no-close":
            need_close = False; i += 1
        else:
            path = a; i += 1
    if path is None:
        sys.stderr.write("usage: jitdump_check.py DUMP --pid PID --machine N [--no-close]\n")
        return 2
    data = open(path, "rb").read()
    now = time.clock_gettime_ns(time.CLOCK_MONOTONIC)

    if len(data) < 40:
        print("error: '%s': %d bytes, shorter than the 40-byte header" % (path, len(data)))
        return 1
    magic_le = struct.unpack_from("<I", data, 0)[0]
    if magic_le == 0x4A695444:
        e = "<"
    elif struct.unpack_from(">I", data, 0)[0] == 0x4A695444:
        e = ">"
    else:
        print("error: bad magic 0x%08x" % magic_le)
        return 1
    version, hsize, mach, pad1, hpid, hts, flags = struct.unpack_from(e + "IIIIIQQ", data, 4)
    print("header pid=%d machine=%d version=%d" % (hpid, mach, version))
    if version != 1:
        err("version %d, not 1" % version)
    if hsize < 40 or hsize > len(data):
        err("header total_size %d" % hsize)
    if pad1 != 0:
        err("pad1 %d, not 0" % pad1)
    if pid is not None and hpid != pid:
        err("header pid %d, not %d" % (hpid, pid))
    if machine is not None and mach != machine:
        err("e_machine %d, not %d" % (mach, machine))
    if hts == 0 or hts > now:
        err("header timestamp %d not a past CLOCK_MONOTONIC time (now %d)" % (hts, now))
    if flags & ~1:
        err("unknown flags 0x%x" % flags)

    off = hsize
    last_ts = hts
    n = loads = debug = close = 0
    names = {}
    lines = {}		# (name, file) -> [min, max, count]
    pending = None		# the debug-info record waiting for its load
    indexes = set()
    ranges = set()
    again = 0		# loads of an address and size loaded before
    closed_at = None
    while off < len(data):
        if len(data) - off < 16:
            err("%d stray bytes at offset %d, not a record header" % (len(data) - off, off))
            break
        rid, size, ts = struct.unpack_from(e + "IIQ", data, off)
        if size < 16 or off + size > len(data):
            err("record at %d: total_size %d outside the file (%d bytes)" % (off, size, len(data)))
            break
        if ts < last_ts:
            err("record at %d: timestamp %d before %d" % (off, ts, last_ts))
        if ts > now:
            err("record at %d: timestamp %d in the future" % (off, ts))
        last_ts = ts
        if closed_at is not None:
            err("record at %d after JIT_CODE_CLOSE" % off)
        rec = data[off:off + size]
        n += 1
        if rid == 0:
            loads += 1
            if size < 16 + 40 + 1:
                err("load at %d: %d bytes, too short" % (off, size))
            else:
                lpid, ltid, vma, addr, csize, index = struct.unpack_from(e + "IIQQQQ", rec, 16)
                nul = rec.find(b"\0", 56)
                if nul < 0:
                    err("load at %d: name without its NUL" % off)
                else:
                    name = rec[56:nul].decode("utf-8", "replace")
                    if size - (nul + 1) != csize:
                        err("load at %d '%s': %d bytes after the name, code_size %d"
                            % (off, name, size - (nul + 1), csize))
                    if csize == 0:
                        err("load at %d '%s': no code bytes" % (off, name))
                    if pid is not None and lpid != pid:
                        err("load at %d: pid %d, not %d" % (off, lpid, pid))
                    if ltid == 0:
                        err("load at %d: tid 0" % off)
                    if vma != addr:
                        err("load at %d: vma 0x%x, code_addr 0x%x" % (off, vma, addr))
                    if index in indexes:
                        err("load at %d: code_index %d again" % (off, index))
                    indexes.add(index)
                    again += (addr, csize) in ranges
                    ranges.add((addr, csize))
                    if any(b < 0x20 or b == 0x7f for b in rec[56:nul]):
                        err("load at %d: control bytes in the name" % off)
                    v = names.setdefault(name, [0, 0])
                    v[0] += 1
                    v[1] += any(rec[nul + 1:])	# a stub's buffer may be all zeros
                    if pending is not None:
                        daddr, entries = pending
                        if daddr != addr:
                            err("debug info for 0x%x before the load of 0x%x" % (daddr, addr))
                        for a, line, f in entries:
                            if not addr <= a < addr + csize:
                                err("debug entry 0x%x outside '%s' [0x%x, 0x%x)"
                                    % (a, name, addr, addr + csize))
                            k = (name, f)
                            v = lines.setdefault(k, [line, line, 0])
                            v[0] = min(v[0], line)
                            v[1] = max(v[1], line)
                            v[2] += 1
            pending = None
        elif rid == 2:
            debug += 1
            if pending is not None:
                err("debug info at %d follows another without a load between" % off)
            if size < 32:
                err("debug info at %d: %d bytes, too short" % (off, size))
                pending = None
            else:
                daddr, nr = struct.unpack_from(e + "QQ", rec, 16)
                p = 32
                entries = []
                for _ in range(nr):
                    if p + 16 > size:
                        err("debug info at %d: %d entries do not fit" % (off, nr))
                        break
                    a, line, disc = struct.unpack_from(e + "QII", rec, p)
                    nul = rec.find(b"\0", p + 16)
                    if nul < 0:
                        err("debug info at %d: file name without its NUL" % off)
                        break
                    f = rec[p + 16:nul].decode("utf-8", "replace")
                    if f in ("", "\xff") and entries:
                        f = entries[-1][2]	# "same file as the previous entry"
                    if not f:
                        err("debug info at %d: empty file name" % off)
                    if line == 0:
                        err("debug info at %d: line 0" % off)
                    entries.append((a, line, f))
                    p = nul + 1
                if size - p >= 8 or any(rec[p:]):
                    err("debug info at %d: %d bytes after its entries" % (off, size - p))
                pending = (daddr, entries)
        elif rid == 3:
            close += 1
            closed_at = off
            if size != 16:
                err("close at %d: %d bytes, not 16" % (off, size))
        elif rid in (1, 4):
            pass	# move, unwinding info: not written by our agent
        else:
            err("record at %d: unknown id %d" % (off, rid))
        off += size
    if pending is not None:
        err("debug info without the load that must follow it")
    if need_close and close != 1:
        err("%d JIT_CODE_CLOSE records, not 1" % close)

    print("records %d loads %d debug %d close %d" % (n, loads, debug, close))
    print("loaded again %d" % again)
    for name in sorted(names):
        print("load %s %d %d" % (name, names[name][0], names[name][1]))
    for (name, f), (lo, hi, cnt) in sorted(lines.items()):
        print("lines %s %s %d %d %d" % (name, f, lo, hi, cnt))
    for m in errors[:20]:
        print("error: %s" % m)
    if len(errors) > 20:
        print("error: ... and %d more" % (len(errors) - 20))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
