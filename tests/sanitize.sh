#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The test suite under the sanitizers, each in a build directory of its own
# (a VPATH build: the source tree stays as it is):
#
#   sh tests/sanitize.sh [asan|tsan|all]
#
#   asan   ./configure --enable-sanitizers=address,undefined --enable-checked;
#          make check, the whole suite
#   tsan   ./configure --enable-sanitizers=thread; make check of the thread
#          tests (Bats tests whose name mentions threads, deferred printing's
#          among them, or pthread_atfork)
#
# Builds go to $SANITIZE_DIR (default /tmp/printk-shim-sanitize), with
# $JOBS build jobs (default: the number of CPUs) and twice as many test
# jobs. A source tree configured in
# place cannot host a VPATH build; its files (not its build products) are
# copied first.
# Exits non-zero if any test failed; prints "N passed, N failed" per build
# and for all of them.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
work=${SANITIZE_DIR:-/tmp/printk-shim-sanitize}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
what=${1:-all}

mkdir -p "$work"

# The source tree to build from: $top itself, or a clean copy of it.
source_tree() {
	if [ ! -f "$top/config.status" ]; then
		[ -x "$top/configure" ] || (cd "$top" && autoreconf -fi >/dev/null)
		echo "$top"
		return
	fi
	rm -rf "$work/src"
	mkdir -p "$work/src"
	if [ -d "$top/.git" ] && command -v git >/dev/null; then
		(cd "$top" && git ls-files -z -co --exclude-standard) |
			(cd "$top" && xargs -0 tar -cf - --no-recursion) | tar -C "$work/src" -xf -
	else
		tar -C "$top" -cf - --exclude=.git --exclude='*.o' --exclude='*.lo' --exclude='*.la' \
			--exclude=.libs --exclude=.deps --exclude=./Makefile --exclude=./config.status \
			--exclude=./config.log --exclude=./libtool --exclude='*.log' --exclude='*.trs' . |
			tar -C "$work/src" -xf -
	fi
	# Programs built in place would be found through VPATH and not rebuilt.
	find "$work/src" -type f -perm -u+x ! -name '*.sh' ! -name configure ! -name '*.bats' |
	while read -r f; do
		if [ "$(head -c 4 "$f" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ]; then
			rm -f "$f"
		fi
	done
	(cd "$work/src" && autoreconf -fi >/dev/null 2>&1)
	echo "$work/src"
}

# "N passed, N failed" over the .trs files of build directory $1.
count() {
	find "$1" -name '*.trs' -print0 | xargs -0 cat 2>/dev/null | awk '
		/^:test-result: (PASS|XFAIL)/ { p++ }
		/^:test-result: SKIP/ { s++ }
		/^:test-result: (FAIL|XPASS|ERROR)/ { f++ }
		END { printf "%d passed, %d failed%s\n", p, f, s ? ", " s " skipped" : "" }'
}

# Where a run failed: the first failing tests of each log.
failures() {
	find "$1" -name '*.log' -path '*tests*' -exec grep -l '^not ok\|^ERROR\|^FAIL' {} + 2>/dev/null |
		head -5 | while read -r f; do echo "== $f"; grep -A12 '^not ok' "$f" | head -30; done
}

build() {	# build NAME SANITIZERS [CONFIGURE OPTIONS]
	b=$work/$1
	san=$2
	shift 2
	rm -rf "$b"
	mkdir -p "$b"
	echo "== $(basename "$b"): configure --enable-sanitizers=$san $*, make -j$jobs"
	(cd "$b" && "$src/configure" -q --enable-werror --enable-sanitizers="$san" "$@" >/dev/null &&
	 make -j"$jobs" >make.log 2>&1) || { tail -30 "$b/make.log"; return 1; }
}

check() {	# check NAME [make arguments]
	b=$work/$1
	shift
	echo "== $(basename "$b"): make check $*"
	st=0
	# twice the jobs: many tests wait on a daemon or a child, not a CPU
	(cd "$b" && make -j"$((jobs * 2))" check "$@" >check.log 2>&1) || st=$?
	[ $st -eq 0 ] || failures "$b"
	echo "$(basename "$b"): $(count "$b")"
	return $st
}

src=$(source_tree)
status=0

# ASan+UBSan. The module is preloaded before the fixtures' own ASan runtime
# (their first DT_NEEDED), which ASan must be told is fine; the fatal
# signals stay the shim's (it writes open lines and dies of the signal, as
# tests/lifecycle.bats expects), and any UBSan report ends the program.
if [ "$what" = asan ] || [ "$what" = all ]; then
	export ASAN_OPTIONS="verify_asan_link_order=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0:detect_leaks=0:abort_on_error=0"
	export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
	if build asan address,undefined --enable-checked; then
		check asan || status=1
	else
		status=1
	fi
	unset ASAN_OPTIONS UBSAN_OPTIONS
fi

# TSan: the tests with threads. Handlers that printk are the point of the
# shim (report_signal_unsafe would flag each); a report fails the test.
# TSan, too, must leave the fatal signals alone: installing its handlers,
# its start-up calls sigaction, which is the shim's, before it is ready.
if [ "$what" = tsan ] || [ "$what" = all ]; then
	export TSAN_OPTIONS="halt_on_error=1:exitcode=66:report_signal_unsafe=0:second_deadlock_stack=1:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0"
	if build tsan thread; then
		check tsan TESTS="tests/threads.bats tests/faults.bats tests/stress/stress.bats tests/defer.bats" \
			BATS_LOG_FLAGS="--filter 'threads|pthread_atfork'" || status=1
	else
		status=1
	fi
	unset TSAN_OPTIONS
fi

echo "sanitize: $(count "$work")"
exit $status
