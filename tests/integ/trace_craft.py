# SPDX-License-Identifier: MIT
# trace_craft.py - make hostile traces out of real ones, for the tests of
# "a trace is untrusted" (doc/trace-format.md, "Reading untrusted traces").
#
# It walks every event of every stream_N file of a trace directory with the
# layout of doc/trace-format.md (88-byte packet header; an event is its id
# byte, a TSC, the 64-bit word and a 32-bit seq, then its payload) and
# rewrites fields in place, so the trace stays well-formed and only the
# values a reader must not trust change.
#
#   trace_craft.py word DIR KIND FIELD VALUE   set FIELD (thread|obj) of the
#                                              word of every KIND event
#   trace_craft.py u32 DIR KIND OFF VALUE [NOT_OFF NOT_VALUE]
#                                              set the uint32 at payload
#                                              offset OFF (after word and
#                                              seq) of every KIND event (but
#                                              those whose uint32 at NOT_OFF
#                                              is NOT_VALUE)
#   trace_craft.py u32if DIR KIND OFF VALUE IF_OFF IF_VALUE
#                                              the same, only in the KIND
#                                              events whose uint32 at IF_OFF
#                                              is IF_VALUE and that reach
#                                              OFF + 4 (an input call's data)
#   trace_craft.py renumber DIR FROM TO        stream_FROM becomes stream_TO,
#                                              its packets' stream instance
#                                              ids too (a trace whose stream
#                                              ids are not dense)
#   trace_craft.py clone DIR FROM N            N copies of stream_FROM as
#                                              stream_FROM+1 ... FROM+N
# KIND is a number (1 lock, 2 thread, 3 lockdef, 4 proc, 5 user, 6 sched,
# 7 input, 8 func, 9 probe). Prints how many events it changed.
import os
import struct
import sys

HDR = 88
# payload bytes after the id and TSC (9 bytes), word and seq included
FIXED = {1: 32, 2: 44, 3: 36, 4: 28, 5: 20, 6: 12 + 32, 7: 12 + 48, 8: 12 + 24, 9: 12 + 48}


def event_size(data, p):
    kind = data[p]
    if kind not in FIXED:
        return None
    n = 9 + FIXED[kind]
    if kind == 1:
        n += 8 * struct.unpack_from("<I", data, p + 9 + 28)[0]
    elif kind == 5:
        n += 8 * struct.unpack_from("<I", data, p + 9 + 16)[0]
    elif kind == 7:
        n += 8 * struct.unpack_from("<I", data, p + 9 + 12 + 44)[0]
    return n


def events(data):
    off = 0
    while off + HDR <= len(data):
        size = struct.unpack_from("<Q", data, off + 56)[0] // 8
        if size < HDR or off + size > len(data):
            return
        p = off + HDR
        while p < off + size:
            n = event_size(data, p)
            if n is None:
                break
            yield p
            p += n
        off += size


def renumber(d, old, new, keep=False):
    src = os.path.join(d, "stream_%d" % old)
    data = bytearray(open(src, "rb").read())
    off = 0
    while off + HDR <= len(data):
        size = struct.unpack_from("<Q", data, off + 56)[0] // 8
        if size < HDR:
            break
        struct.pack_into("<Q", data, off + 24, new)
        off += size
    if not keep:
        os.unlink(src)
    open(os.path.join(d, "stream_%d" % new), "wb").write(data)


def main():
    if sys.argv[1] == "renumber":
        renumber(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    if sys.argv[1] == "clone":
        first = int(sys.argv[3])
        for k in range(1, int(sys.argv[4]) + 1):
            renumber(sys.argv[2], first, first + k, keep=True)
        return
    what, d, kind, field, value = sys.argv[1:6]
    kind, value = int(kind), int(value, 0)
    skip = (int(sys.argv[6]), int(sys.argv[7], 0)) if len(sys.argv) > 7 else None
    only = skip if what == "u32if" else None
    if only:
        skip = None
    changed = 0
    for name in sorted(os.listdir(d)):
        if not name.startswith("stream_"):
            continue
        path = os.path.join(d, name)
        data = bytearray(open(path, "rb").read())
        for p in events(bytes(data)):
            if data[p] != kind:
                continue
            if skip and struct.unpack_from("<I", data, p + 9 + 12 + skip[0])[0] == skip[1]:
                continue
            if only and (struct.unpack_from("<I", data, p + 9 + 12 + only[0])[0] != only[1] or
                         12 + int(field) + 4 > event_size(bytes(data), p) - 9):
                continue
            if what == "word":
                w = struct.unpack_from("<Q", data, p + 9)[0]
                if field == "thread":
                    w = (w & ~(0xFFFF << 40)) | ((value & 0xFFFF) << 40)
                else:
                    w = (w & ~(0xFFFFFFFF << 8)) | ((value & 0xFFFFFFFF) << 8)
                struct.pack_into("<Q", data, p + 9, w)
            else:
                struct.pack_into("<I", data, p + 9 + 12 + int(field), value)
            changed += 1
        open(path, "wb").write(data)
    print(changed)


main()
