#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# printk-shim(7) OUTPUTS AND FORMATS, syslog: each test talks to its own rsyslogd (or
# to a stand-in socket that keeps raw bytes), started and stopped by PID in
# the test's temporary directory. Severity, facility, ident, continued
# lines, both formats, and the faults: a daemon down, killed, stopped.

load helper
load syslog-helper

teardown() {
	syslog_teardown
}

@test "syslog: severity is the printk level, all eight" {
	rs_start
	capture slog "$FIX/emit" $'\0010zero\n' $'\0011one\n' $'\0012two\n' $'\0013three\n' \
		$'\0014four\n' $'\0015five\n' $'\0016six\n' $'\0017seven\n'
	[ "$status" -eq 0 ]
	err_is ''
	wait_for "8 messages" rs_has 8
	rs_is "user.emerg emit[PID] zero
user.alert emit[PID] one
user.crit emit[PID] two
user.err emit[PID] three
user.warning emit[PID] four
user.notice emit[PID] five
user.info emit[PID] six
user.debug emit[PID] seven"
}

@test "syslog: the socket keeps out of the program's way: its next open gets the number it would get alone" {
	local alone
	alone=$("$FIX/fdtake" next 2>/dev/null)
	rs_start
	capture slog "$FIX/fdtake" next
	[ "$status" -eq 0 ]
	err_is ''
	out_is "$alone"$'\n'
	[ "$alone" != "" ]
	wait_for "1 message" rs_has 1
	rs_is "user.info fdtake[PID] before"
}

@test "syslog: facility local3 and a custom ident" {
	rs_start
	capture slog PRINTK_SHIM_SYSLOG_FACILITY=local3 PRINTK_SHIM_SYSLOG_IDENT=mydrv \
		"$FIX/emit" $'\0013probe failed\n' $'\0016probed\n'
	[ "$status" -eq 0 ]
	err_is ''
	wait_for "2 messages" rs_has 2
	rs_is "local3.err mydrv[PID] probe failed
local3.info mydrv[PID] probed"
}

@test "syslog: facility security is auth, as syslog.h and logger(1) name it" {
	rs_start
	capture slog PRINTK_SHIM_SYSLOG_FACILITY=security "$FIX/emit" $'\0014denied\n'
	[ "$status" -eq 0 ]
	err_is ''
	wait_for "1 message" rs_has 1
	rs_is "auth.warning emit[PID] denied"
}

@test "syslog: default facility user, default ident the program's short name" {
	rs_start
	cp "$FIX/syslog-flood" "$BATS_TEST_TMPDIR/my-port"
	capture slog "$BATS_TEST_TMPDIR/my-port" 1 1
	[ "$status" -eq 0 ]
	wait_for "1 message" rs_has 1
	rs_is "user.info my-port[PID] t0 l0 end"
}

@test "syslog: a program name the ident variable would refuse: rsyslog reads the whole tag, both formats" {
	rs_start
	cp "$FIX/emit" "$BATS_TEST_TMPDIR/a b:[c]"
	"${SLOG[@]}" "$BATS_TEST_TMPDIR/a b:[c]" $'\0016hello\n' &
	local pid=$!
	wait "$pid"
	"${SLOG[@]}" PRINTK_SHIM_SYSLOG_FORMAT=rfc5424 "$BATS_TEST_TMPDIR/a b:[c]" $'\0016five\n' &
	local pid2=$!
	wait "$pid2"
	wait_for "2 messages" rs_has 2
	local detail
	detail=$(cat "$RS/detail.log")
	assert_bytes "$(cut -d'|' -f4- <<<"$detail")" "a_b__c_|$pid|-| hello
a_b:[c]|$pid2|-|five"
}

@test "syslog: a line built by several printk calls is one message" {
	rs_start
	capture slog "$FIX/emit" $'\0016a' $'\001cb' $'\001c c\n' $'\0014legacy ' 'join' $'\n'
	[ "$status" -eq 0 ]
	wait_for "2 messages" rs_has 2
	rs_is "user.info emit[PID] ab c
user.warning emit[PID] legacy join"
}

@test "syslog: the level filter applies" {
	rs_start
	capture slog PRINTK_SHIM_LEVEL=warn "$FIX/emit" $'\0013err\n' $'\0016info\n' \
		$'\0014warn\n' $'\0017debug\n' $'\0010emerg\n'
	[ "$status" -eq 0 ]
	wait_for "3 messages" rs_has 3
	rs_settled
	rs_is "user.err emit[PID] err
user.warning emit[PID] warn
user.emerg emit[PID] emerg"
}

@test "syslog: RFC 3164 datagram as glibc writes it, no NUL, no newline" {
	listen_start dgram
	capture slog "$FIX/emit" $'\0016hello world\n' $'\0013\n'
	[ "$status" -eq 0 ]
	wait_for "2 datagrams" at_least 2 count "$RAW"
	local ts='(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ 1-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9]'
	run cat "$RAW"
	[ "${#lines[@]}" -eq 2 ]
	local first="^<14>$ts emit\[[0-9]+\]: hello world\$" second="^<11>$ts emit\[[0-9]+\]: \$"
	[[ "${lines[0]}" =~ $first ]]
	[[ "${lines[1]}" =~ $second ]]
	[ "$(nuls "$RAW")" -eq 0 ]
}

@test "syslog: RFC 3164 parses in rsyslog: program, pid, message, the sender's time" {
	rs_start
	"${SLOG[@]}" "$FIX/emit" $'\0016hello\n' &
	local pid=$!
	wait "$pid"
	wait_for "1 message" rs_has 1
	local raw detail
	raw=$(cat "$RS/raw.log")
	detail=$(cat "$RS/detail.log")
	# the time rsyslog parsed is the one in the header
	assert_bytes "$detail" "${raw:4:15}|${detail#*|}"
	assert_bytes "${detail#*|*|*|}" "emit|$pid|-| hello"
	assert_bytes "$raw" "<14>${raw:4:15} emit[$pid]: hello"
}

@test "syslog: RFC 5424 parses in rsyslog: host, app, pid, time with offset" {
	rs_start
	TZ=IST-5:30 "${SLOG[@]}" PRINTK_SHIM_SYSLOG_FORMAT=rfc5424 PRINTK_SHIM_SYSLOG_FACILITY=daemon \
		"$FIX/emit" $'\0013five four two four\n' &
	local pid=$! host
	wait "$pid"
	host=$(uname -n)
	wait_for "1 message" rs_has 1
	local raw detail t
	# emit's static call() names the caller from .symtab, as the compiler renamed it
	raw=$(sed -E 's/caller="call(\.[a-z]+\.[0-9]+)*"/caller="call"/' "$RS/raw.log")
	t=${raw:6:32}
	[[ "$t" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}\+05:30$ ]]
	assert_bytes "$raw" "<27>1 $t $host emit $pid - [printk@32473 level=\"3\" level_name=\"err\" tid=\"$pid\" caller=\"call\"] five four two four"
	detail=$(cat "$RS/detail.log")
	assert_bytes "${detail#*|}" "$t|$host|emit|$pid|-|five four two four"
	rs_is "daemon.err emit[PID] five four two four"
	assert_bytes "$(sed -E 's/caller="call(\.[a-z]+\.[0-9]+)*"/caller="call"/' "$RS/sd.log")" \
		"[printk@32473 level=\"3\" level_name=\"err\" tid=\"$pid\" caller=\"call\"]|five four two four"
}

@test "syslog: RFC 5424 structured data names the caller; rsyslog parses it" {
	rs_start
	"${SLOG[@]}" PRINTK_SHIM_SYSLOG_FORMAT=rfc5424 "$FIX/journal-site" &
	local pid=$!
	wait "$pid"
	wait_for "1 message" rs_has 1
	assert_bytes "$(cat "$RS/sd.log")" "[printk@32473 level=\"4\" level_name=\"warn\" tid=\"$pid\" caller=\"acme_report\"]|acme: temperature 72 C"
	rs_is "user.warning journal-site[PID] acme: temperature 72 C"
}

@test "syslog: RFC 3164 with PRINTK_SHIM_CALLER=1 carries the thread as the console does" {
	rs_start
	"${SLOG[@]}" PRINTK_SHIM_CALLER=1 "$FIX/emit" $'\0016with tid\n' &
	local pid=$!
	wait "$pid"
	wait_for "1 message" rs_has 1
	rs_is "user.info emit[PID] [T$pid] with tid"
}

@test "syslog: the header clock is local time, as localtime_r has it, across DST changes" {
	local tz zones=(UTC0 EST5EDT,M3.2.0,M11.1.0 IST-5:30 'LHST-10:30LHDT-11,M10.1.0,M4.1.0')
	for tz in Europe/Berlin America/St_Johns Australia/Lord_Howe Pacific/Chatham; do
		[ -e "/usr/share/zoneinfo/$tz" ] && zones+=("$tz")
	done
	for tz in "${zones[@]}"; do
		TZ=$tz run "$FIX/syslog-timecheck" 2026
		echo "$output"
		[ "$status" -eq 0 ]
	done
}

@test "syslog: a stream socket gets glibc's framing, each message ending in NUL" {
	listen_start stream
	capture slog "$FIX/emit" $'\0016first\n' $'\0014second\n'
	[ "$status" -eq 0 ]
	err_is ''
	wait_for "2 messages" at_least 2 nuls "$RAW"
	assert_bytes "$(tr '\0' '\n' <"$RAW" | sed -E 's/^<([0-9]+)>[A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8} /<\1>TIME /; s/\[[0-9]+\]/[PID]/')" \
		"<14>TIME emit[PID]: first
<12>TIME emit[PID]: second"
	[ "$(tail -c 1 "$RAW" | od -An -tx1 | tr -d ' ')" = 00 ]
}

@test "syslog: a NUL in a line goes as \\x00 on a stream socket, not as the end of a message" {
	listen_start stream
	capture slog "$FIX/emit" @d $'\0016a%cb <11>forged\n' 0 @d $'\0016%c\n' 0
	[ "$status" -eq 0 ]
	err_is ''
	wait_for "2 messages" at_least 2 nuls "$RAW"
	assert_bytes "$(tr '\0' '\n' <"$RAW" | sed -E 's/^<([0-9]+)>[A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8} /<\1>TIME /; s/\[[0-9]+\]/[PID]/')" \
		'<14>TIME emit[PID]: a\x00b <11>forged
<14>TIME emit[PID]: \x00'
}

@test "syslog: threads share a stream socket without mixing their messages" {
	listen_start stream
	capture slog "$FIX/syslog-flood" 4 500 0
	[ "$status" -eq 0 ]
	err_is ''
	wait_for "2000 messages" at_least 2000 nuls "$RAW"
	run grep -cvE '^<14>[A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8} syslog-flood\[[0-9]+\]: t[0-3] l[0-9]+ end$' \
		< <(tr '\0' '\n' <"$RAW")
	[ "$output" = 0 ]
	same <(flood_lines 4 500 | sort) <(tr '\0' '\n' <"$RAW" | sed 's/^[^]]*]: //' | sort)
}

@test "syslog: threads that start at once share one stream connection: each thread's lines in order" {
	for round in 1 2 3; do
		listen_start stream
		capture slog "$FIX/syslog-flood" 8 40 0
		[ "$status" -eq 0 ]
		err_is ''
		wait_for "320 messages" at_least 320 nuls "$RAW"
		listen_stop
		# a thread's first line on a connection of its own could come after its next ones
		run awk -F'[ t]' '{ t = $(NF - 2); l = $(NF - 1); sub(/^l/, "", l)
			if (l != next_[t] + 0) { print "t" t " l" l " after l" next_[t] - 1; exit } next_[t] = l + 1 }
			END { print "ordered" }' < <(tr '\0' '\n' <"$RAW" | sed 's/^[^]]*]: //')
		[ "$output" = ordered ]
		rm "$RAW"
	done
}

@test "syslog: handlers print while threads send on a stream: no deadlock, each line once" {
	listen_start stream
	capture timeout 60 "${SLOG[@]}" "$FIX/syslog-flood" 3 3000 0 0 100
	[ "$status" -eq 0 ]
	local sigs
	sigs=$(sed -n 's/^sigs //p' "$OUT")
	echo "# $sigs lines from handlers, $(count "$ERR" '^sig') of them on stderr" >&3
	wait_for "every message" at_least $((9000 + sigs - $(count "$ERR" '^sig'))) nuls "$RAW"
	same <({ flood_lines 3 3000; seq 0 $((sigs - 1)) | sed 's/^/sig /'; } | sort) \
		<({ tr '\0' '\n' <"$RAW" | sed 's/^[^]]*]: //'; grep '^sig' "$ERR"; } | sort)
	# a handler that interrupted a send on the stream may find the daemon busy
	run grep -v '^sig' "$ERR"
	[ "${#lines[@]}" -eq 0 ] || [[ "${lines[*]}" == *"for a signal handler's line; writing such lines to stderr" ]]
}

# A handler installed behind the module's back (the C library's own
# __sigaction) reaches printk without the trampoline: its call, inside one
# of its own thread's, took the turn that very call held, and waited for it
# for good. One that comes between two fragments closes the line it cut
# (printk-shim(7) LIMITATIONS): each word comes once all the same.
@test "syslog: handlers print while threads send datagrams, sigaction's and one behind the module's back: each line once" {
	local sigs how got=$BATS_TEST_TMPDIR/got
	for how in sigaction behind; do
		rs_start
		capture timeout 60 "${SLOG[@]}" "$FIX/syslog-flood" 3 3000 0 0 100 0 $how
		[ "$status" -eq 0 ]
		err_is ''
		sigs=$(sed -n 's/^sigs //p' "$OUT")
		wait_for "every line" at_least $((3 * 3000)) count "$RS/out.log" ' end$'
		wait_for "every handler's line" at_least "$sigs" count "$RS/out.log" ' sig [0-9]*$'
		rs_settled
		cut -d' ' -f3- "$RS/out.log" | sort >"$got"
		if [ $how = sigaction ]; then
			same <({ flood_lines 3 3000; seq 0 $((sigs - 1)) | sed 's/^/sig /'; } | sort) "$got"
		else
			same <(seq 0 $((sigs - 1)) | sed 's/^/sig /' | sort) <(grep '^sig ' "$got")
			same <(flood_lines 3 3000 | tr ' ' '\n' | sort) \
				<(grep -v '^sig ' "$got" | tr ' ' '\n' | grep -v '^$' | sort)
		fi
		rs_stop
		rm -rf "$RS"
	done
}

# A jump out of a handler, or an exit from one, that cut a send off left
# the turn on the datagram socket taken: the thread's next send, the exit's
# own, and every other thread's waited for it for good.
@test "syslog: a jump out of wherever it lands every 200 us: the next sends go on, another thread's lines each once" {
	rs_start
	capture timeout 60 "${SLOG[@]}" "$FIX/sig-jump" 20000 200 other
	[ "$status" -eq 0 ]
	err_is $'done\n'
	wait_for "the other thread's last line" grep -q ' O19999: c d$' "$RS/out.log"
	wait_for "the last line" grep -q ' L19999: a b$' "$RS/out.log"
	[ "$(grep -c ' O[0-9]*: c d$' "$RS/out.log")" -eq 20000 ]
	[ "$(grep ' O[0-9]*: c d$' "$RS/out.log" | sort -u | wc -l)" -eq 20000 ]
}

@test "syslog: a handler that calls exit(3) wherever it lands: the process ends with its status" {
	rs_start
	capture timeout 60 "${SLOG[@]}" "$FIX/sig-jump" 2000000 100 exit
	[ "$status" -eq 3 ]
	err_is ''
}

# An exec from a handler wrote the open lines of the other contexts, but
# not the line of the call the handler cut off in its send: lost, unsaid.
@test "syslog: an exec from a handler that cut a send off: that line is sent first" {
	local k
	rs_start
	# its queue full, the daemon stopped: the 100th signal's handler cuts a send off
	kill -STOP "$RS_PID"
	"${SLOG[@]}" "$FIX/sig-jump" 2000000 1000 exec >"$BATS_TEST_TMPDIR/out" 3>&- &
	CLIENT_PID=$!
	sleep 1
	kill -CONT "$RS_PID"
	wait "$CLIENT_PID"
	CLIENT_PID=
	k=$(sed -n 's/^cut //p' "$BATS_TEST_TMPDIR/out")
	[ -n "$k" ]
	wait_for "the line cut off" grep -q " L$k: a b$" "$RS/out.log"
	[ "$(grep -c ' L[0-9]*: a b$' "$RS/out.log")" -eq $((k + 1)) ]
}

# The same on a stream, whose message a jump may cut short: that
# connection is given up, and the lines go on, whole, on a new one.
@test "syslog: a jump out of a stream send every 200 us: every message whole, another thread's lines each once" {
	local got=$BATS_TEST_TMPDIR/got
	listen_start stream
	capture timeout 60 "${SLOG[@]}" "$FIX/sig-jump" 20000 200 other
	[ "$status" -eq 0 ]
	[ "$(tail -n 1 "$ERR")" = done ]
	listen_stop
	tr '\0' '\n' <"$RAW" | sed 's/^[^]]*]: //' >"$got"
	[ -z "$(grep -vE '^(L[0-9]+: a b|O[0-9]+: c d)$' "$got")" ]
	# so many connections given up may fill the stand-in's backlog: an
	# outage, said, and its lines on stderr, each once all the same
	same <(seq 0 19999 | sed 's/.*/O&: c d/' | sort) <(grep -h '^O' "$got" "$ERR" | sort)
}
# The send was no cancellation point: a thread blocked in it by a stopped
# daemon was cancelled only once the daemon read again.
@test "syslog: a thread blocked in its send to a stopped daemon is cancelled at once; its line is written later, once" {
	local n
	rs_start
	kill -STOP "$RS_PID"
	capture timeout 60 "${SLOG[@]}" "$FIX/abnormal" cancel-stopped "$RS_PID"
	[ "$status" -eq 0 ]
	[[ "$(head -n 1 "$OUT")" == "joined after "*" calls" ]]
	n=$(head -n 1 "$OUT" | cut -d' ' -f3)
	err_is ''
	wait_for "the tail" grep -q ' M one two$' "$RS/out.log"
	# every line of the calls that returned, and the one cancelled, once
	[ "$(grep -o ' T [0-9]* ' "$RS/out.log" | sort -u | wc -l)" -eq $((n + 1)) ]
	[ "$(grep -c ' T [0-9]* ' "$RS/out.log")" -eq $((n + 1)) ]
	[ "$(grep -o ' T [0-9]* ' "$RS/out.log" | tail -n 1)" = " T $n " ]
}

@test "syslog: PRINTK_SHIM_OUTPUT=stderr,syslog writes each line to both" {
	rs_start
	capture slog PRINTK_SHIM_OUTPUT=stderr,syslog "$FIX/emit" $'\0016to both\n' $'\0013and again\n'
	[ "$status" -eq 0 ]
	err_is $'to both\nand again\n'
	wait_for "2 messages" rs_has 2
	rs_is "user.info emit[PID] to both
user.err emit[PID] and again"
}

@test "syslog: daemon down at start: lines on stderr after one warning, exit status kept" {
	rs_paths
	capture slog "$FIX/syslog-flood" 1 3 0 7
	[ "$status" -eq 7 ]
	err_is "printk-shim: warning: syslog: $RS_SOCK: No such file or directory; writing its lines to stderr until it is back
t0 l0 end
t0 l1 end
t0 l2 end
"
}

@test "syslog: a socket nobody listens on: one warning, lines in the configured format" {
	listen_start dgram
	listen_stop
	[ -S "$RS_SOCK" ]
	capture slog PRINTK_SHIM_FORMAT=prefix "$FIX/emit" $'\0013a\n' $'\0016b\n'
	[ "$status" -eq 0 ]
	err_is "printk-shim: warning: syslog: $RS_SOCK: Connection refused; writing its lines to stderr until it is back
<3>a
<6>b
"
}

# full_backlog WANT [VAR=VALUE...]: syslog-flood's three lines, with the
# settings given, to the socket of listen_start full, which accepts no
# more connections: the program runs to its end (its own status 7, not
# timeout's 124) and its stderr is exactly WANT
full_backlog() {
	local want=$1
	shift
	capture timeout 10 "${SLOG[@]}" "$@" "$FIX/syslog-flood" 1 3 0 7
	[ "$status" -eq 7 ]
	err_is "$want"
}

@test "syslog: a stream socket whose backlog is full: printk does not wait, lines on stderr after one warning" {
	listen_start full
	full_backlog "printk-shim: warning: syslog: $RS_SOCK: Resource temporarily unavailable; writing its lines to stderr until it is back
t0 l0 end
t0 l1 end
t0 l2 end
"
}

@test "syslog: deferred, a stream socket whose backlog is full: the printer does not wait, lines on stderr" {
	listen_start full
	full_backlog "printk-shim: warning: syslog: $RS_SOCK: Resource temporarily unavailable; writing its lines to stderr until it is back
t0 l0 end
t0 l1 end
t0 l2 end
" PRINTK_SHIM_DEFER=1
}

@test "syslog: stderr,syslog and a stream socket whose backlog is full: each line on stderr once" {
	listen_start full
	full_backlog "t0 l0 end
printk-shim: warning: syslog: $RS_SOCK: Resource temporarily unavailable; writing its lines to stderr until it is back
t0 l1 end
t0 l2 end
" PRINTK_SHIM_OUTPUT=stderr,syslog
}

@test "syslog: deferred, stderr,syslog and a stream socket whose backlog is full: each line on stderr once" {
	listen_start full
	full_backlog "printk-shim: warning: syslog: $RS_SOCK: Resource temporarily unavailable; writing its lines to stderr until it is back
t0 l0 end
t0 l1 end
t0 l2 end
" PRINTK_SHIM_OUTPUT=stderr,syslog PRINTK_SHIM_DEFER=1
}

# long N: emit's "@long N" line
long() {
	local s
	s=$(printf '0123456789%.0s' $(seq $(($1 / 10 + 1))))
	printf '%s\n' "${s:0:$1}"
}

@test "syslog: deferred, syslog and the journal both down: a line the batch took for one only is on stderr once" {
	rs_paths
	# 40000 bytes: syslog's message fits the printer's batch, the
	# journal's then does not and is sent at once; both fall back.
	capture slog PRINTK_SHIM_DEFER=1 PRINTK_SHIM_OUTPUT=syslog,journal PRINTK_SHIM_LINE_MAX=100000 \
		PRINTK_SHIM_JOURNAL_SOCKET="$RS/journal.sock" "$FIX/emit" $'a\n' @long 40000 $'c\n'
	[ "$status" -eq 0 ]
	err_is "printk-shim: warning: syslog: $RS_SOCK: No such file or directory; writing its lines to stderr until it is back
printk-shim: warning: journal: $RS/journal.sock: No such file or directory; writing its lines to stderr until it is back
a
$(long 40000)
c
"
}

@test "syslog: deferred, daemon down: lines the batch took and one it did not reach stderr in order" {
	rs_paths
	# 65300 bytes: too long for the datagrams' batch, not for stderr's
	capture slog PRINTK_SHIM_DEFER=1 PRINTK_SHIM_DEFER_SIZE=4M PRINTK_SHIM_LINE_MAX=100000 \
		"$FIX/emit" $'a\n' @long 65300 $'c\n' $'d\n'
	[ "$status" -eq 0 ]
	err_is "printk-shim: warning: syslog: $RS_SOCK: No such file or directory; writing its lines to stderr until it is back
a
$(long 65300)
c
d
"
}

@test "syslog: deferred, daemon down, FORMAT=kmsg: a line keeps its number on stderr and in the file" {
	rs_paths
	capture slog PRINTK_SHIM_DEFER=1 PRINTK_SHIM_FORMAT=kmsg PRINTK_SHIM_OUTPUT="syslog,file:$RS/k.log" \
		"$FIX/emit" $'a\n' $'b\n'
	[ "$status" -eq 0 ]
	run sed -n 's/^4,\([0-9]*\),[0-9]*,-;\(.*\)/\1 \2/p' "$ERR"
	[ "$output" = $'0 a\n1 b' ]
	run sed 's/^4,\([0-9]*\),[0-9]*,-;\(.*\)/\1 \2/' "$RS/k.log"
	[ "$output" = $'0 a\n1 b' ]
	[ "$(grep -v '^printk-shim: ' "$ERR" | cut -d, -f1,2,3)" = "$(cut -d, -f1,2,3 "$RS/k.log")" ]
}

# restart_check [VAR=VALUE]...: 2 threads x 2000 lines, the daemon killed
# and restarted while they run: each line once, in syslog or on stderr.
restart_check() {
	local err=$BATS_TEST_TMPDIR/err all=$BATS_TEST_TMPDIR/all
	local before_kill at_restart delivered fallback lost twice
	rs_start
	"${SLOG[@]}" "$@" "$FIX/syslog-flood" 2 2000 300 >"$BATS_TEST_TMPDIR/out" 2>"$err" 3>&- &
	CLIENT_PID=$!
	wait_for "400 lines in syslog" at_least 400 rs_count
	# A datagram the daemon has not read when it dies is dropped by the
	# kernel, unseen by any sender: the senders pause while it is killed.
	kill -STOP "$CLIENT_PID"
	wait_for "rsyslogd to read its queue" rs_settled
	before_kill=$(rs_count)
	rs_kill
	rm -f "$RS_SOCK"
	kill -CONT "$CLIENT_PID"
	wait_for "400 lines on stderr" at_least 400 count "$err" '^t'
	rs_start
	at_restart=$(rs_count)
	wait "$CLIENT_PID"
	CLIENT_PID=
	fallback=$(count "$err" '^t')
	wait_for "the rest in syslog" at_least $((4000 - fallback)) rs_count
	rs_settled
	delivered=$(rs_count)
	{ cut -d' ' -f3- "$RS/out.log"; grep '^t' "$err"; } | sort >"$all"
	lost=$(comm -23 <(flood_lines 2 2000 | sort) "$all" | wc -l)
	twice=$(uniq -d "$all" | wc -l)
	echo "# delivered=$delivered fallback=$fallback lost=$lost twice=$twice" \
		"(before the kill $before_kill, after the restart $((delivered - at_restart)))" >&3
	same <(flood_lines 2 2000 | sort) "$all"
	[ "$before_kill" -ge 400 ]
	[ "$fallback" -ge 400 ]
	[ "$delivered" -gt "$at_restart" ]
	# one warning for the one outage, and one when it ends, with the count
	run grep -v '^t' "$err"
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == "printk-shim: warning: syslog: $RS_SOCK: "*"; writing its lines to stderr until it is back" ]]
	[ "${lines[1]}" = "printk-shim: warning: syslog: $RS_SOCK: delivering again; $fallback lines went to stderr meanwhile" ]
}

@test "syslog: daemon killed and restarted mid-run, 2 threads x 2000 lines: each line once" {
	restart_check
}

@test "syslog: deferred, daemon killed and restarted mid-run: each line once" {
	restart_check PRINTK_SHIM_DEFER=1
}

@test "syslog: deferred, daemon down at start: every line on stderr after one warning" {
	rs_paths
	capture slog PRINTK_SHIM_DEFER=1 "$FIX/syslog-flood" 1 3 0 7
	[ "$status" -eq 7 ]
	err_is "printk-shim: warning: syslog: $RS_SOCK: No such file or directory; writing its lines to stderr until it is back
t0 l0 end
t0 l1 end
t0 l2 end
"
}

@test "syslog: deferred, 2 threads x 2000 lines, many to a sendmmsg: each once, in order per thread" {
	rs_start
	strace -f -qq -e trace=sendmmsg -o "$BATS_TEST_TMPDIR/trace" \
		"${SLOG[@]}" PRINTK_SHIM_DEFER=1 "$FIX/syslog-flood" 2 2000 0 >/dev/null 2>"$BATS_TEST_TMPDIR/err"
	[ ! -s "$BATS_TEST_TMPDIR/err" ]
	wait_for "4000 messages" rs_has 4000
	same <(flood_lines 2 2000) <(cut -d' ' -f3- "$RS/out.log" | sort -s -k1,1)
	# the printer sent them in batches: some sendmmsg(2) took many at once
	run awk '/sendmmsg\(/ && $NF + 0 > 1 { n++ } END { print n + 0 }' "$BATS_TEST_TMPDIR/trace"
	[ "$output" -gt 0 ]
}

@test "syslog: a stopped daemon blocks the senders; nothing is lost once it continues" {
	rs_start
	kill -STOP "$RS_PID"
	"${SLOG[@]}" "$FIX/syslog-flood" 2 1000 0 >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
	CLIENT_PID=$!
	# Not a poll: this waits for something that must not happen.
	sleep 0.5
	kill -0 "$CLIENT_PID"
	[ ! -s "$BATS_TEST_TMPDIR/err" ]
	kill -CONT "$RS_PID"
	wait "$CLIENT_PID"
	CLIENT_PID=
	[ ! -s "$BATS_TEST_TMPDIR/err" ]
	wait_for "2000 messages" rs_has 2000
	same <(flood_lines 2 1000 | sort) <(cut -d' ' -f3- "$RS/out.log" | sort)
}

@test "syslog: SIGTERM while a line waits in its send to a stopped daemon: stderr has it once, the flush sends it as a handler would" {
	local err=$BATS_TEST_TMPDIR/err n
	local -a lines
	mapfile -t lines < <(seq 0 99 | sed 's/^/l/')
	rs_start
	kill -STOP "$RS_PID"
	# one thread, which the signal interrupts in its send
	"${SLOG[@]}" PRINTK_SHIM_OUTPUT=stderr,syslog "$FIX/emit" "${lines[@]/%/$'\n'}" \
		>"$BATS_TEST_TMPDIR/out" 2>"$err" 3>&- &
	CLIENT_PID=$!
	# the daemon's queue fills: the line last on stderr waits in its send
	wait_for "a line on stderr" at_least 1 count "$err"
	wait_for "the sender to stop" settled "$err"
	kill -TERM "$CLIENT_PID"
	# the flush's send, a handler's, waits for room as the dying may; the
	# interrupted send's lock, which it took before, would hold it for good
	sleep 0.3
	kill -CONT "$RS_PID"
	wait "$CLIENT_PID" || status=$?
	CLIENT_PID=
	[ "$status" -eq 143 ]
	n=$(count "$err")
	[ "$n" -lt 100 ]
	# stderr took each line whole before the send: the flush writes none there again
	file_is "$err" "$(printf '%s\n' "${lines[@]:0:n}")"$'\n'
	wait_for "$n messages" rs_has "$n"
	same <(printf '%s\n' "${lines[@]:0:n}") <(cut -d' ' -f3- "$RS/out.log")
}

@test "syslog: deferred, every other batch refused: each line sent again from its record, once" {
	rs_start
	# The daemon stopped: the lines pile up in the ring, so the printer's
	# batches fill up mid-drain; the refused ones are sent one by one.
	while_stopped env FAULT_WRITE=mmsg-nomem FAULT_WRITE_REPORT="$BATS_TEST_TMPDIR/faults" \
		"${SLOG[@]}" "LD_PRELOAD=$MODULE:$FIX/.libs/libfault-write.so" PRINTK_SHIM_DEFER=1 \
		"$FIX/syslog-flood" 2 2000 0
	[ ! -s "$BATS_TEST_TMPDIR/err" ]
	[ "$(cat "$BATS_TEST_TMPDIR/faults")" -gt 1 ]
	wait_for "4000 messages" rs_has 4000
	same <(flood_lines 2 2000) <(cut -d' ' -f3- "$RS/out.log" | sort -s -k1,1)
}

@test "syslog: with the daemon stopped, calls wait in their send, not in poll(2)" {
	rs_start
	# the senders fill the queue and must then wait, however long
	while_stopped strace -f -qq -e trace=poll,ppoll,sendmsg,nanosleep,clock_nanosleep \
		-o "$BATS_TEST_TMPDIR/trace" "${SLOG[@]}" "$FIX/syslog-flood" 2 1000 0
	[ ! -s "$BATS_TEST_TMPDIR/err" ]
	wait_for "2000 messages" rs_has 2000
	run grep -E '^[0-9]+ +(poll|ppoll|nanosleep|clock_nanosleep)\(' "$BATS_TEST_TMPDIR/trace"
	[ "$status" -eq 1 ]
	# one sendmsg a line: none refused with EAGAIN to be tried again
	run grep -c 'sendmsg(' "$BATS_TEST_TMPDIR/trace"
	[ "$output" -eq 2000 ]
}

@test "syslog: children forked while threads send are never stuck; every line arrives" {
	rs_start
	capture slog "$FIX/syslog-flood" 4 300 0 0 0 20
	[ "$status" -eq 0 ]
	[ ! -s "$OUT" ]
	err_is ''
	wait_for "1220 messages" rs_has 1220
	same <({ flood_lines 4 300; seq 0 19 | sed 's/^/child /'; } | sort) \
		<(cut -d' ' -f3- "$RS/out.log" | sort)
}

@test "syslog: the descriptor is checked on a thread's first line and every 64th, not each" {
	rs_start
	strace -f -qq -e trace=fstat,newfstatat,statx -o "$BATS_TEST_TMPDIR/trace" \
		"${SLOG[@]}" "$FIX/syslog-flood" 2 320 0 >/dev/null 2>"$BATS_TEST_TMPDIR/err"
	[ ! -s "$BATS_TEST_TMPDIR/err" ]
	wait_for "640 messages" rs_has 640
	# 640 lines of 2 threads: their first lines, then one in 64 (a check per line: 640)
	run grep -c 'S_IFSOCK' "$BATS_TEST_TMPDIR/trace"
	[ "$output" -ge 2 ]
	[ "$output" -le 16 ]
}

# STEP (@fork, @rawfork or @vfork): the child's line carries its pid, the parent's its own.
child_pid_check() {
	rs_start
	"${SLOG[@]}" "$FIX/emit" $'\0016before fork\n' "$1" $'\0016after fork\n' &
	local pid=$!
	wait "$pid"
	wait_for "3 messages" rs_has 3
	rs_is "user.info emit[PID] before fork
user.info emit[PID] after fork
user.info emit[PID] after fork"
	run sed -E 's/.*\[([0-9]+)\].*/\1/' "$RS/out.log"
	[ "${lines[0]}" = "$pid" ]
	[ "${lines[2]}" = "$pid" ]
	[ "${lines[1]}" != "$pid" ]
}

@test "syslog: a forked child sends with its own pid" {
	child_pid_check @fork
}

@test "syslog: a child of the bare fork system call (no atfork handler) sends with its own pid" {
	child_pid_check @rawfork
}

@test "syslog: a vfork child sends with its own pid, not its parent's from the memory they share" {
	child_pid_check @vfork
}

@test "syslog: lines from a handler, at exit and at a crash arrive" {
	rs_start
	capture slog "$FIX/emit" $'\0016a' @signal $'\0014from the handler\n' $'\001cb\n' $'\0016open at exit' @exit
	[ "$status" -eq 0 ]
	capture slog "$FIX/emit" $'\0013open at the crash' @segv
	[ "$status" -eq 139 ]
	wait_for "4 messages" rs_has 4
	rs_is "user.warning emit[PID] from the handler
user.info emit[PID] ab
user.info emit[PID] open at exit
user.err emit[PID] open at the crash"
}

@test "syslog: a program that closes the shim's descriptor keeps its own file" {
	rs_start
	capture slog "$FIX/syslog-fdclash" "$BATS_TEST_TMPDIR/mine"
	[ "$status" -eq 0 ]
	err_is ''
	file_is "$BATS_TEST_TMPDIR/mine" $'mine\n'
	wait_for "2 messages" rs_has 2
	rs_is "user.info syslog-fdclash[PID] before detach
user.info syslog-fdclash[PID] after detach on fd 3"
}

@test "syslog: a line too long for a datagram goes to stderr, with a warning" {
	rs_start
	capture slog PRINTK_SHIM_LINE_MAX=1048576 "$FIX/emit" @long 300000 $'\0016short\n'
	[ "$status" -eq 0 ]
	wait_for "1 message" rs_has 1
	rs_is "user.info emit[PID] short"
	[ "$(sed -n 1p "$ERR")" = "printk-shim: warning: syslog: a line of 300000 bytes: Message too long; writing such lines to stderr" ]
	[ "$(sed -n 2p "$ERR" | wc -c)" -eq 300001 ]
	[ "$(wc -l <"$ERR")" -eq 2 ]
}
