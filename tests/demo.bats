#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The demo of make demo: under the shim every line is whole, at its level.

load helper

@test "demo: under the shim the legacy port's lines are whole and levelled" {
	capture "$WRAPPER" --format=prefix -- "$abs_top_builddir/examples/demo"
	[ "$status" -eq 0 ]
	want=$(for i in 0 1 2 3; do
		for n in 1 2; do
			echo "<6>Console: switching consoles $((i + 1))-$((i + 2)) to colour dummy$i 80x25"
			echo "<7>SELinux:  $((i + 8)) users, 14 roles, 4875 types, 312 bools, 1 sens, 1024 cats"
		done
		echo "<3>drv$i: link down"
		echo "<5>drv$i: retrying in $((100 * (i + 1))) ms"
	done; echo "<4>demo: shutting down, state: unclean")
	[ "$(sort "$ERR")" = "$(sort <<< "$want")" ]
	[ "$(tail -n 1 "$ERR")" = "<4>demo: shutting down, state: unclean" ]
}

@test "demo: without the shim the naive printk shows raw marker bytes" {
	capture "$abs_top_builddir/examples/demo"
	grep -q $'\001' "$ERR"
}
