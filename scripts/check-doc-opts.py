#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-doc-opts.py - the options the documentation shows against the ones
spool takes: every `spool CMD ... --opt` in README.md and doc/*.md (code
blocks and inline code, up to a ` -- ` or a `|`, after which the words are
the program's) must be an option `spool CMD` accepts, and every option
`spool CMD --help` prints must be in the documentation of CMD (doc/CMD.md,
or any page for a command without one). The man pages are made from --help
(pkg/gen-man.py), so this covers them too. An option the documentation
shows but spool refuses ("unknown option") is a bug either way.

usage: check-doc-opts.py SPOOL [REPO]    (prints the problems; exit 1 if any)
"""
import os
import re
import subprocess
import sys
import tempfile

# Commands whose options are someone else's: spool cc takes clang's.
FOREIGN = {"cc"}
# Options for spool's own use, not the user's: gdb's exec-wrapper
# (src/replay/spool-gdb.py) runs `spool record|replay --gdb-wrapper`.
INTERNAL = {"record": {"--gdb-wrapper"}, "replay": {"--gdb-wrapper"}}
# Pages every command's options may be documented in: the host/target
# split (--sysroot, --stream, --no-keep) is one page for all.
COMMON = ["arm64.md"]
# doc/NAME.md that documents a command, when it is not doc/CMD.md.
DOC_OF = {"report": ["report-locks.md", "locks.md", "probe.md", "path.md", "export.md"],
          "info": ["record.md", "trace-format.md", "locks.md"],
          "recover": ["record.md", "locks.md"],
          "replay": ["record.md"],
          "receive": ["arm64.md", "locks.md"],
          "decode": ["cc.md"]}


def run(args, cwd=None):
    p = subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, cwd=cwd, timeout=20)
    return p.returncode, p.stdout + p.stderr


def commands(spool):
    out = run([spool, "--help"])[1]
    sect = out.split("commands:", 1)[1].split("\n\n", 1)[0]
    return [m.group(1) for m in re.finditer(r"^  ([a-z][a-z0-9-]*) ", sect, re.M)
            if m.group(1) != "help"]


def help_opts(spool, cmd):
    """The options on --help's option lines (indented at most 8), one
    group of names a line ("-o, --output DIR": -o and --output)."""
    groups = []
    for line in run([spool, cmd, "--help"])[1].splitlines():
        m = re.match(r"^ {1,8}(-.*)", line)
        if not m:
            continue
        tag = re.split(r"\s{2,}", m.group(1))[0]
        groups.append(set(re.findall(r"(?:^|[ ,|\[])(--?[A-Za-z][-A-Za-z0-9]*)", tag)))
    return groups


def doc_mentions(repo, cmds):
    """{cmd: {opt: [where, ...]}} for every `spool CMD ...` in the docs."""
    found = {c: {} for c in cmds}
    files = ["README.md"] + ["doc/" + f for f in sorted(os.listdir(os.path.join(repo, "doc")))
                             if f.endswith(".md")]
    pat = re.compile(r"(?<![-\w/.])spool (" + "|".join(map(re.escape, cmds)) + r")\b([^`\n]*)")
    for f in files:
        block = False
        for n, line in enumerate(open(os.path.join(repo, f), encoding="utf-8"), 1):
            if line.lstrip().startswith("```"):
                block = not block
                continue
            # inline code spans outside blocks, whole lines inside them
            spans = [line] if block else re.findall(r"`([^`]+)`", line)
            for span in spans:
                for m in pat.finditer(span):
                    rest = re.split(r"\s--\s|\s--$|\||;|&&|#", m.group(2))[0]
                    for o in re.findall(r"(?:^|\s)(--[a-z][-a-z0-9]*|-[A-Za-z])(?=[\s=]|$)", rest):
                        found[m.group(1)].setdefault(o, []).append("%s:%d" % (f, n))
    return found


def refused(spool, cmd, opt, tmp):
    """Does `spool CMD OPT` say the option is unknown?"""
    try:
        out = run([spool, cmd, opt, "x"], cwd=tmp)[1]
    except subprocess.TimeoutExpired:
        return False
    return "unknown option" in out


def main():
    spool = os.path.abspath(sys.argv[1])
    repo = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))
    cmds = commands(spool)
    docs = doc_mentions(repo, cmds)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for c in cmds:
            if c in FOREIGN:
                continue
            groups = help_opts(spool, c)
            h = set().union(*groups) if groups else set()
            for o, where in sorted(docs[c].items()):
                if o in h or o in ("-h", "--help") or o in INTERNAL.get(c, ()):
                    continue
                if refused(spool, c, o, tmp):
                    print("spool %s %s: documented (%s) but refused: unknown option"
                          % (c, o, ", ".join(where[:3])))
                    bad += 1
                else:
                    print("spool %s %s: documented (%s), taken, not in --help"
                          % (c, o, ", ".join(where[:3])))
                    bad += 1
            text = ""
            for f in ["%s.md" % c] + DOC_OF.get(c, []) + COMMON:
                p = os.path.join(repo, "doc", f)
                if os.path.exists(p):
                    text += open(p, encoding="utf-8").read()
            for g in groups:
                if "--help" in g or any(re.search(r"(?<![-\w])" + re.escape(o) + r"(?![-\w])",
                                                  text) for o in g):
                    continue
                print("spool %s %s: in --help, not in its documentation (doc/%s)"
                      % (c, ", ".join(sorted(g)), ", doc/".join(
                          f for f in ["%s.md" % c] + DOC_OF.get(c, []) + COMMON
                          if os.path.exists(os.path.join(repo, "doc", f)))))
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
