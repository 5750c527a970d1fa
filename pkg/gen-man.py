#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen-man.py - write spool's man pages from its --help text.

The pages are generated at build time (Makefile, target `man`) from the
built binary: spool(1) from `spool --help`, and spool-CMD(1) from
`spool CMD --help` for every command `spool --help` lists, so a page says
exactly what --help says and cannot drift from it. The layout rules below
follow the shape every command's help has:

  usage: ...            (and indented continuation lines)  -> SYNOPSIS
  text before the first heading                            -> DESCRIPTION
  "options:", "specs:", "commands:" ... (a short line at column 0 ending
  in ':')  -> a section; in it a line indented at most 8 columns starts an
  item ("-o, --output DIR   text"), deeper lines continue its text
  "Exit status: ..."                                       -> EXIT STATUS
  other paragraphs after the sections                      -> NOTES
  doc/NAME.md mentioned anywhere                           -> SEE ALSO

usage: gen-man.py SPOOL OUTDIR VERSION
"""
import os
import re
import subprocess
import sys
import time

DATE_ENV = "SOURCE_DATE_EPOCH"


def esc(s):
    """Text to roff: backslashes and minus signs, leading control chars."""
    s = s.replace("\\", "\\e").replace("-", "\\-")
    if s.startswith((".", "'")):
        s = "\\&" + s
    return s


def fmt_tag(tag):
    """An item's tag: options bold, metavariables (upper case) italic."""
    out = []
    for tok in re.split(r"(\s+|,)", tag):
        if not tok or tok.isspace() or tok == ",":
            out.append(tok)
        elif tok.startswith("-"):
            m = re.match(r"(-[-A-Za-z0-9]*)(.*)", tok)
            out.append("\\fB" + esc(m.group(1)) + "\\fR" + esc(m.group(2)))
        elif re.fullmatch(r"[A-Z][A-Z_0-9]*", tok):
            out.append("\\fI" + esc(tok) + "\\fR")
        else:
            out.append("\\fB" + esc(tok) + "\\fR")
    return "".join(out)


def indent_of(line):
    return len(line) - len(line.lstrip(" "))


def is_heading(line):
    return (line and not line[0].isspace() and line.rstrip().endswith(":")
            and len(line.strip()) <= 40 and not line.lower().startswith("usage"))


def desc_column(lines, i):
    """The column where the descriptions of the section around line i
    start: the most common column of text after 2+ spaces on its item
    lines."""
    a = i
    while a > 0 and lines[a - 1].startswith(" "):
        a -= 1
    b = i
    while b < len(lines) and (lines[b].startswith(" ") or not lines[b].strip()):
        b += 1
    cols = {}
    for line in lines[a:b]:
        if line.strip() and indent_of(line) <= 8:
            m = re.match(r"^\s*\S.*?\s{2,}(?=\S)", line)
            if m:
                cols[m.end()] = cols.get(m.end(), 0) + 1
    return max(cols, key=lambda c: (cols[c], -c)) if cols else 0


def parse(text):
    """Help text -> (synopsis lines, list of (section, items-or-paragraphs))."""
    lines = text.rstrip("\n").split("\n")
    syn = []
    i = 0
    while i < len(lines) and lines[i].strip():
        syn.append(re.sub(r"^usage:\s*", "", lines[i]).strip())
        i += 1
    body = []  # (kind, payload): ("p", [lines]), ("pre", [lines]), ("h", title), ("item", (tag, [lines]))
    in_section = False
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if is_heading(line) and i + 1 < len(lines) and lines[i + 1].startswith(" "):
            body.append(("h", line.strip()[:-1]))
            in_section = True
            i += 1
            continue
        if line[0] != " ":
            para = []
            while i < len(lines) and lines[i].strip() and lines[i][0] != " " and not (
                    para and is_heading(lines[i])):
                para.append(lines[i].strip())
                i += 1
            body.append(("p", para))
            in_section = False
            continue
        if not in_section:
            pre = []
            while i < len(lines) and lines[i].startswith(" "):
                pre.append(lines[i])
                i += 1
            body.append(("pre", pre))
            continue
        # an item of a section: split at the section's description column
        # when the line has text there after a space (a long tag is
        # followed by one space only), else at the first run of 2 spaces
        col = desc_column(lines, i)
        if col and len(line) > col and line[col - 1] == " " and line[col] != " " \
                and line[:col].strip():
            tag, desc = line[:col].strip(), [line[col:].strip()]
        else:
            m = re.match(r"^\s*(\S.*?)(?:\s{2,}(\S.*))?$", line)
            tag, desc = m.group(1), [m.group(2)] if m.group(2) else []
        i += 1
        while i < len(lines) and lines[i].strip() and indent_of(lines[i]) > 8:
            desc.append(lines[i].strip())
            i += 1
        body.append(("item", (tag, desc)))
    return syn, body


def man_date():
    """The date in each page's header: the source's date, not the build's, so
    that two builds of one source make the same pages. SPOOL_MAN_DATE or
    SOURCE_DATE_EPOCH when set, else the last commit's date in a git checkout,
    else the date of src/main.c (a tarball keeps the files' dates)."""
    if os.environ.get("SPOOL_MAN_DATE"):
        return os.environ["SPOOL_MAN_DATE"]
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    when = os.environ.get(DATE_ENV)
    if not when and os.path.isdir(os.path.join(top, ".git")):
        try:
            when = subprocess.run(["git", "-C", top, "log", "-1", "--format=%ct"],
                                  capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            when = None
    if not when:
        try:
            when = str(int(os.path.getmtime(os.path.join(top, "src", "main.c"))))
        except OSError:
            return ""
    return time.strftime("%Y-%m-%d", time.gmtime(int(when)))


def render(name, section_title, summary, version, text, see_also):
    syn, body = parse(text)
    out = []
    date = man_date()
    out.append('.TH "%s" 1 "%s" "spool %s" "User Commands"' % (name.upper(), date, version))
    out.append(".\\\" Generated by pkg/gen-man.py from '%s --help': edit the help text, not this." %
               section_title)
    out.append(".nh")
    out.append(".ad l")
    out.append(".SH NAME")
    out.append("%s \\- %s" % (esc(name), esc(summary)))
    out.append(".SH SYNOPSIS")
    for s in syn:
        out.append(".B " + esc(s) if False else esc(s))
        out.append(".br")
    out.append(".SH DESCRIPTION")
    notes = False
    for kind, payload in body:
        if kind == "h":
            out.append('.SH "%s"' % esc(payload.upper()))
            notes = False
        elif kind == "p":
            first = payload[0]
            if re.match(r"(?i)exit status", first) or re.match(r"(?i)exits? ", first):
                out.append('.SH "EXIT STATUS"')
                notes = False
            elif body.index((kind, payload)) > 0 and any(k == "h" for k, _ in
                                                          body[:body.index((kind, payload))]) \
                    and not notes:
                out.append(".SH NOTES")
                notes = True
            out.append(".PP")
            out.extend(esc(l) for l in payload)
        elif kind == "pre":
            out.append(".PP")
            out.append(".nf")
            out.append(".RS 4")
            base = min(indent_of(l) for l in payload if l.strip())
            out.extend(esc(l[base:]) for l in payload)
            out.append(".RE")
            out.append(".fi")
        else:
            tag, desc = payload
            out.append(".TP")
            out.append(fmt_tag(tag))
            out.extend(esc(l) for l in desc) if desc else out.append("\\&")
    if see_also:
        out.append(".SH \"SEE ALSO\"")
        out.append(",\n".join(see_also))
    return "\n".join(out) + "\n"


def run_help(spool, args):
    r = subprocess.run([spool] + args + ["--help"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    if r.returncode != 0:
        sys.exit("gen-man: '%s --help' exited %d" % (" ".join(["spool"] + args), r.returncode))
    return r.stdout


def docs_of(text):
    return sorted(set(re.findall(r"doc/([A-Za-z0-9_-]+\.md)", text)))


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().split("\n")[-1])
    spool, outdir, version = sys.argv[1:]
    os.makedirs(outdir, exist_ok=True)
    top = run_help(spool, [])
    cmds = []
    m = re.search(r"^commands:\n((?:  .*\n)+)", top, re.M)
    if not m:
        sys.exit("gen-man: no 'commands:' list in 'spool --help'")
    for line in m.group(1).splitlines():
        name, summary = line.strip().split(None, 1)
        if name != "help":
            cmds.append((name, summary))
    doc_note = "The Markdown documents (README.md, doc/*.md) are installed in " \
        "PREFIX/share/doc/spool/"
    pages = {}
    for name, summary in cmds:
        text = run_help(spool, [name])
        names = [n for n, _ in cmds]
        # the other commands its help names ("Later: spool report ...")
        others = sorted(set(c for c in re.findall(r"\bspool ([a-z]+)", text)
                            if c in names and c != name))
        see = ["\\fBspool\\fR(1)"] + ["\\fBspool\\-%s\\fR(1)" % esc(c) for c in others] + ["\\fIPREFIX/share/doc/spool/%s\\fR" % esc(d) for d in docs_of(text)]
        pages["spool-%s" % name] = render("spool-%s" % name, "spool %s" % name, summary, version,
                                          text, see)
    see = ["\\fBspool\\-%s\\fR(1)" % esc(n) for n, _ in cmds] + [
        "\\fIPREFIX/share/doc/spool/%s\\fR" % esc(d) for d in docs_of(top)]
    top_page = render("spool", "spool", "show what multithreaded programs really do", version,
                      top, see)
    top_page += ".PP\n%s\n" % esc(doc_note)
    pages["spool"] = top_page
    for n, page in pages.items():
        path = os.path.join(outdir, n + ".1")
        with open(path + ".tmp", "w") as f:
            f.write(page)
        os.replace(path + ".tmp", path)


if __name__ == "__main__":
    main()
