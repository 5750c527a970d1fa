#!/bin/bash
# SPDX-License-Identifier: MIT
# 390-probe-plugin-beside.t - a program that dlopens a plugin by its full
# path beside itself (Debian's 7z loads /usr/lib/p7zip/7z.so): `-e
# func:LIB:FN` looked for LIB only where dlopen looks for a bare name
# (LD_LIBRARY_PATH, the ld.so cache, the default directories), so the spec
# matched nothing and only the full path worked. The executable's own
# directory is now the last place looked in (doc/probe.md).
. "$(dirname "$0")/lib.sh"

plan 5

mkdir -p bin
cp "$PROGS/late_dlopen" bin/
cat >plug.c <<'C'
__attribute__((noinline)) const char *plug_version(void)
{
	return "plug 1";
}
C
ok "a plugin builds" ${CC:-cc} -shared -fPIC -O1 -o bin/libplug.so plug.c
touch go
(sleep 0.5 && touch stop) &
spool_run probe -e 'func:libplug.so:plug_version' -o p.trace -- bin/late_dlopen go stop \
	"$T_DIR/bin/libplug.so" plug_version
wait
is_rc 0 "spool probe -e func:libplug.so:plug_version: exit 0"
like "$ERR" 'bin/libplug.so is not loaded at startup: probed if the program dlopens it' \
	"  the plugin found beside the executable, probed at its dlopen"
calls="$(echo "$OUT" | sed -n 's/^calls=//p')"
num_cmp "${calls:-0}" -gt 0 "  the program called it ($calls times)"
like "$ERR" "plug_version +${calls:-x} " "  and every call is counted"

done_testing
