#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# fuzz-pack.py - pack a trace directory (and files beside it) into one input
# of spool's fuzz harnesses, in the container format of fuzz/fuzz.h, or
# unpack one back into a directory to look at a crash.
#
#   fuzz-pack.py [--opts HEX] [--strip-root DIR] [--own-maps] [--extra NAME=FILE]... TRACE_DIR OUT
#   fuzz-pack.py --unpack INPUT DIR
#
# --opts: the option bytes the harness reads (hex, e.g. 01). --strip-root:
# paths under DIR inside the side files become relative to it, so a seed made
# in one checkout names the same binaries in another (the harnesses run from
# the repository's root). --extra NAME=FILE: FILE as the '+NAME' entry (a
# decode --table, ...). --own-maps: the maps and build-id lines of system
# libraries are left out (the harnesses would symbolize libc from disk on
# every execution). The files of the replay image and temporary files are
# left out unless asked for with --image.
import argparse
import os
import sys

MARK = b"@@@ "


def own_lines(data):
    """The lines of a maps or buildids file that do not name a system file:
    the program's own (relative after --strip-root) and anonymous mappings.
    Symbolizing libc and ld.so from disk on every execution would make a
    harness ten times slower for code that is not spool's."""
    keep = []
    for line in data.split(b"\n"):
        if line and (b" /usr/" in line or b" /lib" in line or line.startswith(b"/")):
            continue
        keep.append(line)
    return b"\n".join(keep)


def pack(args):
    out = bytearray(bytes.fromhex(args.opts))
    if out:
        out += b"\n"
    root = os.path.abspath(args.strip_root).encode() + b"/" if args.strip_root else None
    entries = []
    for dirpath, dirnames, filenames in os.walk(args.trace_dir):
        dirnames.sort()
        for fn in sorted(filenames):
            path = os.path.join(dirpath, fn)
            rel = os.path.relpath(path, args.trace_dir)
            if fn.endswith(".tmp") or (fn.startswith("replay.img") and not args.image):
                continue
            with open(path, "rb") as f:
                data = f.read()
            if root and rel.startswith(".spool"):
                data = data.replace(root, b"")
            if args.own_maps and (rel.endswith(".maps") or rel.endswith(".buildids")):
                data = own_lines(data)
            entries.append((rel, data))
    # metadata first, streams next, side files last: the order a reader
    # opens them in, so mutations of the start hit the metadata.
    entries.sort(key=lambda e: (0 if e[0] == "metadata" else 1 if e[0].startswith("stream_") else 2, e[0]))
    for spec in args.extra:
        name, _, path = spec.partition("=")
        with open(path, "rb") as f:
            entries.append(("+" + name, f.read()))
    for name, data in entries:
        if MARK in data and b"\n" + MARK in data:
            sys.exit("fuzz-pack: %s holds the entry mark; cannot pack it" % name)
        out += MARK + name.encode() + b"\n" + data + b"\n"
    with open(args.out, "wb") as f:
        f.write(out)


def unpack(args):
    data = open(args.unpack, "rb").read()
    os.makedirs(args.trace_dir, exist_ok=True)
    parts = (b"\n" + data).split(b"\n" + MARK)
    if parts[0]:
        print("options: %s" % parts[0][1:].hex())
    for i, p in enumerate(parts[1:]):
        name, _, content = p.partition(b"\n")
        if i == len(parts) - 2 and content.endswith(b"\n"):
            content = content[:-1]
        name = name.decode(errors="replace")
        dest = os.path.join(args.trace_dir, "extra", name[1:]) if name.startswith("+") else os.path.join(args.trace_dir, "trace", name)
        if ".." in name.split("/"):
            continue
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "wb") as f:
            f.write(content)
        print("%s: %d bytes" % (name, len(content)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--opts", default="")
    ap.add_argument("--strip-root")
    ap.add_argument("--extra", action="append", default=[])
    ap.add_argument("--image", action="store_true")
    ap.add_argument("--own-maps", action="store_true")
    ap.add_argument("--unpack")
    ap.add_argument("trace_dir")
    ap.add_argument("out", nargs="?")
    args = ap.parse_args()
    if args.unpack:
        unpack(args)
    else:
        if not args.out:
            ap.error("OUT is needed")
        pack(args)


if __name__ == "__main__":
    main()
