#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The kernel's own tests of its printing API (tests/kernel/run.sh), when
# Debian's linux-source-6.1 is installed; CI installs it
# (.ci/run.d/60-kernel-tests.sh).

load helper

TARBALL=/usr/src/linux-source-6.1.tar.xz

@test "kernel: test_hexdump, test_dynamic_debug, test_printf and test_bitmap's printing pass but for the listed checks" {
	[ -r "$TARBALL" ] || skip "no $TARBALL (apt-get install linux-source-6.1)"
	run sh "$abs_top_srcdir/tests/kernel/run.sh" "$TARBALL"
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == "kernel-tests: "*" passed, 0 failed, "*" skipped" ]]
	# test_printf is left out under AddressSanitizer (run.sh says why)
	[[ "$SAN_CFLAGS" == *address* ]] || [[ "${lines[-1]}" == "kernel-tests: 15 passed, "* ]]
}
