#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# printk-shim(7) WHEN A LINE IS WRITTEN: when lines are written: at completion, at thread and
# process exit, before exec, on fatal signals; dropped in a forked child;
# split at LINE_MAX; a signal handler's lines are a context of their own.

load helper

@test "lifecycle: an open line is written at exit()" {
	capture pemit $'\0016left open' @exit
	[ "$status" -eq 0 ]
	err_is $'left open\n'
}

@test "lifecycle: an open line is written on return from main" {
	capture pemit $'\0016left open' @return
	err_is $'left open\n'
}

@test "lifecycle: a thread's open line is written when the thread exits" {
	capture pemit @thread $'\0016thread line' @sleep 1
	err_is $'thread line\n'
	capture pemit $'\0016main ' @thread $'\0013in thread'
	err_is $'in thread\nmain \n'
}

@test "lifecycle: every thread's open line is written at exit" {
	capture pemit @bg $'\0013other thread open' $'\0016main open' @exit
	[ "$status" -eq 0 ]
	[ "$(sort "$ERR")" = $'main open\nother thread open' ]
}

@test "lifecycle: open lines are written before execv replaces the process" {
	capture pemit $'\0016before exec' @exec /bin/echo stdout-of-echo
	[ "$status" -eq 0 ]
	err_is $'before exec\n'
	out_is $'stdout-of-echo\n'
}

@test "lifecycle: open lines are written before execl too" {
	capture pemit $'\0016before execl' @execl /bin/true
	[ "$status" -eq 0 ]
	err_is $'before execl\n'
}

@test "lifecycle: a forked child drops the open line it inherited" {
	capture pemit $'\0016parent-' @fork $'\001cafter\n'
	[ "$status" -eq 0 ]
	err_is $'after\nparent-after\n'
}

# _Fork runs no fork handler: the module's _Fork drops the line itself.
@test "lifecycle: a _Fork child drops the open line it inherited, written at once or deferred" {
	for defer in 0 1; do
		capture shim env PRINTK_SHIM_DEFER=$defer "$FIX/emit" $'\0016parent-' @_Fork $'\001cafter\n'
		[ "$status" -eq 0 ]
		err_is $'after\nparent-after\n'
	done
}

@test "lifecycle: SIGSEGV writes the open line, then kills as before" {
	capture pemit $'\0016before the crash' @segv
	[ "$status" -eq 139 ]
	err_is $'before the crash\n'
}

@test "lifecycle: abort writes the open line, then SIGABRT kills as before" {
	capture pemit $'\0013about to abort' @abort
	[ "$status" -eq 134 ]
	err_is $'about to abort\n'
}

@test "lifecycle: PRINTK_SHIM_CRASH_FLUSH=0 leaves SIGSEGV alone" {
	capture shim env PRINTK_SHIM_CRASH_FLUSH=0 "$FIX/emit" $'\0016lost' @segv
	[ "$status" -eq 139 ]
	err_is ''
}

@test "lifecycle: _exit writes the open line too" {
	capture pemit $'\0016whole\n' $'\0016open' @_exit
	[ "$status" -eq 0 ]
	err_is $'whole\nopen\n'
}

@test "lifecycle: a 5000-byte line is written in 1024-byte pieces, nothing lost" {
	capture pemit @long 5000
	want=$(for ((i = 0; i < 5000; i++)); do printf '%d' $((i % 10)); done)
	[ "$(wc -l < "$ERR")" -eq 5 ]
	[ "$(tr -d '\n' < "$ERR")" = "$want" ]
	[ "$(awk '{ print length($0) }' "$ERR" | tr '\n' ' ')" = "1024 1024 1024 1024 904 " ]
}

@test "lifecycle: PRINTK_SHIM_LINE_MAX=10 cuts at 10, exactly full is one line" {
	capture shim env PRINTK_SHIM_LINE_MAX=10 "$FIX/emit" $'0123456789\n' $'0123456789a\n' $'01234' '56789' $'\n'
	err_is $'0123456789\n0123456789\na\n0123456789\n'
}

@test "lifecycle: pieces of a long line keep its level" {
	capture shim env PRINTK_SHIM_LINE_MAX=4 PRINTK_SHIM_FORMAT=prefix "$FIX/emit" $'\0013abcdefghij\n'
	err_is $'<3>abcd\n<3>efgh\n<3>ij\n'
}

@test "lifecycle: a handler's printk between two fragments does not touch the open line" {
	capture shim env PRINTK_SHIM_FORMAT=prefix "$FIX/emit" $'\0016a' @signal $'\0013in handler\n' $'\001cb\n'
	err_is $'<3>in handler\n<6>ab\n'
}

@test "lifecycle: a handler's unterminated line ends when the handler returns" {
	capture shim env PRINTK_SHIM_FORMAT=prefix "$FIX/emit" $'\0016a' @signal $'\0013no newline' $'\001cb\n'
	err_is $'<3>no newline\n<6>ab\n'
}
