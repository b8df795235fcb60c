#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# printk-shim(7) OUTPUTS AND FORMATS (without syslog): outputs, formats, time, caller, colour.

load helper

@test "outputs: file:PATH is created 0644 and appended to" {
	f=$BATS_TEST_TMPDIR/log
	printf 'existing\n' > "$f"
	capture shim env PRINTK_SHIM_OUTPUT="file:$f" "$FIX/emit" $'\0016one\n'
	capture shim env PRINTK_SHIM_OUTPUT="file:$f" "$FIX/emit" $'\0016two\n'
	err_is ''
	file_is "$f" $'existing\none\ntwo\n'
	rm "$f"
	(umask 022; capture shim env PRINTK_SHIM_OUTPUT="file:$f" "$FIX/emit" $'x\n')
	[ "$(stat -c %a "$f")" = 644 ]
}

@test "outputs: fd:N writes to an inherited descriptor" {
	capture shim env PRINTK_SHIM_OUTPUT=fd:3 "$FIX/emit" $'\0016to fd 3\n' 3>"$BATS_TEST_TMPDIR/fd3"
	err_is ''
	file_is "$BATS_TEST_TMPDIR/fd3" $'to fd 3\n'
}

@test "outputs: a comma list writes every line to each output, in order" {
	f=$BATS_TEST_TMPDIR/log
	capture shim env PRINTK_SHIM_OUTPUT="stderr,file:$f,fd:3" "$FIX/emit" $'\0016a' $'b\n' $'\0013c\n' 3>"$BATS_TEST_TMPDIR/fd3"
	err_is $'ab\nc\n'
	file_is "$f" $'ab\nc\n'
	file_is "$BATS_TEST_TMPDIR/fd3" $'ab\nc\n'
}

@test "outputs: format prefix is <N>msg" {
	capture shim env PRINTK_SHIM_FORMAT=prefix "$FIX/emit" $'\0015note\n'
	err_is $'<5>note\n'
}

@test "outputs: format dmesg is <N>[ssssss.uuuuuu] msg" {
	capture shim env PRINTK_SHIM_FORMAT=dmesg "$FIX/emit" $'\0016hello\n' $'\0013world\n'
	grep -qE '^<6>\[ *[0-9]+\.[0-9]{6}\] hello$' "$ERR"
	grep -qE '^<3>\[ *[0-9]+\.[0-9]{6}\] world$' "$ERR"
	[ "$(wc -l < "$ERR")" -eq 2 ]
}

@test "outputs: a dmesg-format file is read back by dmesg -F with levels" {
	f=$BATS_TEST_TMPDIR/kern.log
	capture shim env PRINTK_SHIM_FORMAT=dmesg PRINTK_SHIM_OUTPUT="file:$f" "$FIX/emit" \
		$'\0016info line\n' $'\0013error line\n' $'\0014warn ' $'\001cline\n'
	run dmesg -F "$f" -x
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ ^kern\ \ :info\ \ :\ \[\ *[0-9]+\.[0-9]{6}\]\ info\ line$ ]]
	[[ "${lines[1]}" =~ ^kern\ \ :err\ \ \ :\ \[\ *[0-9]+\.[0-9]{6}\]\ error\ line$ ]]
	[[ "${lines[2]}" =~ ^kern\ \ :warn\ \ :\ \[\ *[0-9]+\.[0-9]{6}\]\ warn\ line$ ]]
	run dmesg -F "$f" --level=err -t
	[ "$output" = "error line" ]
}

@test "outputs: format kmsg is L,SEQ,USEC,FLAG;msg with \\xNN escapes" {
	capture shim env PRINTK_SHIM_FORMAT=kmsg "$FIX/emit" $'\0016tab\there\\ \x1b\n' $'\001corphan\n'
	grep -qE '^6,0,[0-9]+,-;tab\\x09here\\x5c \\x1b$' "$ERR"
	grep -qE '^4,1,[0-9]+,c;orphan$' "$ERR"
	[ "$(wc -l < "$ERR")" -eq 2 ]
}

@test "outputs: kmsg lines of 8 threads go out in their numbers' order, each once" {
	local out=$BATS_TEST_TMPDIR/k
	capture shim env PRINTK_SHIM_FORMAT=kmsg PRINTK_SHIM_OUTPUT=file:"$out" "$FIX/threads" 8 1500
	[ "$status" -eq 0 ]
	err_is ''
	[ "$(cut -d, -f2 "$out")" = "$(seq 0 11999)" ]
	[ "$(grep -c '^6,[0-9]*,[0-9]*,-;t[0-7] l[0-9]* [a-z]* end$' "$out")" = 12000 ]
	rm "$out"
	capture shim env PRINTK_SHIM_FORMAT=kmsg PRINTK_SHIM_OUTPUT=file:"$out" PRINTK_SHIM_DEFER=1 \
		"$FIX/threads" 8 1500
	[ "$status" -eq 0 ]
	err_is ''
	[ "$(cut -d, -f2 "$out")" = "$(seq 0 11999)" ]
	[ "$(grep -c '^6,[0-9]*,[0-9]*,-;t[0-7] l[0-9]* [a-z]* end$' "$out")" = 12000 ]
}

@test "outputs: kmsg with PRINTK_SHIM_CALLER adds caller=T<tid>" {
	capture shim env PRINTK_SHIM_FORMAT=kmsg PRINTK_SHIM_CALLER=1 "$FIX/emit" $'\0016x\n'
	grep -qE '^6,0,[0-9]+,-,caller=T[0-9]+;x$' "$ERR"
}

@test "outputs: PRINTK_SHIM_TIME adds [%5lu.%06lu] to plain and prefix" {
	capture shim env PRINTK_SHIM_TIME=1 "$FIX/emit" $'\0016t\n'
	grep -qE '^\[ *[0-9]+\.[0-9]{6}\] t$' "$ERR"
	capture shim env PRINTK_SHIM_TIME=1 PRINTK_SHIM_FORMAT=prefix "$FIX/emit" $'\0016t\n'
	grep -qE '^<6>\[ *[0-9]+\.[0-9]{6}\] t$' "$ERR"
}

@test "outputs: the timestamp is CLOCK_MONOTONIC at the line's first fragment" {
	capture shim env PRINTK_SHIM_TIME=1 "$FIX/emit" $'\0016a' @sleep 300 $'b\n'
	up=$(cut -d' ' -f1 /proc/uptime)
	t=$(sed -E 's/^\[ *([0-9]+\.[0-9]+)\].*/\1/' "$ERR")
	awk -v t="$t" -v up="$up" 'BEGIN { exit !(t <= up && up - t < 60) }'
}

@test "outputs: PRINTK_SHIM_CALLER adds [T<tid>]" {
	capture shim env PRINTK_SHIM_CALLER=1 "$FIX/emit" $'\0016c\n'
	grep -qE '^\[T[0-9]+\] c$' "$ERR"
}

@test "outputs: COLOR=always colours by level as dmesg --color does" {
	capture shim env PRINTK_SHIM_COLOR=always "$FIX/emit" $'\0011a\n' $'\0012c\n' $'\0013e\n' $'\0014w\n' $'\0016i\n'
	err_is $'\e[7m\e[31ma\e[0m\n\e[1m\e[31mc\e[0m\n\e[31me\e[0m\n\e[1mw\e[0m\ni\n'
}

@test "outputs: COLOR=always colours the timestamp green" {
	capture shim env PRINTK_SHIM_COLOR=always PRINTK_SHIM_TIME=1 "$FIX/emit" $'\0013e\n'
	grep -qE $'^\e\\[32m\\[ *[0-9]+\\.[0-9]{6}\\] \e\\[0m\e\\[31me\e\\[0m$' "$ERR"
}

# on_tty ENV...: emit prints an err line on a terminal (script(1)), with
# ENV (env(1)'s arguments); its output, \r\n-ended, in $output.
on_tty() {
	# script(1) runs the command with $SHELL -c; pin bash for the $'' quoting.
	run env SHELL=/bin/bash script -qec "env $* LD_PRELOAD=$MODULE $FIX/emit \$'\\0013e\\n'" /dev/null
}

@test "outputs: COLOR=auto colours on a terminal, not on a pipe, and honours NO_COLOR" {
	capture shim "$FIX/emit" $'\0013e\n'
	err_is $'e\n'
	on_tty TERM=xterm
	[ "$output" = $'\e[31me\e[0m\r' ]
	on_tty TERM=xterm NO_COLOR=1
	[ "$output" = $'e\r' ]
}

@test "outputs: COLOR=auto leaves a terminal whose TERM is dumb, empty or unset plain, as dmesg --color does" {
	local defer
	for defer in 0 1; do
		on_tty PRINTK_SHIM_DEFER=$defer TERM=dumb
		[ "$output" = $'e\r' ]
		on_tty PRINTK_SHIM_DEFER=$defer TERM=
		[ "$output" = $'e\r' ]
		on_tty -u TERM PRINTK_SHIM_DEFER=$defer
		[ "$output" = $'e\r' ]
		on_tty PRINTK_SHIM_DEFER=$defer TERM=xterm
		[ "$output" = $'\e[31me\e[0m\r' ]
	done
	on_tty TERM=dumb PRINTK_SHIM_COLOR=always
	[ "$output" = $'\e[31me\e[0m\r' ]
}

@test "outputs: format auto is prefix when fd 2 is the JOURNAL_STREAM" {
	exec 5>"$BATS_TEST_TMPDIR/stream"
	js=$(stat -L -c '%d:%i' "$BATS_TEST_TMPDIR/stream")
	JOURNAL_STREAM=$js shim "$FIX/emit" $'\0013to the journal\n' 2>&5
	file_is "$BATS_TEST_TMPDIR/stream" $'<3>to the journal\n'
	JOURNAL_STREAM=1:2 shim "$FIX/emit" $'\0013not the journal\n' 2>"$BATS_TEST_TMPDIR/other"
	file_is "$BATS_TEST_TMPDIR/other" $'not the journal\n'
}

# Both daemons' sockets name nothing: each output falls back to stderr.
down() {
	capture shim env PRINTK_SHIM_OUTPUT="$1" PRINTK_SHIM_SYSLOG_SOCKET="$BATS_TEST_TMPDIR/syslog" \
		PRINTK_SHIM_JOURNAL_SOCKET="$BATS_TEST_TMPDIR/journal" "$FIX/emit" $'\0016a\n' $'\0013b\n'
	[ "$status" -eq 0 ]
}

@test "outputs: syslog,fd:2 with syslog down writes each line once: fd:2 is stderr" {
	down syslog,fd:2
	err_is "printk-shim: warning: syslog: $BATS_TEST_TMPDIR/syslog: No such file or directory; writing its lines to stderr until it is back
a
b
"
}

@test "outputs: syslog,journal with both down writes each line once on stderr" {
	down syslog,journal
	err_is "printk-shim: warning: syslog: $BATS_TEST_TMPDIR/syslog: No such file or directory; writing its lines to stderr until it is back
a
printk-shim: warning: journal: $BATS_TEST_TMPDIR/journal: No such file or directory; writing its lines to stderr until it is back
b
"
}

@test "outputs: deferred, syslog,journal with both down writes each line once on stderr" {
	capture shim env PRINTK_SHIM_DEFER=1 PRINTK_SHIM_OUTPUT=syslog,journal \
		PRINTK_SHIM_SYSLOG_SOCKET="$BATS_TEST_TMPDIR/syslog" \
		PRINTK_SHIM_JOURNAL_SOCKET="$BATS_TEST_TMPDIR/journal" "$FIX/emit" $'\0016a\n' $'\0013b\n'
	[ "$status" -eq 0 ]
	# the printer sends a batch to each daemon in turn, so where the second
	# warning falls depends on how the lines were batched: compare sorted
	[ "$(sort "$ERR")" = "$(sort <<EOF
printk-shim: warning: syslog: $BATS_TEST_TMPDIR/syslog: No such file or directory; writing its lines to stderr until it is back
a
b
printk-shim: warning: journal: $BATS_TEST_TMPDIR/journal: No such file or directory; writing its lines to stderr until it is back
EOF
)" ]
}

@test "outputs: syslog,stdout with syslog down and stdout on stderr's file writes each line once" {
	shim env PRINTK_SHIM_OUTPUT=syslog,stdout PRINTK_SHIM_SYSLOG_SOCKET="$BATS_TEST_TMPDIR/syslog" \
		"$FIX/emit" $'\0016a\n' >"$BATS_TEST_TMPDIR/both" 2>&1
	file_is "$BATS_TEST_TMPDIR/both" "printk-shim: warning: syslog: $BATS_TEST_TMPDIR/syslog: No such file or directory; writing its lines to stderr until it is back
a
"
}
