#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The stress run of tests/stress/stress.c, small enough for make check
# (make stress runs 8 threads x 100000 lines): threads printing random
# fragments, a timer signal on every thread whose handler prints, SIGUSR1
# from the main thread, forked children printing. Every line whole, once,
# in order per writer, at its level; the counts exact; no deadlock (the
# program's watchdog ends it with status 3, the timeout with 124).

load ../helper
load ../fault-helper

@test "stress: 4 threads x 5000 lines, timer signals, SIGUSR1, 5 children: every line whole and counted" {
	local T=$BATS_TEST_TMPDIR status=0
	timeout -k 5 300 env PRINTK_SHIM_FORMAT=prefix LD_PRELOAD="$MODULE" \
		"$abs_top_builddir/tests/stress/stress" -t 4 -n 5000 -c 5 -u 200 -w 30 \
		>"$T/summary" 2>>"$T/log" || status=$?
	if [ "$status" -ne 0 ]; then
		echo "status $status (124: timeout, 3: watchdog)"; cat "$T/summary"
		grep -v '^<' "$T/log" | head -20
		false
	fi
	run "$abs_top_builddir/tests/stress/stress" check "$T/log" "$T/summary"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == "stress: ok: "*" lines checked, 0 errors" ]]
	[ "$(grep -c '^child .* status 0$' "$T/summary")" -eq 5 ]
}

@test "stress: the check finds a torn, a lost and a repeated line" {
	local T=$BATS_TEST_TMPDIR status=0
	env PRINTK_SHIM_FORMAT=prefix LD_PRELOAD="$MODULE" \
		"$abs_top_builddir/tests/stress/stress" -t 2 -n 200 -c 1 -u 1000 \
		>"$T/summary" 2>>"$T/log" || status=$?
	[ "$status" -eq 0 ]
	# Tear line 10 in two, drop line 20, repeat line 30.
	awk 'NR == 10 { print substr($0, 1, 8); print substr($0, 9); next }
	     NR == 20 { next } NR == 30 { print } { print }' "$T/log" >"$T/bad"
	run "$abs_top_builddir/tests/stress/stress" check "$T/bad" "$T/summary"
	[ "$status" -eq 1 ]
	[[ $output == *"stress: FAIL: "* ]]
}

@test "stress: a timeout handler leaves printk by siglongjmp 1000s of times: lines at most twice, no memory kept" {
	run sh "$abs_top_srcdir/tests/stress/jumps.sh" 1000 20000 15 "$BATS_TEST_TMPDIR/log"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == "jumps: "*" pieces, at most "[12]" copies, 0 torn, VmSize grew "*" kB" ]]
	run sh "$abs_top_srcdir/tests/stress/jumps.sh" 60000 1000 20 "$BATS_TEST_TMPDIR/log"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == "jumps: "*" pieces, at most "[12]" copies, 0 torn, VmSize grew "*" kB" ]]
}
