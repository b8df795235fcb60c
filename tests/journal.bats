#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# printk-shim(7) OUTPUTS AND FORMATS, the journal: each test file talks to a
# real systemd-journald, a private namespace instance started here as a
# plain process, and reads back what it stored with journalctl -o json.

load helper

JOURNALD=/lib/systemd/systemd-journald

setup_file() {
	export NS=pks-test-$$
	export JSOCK=/run/systemd/journal.$NS/socket
	start_journald
}

teardown_file() {
	stop_journald
	rm -rf /run/systemd/journal."$NS" /var/log/journal/*."$NS" /run/log/journal/*."$NS"
}

start_journald() {
	"$JOURNALD" "$NS" >/dev/null 2>&1 &
	echo $! >"$BATS_FILE_TMPDIR/journald.pid"
	for _ in $(seq 500); do [ -S "$JSOCK" ] && return 0; sleep 0.01; done
	echo "journald did not start" >&2
	return 1
}

stop_journald() {
	local pid
	pid=$(cat "$BATS_FILE_TMPDIR/journald.pid")
	kill "$pid" 2>/dev/null || true
	while kill -0 "$pid" 2>/dev/null; do sleep 0.01; done
}

# jsel PID FILTER: the entries of process PID through jq FILTER, once they are there.
jsel() {
	local i
	for i in $(seq 300); do
		journalctl --namespace="$NS" _PID="$1" --all -o json --no-pager 2>/dev/null |
			jq -c "$2" >"$BATS_TEST_TMPDIR/j" && [ -s "$BATS_TEST_TMPDIR/j" ] && break
		sleep 0.02
	done
	cat "$BATS_TEST_TMPDIR/j"
}

jshim() {
	capture shim env PRINTK_SHIM_OUTPUT=journal PRINTK_SHIM_JOURNAL_SOCKET="$JSOCK" "$@"
}

@test "journal: every field of a line" {
	jshim sh -c 'echo $$ >"$0"; exec "$1"' "$BATS_TEST_TMPDIR/pid" "$FIX/journal-site"
	[ "$status" -eq 0 ]
	err_is ''
	pid=$(cat "$BATS_TEST_TMPDIR/pid")
	got=$(jsel "$pid" '[.MESSAGE, .PRIORITY, .SYSLOG_FACILITY, .SYSLOG_IDENTIFIER, .SYSLOG_PID, .TID, .PRINTK_LEVEL, .CODE_FUNC]')
	[ "$got" = '["acme: temperature 72 C","4","1","journal-site","'"$pid"'","'"$pid"'","warn","acme_report"]' ]
}

@test "journal: continuation fragments are one entry at the first fragment's level" {
	jshim sh -c 'echo $$ >"$0"; exec "$1" "$2" "$3" "$4"' "$BATS_TEST_TMPDIR/pid" "$FIX/emit" \
		$'\0013disk: ' $'\001cretry ' $'\001cfailed\n'
	err_is ''
	got=$(jsel "$(cat "$BATS_TEST_TMPDIR/pid")" '[.MESSAGE, .PRIORITY, .PRINTK_LEVEL]')
	[ "$got" = '["disk: retry failed","3","err"]' ]
}

@test "journal: a 100 KB line goes whole, in a sealed memfd" {
	jshim env PRINTK_SHIM_LINE_MAX=200000 sh -c 'echo $$ >"$0"; exec "$1" @long 102400' \
		"$BATS_TEST_TMPDIR/pid" "$FIX/emit"
	err_is ''
	got=$(jsel "$(cat "$BATS_TEST_TMPDIR/pid")" '.MESSAGE | length')
	[ "$got" = 102400 ]
	want=$(seq 0 102399 | awk '{ printf "%d", $1 % 10 }' | md5sum)
	[ "$(journalctl --namespace="$NS" _PID="$(cat "$BATS_TEST_TMPDIR/pid")" -o cat --no-pager | tr -d '\n' | md5sum)" = "$want" ]
}

@test "journal: control bytes and invalid UTF-8 arrive as they were" {
	jshim sh -c 'echo $$ >"$0"; exec "$1" "$2"' "$BATS_TEST_TMPDIR/pid" "$FIX/emit" $'\0016a\x02b\xff\xfe\t\xc3\xa9\n'
	err_is ''
	got=$(jsel "$(cat "$BATS_TEST_TMPDIR/pid")" '.MESSAGE')
	# journalctl shows a value that is not valid UTF-8 as its bytes
	[ "$got" = '[97,2,98,255,254,9,195,169]' ]
}

@test "journal: no journald: one warning, the lines on stderr, the count when it is back" {
	stop_journald
	PRINTK_SHIM_OUTPUT=journal PRINTK_SHIM_JOURNAL_SOCKET="$JSOCK" LD_PRELOAD="$MODULE" \
		"$FIX/syslog-flood" 1 300 10000 >/dev/null 2>"$BATS_TEST_TMPDIR/err" &
	flood=$!
	sleep 0.5
	start_journald
	wait "$flood"
	err=$BATS_TEST_TMPDIR/err
	[ "$(grep -c '^printk-shim: ' "$err")" -eq 2 ]
	grep -qx "printk-shim: warning: journal: $JSOCK: .*; writing its lines to stderr until it is back" "$err"
	diverted=$(grep -v '^printk-shim: ' "$err" | grep -c '^t0 l[0-9]* end$')
	grep -qx "printk-shim: warning: journal: $JSOCK: delivering again; $diverted lines went to stderr meanwhile" "$err"
	[ "$diverted" -gt 0 ]
	# every line once: on stderr while journald was away, in the journal after
	for _ in $(seq 500); do
		journalctl --namespace="$NS" _PID="$flood" -o cat --no-pager >"$BATS_TEST_TMPDIR/stored"
		[ "$(wc -l <"$BATS_TEST_TMPDIR/stored")" -ge $((300 - diverted)) ] && break
		sleep 0.02
	done
	[ "$(wc -l <"$BATS_TEST_TMPDIR/stored")" -eq $((300 - diverted)) ]
	sort <(grep '^t0' "$err") "$BATS_TEST_TMPDIR/stored" | uniq -d | wc -l | grep -qx 0
	seq 0 299 | sed 's/.*/t0 l& end/' | sort >"$BATS_TEST_TMPDIR/want"
	sort <(grep '^t0' "$err") "$BATS_TEST_TMPDIR/stored" | diff - "$BATS_TEST_TMPDIR/want"
}

@test "journal: PRINTK_SHIM_JOURNAL_SOCKET must be an absolute path" {
	capture shim env PRINTK_SHIM_JOURNAL_SOCKET=journal.sock "$FIX/emit" $'\0016ok\n'
	err_is 'printk-shim: warning: PRINTK_SHIM_JOURNAL_SOCKET="journal.sock": expected an absolute socket path; using /run/systemd/journal/socket'$'\nok\n'
}
