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
	grep -qx "printk-shim: debug: printk: imported by $(readlink -f "$FIX/emit"): their calls reach the shim" "$ERR"
	grep -qx "printk-shim: debug: vprintk: imported by $(readlink -f "$FIX/emit"): their calls reach the shim" "$ERR"
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

# A copy of FIXTURE, stripped, in the test's directory.
stripped() {
	cp "$FIX/$1" "$BATS_TEST_TMPDIR/$1"
	strip "$BATS_TEST_TMPDIR/$1"
	echo "$BATS_TEST_TMPDIR/$1"
}

# The report's first lines, up to the settings of patching, with the pid as PID.
config_lines() {
	printf '%s\n' "printk-shim: debug: printk-shim $1 in pid PID; configuration:" \
		'printk-shim: debug: PRINTK_SHIM_DISABLE=0 CONT=legacy LEGACY_MARKERS=1 LEVEL=debug DEFAULT_LEVEL=warn LINE_MAX=1024' \
		'printk-shim: debug: PRINTK_SHIM_FORMAT=auto (resolved: plain) TIME=0 CALLER=0 COLOR=auto CRASH_FLUSH=1 LINT=0' \
		"printk-shim: debug: PRINTK_SHIM_SYSLOG_SOCKET=/dev/log SYSLOG_FACILITY=1 SYSLOG_IDENT=$2 SYSLOG_FORMAT=rfc3164" \
		'printk-shim: debug: output 1: stderr (fd 2)' \
		'printk-shim: debug: PRINTK_SHIM_PATCH=auto SYMBOLS=none'
}

# $ERR with the pid, addresses and sizes made constant.
steady_err() {
	sed -E 's/ in pid [0-9]+;/ in pid PID;/; s/: at 0x[0-9a-f]+, [0-9]+ bytes/: at ADDR, N bytes/' "$ERR"
}

@test "diag: DEBUG on a stripped executable with its own printk says it cannot be seen, not that calls reach the shim" {
	local exe version
	exe=$(stripped selfdef)
	version=$("$WRAPPER" --version | cut -d' ' -f2)
	capture shim env PRINTK_SHIM_DEBUG=1 "$exe"
	[ "$status" -eq 0 ]
	assert_bytes "$(steady_err; echo .)" "$(config_lines "$version" selfdef
		echo "printk-shim: debug: $exe is stripped (no .symtab) and imports no printk function: a printk of its own, if it has one, cannot be seen, and its calls do not reach the shim"
		printf '\0016self-defined \001cprintk\n'
		echo .)"
}

@test "diag: DEBUG on a stripped program without printk or formats: nothing is said to be unseen" {
	local true_path
	true_path=$(readlink -f "$(type -P true)")
	capture shim env PRINTK_SHIM_DEBUG=1 "$true_path"
	[ "$status" -eq 0 ]
	run ! grep -q 'is stripped' "$ERR"
	[ "$(grep -c ': no loaded object imports or defines it$' "$ERR")" -eq 5 ]
}

@test "diag: a stripped executable with its own printk, run by the wrapper: one warning at exit" {
	local exe
	exe=$(stripped selfdef)
	capture "$WRAPPER" --format=prefix -- "$exe"
	[ "$status" -eq 0 ]
	err_is $'\0016self-defined \001cprintk\n'"printk-shim: warning: no printk call reached the shim: $exe is stripped and imports no printk function, so a printk of its own, if it has one, cannot be seen (see PRINTK_SHIM_DEBUG=1)"$'\n'
}

@test "diag: a program whose printk is reached but never called: no warning at exit" {
	capture "$WRAPPER" --format=prefix -- "$FIX/patch-nopie" none
	[ "$status" -eq 0 ]
	err_is ''
}

@test "diag: a script the wrapper runs, its port printing: no warning from the shell at exit" {
	# bash is the program the wrapper ran (dash would leave by _exit, no
	# destructor); stripped, without printk, and no format among its strings
	printf '#!/bin/bash\n"$1" "$2"\nexit 0\n' >"$BATS_TEST_TMPDIR/run.sh"
	chmod +x "$BATS_TEST_TMPDIR/run.sh"
	capture "$WRAPPER" --format=prefix -- "$BATS_TEST_TMPDIR/run.sh" "$FIX/emit" $'\0016port line\n'
	[ "$status" -eq 0 ]
	err_is $'<6>port line\n'
	capture "$WRAPPER" --format=prefix -- bash -c '"$0" none; exit 0' "$FIX/patch-nopie"
	[ "$status" -eq 0 ]
	err_is ''
	capture shim env PRINTK_SHIM_FORMAT=prefix "$FIX/patch-nopie" none
	err_is ''
}

@test "diag: DEBUG on a stripped executable that imports printk from a library: its calls reach the shim" {
	local exe version kc n
	exe=$(stripped emit)
	kc=$(readlink -f "$abs_top_builddir/examples/.libs/libkcompat.so")
	version=$("$WRAPPER" --version | cut -d' ' -f2)
	capture shim env PRINTK_SHIM_DEBUG=1 "$exe" $'\0016x\n'
	[ "$status" -eq 0 ]
	assert_bytes "$(steady_err; echo .)" "$(config_lines "$version" emit
		for n in printk _printk printk_deferred _printk_deferred vprintk; do
			echo "printk-shim: debug: $n: defined in $kc, exported: the dynamic linker can interpose it"
			echo "printk-shim: debug: $n: at ADDR, N bytes (.symtab): interposed: the dynamic linker routes its calls to the shim; not patched"
			echo "printk-shim: debug: $n: imported by $exe: their calls reach the shim"
		done
		echo x
		echo .)"
}
