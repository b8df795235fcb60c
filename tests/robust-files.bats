#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The file: output in a host that is not on its side: a FIFO that nobody
# reads, and symbolic links placed by another user anywhere on the path of
# a privileged process. The link tests run as root (as CI
# does), with a user of their own, made for this file and removed after it.

load helper

setup_file() {
	[ "$(id -u)" = 0 ] || return 0
	PKS_USER=pks-test-$$
	for try in 1 2 3 4 5; do	# another useradd may hold /etc/passwd
		useradd --system --no-create-home --shell /usr/sbin/nologin "$PKS_USER" 2>/dev/null && break
		sleep 1
	done
	echo "$PKS_USER" >"$BATS_FILE_TMPDIR/user"
}

teardown_file() {
	[ -f "$BATS_FILE_TMPDIR/user" ] || return 0
	userdel "$(cat "$BATS_FILE_TMPDIR/user")"
}

setup() {
	T=$BATS_TEST_TMPDIR
	LOG=$T/log
	DATA=$T/data
}

# daemon STEP...: the fixture with the shim, file:$LOG the output.
daemon() {
	capture env PRINTK_SHIM_OUTPUT="file:$LOG" LD_PRELOAD="$MODULE" "$FIX/daemon" "$@"
}

needs_root_user() {
	[ "$(id -u)" = 0 ] || skip "needs root"
	PKS_USER=$(cat "$BATS_FILE_TMPDIR/user")
	PKS_UID=$(id -u "$PKS_USER") || skip "no test user"
}

W='printk-shim: warning: PRINTK_SHIM_OUTPUT'

# --- opening never blocks -----------------------------------------------------

@test "robust-files: a FIFO with no reader: the program runs, one warning, lines to stderr" {
	mkfifo "$T/fifo"
	LOG=$T/fifo
	capture timeout 20 env PRINTK_SHIM_OUTPUT="file:$LOG" LD_PRELOAD="$MODULE" "$FIX/daemon" p $'\0016x\n'
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

# --- symbolic links anywhere on the path of a privileged process --------------

@test "robust-files: privileged: another user's link to a directory mid-path is not followed" {
	needs_root_user
	mkdir -m 700 "$T/rootonly"
	mkdir "$T/attic"
	ln -s "$T/rootonly" "$T/attic/dirlink"
	chown -h "$PKS_USER" "$T/attic" "$T/attic/dirlink"
	LOG=$T/attic/dirlink/target
	daemon p $'\0016x\n'
	[ "$status" -eq 0 ]
	err_is "$W: file:$LOG: $T/attic/dirlink: a symbolic link owned by uid $PKS_UID, not followed by a privileged process; skipping it
$W: no usable output left; using stderr
x
"
	[ ! -e "$T/rootonly/target" ]
}

@test "robust-files: privileged: links root owns are followed, mid-path and relative" {
	needs_root_user
	mkdir "$T/real"
	ln -s real "$T/rel"
	ln -s "$T/rel" "$T/abs"
	LOG=$T/abs/log
	daemon p $'\0016x\n'
	[ "$status" -eq 0 ]
	err_is ""
	file_is "$T/real/log" $'x\n'
}

@test "robust-files: privileged: a refused link is named as the walk reached it" {
	needs_root_user
	mkdir -m 700 "$T/rootonly"
	ln -s hop "$T/start"
	ln -s "$T/rootonly" "$T/hop"
	chown -h "$PKS_USER" "$T/hop"
	LOG=$T/start/log
	daemon p $'\0016x\n'
	[ "$status" -eq 0 ]
	err_is "$W: file:$LOG: $T/hop: a symbolic link owned by uid $PKS_UID, not followed by a privileged process; skipping it
$W: no usable output left; using stderr
x
"
	[ ! -e "$T/rootonly/log" ]
}
