#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# printk-shim(7) ENVIRONMENT and DIAGNOSTICS: each variable read once; a bad value gives one warning and
# the default; a valid configuration says nothing.

load helper

# bad VAR VALUE EXPECT DEFAULT: one warning, then the default applies
bad() {
	capture shim env "PRINTK_SHIM_$1=$2" "$FIX/emit" $'\0016ok\n'
	[ "$status" -eq 0 ]
	err_is "printk-shim: warning: PRINTK_SHIM_$1=\"$2\": expected $3; using $4"$'\nok\n'
}

@test "config: a valid configuration prints nothing" {
	capture shim env PRINTK_SHIM_LEVEL=info PRINTK_SHIM_DEFAULT_LEVEL=warning PRINTK_SHIM_CONT=strict \
		PRINTK_SHIM_FORMAT=plain PRINTK_SHIM_TIME=0 PRINTK_SHIM_CALLER=no PRINTK_SHIM_COLOR=never \
		PRINTK_SHIM_LINE_MAX=2048 PRINTK_SHIM_OUTPUT=stderr PRINTK_SHIM_LEGACY_MARKERS=1 \
		PRINTK_SHIM_CRASH_FLUSH=1 PRINTK_SHIM_DEBUG=0 PRINTK_SHIM_LINT=0 PRINTK_SHIM_DISABLE=0 \
		PRINTK_SHIM_SYSLOG_FACILITY=local3 PRINTK_SHIM_SYSLOG_IDENT=x PRINTK_SHIM_SYSLOG_FORMAT=rfc5424 \
		PRINTK_SHIM_SYSLOG_SOCKET=/dev/log "$FIX/emit" $'\0016ok\n'
	err_is $'ok\n'
}

@test "config: an empty value counts as unset" {
	capture shim env PRINTK_SHIM_LEVEL= PRINTK_SHIM_OUTPUT= "$FIX/emit" $'\0017ok\n'
	err_is $'ok\n'
}

@test "config: PRINTK_SHIM_OUTPUT invalid" {
	bad OUTPUT sislog 'stderr|stdout|syslog|journal|file:PATH|fd:N[,...] (at most 8; PATH absolute, under 1024 bytes)' stderr
	bad OUTPUT 'stderr,sislog' 'stderr|stdout|syslog|journal|file:PATH|fd:N[,...] (at most 8; PATH absolute, under 1024 bytes)' stderr
	bad OUTPUT 'file:relative' 'stderr|stdout|syslog|journal|file:PATH|fd:N[,...] (at most 8; PATH absolute, under 1024 bytes)' stderr
	bad OUTPUT 'fd:x' 'stderr|stdout|syslog|journal|file:PATH|fd:N[,...] (at most 8; PATH absolute, under 1024 bytes)' stderr
	bad OUTPUT 'fd:11,fd:12,fd:13,fd:14,fd:15,fd:16,fd:17,fd:18,fd:19' \
		'stderr|stdout|syslog|journal|file:PATH|fd:N[,...] (at most 8; PATH absolute, under 1024 bytes)' stderr
}

@test "config: PRINTK_SHIM_LEVEL and DEFAULT_LEVEL invalid" {
	levels='0..7 or emerg|alert|crit|err|warn|notice|info|debug'
	bad LEVEL 8 "$levels" debug
	bad LEVEL loud "$levels" debug
	bad DEFAULT_LEVEL -1 "$levels" 4
}

@test "config: enumerations invalid" {
	bad CONT loose 'legacy|strict' legacy
	bad FORMAT xml 'auto|plain|prefix|dmesg|kmsg|json' auto
	bad COLOR sometimes 'auto|always|never' auto
	bad SYSLOG_FORMAT rfc9999 'rfc3164|rfc5424' rfc3164
}

@test "config: booleans invalid" {
	for v in DISABLE LEGACY_MARKERS TIME CALLER CRASH_FLUSH DEBUG LINT; do
		d=0
		[ "$v" = LEGACY_MARKERS ] || [ "$v" = CRASH_FLUSH ] && d=1
		bad "$v" maybe '0|1|no|yes|off|on|false|true' "$d"
	done
}

@test "config: PRINTK_SHIM_LINE_MAX invalid" {
	bad LINE_MAX 0 '1..1048576' 1024
	bad LINE_MAX 10k '1..1048576' 1024
	bad LINE_MAX 2000000 '1..1048576' 1024
}

@test "config: syslog variables invalid; kern is refused" {
	bad SYSLOG_FACILITY kern 'user|mail|daemon|auth|syslog|lpr|news|uucp|cron|authpriv|ftp|local0..local7' user
	bad SYSLOG_SOCKET relative/path 'an absolute socket path under 108 bytes' /dev/log
	bad SYSLOG_IDENT 'two words' 'a word under 64 bytes without spaces, control characters, brackets or colons' "the program's name"
}

@test "config: a value past its limit, or with a control byte, is refused naming the limit" {
	local w='a word under 64 bytes without spaces, control characters, brackets or colons'
	bad SYSLOG_IDENT "$(printf 'b%.0s' $(seq 64))" "$w" "the program's name"
	capture shim env PRINTK_SHIM_SYSLOG_IDENT=$'ev\ril\x1bc' "$FIX/emit" $'\0016ok\n'
	err_is "printk-shim: warning: PRINTK_SHIM_SYSLOG_IDENT=\"ev\\ril\\x1bc\": expected $w; using the program's name"$'\nok\n'
	# C1 controls too, raw or as UTF-8; other UTF-8 is a word's
	capture shim env PRINTK_SHIM_SYSLOG_IDENT=$'a\xc2\x85b\x9bc' "$FIX/emit" $'\0016ok\n'
	err_is "printk-shim: warning: PRINTK_SHIM_SYSLOG_IDENT=\"a\\xc2\\x85b\\x9bc\": expected $w; using the program's name"$'\nok\n'
	capture shim env PRINTK_SHIM_SYSLOG_IDENT=$'caf\xc3\xa9\xe2\x82\xac' "$FIX/emit" $'\0016ok\n'
	err_is $'ok\n'
	bad SYSLOG_SOCKET "/$(printf 'c%.0s' $(seq 107))" 'an absolute socket path under 108 bytes' /dev/log
	bad SYMBOLS "$(printf 'f%.0s' $(seq 64))" \
		'NAME[:v][,NAME[:v]...] (at most 16, each NAME a C identifier under 64 bytes)' none
	# under the limits, all three are taken
	capture shim env PRINTK_SHIM_SYSLOG_IDENT="$(printf 'b%.0s' $(seq 63))" \
		PRINTK_SHIM_SYSLOG_SOCKET="/$(printf 'c%.0s' $(seq 106))" \
		PRINTK_SHIM_SYMBOLS="$(printf 'f%.0s' $(seq 63))" "$FIX/emit" $'\0016ok\n'
	err_is $'ok\n'
}

@test "config: one warning per bad variable, even with several threads" {
	capture shim env PRINTK_SHIM_LEVEL=x PRINTK_SHIM_CONT=y "$FIX/threads" 4 10
	[ "$(grep -c '^printk-shim: warning:' "$ERR")" -eq 2 ]
	[ "$(grep -vc '^printk-shim' "$ERR")" -eq 40 ]
}

@test "config: an output that cannot be opened is skipped with a warning" {
	capture shim env PRINTK_SHIM_OUTPUT="file:/nonexistent/dir/log,stderr" "$FIX/emit" $'\0016ok\n'
	err_is $'printk-shim: warning: PRINTK_SHIM_OUTPUT: file:/nonexistent/dir/log: No such file or directory; skipping it\nok\n'
	capture shim env PRINTK_SHIM_OUTPUT=fd:9 "$FIX/emit" $'\0016ok\n'
	err_is $'printk-shim: warning: PRINTK_SHIM_OUTPUT: fd:9: Bad file descriptor; skipping it\nprintk-shim: warning: PRINTK_SHIM_OUTPUT: no usable output left; using stderr\nok\n'
}

@test "config: PRINTK_SHIM_DISABLE=1 forwards every call to the next printk unchanged" {
	capture "$FIX/emit" $'\0016foo' $'bar\n' @d $'%d\n' 7
	cp "$ERR" "$BATS_TEST_TMPDIR/naive"
	capture shim env PRINTK_SHIM_DISABLE=1 "$FIX/emit" @ret $'\0016foo' $'bar\n' @d $'%d\n' 7
	cmp "$ERR" "$BATS_TEST_TMPDIR/naive"
	out_is $'5 errno-kept\n4 errno-kept\n2 errno-kept\n'
}

@test "config: PRINTK_SHIM_DISABLE=1 with no next printk writes the text without markers" {
	capture shim env PRINTK_SHIM_DISABLE=1 "$FIX/dlcall" $'\0016from dlsym\n'
	err_is $'from dlsym\n'
	out_is $'10\n'		# the kernel's count: no marker, no final newline
	capture shim env PRINTK_SHIM_DISABLE=1 "$FIX/dlcall" $'\0016no newline'
	err_is 'no newline'
	out_is $'10\n'
}

@test "config: without DISABLE, a printk found with dlsym is the shim's" {
	capture shim env PRINTK_SHIM_FORMAT=prefix "$FIX/dlcall" $'\0016from dlsym\n'
	err_is $'<6>from dlsym\n'
}

@test "config: an output listed twice is used once, with one warning" {
	capture shim env PRINTK_SHIM_OUTPUT=stderr,fd:2,stderr "$FIX/emit" $'\0016once\n'
	[ "$status" -eq 0 ]
	err_is $'printk-shim: warning: PRINTK_SHIM_OUTPUT: output 2 repeats output 1; using it once\nonce\n'
	capture shim env PRINTK_SHIM_OUTPUT="stdout,fd:1,file:$BATS_TEST_TMPDIR/l,file:$BATS_TEST_TMPDIR/l" \
		"$FIX/emit" $'\0016twice?\n'
	out_is $'twice?\n'
	file_is "$BATS_TEST_TMPDIR/l" $'twice?\n'
}

@test "config: one file under two names, or stderr's file by name, is written once, with one warning" {
	capture shim env PRINTK_SHIM_OUTPUT="file:$BATS_TEST_TMPDIR/l,file:$BATS_TEST_TMPDIR/./l,file:$BATS_TEST_TMPDIR//l" \
		"$FIX/emit" $'\0016once\n'
	[ "$status" -eq 0 ]
	err_is $'printk-shim: warning: PRINTK_SHIM_OUTPUT: output 2 writes to the same file as output 1; using it once\n'
	file_is "$BATS_TEST_TMPDIR/l" $'once\n'
	: >"$BATS_TEST_TMPDIR/e"
	env LD_PRELOAD="$MODULE" PRINTK_SHIM_OUTPUT="stderr,file:/dev/stderr" "$FIX/emit" $'\0016once\n' \
		2>>"$BATS_TEST_TMPDIR/e"
	file_is "$BATS_TEST_TMPDIR/e" $'printk-shim: warning: PRINTK_SHIM_OUTPUT: output 2 writes to the same file as output 1; using it once\nonce\n'
	: >"$BATS_TEST_TMPDIR/e"
	env LD_PRELOAD="$MODULE" PRINTK_SHIM_OUTPUT="file:/dev/stderr,stderr" "$FIX/emit" $'\0016once\n' \
		2>>"$BATS_TEST_TMPDIR/e"
	file_is "$BATS_TEST_TMPDIR/e" $'printk-shim: warning: PRINTK_SHIM_OUTPUT: output 2 writes to the same file as output 1; using it once\nonce\n'
}

@test "config: a long value is quoted cut, so that its warning still says what was expected and what is used" {
	local v
	v=$(printf '\033%.0s' $(seq 2000))
	capture shim env PRINTK_SHIM_LEVEL="$v" "$FIX/emit" $'\0016ok\n'
	[ "$status" -eq 0 ]
	err_is "printk-shim: warning: PRINTK_SHIM_LEVEL=\"$(printf '\\x1b%.0s' $(seq 160))...\": expected 0..7 or emerg|alert|crit|err|warn|notice|info|debug; using debug"$'\nok\n'
}

@test "config: a quoted value's C1 controls are escaped, raw or in UTF-8; other UTF-8 is kept" {
	capture shim env PRINTK_SHIM_LEVEL=$'a\x9b31mb\xc2\x9bc\xc3\xa9\xe2\x82\xac' "$FIX/emit" $'\0016ok\n'
	[ "$status" -eq 0 ]
	err_is $'printk-shim: warning: PRINTK_SHIM_LEVEL="a\\x9b31mb\\xc2\\x9bc\xc3\xa9\xe2\x82\xac": expected 0..7 or emerg|alert|crit|err|warn|notice|info|debug; using debug\nok\n'
}
