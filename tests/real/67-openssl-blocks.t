#!/bin/bash
# SPDX-License-Identifier: MIT
# 67-openssl-blocks.t - every basic block of every exported function of
# Debian's libcrypto (5,363 functions, perlasm among them, with data after
# the code inside a symbol's range: RC4_options' option strings) counted
# while openssl hashes and encrypts a file: the digests and the ciphertext
# are the native ones, byte for byte (issue 12: bytes inside a function's
# symbol range that are data were patched as code, and the program
# silently computed something else). Bytes not reached from a function's
# code are named in a warning and left alone.
. "$(dirname "$0")/lib.sh"
need_progs openssl
plan 7

head -c 3000000 /dev/urandom >data
enc=(enc -aes-256-cbc -pbkdf2 -pass pass:spool -S 0011223344556677 -in data)
openssl dgst -sha256 -r data >native.sha
openssl "${enc[@]}" >native.enc

wall spool_run probe -q -o d.trace -e 'block:libcrypto.so*:*' -- openssl dgst -sha256 -r data
diag "openssl dgst -sha256, 3 MB, every libcrypto block counted: ${WALL} s"
is_rc 0 "openssl dgst under block probes exits 0"
ok "the digest is the native one" cmp -s run.out native.sha
like "$ERR" 'RC4_options: [0-9]+ bytes .* not reached .*: not probed' \
	"the data in RC4_options is named and left alone"
like "$ERR" '^spool: ([0-9]+) of \1 probes placed' "every probe was placed"

spool_run probe -q -o e.trace -e 'block:libcrypto.so*:*' -- openssl "${enc[@]}"
is_rc 0 "openssl enc -aes-256-cbc under block probes exits 0"
ok "the ciphertext is the native one, byte for byte" cmp -s run.out native.enc
"$SPOOL" report --coverage --json e.trace >cov.json 2>/dev/null
num_cmp "$(json cov.json "sum(1 for f in d['functions'] if f['blocks_hit'] > 0)")" -gt 20 \
	"the coverage report has the functions the encryption ran"
done_testing
