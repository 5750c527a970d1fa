#!/bin/bash
# SPDX-License-Identifier: MIT
# 54-replay-names.t - what a program learns about names in the file system
# is recorded and replayed (src/agent/agent_rr_fs.c): the stat family,
# access, mkdir, and open with O_CREAT|O_EXCL. A replay runs on the file
# system the recorded run changed: pigz -k (without -f) opens its output
# with O_EXCL and used to skip a file.gz that the recording had made;
# Python's tempfile makes names that must not exist yet; a check for a
# file the run creates later, and a mkdir of a directory it made, answer
# as they did (Python in serial mode: its runtime synchronizes with atomics
# too, which sync mode does not order).
. "$(dirname "$0")/lib.sh"

plan 7

if command -v pigz >/dev/null; then
	head -c 2000000 /dev/urandom | base64 >in.txt
	for mode in sync serial; do
		rm -f in.txt.gz
		spool_run record -q --mode "$mode" -o "pigz-$mode.trace" -- pigz -p 2 -k in.txt
		sum=$(md5sum <in.txt.gz)
		spool_run replay -q "pigz-$mode.trace"
		is "$RC" 0 "$mode: pigz -k replays with the recorded in.txt.gz in place" || show_run
		is "$(md5sum <in.txt.gz)" "$sum" "$mode: ... and writes the same in.txt.gz again"
	done
else
	skip 4 "pigz not installed (scripts/deps.sh installs it)"
fi

# Python itself, not a wrapper that forks it (pyenv's shims do).
PY=/usr/bin/python3
if [ ! -x "$PY" ]; then
	skip 3 "no /usr/bin/python3"
	done_testing
fi
mkdir -p tmp
cat >names.py <<'PY'
import os, tempfile
print("marker exists:", os.path.exists("marker"), os.access("marker", os.F_OK))
open("marker", "w").write("x")
os.mkdir("made")
print("mkdir made: ok")
d = tempfile.mkdtemp()
fd, p = tempfile.mkstemp(dir=d)
os.write(fd, b"hello")
os.close(fd)
print(os.path.basename(d), os.path.basename(p), open(p).read(), os.stat(p).st_size)
PY
# Serial mode, the default: CPython's runtime also synchronizes with
# atomics, which sync mode does not order (doc/record.md).
for mode in serial; do
	rm -rf marker made tmp/*
	TMPDIR=$PWD/tmp spool_run record -q --mode "$mode" -o "names-$mode.trace" -- "$PY" names.py
	cp run.out "names-$mode.out"
	replays_same 2 0 "names-$mode.out" -q "names-$mode.trace"
	is "$SAME" 2 "$mode: Python's os.path.exists, os.access, os.mkdir and tempfile replay as recorded, twice"
done
like "$(cat names-serial.out)" '^marker exists: False False' "the recorded run saw no marker"
like "$(cat names-serial.out)" 'hello 5$' "... and read back its temporary file"

done_testing
