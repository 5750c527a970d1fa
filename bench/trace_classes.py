#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# trace_classes.py DIR - bytes per event of each event class of a spool trace
# of format 2 (doc/trace-format.md, "Version 2: compact events"), walked
# independently of spool's reader: one line per class, "CLASS EVENTS BYTES
# BYTES_PER_EVENT", headers included; then "packets N BYTES" for the packet
# headers and "total EVENTS BYTES" (site definitions counted in their own
# line, not in the total's events). For bench/format.sh and
# tests/integ/184-format2-sizes.t.
#   trace_classes.py --where CLASS DIR   "STREAM_FILE OFFSET" of each event of
#                                        that class (tests/integ/186-*.t)
import os
import struct
import sys

NAMES = {1: "lock", 2: "thread", 3: "lockdef", 4: "proc", 5: "user", 6: "sched", 7: "input",
         8: "func", 9: "probe", 10: "site", 11: "lock_op", 12: "func_entry", 13: "func_exit",
         14: "probe_entry", 15: "probe_exit", 16: "probe_hit", 17: "thread_name",
         18: "lock_release_prev", 19: "lock_release"}
SHORT = {10: 24, 11: 7, 12: 2, 13: 2, 14: 4, 15: 4, 16: 4, 18: 2, 19: 4}


def rest_len(kind, data, q):
    """Bytes of a full event's fields after op and obj (and the thread's seq)."""
    if kind == 1:
        return 20 + 8 * struct.unpack_from("<I", data, q + 16)[0]
    if kind == 5:
        return 8 + 8 * struct.unpack_from("<I", data, q + 4)[0]
    if kind == 7:
        return 48 + 8 * struct.unpack_from("<I", data, q + 44)[0]
    return {2: 32, 3: 24, 4: 16, 6: 32, 8: 24, 9: 48, 17: 24}[kind]


def main():
    where = None
    if sys.argv[1] == "--where":
        where = sys.argv[2]
        del sys.argv[1:3]
    d = sys.argv[1]
    meta = open(os.path.join(d, "metadata")).read()
    if "spool_format_version = 2;" not in meta:
        sys.exit("trace_classes.py: not a format 2 trace")
    count, size = {}, {}
    packets = pkt_bytes = 0
    for name in sorted(os.listdir(d)):
        if not name.startswith("stream_"):
            continue
        data = open(os.path.join(d, name), "rb").read()
        off = 0
        while off + 96 <= len(data):
            psize = struct.unpack_from("<Q", data, off + 56)[0] // 8
            end = min(off + psize, len(data))
            packets += 1
            pkt_bytes += 96
            p = off + 96
            while p < end:
                if data[p] & 31 != 31:
                    cid, hl = data[p] & 31, 4
                else:
                    cid, hl = struct.unpack_from("<I", data, p + 1)[0], 13
                q = p + hl
                if cid in SHORT:
                    n = hl + SHORT[cid]
                else:
                    head = 5 + (4 if cid == 2 else 0)
                    n = hl + head + rest_len(cid, data, q + head)
                if where == NAMES.get(cid):
                    print(name, p)
                count[cid] = count.get(cid, 0) + 1
                size[cid] = size.get(cid, 0) + n
                p += n
            off += psize
    if where:
        return
    total_ev = total_b = 0
    for cid in sorted(count):
        print("%s %d %d %.2f" % (NAMES.get(cid, str(cid)), count[cid], size[cid],
                                 size[cid] / count[cid]))
        if cid != 10:
            total_ev += count[cid]
        total_b += size[cid]
    print("packets %d %d" % (packets, pkt_bytes))
    print("total %d %d" % (total_ev, total_b + pkt_bytes))


main()
