# SPDX-License-Identifier: MIT
# For tests/syslog.bats: a private rsyslogd per test, in the foreground, on
# a socket in the test's own temporary directory and writing files there
# (recipe: logging-ecosystem.md sections 1 and 6 in the shared reference);
# no system path is touched and the daemon is stopped by its PID. Also a
# stand-in socket that keeps raw bytes (fixtures/syslog-listen), and
# polling instead of fixed sleeps.

RSYSLOGD=${RSYSLOGD:-$(command -v rsyslogd || echo /usr/sbin/rsyslogd)}

# The daemon's files: out.log one line per message, "FAC.SEV PROG[PROCID] MSG";
# raw.log the message as received; detail.log "TIME3164|TIME3339|HOST|APP|PROCID|MSGID|MSG"
# with the time the sender wrote (not the time of receipt).
rs_conf() {
	cat <<EOF
global(workDirectory="$RS" processInternalMessages="on" maxMessageSize="64k")
module(load="imuxsock" SysSock.Use="off")
input(type="imuxsock" Socket="$RS/log.sock" CreatePath="on" RateLimit.Interval="0"
      UseSpecialParser="off" IgnoreTimestamp="off" UseSysTimeStamp="off" Ruleset="shim")
template(name="line" type="string"
	 string="%syslogfacility-text%.%syslogseverity-text% %programname%[%procid%]%msg:::sp-if-no-1st-sp%%msg:::drop-last-lf%\n")
template(name="raw" type="string" string="%rawmsg%\n")
template(name="sd" type="string" string="%structured-data%|%msg:::drop-last-lf%\n")
template(name="detail" type="string"
	 string="%timereported:::date-rfc3164%|%timereported:::date-rfc3339%|%hostname%|%app-name%|%procid%|%msgid%|%msg:::drop-last-lf%\n")
ruleset(name="shim") {
	action(type="omfile" file="$RS/out.log" template="line")
	action(type="omfile" file="$RS/raw.log" template="raw")
	action(type="omfile" file="$RS/detail.log" template="detail")
	action(type="omfile" file="$RS/sd.log" template="sd")
}
*.* action(type="omfile" file="$RS/internal.log")
EOF
}

# wait_for WHAT CMD...: run CMD every 10 ms until it succeeds, for up to 20 s.
wait_for() {
	local what=$1 i
	shift
	for ((i = 0; i < 2000; i++)); do
		"$@" && return 0
		sleep 0.01
	done
	echo "timed out waiting for $what" >&2
	return 1
}

# rs_paths: where this test's daemon lives, and SLOG, the command prefix
# that sends the shim's lines there (in the background, write
# "${SLOG[@]}" CMD... & so that $! is CMD itself)
rs_paths() {
	RS=$BATS_TEST_TMPDIR/rs
	RS_SOCK=$RS/log.sock
	RAW=$RS/raw.bin
	SLOG=(env "LD_PRELOAD=$MODULE" PRINTK_SHIM_OUTPUT=syslog "PRINTK_SHIM_SYSLOG_SOCKET=$RS_SOCK")
	mkdir -p "$RS"
}

# rs_start: start (or restart) the daemon; ready once its socket exists,
# from then on the kernel queues what is sent to it.
rs_start() {
	[ -x "$RSYSLOGD" ] || skip "rsyslogd is not installed (tests/setup.sh installs it)"
	rs_paths
	[ -f "$RS/rs.conf" ] || rs_conf >"$RS/rs.conf"
	"$RSYSLOGD" -n -iNONE -f "$RS/rs.conf" >>"$RS/rsyslogd.out" 2>&1 3>&- &
	RS_PID=$!
	wait_for "the rsyslogd socket" test -S "$RS_SOCK"
}

# while_stopped CMD...: CMD in the background, its stderr in $BATS_TEST_TMPDIR/err,
# while the daemon is stopped for half a second (not a poll: long enough for
# the senders to fill its queue and get ahead), then until CMD ends.
while_stopped() {
	kill -STOP "$RS_PID"
	"$@" >/dev/null 2>"$BATS_TEST_TMPDIR/err" 3>&- &
	CLIENT_PID=$!
	sleep 0.5
	kill -CONT "$RS_PID"
	wait "$CLIENT_PID"
	CLIENT_PID=
}

# rs_stop: stop it cleanly (also when stopped by SIGSTOP); rs_kill: crash it.
rs_stop() {
	[ -n "${RS_PID:-}" ] || return 0
	kill -CONT "$RS_PID" 2>/dev/null || true
	kill -TERM "$RS_PID" 2>/dev/null || true
	wait "$RS_PID" || true
	RS_PID=
}

rs_kill() {
	kill -KILL "$RS_PID"
	wait "$RS_PID" || true
	RS_PID=
}

# count FILE [REGEX]: lines in FILE (matching REGEX); 0 if there is no FILE
count() {
	if [ ! -f "$1" ]; then
		echo 0
	elif [ $# -gt 1 ]; then
		grep -c -e "$2" "$1" || true
	else
		wc -l <"$1"
	fi
}

# nuls FILE: how many NUL bytes FILE holds
nuls() {
	tr -d -c '\0' <"$1" | wc -c
}

# at_least N CMD...: CMD prints a number >= N (for wait_for)
at_least() {
	local n=$1
	shift
	[ "$("$@")" -ge "$n" ]
}

rs_count() {
	count "$RS/out.log"
}

# rs_has N: at least N messages written
rs_has() {
	[ "$(rs_count)" -ge "$1" ]
}

# rs_settled: no new message for 300 ms (the daemon has read its queue)
rs_settled() {
	local before
	before=$(rs_count)
	sleep 0.3
	[ "$(rs_count)" -eq "$before" ]
}

# settled FILE: no new line in FILE for 300 ms (its writer is blocked, or done)
settled() {
	local before
	before=$(count "$1")
	sleep 0.3
	[ "$(count "$1")" -eq "$before" ]
}

# rs_lines: out.log with each "[1234]" written "[PID]"
rs_lines() {
	sed -E 's/\[[0-9]+\]/[PID]/' "$RS/out.log"
}

# rs_is TEXT: out.log is exactly TEXT (PIDs as in rs_lines)
rs_is() {
	assert_bytes "$(rs_lines)" "$1"
}

# slog CMD...: run CMD with the shim, its lines to our socket
slog() {
	"${SLOG[@]}" "$@"
}

# listen_start dgram|stream|full: a stand-in socket at $RS_SOCK; bytes in $RAW
# (full: a stream socket that stopped accepting, its backlog full)
listen_start() {
	rs_paths
	"$FIX/syslog-listen" "$1" "$RS_SOCK" "$RAW" 3>&- &
	LISTEN_PID=$!
	wait_for "the stand-in socket" test -S "$RS_SOCK"
}

listen_stop() {
	[ -n "${LISTEN_PID:-}" ] || return 0
	kill -TERM "$LISTEN_PID" 2>/dev/null || true
	wait "$LISTEN_PID" || true
	LISTEN_PID=
}

# flood_lines N M: what syslog-flood N M prints, "tT lL end" for T < N, L < M
# (no shell loop: Bats' debug trap makes each shell command slow)
flood_lines() {
	seq 0 $(($1 - 1)) | while read -r t; do seq 0 $(($2 - 1)) | sed "s/.*/t$t l& end/"; done
}

# same A B: files A and B hold the same lines; else the first differences
same() {
	local d
	d=$(diff "$1" "$2") && return 0
	head -20 <<<"$d" >&2
	return 1
}

syslog_teardown() {
	if [ -n "${CLIENT_PID:-}" ]; then
		kill -KILL "$CLIENT_PID" 2>/dev/null || true
		wait "$CLIENT_PID" || true
	fi
	rs_stop
	listen_stop
}
