#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The file: output in a host that is not on its side: a FIFO that nobody
# reads.

load helper

setup() {
	T=$BATS_TEST_TMPDIR
}

W='printk-shim: warning: PRINTK_SHIM_OUTPUT'

# --- opening never blocks -----------------------------------------------------

@test "robust-files: a FIFO with no reader: the program runs, one warning, lines to stderr" {
	mkfifo "$T/fifo"
	capture timeout 20 env PRINTK_SHIM_OUTPUT="file:$T/fifo" LD_PRELOAD="$MODULE" "$FIX/daemon" p $'\0016x\n'
	[ "$status" -eq 0 ]
	err_is "$W: file:$T/fifo: a FIFO with no reader; skipping it
$W: no usable output left; using stderr
x
"
}

@test "robust-files: a FIFO with no reader does not hold a program that never prints" {
	mkfifo "$T/fifo"
	capture timeout 20 env PRINTK_SHIM_OUTPUT="file:$T/fifo,stderr" LD_PRELOAD="$MODULE" true
	[ "$status" -eq 0 ]
	err_is "$W: file:$T/fifo: a FIFO with no reader; skipping it
"
}

@test "robust-files: a FIFO with a reader gets the lines" {
	mkfifo "$T/fifo"
	exec 5<>"$T/fifo"	# a reader (and a writer), open without waiting
	capture timeout 20 env PRINTK_SHIM_OUTPUT="file:$T/fifo" LD_PRELOAD="$MODULE" "$FIX/daemon" \
		p $'\0016a\n' p $'\0016b\n'
	[ "$status" -eq 0 ]
	err_is ""
	timeout 5 head -c 4 <&5 >"$T/got"
	exec 5<&-
	file_is "$T/got" $'a\nb\n'
}
