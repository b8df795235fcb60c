#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Lines are per thread: 8 threads print 5000 three-fragment lines each, with
# a yield between fragments; every line arrives whole, once, in order.

load helper

# check N M FILE: N*M lines "tT lL <filler> end", per thread in order.
check() {
	awk -v n="$1" -v m="$2" '
		function filler(i) { return substr("abcdefghijklmnopqrstuvwxyz", 1, (i % 7) * 3) }
		{
			if (!match($0, /^t[0-9]+ l[0-9]+ /)) { print "torn: " $0; bad++; next }
			split($0, f, " ")
			t = substr(f[1], 2) + 0; l = substr(f[2], 2) + 0
			want = "t" t " l" l " " filler(l) " end"
			if ($0 != want) { print "torn: " $0; bad++; next }
			if (l != next_l[t] + 0) { print "order: " $0; bad++ }
			next_l[t] = l + 1; count++
		}
		END {
			for (t = 0; t < n; t++) if (next_l[t] != m) { print "thread " t ": " next_l[t] " lines"; bad++ }
			if (count != n * m) { print "count " count; bad++ }
			exit bad > 0
		}' "$3"
}

@test "threads: 8 threads x 5000 multi-fragment lines arrive whole and in per-thread order" {
	capture shim "$FIX/threads" 8 5000
	[ "$status" -eq 0 ]
	check 8 5000 "$ERR"
}

@test "threads: without the shim the same program tears lines (the baseline)" {
	capture "$FIX/threads" 8 2000
	run ! check 8 2000 "$ERR" >/dev/null
}

@test "threads: whole lines also to a file output shared by all threads" {
	capture shim env PRINTK_SHIM_OUTPUT="file:$BATS_TEST_TMPDIR/log" "$FIX/threads" 4 5000
	err_is ''
	check 4 5000 "$BATS_TEST_TMPDIR/log"
}
