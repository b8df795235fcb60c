# SPDX-License-Identifier: MIT
# What control.bats and record.bats share: each test's runtime directory
# and FIFO, tests/fixtures/ctl-run started and fed one command a line,
# copies anyone may run for the tests run as another user.

# ctl_setup: a runtime directory of the test's own, so --all sees only its
# processes, and the FIFO the port reads.
ctl_setup() {
	export XDG_RUNTIME_DIR=$BATS_TEST_TMPDIR/run
	mkdir -m 700 "$XDG_RUNTIME_DIR"
	CTL=$XDG_RUNTIME_DIR/printk-shim
	IN=$BATS_TEST_TMPDIR/in
	PO=$BATS_TEST_TMPDIR/pout
	PE=$BATS_TEST_TMPDIR/perr
	LOG=$BATS_TEST_TMPDIR/port.log
	SRC=$(grep -ao '[^[:space:][:cntrl:]]*fixtures/ctl-run\.c' "$FIX/ctl-run" | head -n 1)
	mkfifo "$IN"
	N=0
	BG=
}

teardown() {
	[ -z "$BG" ] || { exec 7>&-; wait "$BG" || true; }
	[ -z "${PUB:-}" ] || rm -rf "$PUB"
}

# public: copies of the wrapper, the module, the fixture and its library in
# $PUB, a directory anyone may enter, for the tests run as another user
# (the build tree may be closed to them).
public() {
	PUB=$(mktemp -d /tmp/printk-shim-ctl.XXXXXX)
	chmod 755 "$PUB"
	cp "$WRAPPER" "$MODULE" "$FIX/ctl-run" "$abs_top_builddir/examples/.libs/libkcompat.so" "$PUB/"
	PWRAPPER=$PUB/printk-shim
	PMODULE=$PUB/libprintk-shim.so
	PFIX=$PUB/ctl-run
	NRUN=$PUB/run	# nobody's runtime directory
	mkdir -m 700 "$NRUN"
	chown nobody:nogroup "$NRUN"
}

# start [VAR=VALUE...]: ctl-run with the module and those variables; $PID.
start() {
	env "$@" LD_PRELOAD="$MODULE" "$FIX/ctl-run" <"$IN" >"$PO" 2>"$PE" &
	BG=$!
	exec 7>"$IN"
	PID=$BG
	tell pid
	wait_line "$PO" "$PID"
}

# as_nobody CMD...: CMD as nobody, with nobody's runtime directory.
as_nobody() {
	env XDG_RUNTIME_DIR="$NRUN" setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

# as_daemon CMD...: CMD as daemon, another user than nobody.
as_daemon() {
	setpriv --reuid=daemon --regid=daemon --clear-groups "$@"
}

# start_nobody [VAR=VALUE...]: start's program, from $PUB, as nobody; $BG.
start_nobody() {
	# not through as_nobody: a function run in the background is a subshell, and $! its pid
	env XDG_RUNTIME_DIR="$NRUN" setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env "$@" LD_PRELOAD="$PMODULE" LD_LIBRARY_PATH="$PUB" "$PFIX" <"$IN" >"$PO" 2>"$PE" &
	BG=$!
	exec 7>"$IN"
	tell pid
	wait_line "$PO" "$BG"
}

# tell CMD...: one command a line to the port.
tell() {
	printf '%s\n' "$@" >&7
}

# wait_line FILE LINE: until FILE has LINE (the port answers in well under a second).
wait_line() {
	for _ in $(seq 1 1000); do
		grep -qxF -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.01
	done
	echo "no line '$2' in $1" >&2
	return 1
}

# done_: every command told so far has been carried out.
done_() {
	N=$((N + 1))
	tell "sync s$N"
	wait_line "$PO" "s$N"
}

# ctl ARG...: the wrapper against the port, status and output as capture's.
ctl() {
	capture "$WRAPPER" "$@"
}

# asks ARG...: ctl --pid=$PID ARG..., which the port takes (status 0).
asks() {
	ctl --pid="$PID" "$@"
	[ "$status" -eq 0 ]
}

quit() {
	tell quit
	exec 7>&-
	wait "$BG"
	BG=
}
