# SPDX-License-Identifier: MIT
# pkg.mk - what a user installs besides the binaries, and the packages
# (included by the Makefile):
#   man         build/man/*.1: spool(1) and spool-CMD(1), generated from the
#               built spool's --help by pkg/gen-man.py (part of all)
#   install     also installs the man pages (PREFIX/share/man/man1) and the
#               bash completion (PREFIX/share/bash-completion/completions/spool)
#   dist        build/spool-VERSION.tar.gz (or DIST=FILE): the files git tracks (as they are
#               in the work tree), under spool-VERSION/
#   deb         build/spool_VERSION_ARCH.deb: `make install DESTDIR=stage
#               PREFIX=/usr` packed by dpkg-deb, Depends from dpkg-shlibdeps
#               (pkg/mkdeb.sh)
#   check-dist  the slow check of both: builds from the tarball, makes the
#               package there, installs it in a scratch root (dpkg --root),
#               runs `spool locks` from it and purges it (pkg/check-dist.sh)
# VERSION is SPOOL_VERSION of src/main.c: one place.

VERSION := $(shell sed -n 's/^\#define SPOOL_VERSION "\(.*\)"/\1/p' src/main.c)
MAN_STAMP := $(O)/man/.stamp

# One run writes every page (the command list comes from spool --help).
$(MAN_STAMP): $(SPOOL) pkg/gen-man.py
	python3 pkg/gen-man.py $(SPOOL) $(O)/man $(VERSION)
	@touch $@

man: $(MAN_STAMP)
ifndef ARCH_NO_MAN
all: $(MAN_STAMP)
endif

install: install-pkg
install-pkg: $(MAN_STAMP)
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 644 $(O)/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 pkg/spool.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/spool

# Tracked files that exist (a file deleted but not yet committed is left
# out); the name carries the version.
DIST ?= $(O)/spool-$(VERSION).tar.gz
dist:
	@mkdir -p $(O)
	git ls-files -z | perl -0 -ne 'chomp; print "$$_\0" if -e' | \
		tar --null -T - --transform 's,^,spool-$(VERSION)/,' --owner=0 --group=0 \
		--sort=name -czf $(DIST).tmp
	mv $(DIST).tmp $(DIST)
	@echo "dist: $(DIST)"

deb: all
	pkg/mkdeb.sh $(O) $(VERSION)

check-dist:
	pkg/check-dist.sh $(O) $(VERSION)

.PHONY: man install-pkg dist deb check-dist
