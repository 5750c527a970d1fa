#!/bin/bash
# SPDX-License-Identifier: MIT
# 144-probe-plan-prune.t - old plans of spool probe's plan cache are removed
# (doc/probe.md, "The plan cache"): after a plan is saved, a plan not used
# for 30 days and an unfinished save older than a day go; loading a plan
# marks it used (an old plan loaded is kept); over the size limit
# (SPOOL_PLAN_CACHE_MAX) the least recently used plans go first, never the
# one just saved; and nothing spool did not make is removed or followed: a
# file of another name, another user's plan, a symlink (nor its target), a
# directory of a plan's name.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_calls"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
plan 23
PLANS="$XDG_CACHE_HOME/spool/plans"
native="$("$PROG" 300)"

# run NAME [OPTION]: spool probe (SPOOL_DEBUG=1: it says what it did with
# the cache) into NAME.how; a different OPTION is a different plan
run() {
	local name="$1"
	shift
	SPOOL_DEBUG=1 spool_run probe "$@" -o "$name.trace" -e 'func:probe_*' -- "$PROG" 300
	grep -e 'plan loaded' -e 'plan saved' -e 'plan cache' run.err >"$name.how"
}
there() { [ -e "$PLANS/$1" ] || [ -L "$PLANS/$1" ]; }
# kept WHAT NAME / gone WHAT NAME
kept() { if there "$2"; then pass "$1 is kept"; else fail "$1 is kept (removed)"; fi; }
gone() { if there "$2"; then fail "$1 is removed (still there)"; else pass "$1 is removed"; fi; }
old() { touch -h -d '40 days ago' "$@"; }

run first
is "$OUT" "$native" "the program's output, probed"
P="$(cd "$PLANS" && ls *.plan)"
like "$(cat first.how)" 'plan saved in the cache' "the first run saves its plan ($P)"

# what spool made, and what it did not
cd "$PLANS" || exit 1
head -c 100000 /dev/zero >aaaaaaaaaaaaaaaa.plan	# a plan unused for 40 days
old aaaaaaaaaaaaaaaa.plan
head -c 100000 /dev/zero >bbbbbbbbbbbbbbbb.plan	# a plan used yesterday
touch -d '1 day ago' bbbbbbbbbbbbbbbb.plan
echo x >cccccccccccccccc.plan.Ab12Cd		# a save that died 2 days ago
touch -d '2 days ago' cccccccccccccccc.plan.Ab12Cd
echo x >dddddddddddddddd.plan.Xy34Zw		# a save under way
echo mine >notes.txt				# not a name spool makes
old notes.txt
echo x >0123456789ABCDEF.plan			# not a name spool makes (upper case)
old 0123456789ABCDEF.plan
mkdir 1111111111111111.plan			# a directory
old 1111111111111111.plan
echo keep >"$T_DIR/target.plan"
ln -s "$T_DIR/target.plan" ffffffffffffffff.plan	# a symlink
old "$T_DIR/target.plan" ffffffffffffffff.plan
other=0
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	echo x >eeeeeeeeeeeeeeee.plan		# another user's plan
	chown nobody eeeeeeeeeeeeeeee.plan
	old eeeeeeeeeeeeeeee.plan
	other=1
fi
old "$P"	# the first run's plan: loaded below, so used now
cd "$T_DIR" || exit 1

run second
like "$(cat second.how)" 'plan loaded from the cache' "the second run loads the plan"
run third -q
like "$(cat third.how)" 'old plans removed' "a run saving a new plan removes old ones"
Q="$(cd "$PLANS" && ls -t [0-9a-f]*.plan | head -n 1)"
gone "a plan not used for 40 days" aaaaaaaaaaaaaaaa.plan
gone "an unfinished save 2 days old" cccccccccccccccc.plan.Ab12Cd
kept "an old plan loaded since" "$P"
kept "a plan used yesterday (under the size limit)" bbbbbbbbbbbbbbbb.plan
kept "a save under way" dddddddddddddddd.plan.Xy34Zw
notspool() {
	kept "$1: a file of another name" notes.txt
	kept "$1: an upper-case name" 0123456789ABCDEF.plan
	kept "$1: a directory" 1111111111111111.plan
	if there ffffffffffffffff.plan && [ "$(cat "$T_DIR/target.plan")" = keep ]; then
		pass "$1: a symlink and its target are kept"
	else
		fail "$1: a symlink and its target are kept"
	fi
	if [ "$other" = 1 ]; then
		kept "$1: another user's plan" eeeeeeeeeeeeeeee.plan
	else
		skip "not root: cannot give a file to another user" 1
	fi
}
notspool "40 days old"

# --- the size limit: least recently used first ------------------------------
sp="$(stat -c %s "$PLANS/$P")"
sq="$(stat -c %s "$PLANS/$Q")"
touch -d '2 hours ago' "$PLANS/$P"
touch -d '1 day ago' "$PLANS/bbbbbbbbbbbbbbbb.plan"
rm -f "$PLANS/$Q"
# room for P and the plan saved again, not for b's 100000 bytes as well
SPOOL_PLAN_CACHE_MAX=$((sp + sq + 50000)) run fourth -q
like "$(cat fourth.how)" 'plan saved in the cache' "the plan removed is saved again"
if there "$Q" && there "$P" && ! there bbbbbbbbbbbbbbbb.plan; then
	pass "over SPOOL_PLAN_CACHE_MAX the least recently used plan goes, newer ones stay"
else
	fail "over SPOOL_PLAN_CACHE_MAX the least recently used plan goes: $(ls "$PLANS" | tr '\n' ' ')"
fi
rm -f "$PLANS/$Q"
SPOOL_PLAN_CACHE_MAX=0 run fifth -q
if there "$Q" && ! there "$P"; then
	pass "SPOOL_PLAN_CACHE_MAX=0 keeps only the plan just saved"
else
	fail "SPOOL_PLAN_CACHE_MAX=0 keeps only the plan just saved: $(ls "$PLANS" | tr '\n' ' ')"
fi
run sixth -q
like "$(cat sixth.how)" 'plan loaded from the cache' "which the next run loads"
notspool "over the size limit"

done_testing
