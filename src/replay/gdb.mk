# SPDX-License-Identifier: MIT
# gdb.mk - spool's gdb extension, spool-gdb.py (included by the Makefile).
# spool replay --gdb looks for it beside the spool binary (so every build
# directory gets a copy) and in PREFIX/share/spool/.

GDB_SCRIPT_SRC := src/replay/spool-gdb.py

$(sort $(O)/spool-gdb.py build-asan/spool-gdb.py): $(GDB_SCRIPT_SRC)
	@mkdir -p $(dir $@)
	cp $< $@

all: $(O)/spool-gdb.py
asan: build-asan/spool-gdb.py

install: install-gdb
install-gdb:
	install -d $(DESTDIR)$(PREFIX)/share/spool
	install -m 644 $(GDB_SCRIPT_SRC) $(DESTDIR)$(PREFIX)/share/spool/spool-gdb.py

.PHONY: install-gdb
