#!/bin/bash
# SPDX-License-Identifier: MIT
# 109-report-escapes.t - a trace from someone else put escape sequences on
# the user's terminal: a thread name, a lock's symbol, a function's symbol
# or its name in the probes file, the sys side file, the exec side file and
# the binary a recording names were printed as they were, so a report could
# set the terminal's title, clear it or write to the clipboard (OSC 52).
# Every text output now shows such bytes as \xNN (src/util/escape.c), every
# JSON output as \u00XX, and the JSON stays valid with any bytes.
#
# The names are planted the ways a crafted trace or binary has them: a
# binary whose symbols were renamed (objcopy), thread names rewritten in
# the stream files (trace_craft.py), side files edited.
. "$(dirname "$0")/lib.sh"
# trace_craft.py edits format 1's layout: these traces are written in it
# (format 1 is still read: doc/trace-format.md, "Versions")
export SPOOL_TRACE_FORMAT=1

plan 20

CRAFT="python3 $REPO/tests/integ/trace_craft.py"
# OSC title change, BEL, clear screen; and a C1 CSI in UTF-8 (U+009B)
EVIL_LOCK=$'shared\e]0;PWNED\a\e[2J'
EVIL_FN=$'work\e[31mer\xc2\x9b'

# raw_ctl DESC FILES...: passes when none of FILES holds a byte a terminal
# acts on (ESC, BEL, a C1 control as UTF-8, a lone 0x9b).
raw_ctl() {
	local desc="$1" n
	shift
	n=$(LC_ALL=C cat "$@" | LC_ALL=C grep -c $'\e\\|\a\\|\xc2[\x80-\x9f]\\|\x9b')
	if [ "$n" = 0 ]; then
		pass "$desc"
	else
		fail "$desc"
		diag "$n lines with raw control bytes:" "$(LC_ALL=C cat "$@" | cat -v | grep -F '^[' | head -5)"
	fi
}

# A binary whose lock variable and thread function have hostile names.
if ! objcopy --redefine-sym "shared_lock=$EVIL_LOCK" --redefine-sym "worker=$EVIL_FN" \
	"$PROGS/lockcount" evil 2>objcopy.err; then
	diag "objcopy failed:" "$(cat objcopy.err)"
fi

# --- spool locks and spool report --locks ------------------------------------
spool_run locks --stacks 4 -o lk -- ./evil 2 50
is_rc 0 "spool locks of a binary with hostile symbol names"
raw_ctl "  its lock report sends no escape sequence to the terminal" run.out run.err
like "$ERR" 'shared\\x1b\]0;PWNED\\x07\\x1b\[2J' "  and shows the lock's name escaped"

# thread names (16 bytes, no NUL left) rewritten in the stream files:
# ESC ] 0 ; P W N BEL ESC [ 2 J C2 9B 2 J
n=$($CRAFT u32 lk 2 16 0x3b305d1b)
$CRAFT u32 lk 2 20 0x074e5750 >/dev/null
$CRAFT u32 lk 2 24 0x4a325b1b >/dev/null
$CRAFT u32 lk 2 28 0x4a329bc2 >/dev/null
num_cmp "$n" -ge 2 "thread names rewritten in the trace"

spool_run report --locks lk
is_rc 0 "spool report --locks of the crafted trace"
raw_ctl "  no escape sequence in the report" run.out run.err
like "$OUT" '\\x1b\]0;PWN\\x07\\x1b\[2J\\xc2\\x9b2J' "  the thread name is shown escaped, all 16 bytes"

report_json lk
is "$(json report.json '[t["name"] for t in d["threads"] if t["name"].startswith("\x1b]0;PWN\x07")][0]')" \
	$'\e]0;PWN\a\e[2J\xc2\x9b2J' "report --json: valid JSON, the thread name as it was (\\u escapes)"
raw_ctl "  no raw control byte in the JSON" report.json

spool_run export --chrome -w chrome.json lk
num_cmp "$(json chrome.json 'len([e for e in d["traceEvents"] if "PWN" in e.get("args", {}).get("name", "")])')" \
	-gt 0 "export --chrome: valid JSON with the crafted names"
raw_ctl "  no raw control byte in it" chrome.json run.err

# --- spool path: function and lock names from the binary ------------------
spool_run path -w path.txt -- ./evil 2 5
raw_ctl "spool path of the hostile binary: no escape sequence" path.txt run.out run.err
like "$(cat path.txt)" 'work\\x1b\[31mer\\xc2\\x9b.*lock:shared\\x1b\]0;PWNED' \
	"  function and lock names shown escaped"

# --- a probe trace whose probes file names hostile functions --------------
spool_run probe -q -e func:worker -o pr -- "$PROGS/lockcount" 2 5
# the symbol column (what reports read) and the function after it
sed -i $'s/ worker\\( \\|$\\)/ wor\e]52;c;cHduZWQ=\aker\\1/g' pr/.spool/probes
spool_run report --functions pr
raw_ctl "report --functions: a probes file's names send no escape sequence" run.out run.err
like "$OUT" 'wor\\x1b\]52;c;cHduZWQ=\\x07ker' "  the name is shown escaped"
spool_run export --folded -w - pr
raw_ctl "export --folded: none either" run.out run.err

# --- the sys side file -------------------------------------------------------
spool_run probe -q -e sys:io -o sy -- "$PROGS/lockcount" 2 5
printf 'what io \033]0;PWNED\007"\nio 1 x"\033[2J \033]0;P\007 5 100\n' >>sy/.spool/sys
spool_run report --sys sy
raw_ctl "report --sys of a crafted sys file: no escape sequence" run.out run.err
timeout 20 "$SPOOL" report --sys --json sy >sys.json 2>run.err
is "$(json sys.json 'd["threads"][1]["io"][0]["dir"]')" $'x"\e[2J' \
	"report --sys --json: valid JSON, the words as they were"

# --- spool info: the exec side file -------------------------------------------
printf 'exec: \033]0;PWNED\007 not probed\n' >pr/.spool/exec
spool_run info pr
raw_ctl "spool info: the exec side file sends no escape sequence" run.out run.err

# --- spool replay: the binary a recording names --------------------------------
spool_run record -q -o rec -- "$PROGS/lockcount" 2 5
sed -i $'s|^exe=.*|exe=/nonexistent/\e]0;PWNED\a\e[2Jprog|' rec/.spool/record
spool_run replay rec
raw_ctl "spool replay of a recording naming a hostile binary path: its error sends no escape sequence" \
	run.out run.err

done_testing
