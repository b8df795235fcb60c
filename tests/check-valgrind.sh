#!/bin/bash
# SPDX-License-Identifier: MIT
#
# make check-valgrind: memcheck and helgrind on the thread, fork and signal
# fixtures, with the module preloaded (for helgrind, the copy built with
# -DPKS_HELGRIND). Each run must report no error (--error-exitcode) and
# still print every line it prints without valgrind.
#
#   abs_top_builddir=... [VALGRIND=valgrind] bash tests/check-valgrind.sh
set -eu

b=${abs_top_builddir:?}
s=${abs_top_srcdir:-$b}
vg=${VALGRIND:-valgrind}
module=$b/shim/.libs/libprintk-shim.so
fix=$b/tests/fixtures
work=$(mktemp -d "${TMPDIR:-/tmp}/printk-shim-valgrind.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
passed=0
failed=0

if ! command -v "$vg" >/dev/null; then
	echo "check-valgrind: $vg not found" >&2
	exit 1
fi
if readelf -d "$module" | grep -q 'NEEDED.*lib[at]san'; then
	echo "check-valgrind: the module is built with a sanitizer; valgrind needs a plain build" >&2
	exit 1
fi

# run TOOL NAME EXPECTED-STDERR-LINES CMD...: no valgrind error, the lines
# the program prints all there (checked by count: threads interleave).
run() {
	tool=$1 name=$2 want=$3
	shift 3
	st=0
	m=$module
	[ "$tool" != helgrind ] || m=$b/tests/valgrind/.libs/libprintk-shim.so
	LD_PRELOAD=$m "$vg" --tool="$tool" --error-exitcode=99 --child-silent-after-fork=no \
		--log-file="$work/vg.%p" --suppressions="$s/tests/valgrind.supp" \
		"$@" >"$work/out" 2>"$work/err" || st=$?
	lines=$(grep -c '' "$work/err" || true)
	# "storm": as many lines as the fixture says it printed
	[ "$want" != storm ] || want=$(awk -F'[= ]' '{ print $2 + $4 + $6 }' "$work/out")
	errors=$(cat "$work"/vg.* | awk '/ERROR SUMMARY:/ { n += $4 } END { print n + 0 }')
	if [ $st -ne 0 ] && [ $st -ne "${OK_STATUS:-0}" ] || [ "$errors" -ne 0 ] || [ "$lines" -ne "$want" ]; then
		echo "not ok $tool: $name: status $st, $errors errors, $lines of $want lines"
		grep -h -A20 'ERROR SUMMARY: [1-9]\|^==[0-9]*== [A-Z].*\(race\|Invalid\|uninitialised\|Conditional\)' \
			"$work"/vg.* | head -60
		failed=$((failed + 1))
	else
		echo "ok $tool: $name ($lines lines, 0 errors)"
		passed=$((passed + 1))
	fi
	rm -f "$work"/vg.*
}

for tool in memcheck helgrind; do
	run $tool "threads: 4 threads x 300 lines from 3 fragments" 1200 "$fix/threads" 4 300
	OK_STATUS=42 run $tool "threads: 400 threads created and ended, 20 at a time" 800 \
		"$fix/fault-host" threads 400 20
	OK_STATUS=42 run $tool "fork: printk from pthread_atfork handlers, child drops its inherited line" 3 \
		"$fix/fault-host" atfork
	run $tool "fork: a child that prints, then the parent" 4 \
		"$fix/emit" $'\0016parent ' @fork $'\001cchild\n' $'\0016both\n'
	run $tool "signals: a handler between fragments, nested handlers" 3 "$fix/fault-sig" nested
	run $tool "signals: a handler left by siglongjmp" 4 "$fix/fault-sig" longjmp
	run $tool "signals: timer storm on sigaction and signal handlers" storm \
		"$fix/fault-sig" storm 2000 1000
done
echo "check-valgrind: $passed passed, $failed failed"
[ $failed -eq 0 ]
