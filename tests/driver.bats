#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The ported driver example (examples/driver/acme-temp), a real ELF whose
# printk comes from the naive libkcompat.so, run bare and under the shim.
# examples/driver/expected.txt holds its output in the prefix format
# ("<level>text"); the plain default is the same lines without "<N>".

bats_require_minimum_version 1.7.0

setup() {
	unset ${!PRINTK_SHIM_@}
	: "${abs_top_builddir:?}" "${abs_top_srcdir:?}"
	MODULE=$abs_top_builddir/shim/.libs/libprintk-shim.so
	DRIVER=$abs_top_builddir/examples/driver/acme-temp
	EXPECTED=$abs_top_srcdir/examples/driver/expected.txt
}

run_shimmed() {
	run --separate-stderr env LD_PRELOAD="$MODULE" "$@" "$DRIVER"
}

# same_lines WANT: $stderr against WANT line by line; a failure shows the diff.
same_lines() {
	if [ "$stderr" != "$1" ]; then
		diff -u <(printf '%s\n' "$1") <(printf '%s\n' "$stderr") || true
		return 1
	fi
}

@test "driver: calls the symbol printk, from a shared library the shim can interpose" {
	run nm -D "$DRIVER"
	[ "$status" -eq 0 ]
	grep -qx ' *U printk' <<<"$output"
	[[ "$output" != *" U _printk"* ]]
	run readelf -d "$DRIVER"
	[[ "$output" == *"libkcompat.so"* ]]
}

@test "driver: under the shim, every line whole, markers gone, on stderr (plain)" {
	run_shimmed
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[[ "$stderr" != *$'\001'* ]]
	same_lines "$(sed 's/^<[0-7]>//' "$EXPECTED")"
}

@test "driver: under the shim with format prefix, each line carries the driver's level" {
	run_shimmed PRINTK_SHIM_FORMAT=prefix
	[ "$status" -eq 0 ]
	same_lines "$(cat "$EXPECTED")"
}

@test "driver: the rate-limited loop prints 10 of 25 errors, then the alarm limit reports its misses" {
	run_shimmed
	[ "$(grep -c 'unit 1: read [0-9]* failed: -110' <<<"$stderr")" -eq 10 ]
	[[ "$stderr" == *$'\nacme_alarm: 5 callbacks suppressed\nacme_temp: unit 2: over temperature: 79.000 C\n'* ]]
}

@test "driver: without the shim the naive printk shows markers and loose fragments" {
	run --separate-stderr "$DRIVER"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *$'\001'"6acme_temp: unit 0: capabilities:"$'\001'"c temp"$'\001'"c alarm"* ]]
}

@test "driver: its pre-4.9 continuation (no KERN_CONT) falls apart in strict mode" {
	run_shimmed PRINTK_SHIM_CONT=strict
	[ "$status" -eq 0 ]
	[[ "$stderr" == *$'acme_temp: unit 0: alarm thresholds\n 60.0C\n 70.0C\n 85.0C\n\n'* ]]
	# the pr_cont line is whole in both modes
	[[ "$stderr" == *$'\nacme_temp: unit 0: capabilities: temp alarm\n'* ]]
}
