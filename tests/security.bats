#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Security: in a set-user-ID (AT_SECURE) process the variables that name a
# place to write are ignored, with a warning; the wrapper takes no module
# path with ':' or blanks and never looks in the current directory; message
# text is never read as a format; kmsg escapes control bytes as the kernel
# does and plain passes text through; a privileged process does not follow
# a file: symlink that another user owns. Runs as root (as CI does): it
# makes set-user-ID copies and runs them as nobody.

load helper
load fault-helper

setup() {
	T=$BATS_TEST_TMPDIR
	NOBODY_UID=$(id -u nobody)
	# A directory anyone may enter, with copies of the module and of
	# fault-sec (which dlopens it: the loader ignores LD_PRELOAD paths
	# under AT_SECURE), one of them set-user-ID root.
	SECDIR=$(mktemp -d /tmp/printk-shim-sec.XXXXXX)
	chmod 755 "$SECDIR"
	cp "$MODULE" "$SECDIR/libprintk-shim.so"
	cp "$FIX/fault-sec" "$SECDIR/fault-sec"
	cp "$FIX/fault-sec" "$SECDIR/fault-sec-suid"
	chown root:root "$SECDIR/fault-sec-suid"
	chmod 4755 "$SECDIR/fault-sec-suid"
	mkdir -m 777 "$SECDIR/pub"
}

teardown() {
	rm -rf "$SECDIR"
}

as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

@test "security: AT_SECURE: file: output is ignored with a warning, lines go to stderr" {
	capture env PRINTK_SHIM_OUTPUT="file:$SECDIR/pub/log,stderr" \
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$SECDIR/fault-sec-suid" "$SECDIR/libprintk-shim.so"
	[ "$status" -eq 0 ]
	out_is "secure=1
"
	err_is "printk-shim: warning: PRINTK_SHIM_OUTPUT: file:$SECDIR/pub/log: ignored in a setuid/setgid process; skipping it
secure line
"
	[ ! -e "$SECDIR/pub/log" ]
}

@test "security: AT_SECURE: file: as the only output: ignored, stderr used instead" {
	capture env PRINTK_SHIM_OUTPUT="file:/etc/printk-shim-must-not-exist" \
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$SECDIR/fault-sec-suid" "$SECDIR/libprintk-shim.so"
	[ "$status" -eq 0 ]
	err_is "printk-shim: warning: PRINTK_SHIM_OUTPUT: file:/etc/printk-shim-must-not-exist: ignored in a setuid/setgid process; skipping it
printk-shim: warning: PRINTK_SHIM_OUTPUT: no usable output left; using stderr
secure line
"
	[ ! -e /etc/printk-shim-must-not-exist ]
}

@test "security: AT_SECURE: the syslog socket variable is ignored with a warning" {
	capture env PRINTK_SHIM_SYSLOG_SOCKET="$SECDIR/pub/evil.sock" \
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$SECDIR/fault-sec-suid" "$SECDIR/libprintk-shim.so"
	[ "$status" -eq 0 ]
	out_is "secure=1
"
	err_is "printk-shim: warning: PRINTK_SHIM_SYSLOG_SOCKET=\"$SECDIR/pub/evil.sock\": ignored in a setuid/setgid process; using /dev/log
secure line
"
}

@test "security: the same program without set-user-ID, as nobody: not secure, file: taken" {
	capture env PRINTK_SHIM_OUTPUT="file:$SECDIR/pub/log" \
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$SECDIR/fault-sec" "$SECDIR/libprintk-shim.so"
	[ "$status" -eq 0 ]
	out_is "secure=0
"
	err_is ""
	file_is "$SECDIR/pub/log" "secure line
"
}

@test "security: the wrapper refuses a module path with ':'" {
	capture env PRINTK_SHIM_LIB="$SECDIR/a:b/libprintk-shim.so" "$WRAPPER" -- true
	[ "$status" -eq 125 ]
	err_is "printk-shim: module path '$SECDIR/a:b/libprintk-shim.so' must be absolute, without ':' or blanks; nothing is run
"
}

@test "security: the wrapper refuses a module path with a space, a tab or a newline" {
	local p e
	for p in "$SECDIR/a b.so" "$SECDIR/a"$'\t'"b.so" "$SECDIR/a"$'\n'"b.so"; do
		cp "$MODULE" "$p"
		capture env PRINTK_SHIM_LIB="$p" "$WRAPPER" --lib
		[ "$status" -eq 125 ]
		e=${p//$'\t'/\\t}
		e=${e//$'\n'/\\n}
		err_is "printk-shim: module path '$e' must be absolute, without ':' or blanks; nothing is run
"
	done
}

@test "security: the wrapper refuses a relative module path, even one that exists here" {
	cd "$SECDIR"
	cp "$MODULE" libprintk-shim.so
	capture env PRINTK_SHIM_LIB=libprintk-shim.so "$WRAPPER" -- true
	[ "$status" -eq 125 ]
	err_is "printk-shim: module path 'libprintk-shim.so' must be absolute, without ':' or blanks; nothing is run
"
}

@test "security: the wrapper never looks for the module in the current directory" {
	cd "$SECDIR"
	cp "$MODULE" libprintk-shim.so
	mkdir -p shim/.libs .libs
	cp "$MODULE" shim/.libs/libprintk-shim.so
	cp "$MODULE" .libs/libprintk-shim.so
	capture "$WRAPPER" --lib
	[ "$status" -eq 0 ]
	out_is "$MODULE
"
	capture env LD_PRELOAD= "$WRAPPER" --print-env
	grep -qxF "export LD_PRELOAD='$MODULE'" "$OUT"
}

@test "security: message text is never read as a format" {
	capture pemit @s '%n%s%x%p%pS%pV%%' @s $'\n' @s '100%'
	[ "$status" -eq 0 ]
	err_is "%n%s%x%p%pS%pV%%
100%
"
}

@test "security: message text is never read as a format, PRINTK_SHIM_DISABLE=1 either" {
	capture env PRINTK_SHIM_DISABLE=1 LD_PRELOAD="$MODULE" "$FIX/emit" @s '%n%s%x%p%pS%%'
	[ "$status" -eq 0 ]
	err_is "%n%s%x%p%pS%%"
}

@test "security: the shim's own messages quote values and text, never format them" {
	capture env PRINTK_SHIM_LEVEL='%n%s%x' PRINTK_SHIM_LINT=1 LD_PRELOAD="$MODULE" \
		"$FIX/emit" $'\0016a' @s '%n%s' @s $'\n'
	[ "$status" -eq 0 ]
	head -n 1 "$ERR" | cmp - <(echo 'printk-shim: warning: PRINTK_SHIM_LEVEL="%n%s%x": expected 0..7 or emerg|alert|crit|err|warn|notice|info|debug; using debug')
	grep -q 'printk-shim: lint: .*fragment "%n%s" continues a line without KERN_CONT' "$ERR"
	tail -n 1 "$ERR" | cmp - <(echo 'a%n%s')
}

@test "security: kmsg escapes control bytes, DEL, backslash and bytes above 0x7f as the kernel does" {
	capture env PRINTK_SHIM_FORMAT=kmsg LD_PRELOAD="$MODULE" \
		"$FIX/emit" @s $'\0016a\tb\033[31mc\177d\\e\xff\xc3\xa9 \001f\rg\n'
	[ "$status" -eq 0 ]
	sed 's/^6,0,[0-9]*,-;/6,0,USEC,-;/' "$ERR" >"$T/got"
	file_is "$T/got" '6,0,USEC,-;a\x09b\x1b[31mc\x7fd\x5ce\xff\xc3\xa9 \x01f\x0dg
'
}

@test "security: plain passes the text through byte for byte (markers only at the start)" {
	capture pemit @s $'\0016a\tb\033[31mc\177d\\e\xff\xc3\xa9 \001f\001cg\rh\n'
	[ "$status" -eq 0 ]
	err_is $'a\tb\033[31mc\177d\\e\xff\xc3\xa9 \001f\001cg\rh\n'
}

@test "security: privileged: a file: symlink owned by another user is not followed" {
	ln -s "$T/target" "$T/link"
	chown -h nobody "$T/link"
	capture env PRINTK_SHIM_OUTPUT="file:$T/link" LD_PRELOAD="$MODULE" "$FIX/emit" $'x\n'
	[ "$status" -eq 0 ]
	err_is "printk-shim: warning: PRINTK_SHIM_OUTPUT: file:$T/link: a symbolic link owned by uid $NOBODY_UID, not followed by a privileged process; skipping it
printk-shim: warning: PRINTK_SHIM_OUTPUT: no usable output left; using stderr
x
"
	[ ! -e "$T/target" ]
}

@test "security: privileged: an existing target behind another user's symlink is left untouched" {
	echo keep >"$T/target"
	ln -s "$T/target" "$T/link"
	chown -h nobody "$T/link"
	capture env PRINTK_SHIM_OUTPUT="file:$T/link,stderr" LD_PRELOAD="$MODULE" "$FIX/emit" $'x\n'
	[ "$status" -eq 0 ]
	file_is "$T/target" "keep
"
	err_is "printk-shim: warning: PRINTK_SHIM_OUTPUT: file:$T/link: a symbolic link owned by uid $NOBODY_UID, not followed by a privileged process; skipping it
x
"
}

@test "security: privileged: a symlink the user owns is followed" {
	ln -s "$T/target" "$T/link"
	capture env PRINTK_SHIM_OUTPUT="file:$T/link" LD_PRELOAD="$MODULE" "$FIX/emit" $'x\n'
	[ "$status" -eq 0 ]
	err_is ""
	file_is "$T/target" "x
"
}

@test "security: unprivileged: another user's symlink is followed, as open(2) does" {
	touch "$SECDIR/pub/target"
	chown nobody "$SECDIR/pub/target"
	ln -s "$SECDIR/pub/target" "$SECDIR/pub/link"
	capture env PRINTK_SHIM_OUTPUT="file:$SECDIR/pub/link" \
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$SECDIR/fault-sec" "$SECDIR/libprintk-shim.so"
	[ "$status" -eq 0 ]
	err_is ""
	file_is "$SECDIR/pub/target" "secure line
"
}
