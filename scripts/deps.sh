#!/bin/bash
# SPDX-License-Identifier: MIT
# deps.sh - the Debian 12 packages spool's build, tests, benchmarks and demo
# need. Run as root it installs the missing ones (apt-get update once, then
# apt-get install --no-install-recommends); run as another user it names them
# and the command to run, and exits 1. When everything is present it does
# nothing, quickly, so `make check` can call it every time.
#
# --real adds the programs of `make check-real` (tests/real/: real Debian
# programs under every command), which `make check` does not need.
# --arm64 adds what `make ARCH=aarch64` and `make check-arm64` need on the
# host (scripts/arm64-root.sh calls it; doc/arm64.md).
# --arm64-vm adds what scripts/arm64-vm.sh needs to boot Debian's arm64
# kernel (make check-arm64's tests/arm64/273).
set -euo pipefail

REAL=0
ARM64=0
ARM64_VM=0
for a in "$@"; do
	case "$a" in
	--real) REAL=1 ;;
	--arm64) ARM64=1 ;;
	--arm64-vm) ARM64_VM=1 ;;
	*)
		echo "usage: deps.sh [--real] [--arm64] [--arm64-vm]" >&2
		exit 2
		;;
	esac
done

# The one list. Why each is here:
#   build-essential gcc make pkg-config  the build (libc6-dev's libc.a links
#                                        tests/progs/lockcount-static)
#   libelf-dev libdw-dev libzstd-dev     symbolizer, build ids, compression
#   clang-14 llvm-14-dev                 spool cc: clang to LLVM IR, spool-ccopt links
#                                        the LLVM-C API (src/cc/cc.mk, llvm-config-14)
#   libcmocka-dev                        unit tests
#   babeltrace2                          tests: every trace must read in it
#   python3                              tests: JSON and trace-file checks
#   perl                                 prove (TAP harness)
#   valgrind                             bench: drd as a peer
#   pigz                                 bench: a real multithreaded workload
#   protobuf-compiler                    tests: protoc --decode_raw on Perfetto exports
#   coreutils                            timeout(1) around every test run
#   libzydis-dev                         spool probe: x86-64 decoding and relocation
#   lcov                                 tests: genhtml must accept spool report --coverage's .info
#   sqlite3                              tests: a real program that reads its stdin with stdio
#   memcached xz-utils zstd pbzip2 lbzip2  tests: a real server and real compressors, recorded and replayed
#   clang-14 llvm-14-dev                 spool cc: its compiler and the LLVM-C API of spool-ccopt
#   libclang-rt-14-dev                   make fuzz / make check: libFuzzer and the sanitizer
#                                        runtimes of clang-14 (fuzz/fuzz.mk)
#   binutils                             scripts/fuzz-seeds.sh: objcopy, strip
#   git                                  tests/real/quick: a user's checkout as -o, git under spool;
#                                        make dist (git ls-files), tests/integ/169
#   man-db groff-base                    tests/integ/165, 169: man -l renders the generated man pages
#   dpkg-dev                             make deb: dpkg-shlibdeps computes the package's Depends
#   util-linux                           tests/integ/168: setpriv runs spool as another user
#   strace                               tests/integ/120, 122: a socket replay makes no network call
#   g++ (build-essential)                tests/integ/160-161: a C++ program's names
#   libglib2.0-dev                       tests/integ/162: a GLib program (GMutex, GCond,
#                                        GThreadPool: futexes through syscall())
#   jq rsync                             tests/real/quick/82-83: a program whose work is in its
#                                        own library (libjq), a three-process tree (rsync);
#                                        tests/real/166: jq probed, spool killed mid-run
#   uftrace                              bench: the peer of spool probe (bench/probe.sh:
#                                        -O2 call-heavy program, dynamic patching)
PACKAGES=(
	build-essential gcc make pkg-config
	libelf-dev libdw-dev libzstd-dev
	clang-14 llvm-14-dev
	libcmocka-dev
	babeltrace2
	python3
	perl
	valgrind
	pigz
	protobuf-compiler
	coreutils
	libzydis-dev
	lcov
	sqlite3
	memcached xz-utils zstd pbzip2 lbzip2
	clang-14 llvm-14-dev
	libclang-rt-14-dev binutils
	git
	strace
	libglib2.0-dev
	man-db groff-base dpkg-dev util-linux
	uftrace
	jq rsync
)

# The --real list (make check-real). Why each is here:
#   nginx-light    a server whose master blocks every signal and waits in
#                  sigsuspend, probed while it serves (tests/real/60-nginx-probe.t)
#   x264           137 shared libraries: maps larger than 64 KiB (tests/real/62-x264-maps.t)
#   openssl        libcrypto: perlasm, data inside functions' ranges (tests/real/67-openssl-blocks.t)
#   libc6-dbg      libc's symbols from its debug file, versioned names (tests/real/71-libc-names.t)
#   redis-server redis-tools  a client replayed with its server gone (tests/real/74-redis-cli-replay.t);
#                  the record/replay corpus: a server with jemalloc's background
#                  thread, driven by redis-benchmark and redis-cli (tests/real/82-corpus-redis.t)
#   lighttpd curl  the corpus: an epoll server keeping pointers in epoll data, a bounded
#                  client loop (tests/real/93-corpus-lighttpd.t, 94-corpus-nginx.t)
#   libglib2.0-dev the corpus: a GLib program (GThreadPool; GLib's locks are its own
#                  futexes) built by tests/real/95-corpus-glib.t
#   (the corpus also runs memcached, python3, perl, git, make, sqlite3, x264 and g++ from
#   the lists above; tests/real/82-95, tests/real/quick/80-81)
#   libglib2.0-bin gio, a Debian GLib program: its futexes (tests/real/96-glib-futex.t)
#   dbus-daemon    dbus-run-session: a private session bus, gone when its command ends, for
#                  gdbus (libglib2.0-bin), a GLib program whose main thread waits on
#                  GDBus's worker thread: a contention profile of futexes (tests/real/
#                  133-gdbus-futex-contention.t)
#   libcap2-bin    getcap -r, a program that walks a tree with glibc's nftw (tests/real/
#                  100-tree-walk-replay.t, with util-linux's hardlink)
#   nodejs         node: V8 copies its builtins at run time (tests/real/114-node-probe-builtins.t),
#                  libuv's thread pool recorded and replayed (tests/real/115)
#   plzip pixz ripgrep  three stripped multithreaded programs under every command (locks,
#                  probe on their libraries, path from .eh_frame, record/replay, info):
#                  C++ with pthread queues and liblz (tests/real/122-plzip-all.t), C with
#                  liblzma (123-pixz-all.t), Rust with its own futexes and PCRE2
#                  (124-ripgrep-all.t)
#   pbzip2 lbzip2 zstd  three more stripped multithreaded compressors under every command
#                  (also in the list above, for tests/integ): C++ with libbz2
#                  (tests/real/128-pbzip2-all.t), C with its own bzip2 code (129-lbzip2-all.t),
#                  libzstd's pool linked in (130-zstd-all.t)
#   unbound        a DNS server: two libevent loops on one UDP socket, OpenSSL's locks,
#                  stripped, under every command and attached to (tests/real/134-unbound-all.t)
#   mosquitto mosquitto-clients  an MQTT broker (one thread, epoll) and mosquitto_pub -l
#                  (libmosquitto's loop thread, mutexes; a flag polled without a lock)
#                  under every command (tests/real/135-mosquitto-all.t)
#   ninja-build    ninja -j2: a process tree (posix_spawn of sh, tr, cat) writing files and
#                  its .ninja_log under every command (tests/real/136-ninja-all.t)
#   ruby           an interpreter whose threads take turns on its GVL, Random seeded with
#                  getentropy, a conservative GC, under every command (tests/real/142-ruby-all.t)
#   haproxy        an HTTP proxy with nbthread 2 answering by itself (http-request return),
#                  driven by curl, under every command (tests/real/143-haproxy-all.t)
#   bind9-dnsutils dig: libisc's loop threads on libuv, OpenSSL seeded in a library's
#                  constructor, querying a local responder (tests/real/144-dig-all.t)
#   vim            vim -es: a search with a timeout arms a SIGEV_THREAD timer whose function
#                  sets the flag the regexp engine polls (tests/real/137-vim-sevthread.t)
#   apache2 apache2-utils  apache2 with mpm_event: a parent and a worker process of
#                  APR threads that drops root, driven by curl (tests/real/145-apache2-event-all.t)
#   ffmpeg         ffmpeg -threads 2 encoding a synthetic input: libavutil's slice
#                  threads, 124 MB of writable memory per snapshot (tests/real/146)
#   restic         a Go program (cgo): its runtime's own system calls, signal stacks and
#                  futexes under every command (tests/real/147-restic-go-all.t)
#   p7zip-full     7z: a #! script that execs a stripped C++ program, which dlopens its
#                  codecs (7z.so) and dlcloses them at exit (tests/real/151-7z-all.t)
#   postgresql     pgbench -j 2 (libpq, two client threads) against a server the test
#                  starts (initdb as the postgres user) (tests/real/152-pgbench-all.t)
#   lld            ld.lld --threads=2: LLVM's thread pool (C++ std::thread), ends with
#                  _exit while its workers wait (tests/real/153-lld-all.t)
#   graphicsmagick gm convert with OpenMP on 2 threads: libgomp's barriers are futexes
#                  of its own syscall instruction, a snapshot's restored worker among
#                  them (tests/real/158-graphicsmagick-openmp-all.t)
#   qemu-utils     qemu-img convert -m 2 -W: coroutines, a thread pool, an event loop,
#                  out-of-order writes a replay repeats (tests/real/159-qemu-img-convert-all.t)
#   pv             splice()s its input pipe to its output: bytes from a pipe to a pipe or
#                  a terminal that a replay must write again (tests/real/148-pv-splice.t)
#   gpg            gpg --gen-random: libgcrypt mixes in the CPU's rdrand, getrusage, clock()
#                  and (jitter entropy) rdtsc: replayed exactly since spool hides the first
#                  and last and records the others (tests/real/138, 161)
#   openssl        openssl rand: its random bytes replayed (tests/real/119-openssl-rand-replay.t)
REAL_PACKAGES=(
	nginx-light
	x264
	openssl
	libc6-dbg
	redis-server redis-tools
	lighttpd curl
	libglib2.0-bin
	dbus-daemon
	libcap2-bin
	nodejs
	plzip pixz ripgrep
	pbzip2 lbzip2 zstd
	unbound mosquitto mosquitto-clients ninja-build
	ruby haproxy bind9-dnsutils
	vim
	apache2 apache2-utils ffmpeg restic
	p7zip-full postgresql lld pv
	graphicsmagick qemu-utils gpg
)
# Servers the packages start as services: the tests run their own, on free
# ports; none may keep running in the background.
REAL_SERVICES=(nginx redis-server lighttpd memcached unbound mosquitto haproxy apache2 postgresql)
if [ "$REAL" = 1 ]; then
	PACKAGES+=("${REAL_PACKAGES[@]}")
fi

# The --arm64 list (make ARCH=aarch64, make check-arm64). Why each is here:
#   gcc-aarch64-linux-gnu  Debian's cross compiler (its own binutils come with it)
#   g++-aarch64-linux-gnu  tests/arm64/281: a C++ program that throws, cross-built
#   mmdebstrap arch-test   scripts/arm64-root.sh: the arm64 root (headers and
#                          libraries from Debian's arm64 packages) the cross build
#                          links against and qemu loads libraries from
#   qemu-user-static       runs the aarch64 build and tests/progs on the host
#                          (registered with binfmt_misc by scripts/arm64-root.sh)
#   file                   tests/arm64/lib.sh: checks the build is aarch64
ARM64_PACKAGES=(
	gcc-aarch64-linux-gnu g++-aarch64-linux-gnu
	mmdebstrap arch-test
	qemu-user-static
	file
)
if [ "$ARM64" = 1 ]; then
	PACKAGES+=("${ARM64_PACKAGES[@]}")
fi
# The --arm64-vm list (scripts/arm64-vm.sh):
#   qemu-system-arm  qemu-system-aarch64, the virtual machine (2 CPUs, virtio-9p)
#   cpio             packs the VM's initramfs
#   gdb-multiarch    tests/arm64/278: the host's gdb debugging the aarch64 replay
#                    that spool's gdb server runs in the VM
if [ "$ARM64_VM" = 1 ]; then
	PACKAGES+=(qemu-system-arm cpio gdb-multiarch)
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "deps.sh: not a Debian system; make sure these (Debian names) are installed:" >&2
	echo "  ${PACKAGES[*]}" >&2
	exit 0
fi

missing=()
for p in "${PACKAGES[@]}"; do
	if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing packages: ${missing[*]}" >&2
	echo "deps.sh: run as root: apt-get update && $cmd" >&2
	exit 1
fi
echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq </dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
if [ "$REAL" = 1 ]; then
	for svc in "${REAL_SERVICES[@]}"; do
		if command -v systemctl >/dev/null 2>&1; then
			systemctl stop "$svc" >/dev/null 2>&1 || true
			systemctl disable "$svc" >/dev/null 2>&1 || true
		fi
		service "$svc" stop >/dev/null 2>&1 || true
	done
fi
