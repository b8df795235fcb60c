#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# A privileged process gives its caller no lever. In a set-user-ID root
# program that links the module, an unprivileged user's PRINTK_SHIM_SYMBOLS
# and PRINTK_SHIM_PATCH are ignored with a warning each, so that no
# function of the program is overwritten at the caller's word, and the
# PRINTK_SHIM_DEBUG report shows no address. Runs as root (as CI does): it
# adds a user, makes a set-user-ID copy of the fixture, runs it as that
# user and removes both.

load helper

setup_file() {
	[ "$(id -u)" = 0 ] || skip "needs root: it adds a user and makes a set-user-ID program"
	command -v useradd >/dev/null || skip "no useradd"
	SEC_USER=pks-sec-$$
	SECDIR=$(mktemp -d /tmp/printk-shim-setuid.XXXXXX)
	export SEC_USER SECDIR
	useradd -M -s /usr/sbin/nologin "$SEC_USER"
	chmod 755 "$SECDIR"
	cp "$MODULE" "$SECDIR/libprintk-shim.so"
	cp "$abs_top_builddir/examples/.libs/libkcompat.so" "$SECDIR/libkcompat.so"
	"${CC:-cc}" -O0 -o "$SECDIR/setuid-linked" "$abs_top_srcdir/tests/fixtures/setuid-linked.c" \
		-Wl,--no-as-needed "$SECDIR/libprintk-shim.so" "$SECDIR/libkcompat.so" \
		-Wl,-rpath,"$SECDIR"
	chown root:root "$SECDIR/setuid-linked"
	chmod 4755 "$SECDIR/setuid-linked"
	# The same with DWARF, set-user-ID and unreadable to others (4711).
	"${CC:-cc}" -g -O0 -o "$SECDIR/secret" "$abs_top_srcdir/tests/fixtures/setuid-linked.c" \
		-Wl,--no-as-needed "$SECDIR/libprintk-shim.so" "$SECDIR/libkcompat.so" \
		-Wl,-rpath,"$SECDIR"
	chown root:root "$SECDIR/secret"
	chmod 4711 "$SECDIR/secret"
	# Readable, set-user-ID to a user who is not root: a process of its
	# owns none of its own /proc/PID files (root does).
	cp "$SECDIR/secret" "$SECDIR/readable"
	chown daemon:daemon "$SECDIR/readable"
	chmod 4755 "$SECDIR/readable"
	# Set-group-ID to a group the user is not in: privileged, of the user's own uid.
	cp "$SECDIR/setuid-linked" "$SECDIR/setgid-linked"
	chown root:daemon "$SECDIR/setgid-linked"
	chmod 2755 "$SECDIR/setgid-linked"
	CTLDIR=/tmp/printk-shim-$(id -u "$SEC_USER")
	export CTLDIR
}

teardown_file() {
	[ -z "${SEC_USER:-}" ] || userdel "$SEC_USER" 2>/dev/null || true
	[ -z "${SECDIR:-}" ] || rm -rf "$SECDIR"
	[ -z "${CTLDIR:-}" ] || rm -rf "$CTLDIR"
}

# as_user VAR=VALUE...: the set-user-ID fixture, run by the unprivileged user.
as_user() {
	capture env "$@" setpriv --reuid="$SEC_USER" --regid="$(id -g "$SEC_USER")" --clear-groups \
		"$SECDIR/setuid-linked"
}

# secret VAR=VALUE...: the 4711 one, with "debug".
secret() {
	capture env "$@" setpriv --reuid="$SEC_USER" --regid="$(id -g "$SEC_USER")" --clear-groups \
		"$SECDIR/secret" debug
}

# The size of FUNCTION in FILE, as the report gives it.
size_of() {
	local hex
	hex=$(nm -S --defined-only "$1" | awk -v f="$2" '$4 == f { print $2; exit }')
	echo $((16#$hex))
}

@test "setuid-linked: the fixture runs set-user-ID, and without the variables is refused" {
	as_user
	[ "$status" -eq 0 ]
	out_is $'secure=1\naccess denied\n'
	err_is $'checking the caller\n'
}

@test "setuid-linked: PRINTK_SHIM_SYMBOLS is ignored with a warning: no function is overwritten" {
	as_user PRINTK_SHIM_SYMBOLS=authorized
	[ "$status" -eq 0 ]
	out_is $'secure=1\naccess denied\n'
	err_is 'printk-shim: warning: PRINTK_SHIM_SYMBOLS="authorized": ignored in a setuid/setgid process; using none
checking the caller
'
}

@test "setuid-linked: PRINTK_SHIM_PATCH is ignored with a warning: auto" {
	as_user PRINTK_SHIM_PATCH=always PRINTK_SHIM_FORMAT=prefix
	[ "$status" -eq 0 ]
	out_is $'secure=1\naccess denied\n'
	err_is 'printk-shim: warning: PRINTK_SHIM_PATCH="always": ignored in a setuid/setgid process; using auto
<6>checking the caller
'
}

@test "setuid-linked: the DEBUG report shows no address, and what it says of printk holds" {
	as_user PRINTK_SHIM_DEBUG=1 PRINTK_SHIM_PATCH=always PRINTK_SHIM_SYMBOLS=authorized:v
	[ "$status" -eq 0 ]
	out_is $'secure=1\naccess denied\n'
	run ! grep -E '0x[0-9a-f]{6,}|\(nil\)' "$ERR"
	grep -qx 'printk-shim: debug: PRINTK_SHIM_PATCH=auto SYMBOLS=none' "$ERR"
	grep -qx "printk-shim: debug: printk: $(size_of "$SECDIR/libkcompat.so" printk) bytes (.symtab): interposed: the dynamic linker routes its calls to the shim; not patched" "$ERR"
	[ "$(grep -c authorized "$ERR")" -eq 1 ]
	[ "$(tail -n 1 "$ERR")" = "checking the caller" ]
}

@test "setuid-linked: fd:N other than 1 and 2 is skipped with one warning each; fd:2 is kept" {
	as_user PRINTK_SHIM_OUTPUT=fd:3,fd:4,fd:2 3>"$BATS_TEST_TMPDIR/fd3" 4>"$BATS_TEST_TMPDIR/fd4"
	[ "$status" -eq 0 ]
	out_is $'secure=1\naccess denied\n'
	err_is 'printk-shim: warning: PRINTK_SHIM_OUTPUT: fd:3: ignored in a setuid/setgid process, which takes fd:1 and fd:2 only; skipping it
printk-shim: warning: PRINTK_SHIM_OUTPUT: fd:4: ignored in a setuid/setgid process, which takes fd:1 and fd:2 only; skipping it
checking the caller
'
	file_is "$BATS_TEST_TMPDIR/fd3" ''
	file_is "$BATS_TEST_TMPDIR/fd4" ''
}

@test "setuid-linked: DYNDBG reads no DWARF of a program the caller cannot read: no file, no line, no probe" {
	secret PRINTK_SHIM_DYNDBG='+pmsl'
	[ "$status" -eq 0 ]
	out_is $'secure=1\naccess denied\n'
	err_is 'printk-shim: warning: PRINTK_SHIM_DYNDBG: in a setuid/setgid process, code in a file you cannot read has no file and line; they match none of its calls
secret: a debug line
checking the caller
'
	# A file query cannot tell the caller which file the call is in.
	secret PRINTK_SHIM_DYNDBG='file setuid-linked.c -p'
	[ "$status" -eq 0 ]
	err_is 'printk-shim: warning: PRINTK_SHIM_DYNDBG: in a setuid/setgid process, code in a file you cannot read has no file and line; they match none of its calls
a debug line
checking the caller
'
}

@test "setuid-linked: a program the caller can read has its file and line, set-user-ID to a user not root" {
	! readelf -d "$MODULE" | grep -qE 'NEEDED.*lib(asan|tsan|ubsan)' ||
		skip "a sanitizer's runtime that does not come first ends a set-ID program, its options unread"
	capture env PRINTK_SHIM_DYNDBG='file setuid-linked.c +pl' setpriv --reuid="$SEC_USER" \
		--regid="$(id -g "$SEC_USER")" --clear-groups "$SECDIR/readable" debug
	[ "$status" -eq 0 ]
	out_is $'secure=1\naccess denied\n'
	err_is $'39: a debug line\nchecking the caller\n'
}

@test "setuid-linked: the DEBUG report says nothing read from a program the caller cannot read" {
	secret PRINTK_SHIM_DEBUG=1
	[ "$status" -eq 0 ]
	[ -z "$(grep -F "$SECDIR/secret" "$ERR")" ]
	grep -qx "printk-shim: debug: printk: defined in $SECDIR/libkcompat.so, exported: the dynamic linker can interpose it" "$ERR"
	[ "$(tail -n 2 "$ERR")" = $'a debug line\nchecking the caller' ]
}

@test "setuid-linked: %pS names no function from the .symtab of a program the caller cannot read" {
	capture setpriv --reuid="$SEC_USER" --regid="$(id -g "$SEC_USER")" --clear-groups \
		"$SECDIR/secret" names
	[ "$status" -eq 0 ]
	[ "$(sed -n 1p "$ERR")" != "" ]
	run ! grep -F hidden_name "$ERR"
	grep -Eqx '0x[0-9a-f]+' "$ERR"
	# the one it may read (4755) keeps its names
	capture setpriv --reuid="$SEC_USER" --regid="$(id -g "$SEC_USER")" --clear-groups \
		"$SECDIR/setuid-linked" names
	[ "$status" -eq 0 ]
	grep -Eqx 'hidden_name\+0x0/0x[0-9a-f]+' "$ERR"
}

@test "setuid-linked: the same program without set-user-ID, run by the user, takes every variable" {
	cp "$SECDIR/setuid-linked" "$SECDIR/plain-linked"
	chmod 755 "$SECDIR/plain-linked"
	capture env PRINTK_SHIM_SYMBOLS=authorized setpriv --reuid="$SEC_USER" \
		--regid="$(id -g "$SEC_USER")" --clear-groups "$SECDIR/plain-linked"
	rm -f "$SECDIR/plain-linked"
	[ "$status" -eq 0 ]
	out_is $'secure=0\nACCESS GRANTED\n'
	err_is $'checking the caller\nthe caller\n'
}

# A file a process now gone left half-made in the user's control directory,
# which every start with runtime control on removes: its name.
stale_ctl() {
	local pid=$((RANDOM + 100000))

	while kill -0 "$pid" 2>/dev/null; do pid=$((pid + 1)); done
	mkdir -p -m 0700 "$CTLDIR"
	touch "$CTLDIR/.$pid.ctl.new"
	chown -R "$SEC_USER" "$CTLDIR"
	echo ".$pid.ctl.new"
}

@test "setuid-linked: set-group-ID, of the caller's own user: no control file nor record buffer in the caller's directory" {
	local stale
	! readelf -d "$MODULE" | grep -qE 'NEEDED.*lib(asan|tsan|ubsan)' ||
		skip "a sanitizer's runtime that does not come first ends a set-ID program, its options unread"
	stale=$(stale_ctl)
	capture env -u XDG_RUNTIME_DIR PRINTK_SHIM_CONTROL=1 PRINTK_SHIM_RECORD=64K \
		setpriv --reuid="$SEC_USER" --regid="$(id -g "$SEC_USER")" --clear-groups \
		"$SECDIR/setgid-linked"
	[ "$status" -eq 0 ]
	out_is $'secure=1\naccess denied\n'
	err_is 'printk-shim: warning: PRINTK_SHIM_CONTROL="1": ignored in a privileged process of the caller'"'"'s own user, whose control directory is the caller'"'"'s; using 0
printk-shim: warning: PRINTK_SHIM_RECORD="64K": ignored in a privileged process of the caller'"'"'s own user, whose control directory is the caller'"'"'s; using 0
checking the caller
'
	# nothing made, nothing swept: the directory is as the caller left it
	[ "$(ls -A "$CTLDIR")" = "$stale" ]
	# unasked, runtime control is off without a word
	capture env -u XDG_RUNTIME_DIR setpriv --reuid="$SEC_USER" --regid="$(id -g "$SEC_USER")" \
		--clear-groups "$SECDIR/setgid-linked"
	[ "$status" -eq 0 ]
	err_is $'checking the caller\n'
	[ "$(ls -A "$CTLDIR")" = "$stale" ]
	# the same program without set-group-ID sweeps it, as every start does
	cp "$SECDIR/setuid-linked" "$SECDIR/plain-linked"
	chmod 755 "$SECDIR/plain-linked"
	capture env -u XDG_RUNTIME_DIR setpriv --reuid="$SEC_USER" --regid="$(id -g "$SEC_USER")" \
		--clear-groups "$SECDIR/plain-linked"
	rm -f "$SECDIR/plain-linked"
	[ "$status" -eq 0 ]
	[ -z "$(ls -A "$CTLDIR")" ]
}
