#!/bin/bash
# SPDX-License-Identifier: MIT
# 76-cc-builds.t - spool cc as a compiler in real builds (doc/cc.md): a
# program with several threads, one of two translation units and one whose
# traced values the host computes (formulas.c), each built
# with plain clang and with spool cc at -O0, -O2 and -Os, decode to the same
# events thread by thread; the two-unit program also built by make
# CC="spool cc" and by CMake, and decoded from a stripped copy. Bad input:
# bitcode LLVM cannot parse (the error shown, no crash), the API used wrongly
# (a compile error naming the call), files that are not C (compiled as clang
# compiles them).
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/cc/cc-lib.sh"

cc_require_tools

plan 97

# trace_and_decode NAME ARGS...: run ./NAME under spool, decode into dec-NAME.
trace_and_decode() {
	local name="$1"
	shift
	rm -rf "t-$name"
	spool_run locks -q -o "t-$name" -- "./$name" "$@"
	is_rc 0 "$name runs under spool"
	spool_run decode --stats "t-$name"
	is_rc 0 "spool decode reads $name's trace"
	cp run.out "dec-$name"
	cp run.err "stats-$name"
}

for O in O0 O2 Os; do
	"$CLANG" -"$O" -pthread -I"$SRC/include" "$SRC/tests/cc/threads.c" -o "threads-plain-$O" \
		2>build.err
	is "$?" 0 "-$O: threads builds with plain clang" || diag "$(cat build.err)"
	spool_run cc -"$O" -pthread -Wall -Wextra -Werror "$SRC/tests/cc/threads.c" \
		-o "threads-cc-$O"
	is_rc 0 "-$O: threads builds with spool cc"
	"$CLANG" -"$O" -I"$SRC/include" "$SRC/tests/cc/multi_main.c" "$SRC/tests/cc/multi_lib.c" \
		-o "multi-plain-$O" 2>build.err
	is "$?" 0 "-$O: multi builds with plain clang" || diag "$(cat build.err)"
	spool_run cc -"$O" -Wall -Wextra -Werror "$SRC/tests/cc/multi_main.c" \
		"$SRC/tests/cc/multi_lib.c" -o "multi-cc-$O"
	is_rc 0 "-$O: multi builds with spool cc (two units, one link)"
	"$CLANG" -"$O" -I"$SRC/include" "$SRC/tests/cc/formulas.c" -o "formulas-plain-$O"
	spool_run cc -"$O" -Wall -Wextra -Werror "$SRC/tests/cc/formulas.c" -o "formulas-cc-$O"
	is_rc 0 "-$O: formulas builds with spool cc"
	for b in plain cc; do
		trace_and_decode "formulas-$b-$O" 300
		trace_and_decode "threads-$b-$O" 4 200
		trace_and_decode "multi-$b-$O" 100
	done
	cc_same_events "dec-threads-plain-$O" "dec-threads-cc-$O" \
		"-$O: 4 threads: decoded spool cc trace = plain trace, thread by thread"
	n=$(cut -d' ' -f2 "dec-threads-cc-$O" | sort -u | grep -c '')
	is "$n" 4 "-$O: the events of the 4 threads are there"
	cc_same_events "dec-formulas-plain-$O" "dec-formulas-cc-$O" \
		"-$O: values the host computes (every width, wrapping) = the target's"
	cc_same_events "dec-multi-plain-$O" "dec-multi-cc-$O" \
		"-$O: two units: decoded spool cc trace = plain trace"
	ok "-$O: decoded times strictly increase" cc_increasing "dec-multi-cc-$O"
	n=$(grep -c 'spool-cc-table' <(readelf -p .spool_cc_table "multi-cc-$O" 2>/dev/null))
	is "$n" 2 "-$O: the binary holds the tables of both units"
	diag "-$O: records plain -> spool cc:" \
		"  multi $(cc_stat "stats-multi-plain-$O" records) -> $(cc_stat "stats-multi-cc-$O" records)," \
		"  threads $(cc_stat "stats-threads-plain-$O" records) -> $(cc_stat "stats-threads-cc-$O" records)"
done

# make CC="spool cc": make's built-in rules compile each unit with -c, then link.
mkdir mk
make -s -C mk -f "$SRC/tests/cc/multi.mk" SRC="$SRC/tests/cc" CC="$SPOOL cc" CFLAGS=-O2 \
	>make.out 2>&1
is "$?" 0 "make CC=\"spool cc\" builds multi" || diag "$(cat make.out)"
cp mk/multi multi-make
trace_and_decode multi-make 100
cc_same_events dec-multi-plain-O2 dec-multi-make "make build: decoded trace = plain trace"

# CMake, with spool cc as the C compiler.
printf '#!/bin/sh\nexec "%s" cc "$@"\n' "$SPOOL" >spoolcc
chmod +x spoolcc
if command -v cmake >/dev/null; then
	CFLAGS=-Os cmake -S "$SRC/tests/cc" -B cm -DCMAKE_C_COMPILER="$PWD/spoolcc" >cmake.out 2>&1 &&
		cmake --build cm >>cmake.out 2>&1
	is "$?" 0 "CMake builds multi with spool cc" || diag "$(tail -n 20 cmake.out)"
	cp cm/multi multi-cmake 2>/dev/null
	trace_and_decode multi-cmake 100
	cc_same_events dec-multi-plain-Os dec-multi-cmake "CMake build: decoded trace = plain trace"
else
	skip 6 "cmake is not installed"
fi

# Installed, the header is found through pkg-config.
if command -v pkg-config >/dev/null; then
	make -s -C "$SRC" install-cc O="$(dirname "$CCOPT")" DESTDIR="$PWD/inst" PREFIX=/opt/spool \
		>inst.out 2>&1
	is "$?" 0 "make install-cc installs the header, the optimizer and spool.pc" ||
		diag "$(cat inst.out)"
	cflags=$(PKG_CONFIG_SYSROOT_DIR="$PWD/inst" PKG_CONFIG_PATH="$PWD/inst/opt/spool/lib/pkgconfig" \
		pkg-config --cflags spool)
	"$CLANG" -Wall -Werror $cflags -c "$SRC/tests/cc/bank.c" -o pc.o 2>pc.err
	is "$?" 0 "  pkg-config --cflags spool finds spool/trace.h" || diag "$cflags" "$(cat pc.err)"
else
	skip 2 "pkg-config is not installed"
fi

# A stripped binary keeps its tables (the section is not debug information).
cp multi-cc-O2 multi-stripped
strip multi-stripped
trace_and_decode multi-stripped 100
cc_same_events dec-multi-plain-O2 dec-multi-stripped "stripped build: decoded trace = plain trace"

# LLVM cannot parse the bitcode: spool-ccopt says so and fails, no crash.
"$CLANG" -O2 -I"$SRC/include" -DSPOOL_CC=1 -emit-llvm -c "$SRC/tests/cc/multi_lib.c" -o good.bc
head -c 300 good.bc >trunc.bc
"$CCOPT" trunc.bc out.bc 2>ccopt.err
is "$?" 1 "spool-ccopt fails on truncated bitcode"
like "$(cat ccopt.err)" "trunc.bc: not LLVM bitcode" "  and says which file it cannot read"
# ... and through spool cc, with a clang that writes broken bitcode.
cat >badclang <<EOF
#!/bin/bash
for a in "\$@"; do [ "\$a" = -emit-llvm ] && bc=1; [ "\$prev" = -o ] && out="\$a"; prev="\$a"; done
if [ -n "\${bc:-}" ]; then echo garbage >"\$out"; exit 0; fi
exec "$CLANG" "\$@"
EOF
chmod +x badclang
SPOOL_CLANG=$PWD/badclang spool_run cc -O2 "$SRC/tests/cc/multi_lib.c" -c -o bad.o
is "$RC" 1 "spool cc fails when the optimizer cannot parse clang's bitcode"
like "$ERR" "not LLVM bitcode" "  and shows the optimizer's error"
ok "  no object is left behind" test ! -e bad.o

# The API used wrongly: each a compile error naming the call and the rule.
misuse() {
	printf '#include <spool/trace.h>\nint main(int argc, char **argv) {\n  (void)argv;\n  %s;\n  return 0;\n}\n' \
		"$1" >misuse.c
	spool_run cc -c misuse.c -o misuse.o
	is "$RC" 1 "misuse '$1' does not compile"
	like "$ERR" "misuse.c:4:.*$2" "  the error names the call and says: $2"
}
misuse 'SPOOL_TRACE(argc, 1)' "event id must be a constant"
misuse 'SPOOL_TRACE(1, 1, 2, 3, 4, 5, 6, 7)' "at most 6 arguments"
misuse 'struct { int x; } s = {1}; SPOOL_TRACE(1, s)' "arithmetic or pointer type"

# Files that are not C: compiled as clang compiles them.
printf 'int twice(int x) { return 2 * x; }\n' >f.cpp
spool_run cc -O2 -c f.cpp -o f.o
is_rc 0 "spool cc compiles a C++ file"
like "$(nm f.o)" "_Z5twicei" "  as C++ (the symbol is mangled)"
printf '#define RET ret\n.globl g\ng:\n\tRET\n' >g.S
spool_run cc -c g.S -o g.o
is_rc 0 "spool cc compiles a .S file (preprocessed assembly)"
like "$(nm g.o)" "T g" "  into an object defining g"

done_testing
