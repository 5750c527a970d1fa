#!/bin/bash
# SPDX-License-Identifier: MIT
# 30-git-checkout-safe.t - a user's git checkout is never spool's to
# replace (issue 12: `-o proj` twice deleted proj/main.c). Every command
# that writes a trace refuses `-o CHECKOUT`, naming it; exports and path
# reports that fail leave an existing file as it was; a device node given
# as the output is written in place, never removed; and the checkout is
# byte for byte what it was, for git too (status, fsck, HEAD). A trace of
# git itself, the real program, is created 0700/0600.
. "$(dirname "$0")/../lib.sh"
need_progs git sqlite3
plan 21

git init -q proj
printf 'int main(void) { return 0; }\n' >proj/main.c
printf 'all:\n\tcc -o app main.c\n' >proj/Makefile
git -C proj add main.c Makefile
git -C proj -c user.email=t@example.org -c user.name=t commit -qm init
head=$(git -C proj rev-parse HEAD)
tree_state proj >before.txt

for cmd in locks record; do
	spool_run "$cmd" -q -o proj -- git -C proj status --short
	is_rc 1 "spool $cmd -o CHECKOUT is refused"
	like "$ERR" "proj is a directory that is not a spool trace" "spool $cmd names the directory it refuses"
done
spool_run probe -q -o proj -e 'func:libz.so*:*' -- git -C proj log --oneline
is_rc 1 "spool probe -o CHECKOUT is refused"
spool_run path -o proj -- git -C proj status --short
num_cmp "$RC" -ne 0 "spool path -o CHECKOUT is refused"
ok "no CHECKOUT.old was made" test ! -e proj.old

# A real trace to export: git log with libz probed (func: probes), made
# under a user's usual mask: the trace must be private anyway.
umask 022
spool_run probe -q -o g.trace -e 'func:libz.so*:*' -- git -C proj log --oneline
is_rc 0 "git log under spool probe exits 0"
like "$OUT" "^${head:0:7} init$" "and prints the log"
ok "the trace directory is 0700" test "$(stat -c %a g.trace)" = 700
bad=$(find g.trace -type f ! -perm 600 | head -n 3)
is "$bad" "" "every file of the trace is 0600"

# Failing exports and path reports into a file of the checkout: the file
# stays as it was. Inputs: the checkout itself (not a trace), and a real
# trace of the wrong kind (git under spool locks: no probes, no function
# entries).
for args in "export --folded" "export --chrome" "export --perfetto" "path"; do
	# shellcheck disable=SC2086 # two words on purpose
	spool_run $args -o proj/main.c proj
	num_cmp "$RC" -ne 0 "spool $args -o FILE with a non-trace input fails"
done
spool_run locks -q -o l.trace -- git -C proj status --short
is_rc 0 "git status under spool locks exits 0"
spool_run export --folded -w proj/main.c l.trace
num_cmp "$RC" -ne 0 "spool export --folded -w FILE of a lock trace fails"
spool_run path -o proj/Makefile l.trace
num_cmp "$RC" -ne 0 "spool path -o FILE of a lock trace fails"
tree_state proj >after.txt
ok "the checkout is byte for byte as it was" cmp -s before.txt after.txt ||
	diag "$(diff before.txt after.txt | head -n 20)"
ok "git status says it is clean and fsck that it is whole" \
	bash -c "[ -z \"\$(git -C proj status --porcelain)\" ] && git -C proj fsck --no-progress 2>/dev/null"

# A device node as the destination (a private one: the same device as
# /dev/null, so no shared node is at risk): written in place, kept.
if mknod nullnode c 1 3 2>/dev/null; then
	spool_run export --folded -w nullnode g.trace
	ok "an export to a device node leaves the node in place" test -c nullnode ||
		show_run
else
	skip 1 "mknod needs root"
fi
done_testing
