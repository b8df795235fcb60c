#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The two Quick start commands of the README, and what CI runs:
#
#   sh tests/setup.sh demo     install what Debian 12 lacks, build, run the demo
#   sh tests/setup.sh check    install, build, run make check and print a summary
#   sh tests/setup.sh build    install and build only
#
# Packages are installed only when running as root with apt-get; otherwise
# they are expected to be there already.
set -eu

cd "$(dirname "$0")/.."
what=${1:-check}
# shellcheck source=tests/apt.sh
. tests/apt.sh

PACKAGES="build-essential autoconf automake libtool pkg-config bats rsyslog rsyslog-relp systemd jq
	util-linux procps g++ clang libclang-rt-14-dev valgrind mandoc groff-base man-db
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static gcc-i686-linux-gnu libc6-dev-i386-cross
	libdw1 strace gdb libspdlog-dev gnuplot-nox logrotate libcap2-bin python3"

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "== installing Debian packages"
	apt_get update -qq
	apt_get install -y -qq --no-install-recommends $PACKAGES >/dev/null
fi

echo "== building"
[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi
# CI builds with -Werror; a user's newer compiler may warn where ours does not.
[ -f Makefile ] && [ Makefile -nt configure ] || ./configure --quiet ${CI:+--enable-werror}
make -j"$(nproc)" >/dev/null

# "N passed, N failed" over every test case automake's TAP driver recorded.
summary() {
	find . -name '*.trs' -newer "$1" -print0 | xargs -0 cat | awk '
		/^:test-result: (PASS|XFAIL)/ { p++ }
		/^:test-result: SKIP/ { s++ }
		/^:test-result: (FAIL|XPASS|ERROR)/ { f++ }
		END { printf "%d passed, %d failed%s\n", p, f, s ? ", " s " skipped" : "" }'
}

case $what in
demo)
	make demo
	;;
check)
	stamp=$(mktemp)
	status=0
	# Twice the CPUs: many tests wait on a daemon or a child, not a CPU.
	make -j"$(($(nproc) * 2))" check || status=$?
	[ $status -eq 0 ] || find . -name '*.log' -newer "$stamp" -path './tests/*' \
		-exec grep -l '^not ok\|^ERROR\|^FAIL' {} + 2>/dev/null | head -5 |
		while read -r f; do echo "== $f"; grep -A8 '^not ok' "$f" | head -40; done
	summary "$stamp"
	rm -f "$stamp"
	exit $status
	;;
build)
	;;
*)
	echo "usage: sh tests/setup.sh demo|check|build" >&2
	exit 2
	;;
esac
