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

@test "journal: CODE_FUNC of a static function of a program without -rdynamic, from .symtab" {
	jshim sh -c 'echo $$ >"$0"; exec "$1" line' "$BATS_TEST_TMPDIR/pid" "$FIX/names"
	[ "$status" -eq 0 ]
	err_is ''
	got=$(jsel "$(cat "$BATS_TEST_TMPDIR/pid")" '[.MESSAGE, .CODE_FUNC]')
	[ "$got" = '["from the probe","port_probe"]' ]
}

# A close of the module's new socket before it had read the socket's inode
# made it note inode 0, which every closed number then matched: each line
# after went to the closed number, and to standard error, for good.
@test "journal: a program that closes every descriptor 200 times while a thread prints: its lines after are in the journal" {
	local pid
	jshim sh -c 'echo $$ >"$0"; exec "$1" x storm 200' "$BATS_TEST_TMPDIR/pid" "$FIX/syslog-fdclash"
	[ "$status" -eq 0 ]
	pid=$(cat "$BATS_TEST_TMPDIR/pid")
	got=$(jsel "$pid" 'select(.MESSAGE | startswith("after")) | .MESSAGE' | tr -d '"')
	[ "$got" = "$(seq 0 4 | sed 's/^/after /')" ]
	run grep -c '^after' "$ERR"
	[ "$output" -eq 0 ]
	# a line sent as its number was closed went to stderr, said, and then no more
	if grep -q 'writing its lines to stderr' "$ERR"; then
		[ "$(tail -n 1 "$ERR")" = "$(grep 'delivering again' "$ERR" | tail -n 1)" ]
	fi
}

@test "journal: a program name with a newline is SYSLOG_IDENTIFIER as it is" {
	jshim bash -c 'echo $$ >"$0"; exec -a "$2" "$1" $'"'"'\0016named\n'"'"'' "$BATS_TEST_TMPDIR/pid" "$FIX/emit" $'fo\no'
	[ "$status" -eq 0 ]
	got=$(jsel "$(cat "$BATS_TEST_TMPDIR/pid")" '[.MESSAGE, .SYSLOG_IDENTIFIER]')
	[ "$got" = '["named","fo\no"]' ]
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

@test "journal: deferred, a 300 KB line (past a datagram's limit) goes whole in its memfd" {
	jshim env PRINTK_SHIM_DEFER=1 PRINTK_SHIM_LINE_MAX=400000 sh -c 'echo $$ >"$0"; exec "$1" @long 307200' \
		"$BATS_TEST_TMPDIR/pid" "$FIX/emit"
	err_is ''
	got=$(jsel "$(cat "$BATS_TEST_TMPDIR/pid")" '.MESSAGE | length')
	[ "$got" = 307200 ]
}

@test "journal: deferred, 2 threads x 500 lines go in sendmmsg batches, each once, in order per thread" {
	jshim env PRINTK_SHIM_DEFER=1 strace -f -qq -e trace=sendmmsg -o "$BATS_TEST_TMPDIR/trace" \
		sh -c 'echo $$ >"$0"; exec "$1" 500 2' "$BATS_TEST_TMPDIR/pid" "$FIX/defer-flood"
	[ "$status" -eq 0 ]
	err_is ''
	got=$(jsel "$(cat "$BATS_TEST_TMPDIR/pid")" '.MESSAGE' | wc -l)
	[ "$got" = 1000 ]
	run sh -c "journalctl --namespace=$NS _PID=$(cat "$BATS_TEST_TMPDIR/pid") -o cat --no-pager |
		awk '{ split(\$1, a, \".\"); if (a[2] != ++n[a[1]]) bad++ } END { print NR, bad + 0 }'"
	[ "$output" = "1000 0" ]
	run awk '/sendmmsg\(/ && $NF + 0 > 1 { n++ } END { print n + 0 }' "$BATS_TEST_TMPDIR/trace"
	[ "$output" -gt 0 ]
}

@test "journal: deferred, every other batch refused: each entry sent again from its record, once" {
	err=$BATS_TEST_TMPDIR/err
	# journald stopped: the lines pile up in the ring, so the printer's
	# batches fill up mid-drain; the refused ones are sent one by one.
	kill -STOP "$(cat "$BATS_FILE_TMPDIR/journald.pid")"
	FAULT_WRITE=mmsg-nomem FAULT_WRITE_REPORT="$BATS_TEST_TMPDIR/faults" PRINTK_SHIM_DEFER=1 \
		PRINTK_SHIM_OUTPUT=journal PRINTK_SHIM_JOURNAL_SOCKET="$JSOCK" \
		LD_PRELOAD="$MODULE:$FIX/.libs/libfault-write.so" \
		"$FIX/syslog-flood" 2 3000 0 >/dev/null 2>"$err" &
	flood=$!
	# Not a poll: long enough for the callers to get well ahead of the printer.
	sleep 0.5
	kill -CONT "$(cat "$BATS_FILE_TMPDIR/journald.pid")"
	wait "$flood"
	[ ! -s "$err" ]
	[ "$(cat "$BATS_TEST_TMPDIR/faults")" -gt 1 ]
	for _ in $(seq 500); do [ "$(stored "$flood")" -ge 6000 ] && break; sleep 0.02; done
	journalctl --namespace="$NS" _PID="$flood" -o cat --no-pager | sort -s -k1,1 >"$BATS_TEST_TMPDIR/stored"
	for t in 0 1; do seq 0 2999 | sed "s/.*/t$t l& end/"; done | diff - "$BATS_TEST_TMPDIR/stored"
}

# A fatal signal's drain wrote the ring's lines as a handler's, which never
# wait: past journald's queue of datagrams they went to stderr (5 runs of
# 5, 50 to 90 lines of 100).
@test "journal: deferred, a fatal signal's drain gives the journal every waiting line" {
	t=$BATS_TEST_TMPDIR lib=$abs_top_builddir/examples/.libs
	printf '%s\n' '#include <signal.h>' 'int printk(const char *fmt, ...);' \
		'int main(void) { for (int i = 0; i < 100; i++) printk("\0016line %d\n", i);' \
		'	raise(SIGTERM); return 0; }' >"$t/term.c"
	$CC -o "$t/term" "$t/term.c" -L"$lib" -lkcompat -Wl,-rpath,"$lib"
	jshim env PRINTK_SHIM_DEFER=1 sh -c 'echo $$ >"$0"; exec "$1"' "$t/pid" "$t/term"
	[ "$status" -eq 143 ]
	err_is ''
	for i in $(seq 300); do
		journalctl --namespace="$NS" _PID="$(cat "$t/pid")" --all -o cat --no-pager \
			>"$t/got" 2>/dev/null
		[ "$(wc -l <"$t/got")" -ge 100 ] && break
		sleep 0.02
	done
	seq 0 99 | sed 's/^/line /' >"$t/want"
	cmp "$t/want" "$t/got"
}

# exit writes the ring to a journald that was stopped, and SIGTERM comes to
# the thread doing it: the handler went on from the drain's last full
# batch, past which every datagram batch sent meanwhile (256 lines each)
# came again (513 to 638 lines twice, 3 runs of 3). Each batch's sending is
# now noted as it ends: at most the one being sent comes twice.
@test "journal: deferred, SIGTERM while exit sends the ring to a journal that was stopped: each line, twice at most one batch" {
	local jd t=$BATS_TEST_TMPDIR flood status got=0
	jd=$(cat "$BATS_FILE_TMPDIR/journald.pid")
	for run in 1 2 3 4 5; do
		kill -STOP "$jd"
		PRINTK_SHIM_DEFER=1 PRINTK_SHIM_OUTPUT=journal PRINTK_SHIM_JOURNAL_SOCKET="$JSOCK" \
			LD_PRELOAD="$MODULE" "$FIX/syslog-flood" 2 3000 0 >/dev/null 2>"$t/err" &
		flood=$!
		sleep 0.3
		kill -CONT "$jd"
		sleep 0.05
		kill -TERM "$flood"
		status=0
		wait "$flood" || status=$?
		[ ! -s "$t/err" ]
		[ "$status" -eq 143 ] || continue	# it was done: no handler to look at
		got=$((got + 1))
		for _ in $(seq 500); do [ "$(stored "$flood")" -ge 6000 ] && break; sleep 0.02; done
		journalctl --namespace="$NS" _PID="$flood" -o cat --no-pager >"$t/stored"
		for th in 0 1; do seq 0 2999 | sed "s/.*/t$th l& end/"; done | sort >"$t/want"
		sort -u "$t/stored" | diff "$t/want" -
		run wc -l <"$t/stored"
		[ "$output" -le $((6000 + 256)) ] || { echo "run $run: $output entries" >&2; false; }
	done
	[ "$got" -ge 3 ]
}

# The printer's batch waited a second in each sendmmsg call, and its
# entries sent again one by one a second more: a stopped journald held
# every line 3 s before the warning (5 runs of 5), not the second it says.
@test "journal: deferred, a journal stopped for good: the warning after a second, as without the ring" {
	err=$BATS_TEST_TMPDIR/err jd=$(cat "$BATS_FILE_TMPDIR/journald.pid")
	kill -STOP "$jd"
	start=$(date +%s%N)
	PRINTK_SHIM_DEFER=1 PRINTK_SHIM_OUTPUT=journal PRINTK_SHIM_JOURNAL_SOCKET="$JSOCK" \
		LD_PRELOAD="$MODULE" "$FIX/syslog-flood" 1 100 0 >/dev/null 2>"$err" || :
	took=$((($(date +%s%N) - start) / 1000000))
	kill -CONT "$jd"
	[ "$(grep -c '^printk-shim: ' "$err")" -eq 1 ]
	grep -qx "printk-shim: warning: journal: $JSOCK: Resource temporarily unavailable; writing its lines to stderr until it is back" "$err"
	[ "$(grep -c ' end$' "$err")" -ge 80 ]
	[ "$took" -lt 2500 ]
}

@test "journal: control bytes and invalid UTF-8 arrive as they were" {
	jshim sh -c 'echo $$ >"$0"; exec "$1" "$2"' "$BATS_TEST_TMPDIR/pid" "$FIX/emit" $'\0016a\x02b\xff\xfe\t\xc3\xa9\n'
	err_is ''
	got=$(jsel "$(cat "$BATS_TEST_TMPDIR/pid")" '.MESSAGE')
	# journalctl shows a value that is not valid UTF-8 as its bytes
	[ "$got" = '[97,2,98,255,254,9,195,169]' ]
}

# stored PID: how many entries of PID the journal holds now
stored() {
	journalctl --namespace="$NS" _PID="$1" -o cat --no-pager 2>/dev/null | wc -l
}

# check_once PID N: each of N lines "t0 lI end" once, on stderr ($err) or in the journal
check_once() {
	local diverted
	diverted=$(grep -c '^t0 l[0-9]* end$' "$err")
	[ "$diverted" -gt 0 ]
	grep -qx "printk-shim: warning: journal: $JSOCK: delivering again; $diverted lines went to stderr meanwhile" "$err"
	for _ in $(seq 500); do
		[ "$(stored "$1")" -ge $(($2 - diverted)) ] && break
		sleep 0.02
	done
	journalctl --namespace="$NS" _PID="$1" -o cat --no-pager >"$BATS_TEST_TMPDIR/stored"
	seq 0 $(($2 - 1)) | sed 's/.*/t0 l& end/' | sort >"$BATS_TEST_TMPDIR/want"
	sort <(grep '^t0' "$err") "$BATS_TEST_TMPDIR/stored" | diff - "$BATS_TEST_TMPDIR/want"
}

@test "journal: no journald at the start: one warning, the lines on stderr, the count when it is back" {
	stop_journald
	err=$BATS_TEST_TMPDIR/err
	PRINTK_SHIM_OUTPUT=journal PRINTK_SHIM_JOURNAL_SOCKET="$JSOCK" LD_PRELOAD="$MODULE" \
		"$FIX/syslog-flood" 1 300 10000 >/dev/null 2>"$err" &
	flood=$!
	sleep 0.5
	start_journald
	wait "$flood"
	[ "$(grep -c '^printk-shim: ' "$err")" -eq 2 ]
	grep -qx "printk-shim: warning: journal: $JSOCK: .*; writing its lines to stderr until it is back" "$err"
	check_once "$flood" 300
}

@test "journal: journald restarted in the middle of a run: each line once" {
	err=$BATS_TEST_TMPDIR/err
	PRINTK_SHIM_OUTPUT=journal PRINTK_SHIM_JOURNAL_SOCKET="$JSOCK" LD_PRELOAD="$MODULE" \
		"$FIX/syslog-flood" 1 400 5000 >/dev/null 2>"$err" &
	flood=$!
	for _ in $(seq 500); do [ "$(stored "$flood")" -ge 50 ] && break; sleep 0.02; done
	# an entry journald has not read when it dies is dropped by the kernel,
	# unseen by any sender: the sender pauses while journald is stopped
	kill -STOP "$flood"
	n=-1
	until [ "$n" = "$(stored "$flood")" ]; do n=$(stored "$flood"); sleep 0.2; done
	stop_journald
	kill -CONT "$flood"
	sleep 0.3
	start_journald
	wait "$flood"
	[ "$(grep -c '^printk-shim: ' "$err")" -eq 2 ]
	grep -qx "printk-shim: warning: journal: $JSOCK: .*; writing its lines to stderr until it is back" "$err"
	check_once "$flood" 400
}

@test "journal: an entry sent just after journald binds, before it asks for credentials, still carries our pid" {
	local sock=$BATS_TEST_TMPDIR/late.sock got=$BATS_TEST_TMPDIR/late late
	"$FIX/dgram-late" "$sock" >"$got" &
	late=$!
	for _ in $(seq 500); do [ -s "$got" ] && break; sleep 0.01; done
	jshim PRINTK_SHIM_JOURNAL_SOCKET="$sock" sh -c 'echo $$ >"$0"; exec "$1" "$2"' \
		"$BATS_TEST_TMPDIR/pid" "$FIX/emit" $'\0016first line\n'
	[ "$status" -eq 0 ]
	err_is ''
	wait "$late"
	[ "$(sed -n "2s/,.*//p" "$got")" = "pid $(cat "$BATS_TEST_TMPDIR/pid")" ]
}

@test "journal: a program that puts its own socket on the journal's descriptor keeps it; the next line goes on a new one" {
	jshim sh -c 'echo $$ >"$0"; exec "$1" sock' "$BATS_TEST_TMPDIR/pid" "$FIX/fdtake"
	[ "$status" -eq 0 ]
	err_is ''
	out_is $'mine: -1\n'
	pid=$(cat "$BATS_TEST_TMPDIR/pid")
	for _ in $(seq 100); do [ "$(jsel "$pid" .MESSAGE | wc -l)" -ge 2 ] && break; sleep 0.02; done
	[ "$(jsel "$pid" .MESSAGE)" = $'"before"\n"after"' ]
}

@test "journal: the socket keeps out of the program's way: its next open gets the number it would get alone" {
	local alone
	alone=$("$FIX/fdtake" next 2>/dev/null)
	jshim "$FIX/fdtake" next
	[ "$status" -eq 0 ]
	err_is ''
	out_is "$alone"$'\n'
	[ "$alone" != "" ]
}

@test "journal: PRINTK_SHIM_JOURNAL_SOCKET must be an absolute path" {
	capture shim env PRINTK_SHIM_JOURNAL_SOCKET=journal.sock "$FIX/emit" $'\0016ok\n'
	err_is 'printk-shim: warning: PRINTK_SHIM_JOURNAL_SOCKET="journal.sock": expected an absolute socket path under 108 bytes; using /run/systemd/journal/socket'$'\nok\n'
}
