#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# printk-shim(7) SYMBOLS: the module exports the printk entry points and the hooks
# its version script names with a reason; nothing else.

load helper

@test "exports: nm -D lists exactly the entry points and the hooks" {
	run sh -c "nm -D --defined-only '$MODULE' | awk '{ print \$3 }' | sort"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '%s\n' _Exit _Fork _exit _printk _printk_deferred close close_range closefrom \
		daemon dlclose dup dup2 dup3 execl execle execlp execv execve \
		execveat execvp execvpe fclose fexecve freopen freopen64 pks_dynamic_apply pks_dynamic_classes pks_dynamic_control \
		pks_dynamic_printk pks_dynamic_register popen posix_spawn posix_spawnp printk printk_deferred \
		pthread_setcanceltype \
		__sysv_signal bsd_signal sigaction siginterrupt signal sigset ssignal sysv_signal \
		system vfork vprintk | sort)" ]
}

@test "exports: no exit, abort or assert anywhere in the module's sources" {
	# The wrapper, a program of its own, lives in cmd/.
	run ! grep -nE '\b(exit|_exit|abort|assert)[[:space:]]*\(' "$abs_top_srcdir"/shim/*.c
}

@test "exports: the module needs no executable stack and has RELRO" {
	run readelf -lW "$MODULE"
	grep -q 'GNU_RELRO' <<< "$output"
	grep -E 'GNU_STACK' <<< "$output" | grep -qv 'RWE'
}
