#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# printk-shim(7) OUTPUTS AND FORMATS, JSON lines: one RFC 8259 object per
# line with the documented keys, valid UTF-8 whatever the text, read back by
# jq and by Python's json module.

load helper

TIME_RE='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$'

# json_run FILE ARGS...: run ARGS under the shim with FORMAT=json; its pid in FILE.pid
json_run() {
	local f=$1
	shift
	capture shim env PRINTK_SHIM_FORMAT=json sh -c 'echo $$ >"$0"; exec "$@"' "$f.pid" "$@"
}

# the object of each line, with its time checked against TIME_RE and left out
untimed() {
	jq -c --arg re "$TIME_RE" 'if (.time | test($re)) then del(.time) else "bad time: \(.time)" end' "$@"
}

@test "json: the keys of a line, the caller when the symbol table names it" {
	json_run "$BATS_TEST_TMPDIR/p" "$FIX/journal-site"
	[ "$status" -eq 0 ]
	pid=$(cat "$BATS_TEST_TMPDIR/p.pid")
	[ "$(grep -c '' "$ERR")" -eq 1 ]
	[ "$(untimed "$ERR")" = '{"level":4,"level_name":"warn","pid":'"$pid"',"tid":'"$pid"',"ident":"journal-site","caller":"acme_report","msg":"acme: temperature 72 C"}' ]
	grep -q '^{"time":"[^"]*","level":4,' "$ERR"
}

@test "json: the exact bytes of quotes, control bytes, backslashes and invalid UTF-8" {
	json_run "$BATS_TEST_TMPDIR/p" "$FIX/emit" $'\0013a"b\\c\x01\t\x7f\xff\xc3\xa9\xed\xa0\x80\xe2\x82\n'
	pid=$(cat "$BATS_TEST_TMPDIR/p.pid")
	# emit's printk call is in a static function: "caller" names it, as the compiler renamed it
	sed 's/"time":"[^"]*",//; s/"caller":"[^"]*",//' "$ERR" >"$BATS_TEST_TMPDIR/got"
	file_is "$BATS_TEST_TMPDIR/got" '{"level":3,"level_name":"err","pid":'"$pid"',"tid":'"$pid"',"ident":"emit","msg":"a\"b\\x5cc\u0001\t\u007f\\xffé\\xed\\xa0\\x80\\xe2\\x82"}'$'\n'
	iconv -f UTF-8 -t UTF-8 "$ERR" >/dev/null
	[ "$(jq -r .msg "$ERR")" = $'a"b\\x5cc\x01\t\x7f\\xff\xc3\xa9\\xed\\xa0\\x80\\xe2\\x82' ]
	python3 -c 'import json, sys; m = json.loads(open(sys.argv[1], encoding="utf-8").read())["msg"]; assert m == "a\"b\\x5cc\x01\t\x7f\\xff\u00e9\\xed\\xa0\\x80\\xe2\\x82", repr(m)' "$ERR"
}

@test "json: a line longer than LINE_MAX is cut into pieces between characters, never inside one" {
	local line=x
	for _ in $(seq 1 20); do line+='жж€'; done	# 141 bytes
	capture shim env PRINTK_SHIM_FORMAT=json PRINTK_SHIM_LINE_MAX=16 "$FIX/emit" $'\0016'"$line"$'\n'
	[ "$status" -eq 0 ]
	[ "$(jq -j .msg "$ERR")" = "$line" ]	# no \xNN: each piece's bytes are whole characters
	[ "$(jq -r .msg "$ERR" | head -n 3)" = $'xжж€жж€\nжж€жж€ж\nж€жж€жж' ]
	[ "$(jq -c '[.level, (.msg | utf8bytelength)]' "$ERR" | tr -d '\n')" = \
		'[6,15][6,16][6,16][6,14][6,14][6,14][6,14][6,14][6,14][6,10]' ]
}

@test "json: continuation fragments make one object, at the first fragment's level" {
	json_run "$BATS_TEST_TMPDIR/p" "$FIX/emit" $'\0016eth0: ' $'\001clink ' $'\001cup\n' $'\0014next\n'
	[ "$(jq -c '[.level, .msg]' "$ERR")" = $'[6,"eth0: link up"]\n[4,"next"]' ]
}

@test "json: on a file output too, never coloured" {
	capture shim env PRINTK_SHIM_FORMAT=json PRINTK_SHIM_COLOR=always \
		PRINTK_SHIM_OUTPUT="stderr,file:$BATS_TEST_TMPDIR/log" "$FIX/emit" $'\0012boom\n'
	cmp "$ERR" "$BATS_TEST_TMPDIR/log"
	[ "$(jq -r .msg "$BATS_TEST_TMPDIR/log")" = boom ]
	run ! grep -q $'\033' "$ERR"
}

@test "json: 8 threads, every line an object, whole and in order per thread" {
	capture shim env PRINTK_SHIM_FORMAT=json "$FIX/threads" 8 500
	[ "$status" -eq 0 ]
	[ "$(grep -c '' "$ERR")" -eq 4000 ]
	jq -r .msg "$ERR" >"$BATS_TEST_TMPDIR/msgs"
	for t in 0 1 2 3 4 5 6 7; do
		grep "^t$t " "$BATS_TEST_TMPDIR/msgs" | awk -v t="$t" '
			{ if ($1 != "t" t || $2 != "l" NR - 1 || $NF != "end") { print "bad: " $0; exit 1 } }
			END { if (NR != 500) { print NR " lines"; exit 1 } }'
	done
}

@test "json: the caller of a static function of a program without -rdynamic, from .symtab" {
	json_run "$BATS_TEST_TMPDIR/p" "$FIX/names" line
	[ "$status" -eq 0 ]
	[ "$(jq -r .caller "$ERR")" = port_probe ]
}

# A program named with control bytes: each byte of its ident takes 6 in
# the record, more than the room the context's buffer was given, and the
# record ran past it (a crash at LINE_MAX=213, 3 runs of 3).
@test "json: an ident of 63 control bytes and a line of LINE_MAX of them fit the record's room" {
	local name
	name=$(printf '\001%.0s' $(seq 63))
	capture shim env PRINTK_SHIM_FORMAT=json PRINTK_SHIM_LINE_MAX=213 \
		bash -c 'exec -a "$1" "$2" "$3" "$4"' sh "$name" "$FIX/emit" "$(printf '\0013'; printf '\001%.0s' $(seq 213))"$'\n' $'\0013after\n'
	[ "$status" -eq 0 ]
	run jq -r '.ident | length' "$ERR"
	[ "$output" = $'63\n63' ]
	run jq -r '.msg' "$ERR"
	[ "${lines[1]}" = after ]
}

# fork_ids HOW [@thread]: a line, a child made by HOW (@vfork or @_Fork),
# from the main thread or another, and a line in each: the child's names
# the pid its parent says it has, and the same thread id (its one thread),
# the parent's lines the parent's own; written at once and deferred.
fork_ids() {
	local pid tid child
	for defer in 0 1; do
		json_run "$BATS_TEST_TMPDIR/p" env PRINTK_SHIM_DEFER=$defer "$FIX/emit" "${@:2}" \
			@ids before "$1" @ids by
		[ "$status" -eq 0 ]
		pid=$(cat "$BATS_TEST_TMPDIR/p.pid")
		child=$(sed -n 's/^child //p' "$OUT")
		[ -n "$child" ]
		[ "$child" != "$pid" ]
		run jq -r '"\(.pid) \(.tid) \(.msg)"' "$ERR"
		[ "${#lines[@]}" -eq 3 ]
		tid=${lines[0]##*=}
		[ "${lines[0]}" = "$pid $tid before pid=$pid tid=$tid" ]
		[ "${lines[1]}" = "$child $child by pid=$child tid=$child" ]
		[ "${lines[2]}" = "$pid $tid by pid=$pid tid=$tid" ]
	done
}

# The pid cache lies in the memory a vfork child shares with its parent.
@test "json: a vfork child's line names its own pid, from the main thread or another" {
	fork_ids @vfork
	fork_ids @vfork @thread
}

# _Fork runs no fork handler: the module's _Fork tells its child itself.
@test "json: a _Fork child's line names its own thread, from the main thread or another" {
	fork_ids @_Fork
	fork_ids @_Fork @thread
}
