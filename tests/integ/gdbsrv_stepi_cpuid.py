# SPDX-License-Identifier: MIT
# gdbsrv_stepi_cpuid.py - gdb commands for tests/integ/407-gdbsrv-stepi-cpuid.t:
# `step-cpuid` steps (stepi) to the next cpuid instruction of the program,
# then makes one more stepi onto it and prints where that step ended and
# the registers cpuid answered in.
import gdb


def _at_cpuid():
    f = gdb.selected_frame()
    return f.architecture().disassemble(f.pc())[0]["asm"].startswith("cpuid")


class _StepCpuid(gdb.Command):
    def __init__(self):
        super().__init__("step-cpuid", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        for _ in range(200):
            if _at_cpuid():
                break
            gdb.execute("stepi", to_string=True)
        else:
            print("step-cpuid: no cpuid within 200 instructions")
            return
        pc = int(gdb.parse_and_eval("$pc"))
        print("at-cpuid: eax=%#x" % (int(gdb.parse_and_eval("$eax")) & 0xffffffff))
        out = gdb.execute("stepi", to_string=True)
        now = int(gdb.parse_and_eval("$pc"))
        ecx = int(gdb.parse_and_eval("$ecx")) & 0xffffffff
        print("stepped: advanced=%d func=%s rdrand=%d signal=%d" % (
            now - pc, gdb.selected_frame().name(), (ecx >> 30) & 1,
            "received signal" in out))


_StepCpuid()
