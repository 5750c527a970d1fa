#!/bin/bash
# SPDX-License-Identifier: MIT
# 88-corpus-git.t - the record/replay corpus: Debian's git on a small
# repository made here (200 files, 3 commits): `git grep --threads=2` and
# `git pack-objects --threads=2` (its list of objects on stdin, the pack
# and its index written in the working directory), each recorded in
# serial and in sync mode, 3 replays each.
. "$(dirname "$0")/lib.sh"
need_progs git
plan 8

mkdir repo
(
	cd repo || exit 1
	git init -q . && git config user.email t@example.com && git config user.name t
	for c in 1 2 3; do
		for i in $(seq 1 200); do
			printf 'file %d commit %d\nline with needle %d\n%s\n' "$i" "$c" $((i * c)) \
				"$(seq "$i" $((i + 40)) | tr '\n' ' ')" >"f$i.txt"
		done
		git add -A && git commit -qm "commit $c"
	done
	git rev-list --objects --all >../objects.list
	git gc -q --prune=now 2>/dev/null || true
)
export GIT_CONFIG_NOSYSTEM=1 HOME="$T_DIR"
for m in serial sync; do
	rr_corpus git-grep "$m" --dir repo -- git grep --threads=2 -n 'needle 1[0-9]'
done
for m in serial sync; do
	rr_corpus git-pack-objects "$m" --dir repo --stdin objects.list -- \
		git pack-objects --threads=2 -q pk
done
done_testing
