#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The kernel's own tests of its printing API, built against printk-shim's
# headers and libprintk-port with this folder's harness (printk-shim(7)
# THE KERNEL'S TESTS):
#
#   sh tests/kernel/run.sh [linux-source-6.1.tar.xz]
#
# from a built tree (the CI job .ci/run.d/60-kernel-tests.sh installs
# Debian's linux-source-6.1 first). It extracts lib/test_hexdump.c,
# lib/test_dynamic_debug.c, lib/test_printf.c and lib/test_bitmap.c (its
# printing tests, with lib/bitmap.c's printing functions), builds each with include/ (ours), tests/kernel/include/ (the few kernel
# headers a test includes beyond ours, as stubs) and harness.c, and runs
# it: without the module (the library's printk) and under it. A check
# listed in tests/kernel/expected-failures is reported as skipped, with
# its reason; any other failure fails the run. Ends with one line
# "kernel-tests: N passed, N failed, N skipped".
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${abs_top_builddir:-$top}
tarball=${1:-/usr/src/linux-source-6.1.tar.xz}
here=$top/tests/kernel
lib=$build/lib/.libs
module=$build/shim/.libs/libprintk-shim.so
CC=${CC:-cc}	# with SAN_CFLAGS and SAN_LDFLAGS in a sanitizer build, as make check exports them
passed=0 failed=0 skipped=0

[ -r "$tarball" ] || { echo "kernel-tests: no $tarball (apt-get install linux-source-6.1)" >&2; exit 2; }
if [ ! -r "$lib/libprintk-port.so" ] || [ ! -r "$module" ]; then
	echo "kernel-tests: build the tree first (no $lib/libprintk-port.so or $module)" >&2
	exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/pks-kernel-tests.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=linux-source-6.1
tar -xJf "$tarball" -C "$work" "$src/lib/test_hexdump.c" "$src/lib/test_dynamic_debug.c" \
	"$src/lib/test_printf.c" "$src/lib/test_bitmap.c" "$src/lib/bitmap.c" \
	"$src/tools/testing/selftests/kselftest_module.h"
ksrc=$work/$src

ok() { passed=$((passed + 1)); printf 'ok %d - %s\n' "$((passed + failed))" "$1"; }
not_ok() { failed=$((failed + 1)); printf 'not ok %d - %s\n' "$((passed + failed))" "$1"; }
skip() { skipped=$((skipped + 1)); printf 'skip - %s\n' "$1"; }

# build NAME [FILE]: lib/NAME.c (or FILE, from the source tree) into $work/NAME.
build() {
	f=${2:-$ksrc/lib/$1.c}
	# shellcheck disable=SC2086 # the flags are words
	if (cd "$ksrc" && $CC ${SAN_CFLAGS:-} ${SAN_LDFLAGS:-} -std=gnu11 -O1 -g \
		-include "$here/include/pks-kt.h" \
		-I"$here/include" -I"$top/include" -DKBUILD_MODNAME="\"$1\"" \
		"$f" "$here/harness.c" -o "$work/$1" -L"$lib" -lprintk-port -rdynamic \
		>"$work/$1.cc.log" 2>&1); then
		ok "$1 builds with printk-shim's headers and libprintk-port"
	else
		sed 's/^/#   /' "$work/$1.cc.log" | head -n 40
		not_ok "$1 builds with printk-shim's headers and libprintk-port"
		return 1
	fi
}

# run NAME [env...]: the test, its stderr in $work/NAME.err; status in $rc.
run() {
	name=$1
	shift
	rc=0
	env LD_LIBRARY_PATH="$lib" "$@" "$work/$name" 1 >"$work/$name.out" 2>"$work/$name.err" || rc=$?
}

# listed NAME: NAME's stderr against tests/kernel/expected-failures. Each
# failure line is counted under the first entry whose text it holds; an
# entry that matches nothing, and a line no entry matches, fail.
listed() {
	awk -F'\t' -v name="$1" -v pre="$1: " '
		NR == FNR { if ($0 !~ /^#/ && $1 == name) { text[++n] = $2; why[n] = $3 }; next }
		index($0, pre) != 1 { next }
		{ line = substr($0, length(pre) + 1) }
		line ~ /^(loaded|unloaded)\.$/ || line ~ /^(all|remaining) [0-9]+ tests passed$/ ||
		line ~ /^(failed [0-9]+ out of|skipped) [0-9]+ tests$/ { next }
		{ for (i = 1; i <= n; i++) if (index(line, text[i])) { hits[i]++; next }
		  print "unlisted\t" line }
		END { for (i = 1; i <= n; i++)
			if (hits[i]) print "skip\t" hits[i] " line(s) of " text[i] ": " why[i]
			else print "stale\t" text[i] }
	' "$here/expected-failures" "$work/$1.err" >"$work/$1.listed"
	bad=0
	while IFS='	' read -r what rest; do
		case $what in
		skip) skip "$1: $rest" ;;
		stale) not_ok "$1: a listed failure no longer fails: $rest"; bad=1 ;;
		unlisted) echo "#   $rest"; bad=1 ;;
		esac
	done <"$work/$1.listed"
	return $bad
}

# --- lib/test_hexdump.c: hex_dump_to_buffer() against the kernel's own cases ---
if build test_hexdump; then
	for how in plain module; do
		if [ $how = plain ]; then run test_hexdump; else run test_hexdump LD_PRELOAD="$module"; fi
		if [ "$rc" -eq 0 ] && grep -qx 'test_hexdump: all [0-9]* tests passed' "$work/test_hexdump.err"; then
			ok "test_hexdump ($how): $(tail -n 1 "$work/test_hexdump.err")"
		else
			tail -n 5 "$work/test_hexdump.err" | sed 's/^/#   /'
			not_ok "test_hexdump ($how) passes every check"
		fi
	done
fi

# --- lib/test_dynamic_debug.c: which sites each query enables, class maps included ---
# dd QUERIES EXPECTED: the lines the test module prints under the module.
dd() {
	run test_dynamic_debug LD_PRELOAD="$module" PRINTK_SHIM_DYNDBG="$1"
	printf '%s' "$2" >"$work/dd.want"
	if [ "$rc" -eq 0 ] && cmp -s "$work/dd.want" "$work/test_dynamic_debug.err"; then
		ok "test_dynamic_debug: '$1'"
	else
		diff "$work/dd.want" "$work/test_dynamic_debug.err" | sed 's/^/#   /'
		not_ok "test_dynamic_debug: '$1'"
	fi
}
if build test_dynamic_debug; then
	dd '' ''
	dd '+p' 'test_dd: init start
test_dd: doing categories
test_dd: doing levels
test_dd: init done
test_dd: exited
'
	dd 'class D2_CORE +p; class D2_KMS +p' 'test_dd: D2_CORE msg
test_dd: D2_KMS msg
'
	dd 'class V1 +p; class V7 +pf; class L3 +p; module test_dynamic_debug func do_cats +p' \
		'test_dd: doing categories
test_dd: V1 msg
do_levels: test_dd: V7 msg
test_dd: L3 msg
'
	# The 6.1 file's LOW is 11 in a map from 10: the kernel names its site MID.
	dd 'class MID +p' 'test_dd: LOW msg
'
	dd 'class V0 +p; class NOPE +p' ''
fi

# --- lib/test_printf.c: vsnprintf() and kvasprintf() against the kernel's cases ---
# Its kvasprintf check compares as many bytes as it expected: where a listed
# failure prints fewer, AddressSanitizer stops it at the end of our string.
case ${SAN_CFLAGS:-} in
*address*)
	skip "test_printf: not under AddressSanitizer: its kvasprintf check reads past the shorter string of a listed failure"
	;;
*)
	test_printf=yes
	;;
esac
if [ -n "${test_printf:-}" ] && build test_printf; then
	run test_printf
	summary=$(grep -E '^test_printf: (all|failed) ' "$work/test_printf.err" || echo "no summary")
	if listed test_printf; then
		ok "test_printf: every failing check is listed ($summary)"
	else
		not_ok "test_printf: every failing check is listed ($summary)"
	fi
	run test_printf LD_PRELOAD="$module"
	if grep -qxF "$summary" "$work/test_printf.err"; then
		ok "test_printf under the module: the same results"
	else
		tail -n 3 "$work/test_printf.err" | sed 's/^/#   /'
		not_ok "test_printf under the module: the same results"
	fi
fi

# --- lib/test_bitmap.c's printing tests: %*pb and %*pbl through scnprintf and
# kasprintf, with lib/bitmap.c's bitmap_print_to_pagebuf() and its kin. The
# rest of the file tests the bitmap library itself, which is not printing. ---
# fn NAME FILE: the definition of function NAME, to its closing brace.
fn() {
	awk -v name="$1" '
		!on && $0 ~ "^[a-z].*[ *]" name "\\(" { on = 1 }
		on { print }
		on && /^}/ { exit }' "$2"
}
tb=$ksrc/lib/test_bitmap.c
{
	sed '/^static void __init test_zero_clear(void)$/,$d' "$tb"
	fn test_bitmap_printlist "$tb"
	sed -n '/^struct test_bitmap_print {$/,/^static void __init test_bitmap_print_buf/p' "$tb" | sed '$d'
	fn test_bitmap_print_buf "$tb"
	for f in bitmap_print_to_pagebuf bitmap_print_to_buf bitmap_print_bitmask_to_buf \
		bitmap_print_list_to_buf; do
		fn "$f" "$ksrc/lib/bitmap.c"
	done
	printf '%s\n' 'static void __init selftest(void)' '{' \
		'	test_bitmap_printlist();' '	test_bitmap_print_buf();' '}' \
		'KSTM_MODULE_LOADERS(test_bitmap);'
} >"$ksrc/lib/test_bitmap_print.c"
if build test_bitmap "$ksrc/lib/test_bitmap_print.c"; then
	run test_bitmap
	if [ "$rc" -eq 0 ] && grep -qx 'test_bitmap: all [0-9]* tests passed' "$work/test_bitmap.err" &&
		listed test_bitmap; then
		ok "test_bitmap's printing tests: $(grep 'tests passed' "$work/test_bitmap.err")"
	else
		tail -n 5 "$work/test_bitmap.err" | sed 's/^/#   /'
		not_ok "test_bitmap's printing tests pass every check"
	fi
fi

echo "kernel-tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
