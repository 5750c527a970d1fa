# SPDX-License-Identifier: MIT
# multi.mk - a plain Makefile for the two-unit test program, so a test can
# build it with make CC="spool cc" as a user would (make's built-in rules
# compile each .c file with -c, then this rule links):
#	make -f multi.mk SRC=tests/cc CC=... CFLAGS=...
VPATH = $(SRC)

multi: multi_main.o multi_lib.o
	$(CC) $(CFLAGS) -o $@ $^

multi_main.o multi_lib.o: multi.h
