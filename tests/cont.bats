#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# printk-shim(7) CONTINUATION: every worked case, in both continuation modes.

load helper

# run_case MODE WANT ARG...: emit ARG... with the prefix format in MODE
run_case() {
	local mode=$1 want=$2
	shift 2
	capture env PRINTK_SHIM_CONT="$mode" PRINTK_SHIM_FORMAT=prefix LD_PRELOAD="$MODULE" "$FIX/emit" "$@"
	[ "$status" -eq 0 ]
	err_is "$want"
}

@test "cont: printk(foo); printk(bar\\n) joins in legacy" {
	run_case legacy $'<4>foobar\n' foo $'bar\n'
}

@test "cont: printk(foo); printk(bar\\n) is two lines in strict" {
	run_case strict $'<4>foo\n<4>bar\n' foo $'bar\n'
}

@test "cont: printk(foo); pr_cont(bar\\n) joins in both modes" {
	run_case legacy $'<4>foobar\n' foo $'\001cbar\n'
	run_case strict $'<4>foobar\n' foo $'\001cbar\n'
}

@test "cont: pr_info(foo); pr_err(bar\\n) is two lines at their levels in both modes" {
	run_case legacy $'<6>foo\n<3>bar\n' $'\0016foo' $'\0013bar\n'
	run_case strict $'<6>foo\n<3>bar\n' $'\0016foo' $'\0013bar\n'
}

@test "cont: pr_cont after a closed line is an orphan at the default level" {
	run_case legacy $'<6>a\n<4>b\n' $'\0016a\n' $'\001cb\n'
	run_case strict $'<6>a\n<4>b\n' $'\0016a\n' $'\001cb\n'
}

@test "cont: printk(\\n) after a closed line is an empty line in both modes" {
	run_case legacy $'<6>a\n<4>\n' $'\0016a\n' $'\n'
	run_case strict $'<6>a\n<4>\n' $'\0016a\n' $'\n'
}

@test "cont: pr_cont(\\n) on a closed line writes nothing in legacy" {
	run_case legacy $'<6>a\n' $'\0016a\n' $'\001c\n'
}

@test "cont: pr_cont(\\n) on a closed line is an empty line in strict" {
	run_case strict $'<6>a\n<4>\n' $'\0016a\n' $'\001c\n'
}

@test "cont: pr_info(a); pr_info( b\\n) is two lines in both modes" {
	run_case legacy $'<6>a\n<6> b\n' $'\0016a' $'\0016 b\n'
	run_case strict $'<6>a\n<6> b\n' $'\0016a' $'\0016 b\n'
}

@test "cont: the SELinux policydb line joins in legacy" {
	run_case legacy $'<7>x 1, y\n' @d $'\0017x %d' 1 ', y' $'\n'
}

@test "cont: the SELinux policydb line is three lines in strict" {
	run_case strict $'<7>x 1\n<4>, y\n<4>\n' @d $'\0017x %d' 1 ', y' $'\n'
}

@test "cont: KERN_CONT with a digit continues an open line and its digit is ignored" {
	run_case legacy $'<6>ab\n' $'\0016a' $'\001c\0013b\n'
	run_case strict $'<6>ab\n' $'\0016a' $'\0013\001cb\n'
}

@test "cont: an orphan KERN_CONT with a digit takes its digit's level" {
	run_case legacy $'<2>x\n' $'\001c\0012x\n'
	run_case strict $'<2>x\n' $'\001c\0012x\n'
}

@test "cont: a continued line keeps the level of its first fragment" {
	run_case legacy $'<1>abc\n' $'\0011a' 'b' $'\001cc\n'
}

@test "cont: embedded newlines give one line each at the call's level; the rest stays open" {
	run_case legacy $'<3>a\n<3>b\n<3>cd\n' $'\0013a\nb\nc' $'d\n'
	run_case strict $'<3>a\n<3>b\n<3>cd\n' $'\0013a\nb\nc' $'\001cd\n'
}

@test "cont: embedded newlines in a continuation stay at the continued line's level" {
	run_case legacy $'<6>ab\n<6>c\n' $'\0016a' $'\001cb\nc\n'
}

@test "cont: KERN_DEFAULT (SOH d) starts a new line at the default level in legacy" {
	run_case legacy $'<6>a\n<4>b\n' $'\0016a' $'\001db\n'
}

@test "cont: an open line at exit is written with a newline" {
	run_case legacy $'<6>open\n' $'\0016open'
}
