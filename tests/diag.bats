#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# printk-shim(7) ENVIRONMENT and DIAGNOSTICS: PRINTK_SHIM_DEBUG, PRINTK_SHIM_LINT, and the case the
# dynamic linker cannot help with: printk defined inside the executable.

load helper

@test "diag: DEBUG prints the configuration and that printk reaches the shim" {
	capture shim env PRINTK_SHIM_DEBUG=1 PRINTK_SHIM_LEVEL=info "$FIX/emit" $'\0016x\n'
	[ "$status" -eq 0 ]
	grep -qE '^printk-shim: debug: printk-shim [0-9.]+ in pid [0-9]+; configuration:$' "$ERR"
	grep -qx 'printk-shim: debug: PRINTK_SHIM_DISABLE=0 CONT=legacy LEGACY_MARKERS=1 LEVEL=info DEFAULT_LEVEL=warn LINE_MAX=1024' "$ERR"
	grep -qx 'printk-shim: debug: output 1: stderr (fd 2)' "$ERR"
	grep -qx 'printk-shim: debug: printk: resolves to the shim: calls through the PLT reach it' "$ERR"
	grep -qx 'printk-shim: debug: vprintk: resolves to the shim: calls through the PLT reach it' "$ERR"
	[ "$(tail -n 1 "$ERR")" = x ]
	[ "$(grep -vc '^printk-shim: debug: ' "$ERR")" -eq 1 ]
}

@test "diag: DEBUG says when the executable defines printk itself" {
	capture shim env PRINTK_SHIM_DEBUG=1 PRINTK_SHIM_PATCH=never "$FIX/selfdef"
	grep -qx "printk-shim: debug: printk: defined inside the executable $(readlink -f "$FIX/selfdef"): its own calls bind there and cannot be interposed" "$ERR"
}

@test "diag: an executable-defined printk that no call reached gets a warning at exit" {
	capture shim env PRINTK_SHIM_PATCH=never "$FIX/selfdef"
	[ "$status" -eq 0 ]
	err_is $'\0016self-defined \001cprintk\n'"printk-shim: warning: printk is defined inside the executable $(readlink -f "$FIX/selfdef"); its calls cannot be interposed and none reached the shim (see PRINTK_SHIM_DEBUG=1)"$'\n'
}

@test "diag: a program without printk of its own gets no warning" {
	capture shim /bin/true
	err_is ''
}

@test "diag: LINT reports a legacy continuation without KERN_CONT once per call site" {
	capture shim env PRINTK_SHIM_LINT=1 "$FIX/emit" $'\0016a' 'b' $'\n' $'\0016c' 'd' $'\001c\n'
	[ "$(grep -c '^printk-shim: lint: ' "$ERR")" -eq 1 ]
	grep -qE '^printk-shim: lint: .*: fragment "b" continues a line without KERN_CONT; a 4.9\+ kernel starts a new line here$' "$ERR"
	[ "$(grep -v '^printk-shim' "$ERR")" = $'ab\ncd' ]
}

@test "diag: by default the executable's own printk is patched and its lines are whole" {
	capture shim env PRINTK_SHIM_FORMAT=prefix "$FIX/selfdef"
	err_is $'<6>self-defined printk\n'
}

@test "diag: a control byte in a value is escaped; the warning stays one line" {
	capture shim env PRINTK_SHIM_LEVEL=$'x\n<0>forged\t\001' "$FIX/emit" $'\0016ok\n'
	[ "$status" -eq 0 ]
	err_is 'printk-shim: warning: PRINTK_SHIM_LEVEL="x\n<0>forged\t\x01": expected 0..7 or emerg|alert|crit|err|warn|notice|info|debug; using debug'$'\nok\n'
}

@test "diag: LINT quotes a fragment with its newline escaped" {
	capture shim env PRINTK_SHIM_LINT=1 "$FIX/emit" $'\0016a' $'b\x7f\n'
	[ "$status" -eq 0 ]
	[ "$(grep -c '' "$ERR")" -eq 2 ]
	grep -qE '^printk-shim: lint: .*: fragment "b\\x7f\\n" continues a line without KERN_CONT; a 4\.9\+ kernel starts a new line here$' "$ERR"
	[ "$(grep -v '^printk-shim' "$ERR")" = $'ab\x7f' ]
}
