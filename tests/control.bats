#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Runtime control (printk-shim(7) RUNTIME CONTROL): printk-shim --pid and
# --all against a running port, tests/fixtures/ctl-run, fed one command a
# line through a FIFO, so that it prints only when a test says. Each test
# has a runtime directory of its own, so --all sees only its processes.

load helper
load ctl-helper

setup() {
	ctl_setup
	BUILT=$(grep -n 'pr_debug("built' "$abs_top_srcdir/tests/fixtures/ctl-run.c" | cut -d: -f1)
	PLAIN=$(grep -n 'printk("\\0017plain' "$abs_top_srcdir/tests/fixtures/ctl-run.c" | cut -d: -f1)
}

@test "control: the level is raised and lowered while the port runs" {
	start PRINTK_SHIM_LEVEL=info
	# hidden three times: the last two measured by the filter's quick path
	tell "info a" "plain hidden" "plain hidden" "plain hidden"
	done_
	ctl --pid="$PID" --level=debug
	[ "$status" -eq 0 ]
	[ ! -s "$ERR" ]
	tell "plain b"
	done_
	ctl --pid="$PID" --level=warn
	[ "$status" -eq 0 ]
	tell "info hidden" "plain hidden" "info hidden" "plain hidden" "plain hidden"
	done_
	ctl --pid="$PID" --level=6
	tell "info c" "plain hidden"
	quit
	file_is "$PE" $'info a\nplain b\ninfo c\n'
}

@test "control: dyndbg queries reach sites built with the headers and unmodified ones" {
	start
	tell "built off" "plain on"
	done_
	ctl --pid="$PID" --dyndbg='func built +p'
	[ "$status" -eq 0 ]
	tell "built on"
	done_
	ctl --pid="$PID" --dyndbg='func plain -p'
	tell "plain off" "built on2"
	done_
	ctl --pid="$PID" --dyndbg='+mf; func built -p'
	tell "built off2" "plain off2"
	done_
	ctl --pid="$PID" --dyndbg='func plain +p'
	tell "plain on2"
	quit
	file_is "$PE" $'plain on\nbuilt on\nbuilt on2\nctl-run:plain: plain on2\n'
}

# The rules kept every query written: after 16 turns on and off, the
# command refused each one more, "its dynamic debug rules are full".
@test "control: dyndbg queries turned on and off 100 times: each takes, the rules never fill" {
	local i want=
	start PRINTK_SHIM_DYNDBG='func other +p'
	for i in $(seq 1 100); do
		ctl --pid="$PID" --dyndbg='func built +p' --dyndbg='func plain +p'
		[ "$status" -eq 0 ]
		tell "built on$i" "plain on$i"
		done_
		ctl --pid="$PID" --dyndbg='func built -p; func plain -p'
		[ "$status" -eq 0 ]
		tell "built off$i" "plain off$i"
		done_
		want+="built on$i"$'\n'"plain on$i"$'\n'
	done
	ctl --pid="$PID"
	[ "$status" -eq 0 ]
	# the last ones the request holds, each whole
	[ "$(grep '^dyndbg since: ' "$OUT" | tail -n 1)" = 'dyndbg since: func built -p; func plain -p' ]
	[ "$(grep -c '^dyndbg since: ' "$OUT")" -lt 200 ]
	[ -z "$(grep '^dyndbg since: ' "$OUT" | grep -vx -e 'dyndbg since: func built +p;func plain +p' \
		-e 'dyndbg since: func built -p; func plain -p')" ]
	quit
	file_is "$PE" "$want"
}

@test "control: repeated --dyndbg options add up, in order" {
	start
	ctl --pid="$PID" --dyndbg='func built +p' --dyndbg='func plain -p' --dyndbg='func built +f'
	[ "$status" -eq 0 ]
	tell "built on" "plain off"
	quit
	file_is "$PE" $'built: built on\n'
}

@test "control: a query that fills the request's 4096 bytes exactly is listed" {
	local q
	q="$(printf '%*s' 4093 '')+p"	# and its newline: 4096 bytes
	start
	ctl --pid="$PID" --dyndbg="$q"
	[ "$status" -eq 0 ]
	ctl --pid="$PID"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^dyndbg since: ' "$OUT")" -eq 1 ]
	quit
}

# The command counted the rules in force, those waiting and the new ones
# before the process merged them: with 32 rules in force, a query that
# undid one was refused, and so was the undoing of a query of 2100 bytes.
@test "control: rules in force full: a query that undoes or changes one of them is taken, and merged" {
	local i
	start PRINTK_SHIM_DYNDBG='func zz +p'
	for i in $(seq 1 30); do
		asks --dyndbg="func f$i +p"
		tell "info x"
		done_
	done
	asks --dyndbg='func built +p'
	tell "built on"
	done_
	asks --dyndbg='func built -p'
	tell "built off"
	done_
	asks --dyndbg='func f30 -p; func built +pf'
	tell "built on2"
	quit
	file_is "$PE" "$(printf 'info x\n%.0s' {1..30})"$'\nbuilt on\nbuilt: built on2\n'
}

@test "control: a query of 2100 bytes of words, then its undoing: both taken, one rule" {
	local a
	a=$(printf 'a%.0s' {1..2100})
	start
	asks --dyndbg="func $a +p"
	tell "info y"
	done_
	asks --dyndbg="func $a -p"
	asks --dyndbg="func built +p"
	tell "built on"
	quit
	file_is "$PE" $'info y\nbuilt on\n'
}

# Past the rules' room even merged, a query still changes the sites loaded
# now, as a write to the kernel's control file does, and the process says
# that objects loaded later do not see it.
@test "control: a query past the rules' room even merged changes the sites there now, with a warning" {
	local z star
	z=$(printf 'z%.0s' {1..3000})
	star=$(printf '*%.0s' {1..1100})
	start PRINTK_SHIM_DYNDBG="func $z -p"
	asks --dyndbg="func built$star +p"
	tell "built on"
	quit
	file_is "$PE" $'printk-shim: warning: --dyndbg: more than 32 queries, or 4096 bytes of their words, in all, even merged; the last ones changed the sites loaded now, but objects loaded from now on do not see them\nbuilt on\n'
}

@test "control: queries that alone pass what the process takes at once are refused, nothing changed" {
	local q
	q=$(for i in $(seq 1 20); do printf 'func f%d +p;' "$i"; done)
	start
	asks --dyndbg="$q"
	ctl --pid="$PID" --dyndbg="$q"
	[ "$status" -eq 1 ]
	err_is "printk-shim: pid $PID: these queries and those it has not taken yet pass what it takes at once (at most 32 queries, 4096 bytes of their words); nothing is changed
"
	tell "built off"
	done_
	asks --dyndbg="$q"
	asks --dyndbg="func built +p"
	tell "built on"
	quit
	file_is "$PE" $'built on\n'
}

@test "control: the listing names each site's class, and a pending query treats it as the process will" {
	local src
	src=$(grep -ao '[^[:space:][:cntrl:]]*fixtures/dd-class\.c' "$FIX/dd-class" | head -n 1)
	env LD_PRELOAD="$MODULE" "$FIX/dd-class" wait <"$IN" >"$PO" 2>"$PE" &
	BG=$!
	exec 7>"$IN"
	for _ in $(seq 1 200); do	# until its sites are listed
		grep -qa 'plain %d' "$CTL/$BG.ctl" 2>/dev/null && break
		sleep 0.05
	done
	# pending until its next call: a query without "class" leaves classed sites alone
	ctl --pid="$BG" --dyndbg='class D2_CORE +p; +p'
	[ "$status" -eq 0 ]
	ctl --pid="$BG"
	[ "$status" -eq 0 ]
	# in the order the object holds them
	[ "$(tail -n 4 "$OUT")" = "$src:32 [ddcls]main =p \"plain %d\\n\"
$src:31 [ddcls]main =_ \"kms %d\\n\" class:D2_KMS
$src:30 [ddcls]main =_ \"driver %d\\n\" class:D2_DRIVER
$src:29 [ddcls]main =p \"core %d\\n\" class:D2_CORE" ]
	quit
}

@test "control: a query is kept for an object loaded after it" {
	start
	ctl --pid="$PID" --dyndbg='func ddlate_hello +pf'
	[ "$status" -eq 0 ]
	tell "info before"
	tell "dlopen $FIX/.libs/libddlate.so"
	quit
	file_is "$PE" $'info before\nddlate_hello: hello 1\n'
}

@test "control: a query after an object was dlclose'd leaves it alone" {
	start
	tell "dlopen $FIX/.libs/libddlate.so" dlclose
	done_
	ctl --pid="$PID" --dyndbg='+p'
	[ "$status" -eq 0 ]
	tell "built after"
	quit
	file_is "$PE" $'built after\n'
}

@test "control: --all changes every process of the caller's" {
	start PRINTK_SHIM_LEVEL=info
	first=$PID first_bg=$BG
	exec 8>&7
	rm -f "$IN"
	mkfifo "$IN"
	PE=$BATS_TEST_TMPDIR/perr2 PO=$BATS_TEST_TMPDIR/pout2
	start PRINTK_SHIM_LEVEL=info
	ctl --all --level=debug
	[ "$status" -eq 0 ]
	[ ! -s "$ERR" ]
	ctl --all
	[ "$(grep -c '^level: 7 (debug)$' "$OUT")" -eq 2 ]
	grep -qx "pid: $first" "$OUT"
	grep -qx "pid: $PID" "$OUT"
	tell "plain second"
	printf 'plain first\nquit\n' >&8
	exec 8>&-
	wait "$first_bg"
	quit
	file_is "$BATS_TEST_TMPDIR/perr" $'plain first\n'
	file_is "$PE" $'plain second\n'
}

@test "control: a process that never printed is listed, and a change shows before its next call" {
	start PRINTK_SHIM_LEVEL=info PRINTK_SHIM_OUTPUT=stderr,file:"$LOG"
	done_
	ctl --pid="$PID" --level=debug --dyndbg='func built +pl'
	[ "$status" -eq 0 ]
	ctl --pid="$PID"
	[ "$status" -eq 0 ]
	[ ! -s "$ERR" ]
	out_is "pid: $PID
program: ctl-run
level: 7 (debug)
default level: 4 (warn)
format: plain
deferred: no
dyndbg: none
dyndbg since: func built +pl
output 1: stderr, 0 lines lost
output 2: file:$LOG, 0 lines lost
reopens: 0
dynamic debug sites: 1
# filename:lineno [module]function flags format
$SRC:$BUILT [ctl-run]built =pl \"built %s\\n\"
"
	[ ! -s "$PE" ]
}

@test "control: the listing names unmodified sites once called, with their flags now" {
	start PRINTK_SHIM_DYNDBG='func plain +p'
	tell "plain x"
	done_
	ctl --pid="$PID" --dyndbg='func plain +t'
	ctl --pid="$PID"
	[ "$status" -eq 0 ]
	[ "$(grep -c ' \[ctl-run\]' "$OUT")" -eq 2 ]
	grep -qxF "$SRC:$BUILT [ctl-run]built =_ \"built %s\\n\"" "$OUT"
	# the file of an unmodified site is DWARF's name for it, which a VPATH build may spell otherwise
	grep -qx "[^ ]*ctl-run\.c:$PLAIN \[ctl-run\]plain =pt \"plain %s\\\\n\"" "$OUT"
	grep -qx 'dyndbg: func plain +p' "$OUT"
}

# A waiting query was matched against the names as the listing escapes
# them: a format's newline never matched its query's "\n".
@test "control: the listing applies a waiting format query whose format has a newline" {
	start
	asks --dyndbg='format "built %s\n" +p'
	ctl --pid="$PID"
	[ "$status" -eq 0 ]
	grep -qxF "$SRC:$BUILT [ctl-run]built =p \"built %s\\n\"" "$OUT"
	tell "built on"
	quit
	file_is "$PE" $'built on\n'
}

@test "control: --reopen after a rename writes to the new file; nothing is lost" {
	start PRINTK_SHIM_OUTPUT=file:"$LOG"
	tell "info a" "info b"
	done_
	mv "$LOG" "$LOG.1"
	tell "info c"
	done_
	ctl --pid="$PID" --reopen
	[ "$status" -eq 0 ]
	[ ! -s "$ERR" ]
	tell "info d"
	quit
	# "info c" goes to the renamed file, or to the new one when the path
	# was checked before it (the first line of each second follows it, as
	# tail -F does): in order either way, and once.
	run cat "$LOG.1" "$LOG"
	[ "$output" = $'info a\ninfo b\ninfo c\ninfo d' ]
	[ "$(head -n 2 "$LOG.1")" = $'info a\ninfo b' ]
	[ "$(tail -n 1 "$LOG")" = 'info d' ]
}

@test "control: deferred, --reopen writes the ring's lines to the file as it was first" {
	# a printer that naps 10 s after its first line: "info b" waits in the ring
	start PRINTK_SHIM_OUTPUT=file:"$LOG" PRINTK_SHIM_DEFER=1 PRINTK_SHIM_DEFER_LATENCY=10000
	tell "info a"
	wait_line "$LOG" "info a"
	tell "info b"
	done_
	mv "$LOG" "$LOG.1"
	ctl --pid="$PID" --reopen
	[ "$status" -eq 0 ]
	tell "info c"
	quit
	file_is "$LOG.1" $'info a\ninfo b\n'
	file_is "$LOG" $'info c\n'
}

@test "control: a thread cancelled while it applies a request lets the others go on" {
	mkdir "$BATS_TEST_TMPDIR/d"
	capture timeout 30 env LD_PRELOAD="$MODULE" PRINTK_SHIM_FORMAT=prefix \
		PRINTK_SHIM_OUTPUT=file:"$BATS_TEST_TMPDIR/d/log" ABN_DIR="$BATS_TEST_TMPDIR/d" \
		ABN_WRAPPER="$WRAPPER" "$FIX/abnormal" cancel-apply
	[ "$status" -eq 0 ]
	out_is $'later returned\n'
	# the cancelled call never started its line; the file was kept
	file_is "$BATS_TEST_TMPDIR/d.old/log" $'<5>M start\n<5>L later\n<5>U one two\n<5>M one two\n'
}

@test "control: --flush writes what the deferred ring holds before it returns" {
	start PRINTK_SHIM_DEFER=1 PRINTK_SHIM_DEFER_LATENCY=10000 PRINTK_SHIM_OUTPUT=file:"$LOG"
	tell "info first"
	wait_line "$LOG" "info first"
	tell "info a" "info b"
	done_
	file_is "$LOG" $'info first\n'	# the printer naps for 10 s
	ctl --pid="$PID" --flush
	[ "$status" -eq 0 ]
	[ ! -s "$ERR" ]
	file_is "$LOG" $'info first\ninfo a\ninfo b\n'
	quit
}

@test "control: --level moves the deferred lines' cut both ways; a line let through is written" {
	# the printer writes the first line, then sleeps until exit: each line
	# is written as its call let it through, whatever the level is by then
	start PRINTK_SHIM_DEFER=1 PRINTK_SHIM_DEFER_LATENCY=10000 PRINTK_SHIM_LEVEL=info \
		PRINTK_SHIM_OUTPUT=file:"$LOG"
	# from the second line of a format on, a line goes to the ring at once
	tell "info a" "info b" "plain hidden 1" "plain hidden 2" "info c"
	done_
	ctl --pid="$PID" --level=debug
	[ "$status" -eq 0 ]
	tell "plain shown 1" "plain shown 2" "info d"
	done_
	ctl --pid="$PID" --level=warning
	[ "$status" -eq 0 ]
	tell "info gone 1" "info gone 2" "plain gone"
	done_
	ctl --pid="$PID" --level=info
	[ "$status" -eq 0 ]
	tell "info e" "info f" "plain hidden 3"
	quit
	[ ! -s "$PE" ]
	file_is "$LOG" $'info a\ninfo b\ninfo c\nplain shown 1\nplain shown 2\ninfo d\ninfo e\ninfo f\n'
}

@test "control: --flush of a printer stuck in its first drain says it did not answer" {
	local pipe=$BATS_TEST_TMPDIR/pipe
	mkfifo "$pipe"
	exec 9<>"$pipe"	# read by nobody: the printer's first write blocks
	env PRINTK_SHIM_DEFER=1 LD_PRELOAD="$MODULE" "$FIX/ctl-run" <"$IN" >"$PO" 2>"$pipe" &
	BG=$!
	PID=$BG
	exec 7>"$IN"
	tell pid fill "info a"
	done_
	ctl --pid="$PID" --flush
	kill -KILL "$PID"	# first: stuck, it would hold teardown's wait
	wait "$BG" || true
	BG=
	exec 9<&-
	[ "$status" -eq 1 ]
	err_is "printk-shim: pid $PID: its deferred printer did not answer within 2 seconds
"
}

@test "control: --flush in a process that does not defer has nothing to do" {
	start
	ctl --pid="$PID" --flush
	[ "$status" -eq 0 ]
	[ ! -s "$ERR" ]
	[ ! -s "$OUT" ]
}

@test "control: --flush of a printer that idled or ended has nothing to do" {
	start PRINTK_SHIM_DEFER=1 PRINTK_SHIM_OUTPUT=file:"$LOG"
	tell "info a"
	wait_line "$LOG" "info a"
	sleep 0.2	# idle: its ring stayed empty
	ctl --pid="$PID" --flush
	[ "$status" -eq 0 ]
	[ ! -s "$ERR" ]
	sleep 1.5	# ended, after a second of idling
	ctl --pid="$PID" --flush
	[ "$status" -eq 0 ]
	[ ! -s "$ERR" ]
	tell "info b"	# the next line starts another printer
	wait_line "$LOG" "info b"
	quit
	file_is "$LOG" $'info a\ninfo b\n'
}

@test "control: an applier stuck in its warning holds other calls up once, not at each call" {
	# stderr a pipe nobody reads, filled: the thread that applies --reopen
	# blocks for good in its warning; the main thread's calls go on after
	# one wait of 2 s at most, where each used to wait 2 s of its own
	local pipe=$BATS_TEST_TMPDIR/pipe
	mkfifo "$pipe"
	exec 9<>"$pipe"
	env PRINTK_SHIM_OUTPUT=file:"$LOG" LD_PRELOAD="$MODULE" "$FIX/ctl-run" <"$IN" >"$PO" 2>"$pipe" &
	BG=$!
	PID=$BG
	exec 7>"$IN"
	tell pid fill "info a"
	wait_line "$LOG" "info a"
	mv "$LOG" "$LOG.1"
	mkdir "$LOG"	# opened again, it fails: a warning to say so
	ctl --pid="$PID" --reopen
	[ "$status" -eq 0 ]
	tell "thread stuck"
	sleep 0.5
	tell "info 1" "info 2" "info 3" "info 4" "info 5" "info 6" "info 7" "info 8"
	done_		# 10 s at most
	kill -KILL "$PID"
	wait "$BG" || true
	BG=
	exec 9<&-
	file_is "$LOG.1" $'info a\ninfo 1\ninfo 2\ninfo 3\ninfo 4\ninfo 5\ninfo 6\ninfo 7\ninfo 8\n'
}

@test "control: a vfork child leaves a --reopen to its parent" {
	start PRINTK_SHIM_OUTPUT=file:"$LOG"
	tell "info a"
	wait_line "$LOG" "info a"
	mv "$LOG" "$LOG.1"
	ctl --pid="$PID" --reopen
	[ "$status" -eq 0 ]
	tell "vfork child" "info b"
	quit
	file_is "$LOG.1" $'info a\ninfo child\n'
	file_is "$LOG" $'info b\n'
}

# A file: output's path is followed on the 64th line: when that line was a
# vfork child's, the child opened the new file in its own descriptors, and
# the memory it shares with its parent said the parent had it open: the
# child's line went to the new file, and the parent's went on into the
# rotated one, for good (as a CI run of this round saw, on a second's first
# line). The child now writes to its parent's file, and the parent follows.
@test "control: a vfork child never follows a file: output's path; its parent does" {
	local want=
	start PRINTK_SHIM_OUTPUT=file:"$LOG"
	for i in $(seq 1 63); do
		tell "info l$i"
		want+="info l$i"$'\n'
	done
	wait_line "$LOG" "info l63"
	mv "$LOG" "$LOG.1"
	tell "vfork child" "info b"
	quit
	file_is "$LOG.1" "${want}info child
"
	file_is "$LOG" $'info b\n'
}

@test "control: --all reaches every process, past the first table of pids" {
	local pids=() p
	for _ in $(seq 1 70); do
		LD_PRELOAD="$MODULE" sleep 60 &
		pids+=($!)
	done
	for _ in $(seq 1 500); do
		[ "$(ls "$CTL" 2>/dev/null | grep -c '\.ctl$')" -lt 70 ] || break
		sleep 0.01
	done
	ctl --all --level=err
	[ "$status" -eq 0 ]
	ctl --all
	kill "${pids[@]}"
	wait "${pids[@]}" 2>/dev/null || true
	[ "$status" -eq 0 ]
	[ "$(grep -c '^pid: ' "$OUT")" -eq 70 ]
	[ "$(grep -c '^level: 3 (err)$' "$OUT")" -eq 70 ]
}

@test "control: root controls a daemon that gave up root after its start" {
	start PRINTK_SHIM_LEVEL=info
	tell "plain hidden" drop
	done_
	[ "$(stat -c %u /proc/"$PID")" = 65534 ]
	ctl --pid="$PID" --level=debug
	[ "$status" -eq 0 ]
	[ ! -s "$ERR" ]
	tell "plain shown"
	quit
	file_is "$PE" $'plain shown\n'
}

@test "control: a process that exited and was not waited for is said to have exited" {
	local z
	start
	tell zombie
	for _ in $(seq 1 1000); do [ "$(wc -l <"$PO")" -lt 2 ] || break; sleep 0.01; done
	z=$(sed -n 2p "$PO")
	for _ in $(seq 1 500); do
		[ "$(cut -d' ' -f3 /proc/"$z"/stat)" = Z ] && break
		sleep 0.01
	done
	ctl --pid="$z"
	[ "$status" -eq 1 ]
	err_is "printk-shim: pid $z: it has exited (its parent has not yet waited for it)
"
	quit
}

@test "control: another user is refused; root is not" {
	public
	start PRINTK_SHIM_LEVEL=info
	capture as_nobody "$PWRAPPER" --pid="$PID" --level=debug
	[ "$status" -eq 1 ]
	err_is "printk-shim: pid $PID: permission denied: only its user and root may control it
"
	capture as_nobody "$PWRAPPER" --pid="$PID"
	[ "$status" -eq 1 ]
	[ ! -s "$OUT" ]
	tell "plain hidden"
	done_
	ctl --pid="$PID" --level=debug
	[ "$status" -eq 0 ]
	tell "plain shown"
	quit
	file_is "$PE" $'plain shown\n'
}

@test "control: a process of another user is that user's and root's to control" {
	public
	local dir=$NRUN/printk-shim
	start_nobody
	[ -f "$dir/$BG.ctl" ]
	[ "$(stat -c '%U %a' "$dir" "$dir/$BG.ctl")" = $'nobody 700\nnobody 600' ]
	ctl --pid="$BG" --dyndbg='func built +p'
	[ "$status" -eq 0 ]
	tell "built by root's leave"
	capture as_daemon "$PWRAPPER" --pid="$BG"
	[ "$status" -eq 1 ]
	err_is "printk-shim: pid $BG: permission denied: only its user and root may control it
"
	capture as_nobody "$PWRAPPER" --all --level=err
	[ "$status" -eq 0 ]
	[ ! -s "$ERR" ]
	tell "info hidden"
	quit
	file_is "$PE" $'built by root\'s leave\n'
	[ ! -e "$dir/$BG.ctl" ]
}

@test "control: a process that is not dumpable, as a set-ID one is, answers its effective user" {
	public
	start_nobody PRINTK_SHIM_LEVEL=info
	tell undumpable
	done_
	capture as_nobody cat "/proc/$BG/maps"
	[ "$status" -ne 0 ]	# the way through the maps is closed to it
	capture as_nobody "$PWRAPPER" --pid="$BG" --level=debug
	[ "$status" -eq 0 ]
	[ ! -s "$ERR" ]
	tell "plain by-nobody"
	done_	# at debug still: the next --all lowers it
	# --all finds it through its file in the caller's directory
	capture as_nobody "$PWRAPPER" --all --level=notice
	[ "$status" -eq 0 ]
	[ ! -s "$ERR" ]
	tell "info hidden-by-all"
	done_	# printed (or not) at notice: the next --all raises it again
	capture as_nobody "$PWRAPPER" --all --level=debug
	[ "$status" -eq 0 ]
	capture as_daemon "$PWRAPPER" --pid="$BG" --level=err
	[ "$status" -eq 1 ]
	err_is "printk-shim: pid $BG: permission denied: only its user and root may control it
"
	ctl --pid="$BG" --level=warn
	[ "$status" -eq 0 ]
	tell "info by-root-hidden"
	quit
	file_is "$PE" $'plain by-nobody\n'
}

@test "control: a set-user-ID process answers its effective user and root, not the user who ran it" {
	# a sanitizer's runtime loaded by the module stops a set-ID process at start:
	# it does not come first, and secure mode ignores ASAN_OPTIONS that allow it
	! readelf -d "$MODULE" | grep -qE 'NEEDED.*lib(asan|tsan|ubsan)' ||
		skip "the module itself is built with a sanitizer"
	public
	local suid=$PUB/ctl-suid
	# linked with the module: a set-ID program's dynamic linker ignores LD_PRELOAD
	"${CC:-cc}" -O2 -fno-optimize-sibling-calls -I"$abs_top_srcdir/include" -o "$suid" \
		"$abs_top_srcdir/tests/fixtures/ctl-run.c" -rdynamic \
		-Wl,--no-as-needed "$PMODULE" "$PUB/libkcompat.so" -Wl,-rpath,"$PUB"
	chown daemon:daemon "$suid"
	chmod 4755 "$suid"
	env -u XDG_RUNTIME_DIR setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env PRINTK_SHIM_LEVEL=info "$suid" <"$IN" >"$PO" 2>"$PE" &
	BG=$!
	exec 7>"$IN"
	tell pid
	wait_line "$PO" "$BG"
	capture env -u XDG_RUNTIME_DIR setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$PWRAPPER" --pid="$BG" --level=debug
	[ "$status" -eq 1 ]
	err_is "printk-shim: pid $BG: permission denied: only its user and root may control it
"
	tell "plain hidden"
	done_
	capture env -u XDG_RUNTIME_DIR setpriv --reuid=daemon --regid=daemon --clear-groups \
		"$PWRAPPER" --pid="$BG" --level=debug
	[ "$status" -eq 0 ]
	[ ! -s "$ERR" ]
	tell "plain by-daemon"
	done_
	ctl --pid="$BG" --level=info
	[ "$status" -eq 0 ]
	tell "plain by-root-hidden"
	quit
	file_is "$PE" $'plain by-daemon\n'
}

# A request no call applied yet when the program forked stayed in the
# parent's file: the child started under the old settings.
@test "control: a request made before a fork, applied by no call yet, holds in the child too" {
	start PRINTK_SHIM_LEVEL=info
	ctl --pid="$PID" --level=err
	[ "$status" -eq 0 ]
	tell fork
	for _ in $(seq 1 1000); do [ "$(wc -l <"$PO")" -lt 2 ] || break; sleep 0.01; done
	CHILD=$(sed -n 2p "$PO")
	[ "$CHILD" != "$PID" ]
	tell "info child-hidden"
	done_
	ctl --pid="$CHILD"
	grep -qx 'level: 3 (err)' "$OUT"
	tell quit	# the child; the parent goes on
	tell "info parent-hidden"
	quit
	[ ! -s "$PE" ]
}

# A process whose first thread ended with pthread_exit() is a zombie to
# /proc/PID/stat and its maps read empty: it was said to have exited, and
# --all left it out, while its other threads ran on under the old level. A
# thread's id was said to be a process with runtime control off.
@test "control: a process whose main thread called pthread_exit is reached by --pid and --all; a thread's id is said to be one" {
	start PRINTK_SHIM_LEVEL=info
	tell leave "info before"
	done_
	ctl --pid="$PID" --level=err
	[ "$status" -eq 0 ]
	tell "info pid-hidden"
	done_
	ctl --all --level=info
	[ "$status" -eq 0 ]
	tell "info after-all"
	done_
	ctl --all
	grep -qx "pid: $PID" "$OUT"
	# the thread that reads the commands now: its id is no process's
	T=$(ls "/proc/$PID/task" | grep -vx "$PID")
	ctl --pid="$T" --level=err
	[ "$status" -eq 1 ]
	err_is "printk-shim: pid $T: a thread of process $PID, not a process: give its pid
"
	quit
	file_is "$PE" $'info before\ninfo after-all\n'
}

@test "control: a fork child has its own file; an exec starts afresh under the same pid" {
	start PRINTK_SHIM_LEVEL=info
	ctl --pid="$PID" --level=debug
	tell fork
	for _ in $(seq 1 1000); do [ "$(wc -l <"$PO")" -lt 2 ] || break; sleep 0.01; done
	CHILD=$(sed -n 2p "$PO")
	[ "$CHILD" != "$PID" ]
	[ -f "$CTL/$CHILD.ctl" ]
	[ -f "$CTL/$PID.ctl" ]
	ctl --pid="$CHILD" --level=err
	[ "$status" -eq 0 ]
	tell "plain child-hidden" "info child-hidden"
	done_
	ctl --pid="$CHILD"
	grep -qx 'level: 3 (err)' "$OUT"
	tell quit	# the child; the parent goes on
	for _ in $(seq 1 500); do [ -e "$CTL/$CHILD.ctl" ] || break; sleep 0.01; done
	[ ! -e "$CTL/$CHILD.ctl" ]
	tell "plain parent"
	done_
	ctl --pid="$PID"
	grep -qx 'level: 7 (debug)' "$OUT"
	tell exec
	tell "plain after-exec-hidden" "info after-exec"
	done_
	ctl --pid="$PID"
	grep -qx 'level: 6 (info)' "$OUT"
	[ "$(ls -A "$CTL")" = "$PID.ctl" ]
	quit
	file_is "$PE" $'plain parent\ninfo after-exec\n'
	[ -z "$(ls -A "$CTL")" ]
}

@test "control: a runtime directory whose path holds a newline: one warning, control off" {
	local odd=$BATS_TEST_TMPDIR/a$'\n'b
	mkdir -m 700 "$odd"
	capture env XDG_RUNTIME_DIR="$odd" LD_PRELOAD="$MODULE" "$FIX/emit" hello
	[ "$status" -eq 0 ]
	err_is "printk-shim: warning: PRINTK_SHIM_CONTROL: $BATS_TEST_TMPDIR/a\\nb/printk-shim: its path holds a newline, which the command could not find it by; runtime control is off
hello
"
}

@test "control: PRINTK_SHIM_CONTROL=0 makes no file, and the command says so" {
	start PRINTK_SHIM_CONTROL=0
	[ ! -e "$CTL" ] || [ -z "$(ls -A "$CTL")" ]
	ctl --pid="$PID" --level=debug
	[ "$status" -eq 1 ]
	err_is "printk-shim: pid $PID: it runs the printk-shim module with runtime control off (PRINTK_SHIM_CONTROL=0)
"
	ctl --pid=$$
	[ "$status" -eq 1 ]
	err_is "printk-shim: pid $$: it runs no printk-shim module (not preloaded)
"
	ctl --all
	[ "$status" -eq 0 ]
	err_is $'printk-shim: --all: no process of yours runs the printk-shim module with runtime control\n'
}

@test "control: a process whose control file was removed is said to be so" {
	start
	tell "info a"
	done_
	rm "$CTL/$PID.ctl"
	ctl --pid="$PID" --level=debug
	[ "$status" -eq 1 ]
	err_is "printk-shim: pid $PID: its control file was removed while it ran, so it cannot be reached; nothing is done
"
	quit
}

@test "control: --pid and --all where no /proc is mounted say so" {
	unshare -m true 2>/dev/null || skip "no mount namespace here (unshare -m needs CAP_SYS_ADMIN)"
	! readelf -d "$WRAPPER" | grep -qE 'NEEDED.*lib(asan|tsan|ubsan)' ||
		skip "a sanitizer's runtime in the command cannot run without /proc"
	capture unshare -m sh -c "umount -l /proc && exec '$WRAPPER' --pid=1 --level=debug"
	[ "$status" -eq 1 ]
	err_is $'printk-shim: --pid: no /proc is mounted here, where processes are looked at; nothing is done\n'
	capture unshare -m sh -c "umount -l /proc && exec '$WRAPPER' --all"
	[ "$status" -eq 1 ]
	err_is $'printk-shim: --all: no /proc is mounted here, where processes are looked at; nothing is done\n'
}

@test "control: a start reads no file of a process that runs, and sweeps the file of one gone" {
	local live dead t=$BATS_TEST_TMPDIR
	env LD_PRELOAD="$MODULE" sleep 30 &
	live=$!
	# its start done first: a start sweeps the file of a process gone
	for _ in $(seq 1 500); do [ -f "$CTL/$live.ctl" ] && break; sleep 0.01; done
	env LD_PRELOAD="$MODULE" sh -c 'echo $$ >"$0"; kill -KILL $$' "$t/dead" || true
	dead=$(cat "$t/dead")
	[ -f "$CTL/$dead.ctl" ]
	strace -f -qq -e trace=openat -o "$t/trace" env LD_PRELOAD="$MODULE" /bin/true
	kill "$live"
	wait "$live" || true
	run grep -c "$live\.ctl" "$t/trace"
	[ "$output" = 0 ]
	[ ! -e "$CTL/$dead.ctl" ]
}

@test "control: a umask takes no bit the directory and its files need; a directory it broke is mended" {
	local t pid modes mended
	t=$(mktemp -d /tmp/printk-shim-umask.XXXXXX)	# nobody passes no bats directory
	chmod 755 "$t"
	cp "$MODULE" "$t/"	# nor, in CI, the build tree
	chown nobody "$t"
	as_nobody() {
		setpriv --reuid=nobody --regid=nogroup --clear-groups env XDG_RUNTIME_DIR="$t" "$@"
	}
	( umask 0277; exec setpriv --reuid=nobody --regid=nogroup --clear-groups env XDG_RUNTIME_DIR="$t" \
		PRINTK_SHIM_RECORD=64K LD_PRELOAD="$t/libprintk-shim.so" sleep 5 ) &
	pid=$!
	for i in $(seq 100); do [ -e "$t/printk-shim/$pid.rec" ] && break; sleep 0.05; done
	modes=$(stat -c %a "$t/printk-shim" "$t/printk-shim/$pid.ctl" "$t/printk-shim/$pid.rec" 2>&1) || true
	kill "$pid" 2>/dev/null || true
	wait || true
	chmod 0500 "$t/printk-shim"
	capture as_nobody LD_PRELOAD="$t/libprintk-shim.so" true	# no warning: it could make its file
	mended=$(stat -c %a "$t/printk-shim")
	rm -rf "$t"
	[ "$modes" = $'700\n600\n600' ]
	[ "$status" -eq 0 ]
	err_is ''
	[ "$mended" = 700 ]
}

@test "control: RLIMIT_FSIZE below the control and record files: each is off with a warning, SIGXFSZ never raised" {
	local mode run=$BATS_TEST_TMPDIR/fsz
	mkdir -m 700 "$run"
	for mode in 0 1; do
		( ulimit -f 100; exec env XDG_RUNTIME_DIR="$run" PRINTK_SHIM_RECORD=4M PRINTK_SHIM_DEFER=$mode \
			LD_PRELOAD="$MODULE" "$FIX/emit" $'\0016x\n' ) 2>&1 | cat >"$BATS_TEST_TMPDIR/err"
		[ "${PIPESTATUS[0]}" -eq 0 ]
		file_is "$BATS_TEST_TMPDIR/err" "printk-shim: warning: PRINTK_SHIM_CONTROL: $run/printk-shim: cannot make the control file: File too large; runtime control is off
printk-shim: warning: PRINTK_SHIM_RECORD: $run/printk-shim: cannot make the record buffer: File too large; recording nothing
x
"
	done
}

@test "control: a full file system: control and the record buffer off with a warning; sites not listed; nothing dies" {
	local small=$BATS_TEST_TMPDIR/small
	unshare -m true 2>/dev/null || skip "no mount namespace here (unshare -m needs CAP_SYS_ADMIN)"
	mkdir -m 700 "$small"
	# full before the start: no file is made
	capture unshare -m sh -c "mount -t tmpfs -o size=1m,mode=700 none '$small' || exit 9
		mkdir -m 700 '$small/printk-shim'; dd if=/dev/zero of='$small/fill' bs=4k 2>/dev/null
		exec env XDG_RUNTIME_DIR='$small' PRINTK_SHIM_RECORD=64K LD_PRELOAD='$MODULE' '$FIX/emit' hello"
	[ "$status" -eq 0 ]
	err_is "printk-shim: warning: PRINTK_SHIM_CONTROL: $small/printk-shim: cannot make the control file: No space left on device; runtime control is off
printk-shim: warning: PRINTK_SHIM_RECORD: $small/printk-shim: cannot make the record buffer: No space left on device; recording nothing
hello
"
	# full once it runs: the dynamic debug sites that come later are not listed
	capture unshare -m bash -c "mount -t tmpfs -o size=1m,mode=700 none '$small' || exit 9
		{ echo 'info a'; echo 'sync s1'
		  until [ -e '$BATS_TEST_TMPDIR/filled' ]; do sleep 0.05; done
		  echo 'built b'; echo 'plain c'; echo 'info d'; echo quit; } |
		env XDG_RUNTIME_DIR='$small' PRINTK_SHIM_DYNDBG=+p LD_PRELOAD='$MODULE' '$FIX/ctl-run' &
		until grep -qx s1 '$OUT' 2>/dev/null; do sleep 0.05; done
		dd if=/dev/zero of='$small/fill' bs=4k 2>/dev/null; touch '$BATS_TEST_TMPDIR/filled'; wait \$!"
	[ "$status" -eq 0 ]
	out_is $'s1\n'
	err_is $'info a\nbuilt b\nplain c\ninfo d\n'
}

@test "control: a control file cut short while the process runs: no SIGBUS; made again, said once" {
	for defer in 0 1; do
		start PRINTK_SHIM_DEFER=$defer
		tell "info a"
		done_
		truncate -s 0 "$CTL/$PID.ctl"
		tell "info b" "info c"
		done_
		ctl --pid="$PID" --level=debug
		[ "$status" -eq 0 ]
		tell "plain d"
		quit
		file_is "$PE" "info a
printk-shim: warning: PRINTK_SHIM_CONTROL: $CTL/$PID.ctl was cut short while this process ran; made again, its dynamic debug listing empty
info b
info c
plain d
"
	done
}

@test "control: a control file cut short under a napping printer: it wakes, and nothing dies" {
	start PRINTK_SHIM_DEFER=1
	tell "info a"
	done_
	truncate -s 0 "$CTL/$PID.ctl"
	sleep 1.5	# the printer wakes from its nap, then idles: each a store to the page
	tell "info b"
	quit	# its wait fails for a process that died
	file_is "$PE" "info a
printk-shim: warning: PRINTK_SHIM_CONTROL: $CTL/$PID.ctl was cut short while this process ran; made again, its dynamic debug listing empty
info b
"
}

@test "control: a killed process's file is removed by the next process, and by --all" {
	start
	kill -KILL "$PID"
	wait "$PID" || true
	exec 7>&-
	BG=
	[ -f "$CTL/$PID.ctl" ]
	ctl --all --reopen
	[ "$status" -eq 0 ]
	[ ! -e "$CTL/$PID.ctl" ]
	start
	old=$PID
	kill -KILL "$PID"
	wait "$PID" || true
	exec 7>&-
	rm -f "$IN"
	mkfifo "$IN"
	[ -f "$CTL/$old.ctl" ]
	start
	[ ! -e "$CTL/$old.ctl" ]
	[ -f "$CTL/$PID.ctl" ]
}

@test "control: a process with no /proc of its own, or in another pid namespace, leaves the others' files alone" {
	unshare -m true 2>/dev/null || skip "no mount namespace here (unshare -m needs CAP_SYS_ADMIN)"
	start PRINTK_SHIM_LEVEL=info
	# its pids cannot be judged there: kill(2) and /proc/PID/stat say nothing true
	# (a sanitizer's runtime in the module cannot start without /proc)
	if ! readelf -d "$MODULE" | grep -qE 'NEEDED.*lib(asan|tsan|ubsan)'; then
		unshare -m sh -c "mount -t tmpfs none /proc && exec env LD_PRELOAD='$MODULE' /bin/true"
		unshare -m sh -c "mount -t tmpfs none /proc && exec '$WRAPPER' --all --reopen" || true
	fi
	unshare -p -f --mount-proc env LD_PRELOAD="$MODULE" /bin/true
	unshare -p -f --mount-proc "$WRAPPER" --all --reopen || true
	[ -f "$CTL/$PID.ctl" ]
	ctl --pid="$PID" --level=debug
	[ "$status" -eq 0 ]
	tell "plain still-controlled"
	quit
	file_is "$PE" $'plain still-controlled\n'
}

# daemon(3)'s parent ends with the C library's own _exit: its control file
# stayed until another process's start swept it, and the line it left open
# was lost (8 runs of 8, both modes).
@test "control: daemon(3)'s parent removes its control file and writes its open line" {
	local t=$BATS_TEST_TMPDIR lib=$abs_top_builddir/examples/.libs d
	mkdir -m 700 "$CTL"
	printf '%s\n' '#include <stdio.h>' '#include <unistd.h>' 'int printk(const char *fmt, ...);' \
		'int main(int argc, char **argv) {' \
		'	FILE *f = fopen(argv[1], "w");' \
		'	fprintf(f, "%d\n", (int)getpid());' \
		'	fclose(f);' \
		'	printk("\0016before\n");' \
		'	printk("\0016open");' \
		'	if (daemon(1, 1))' \
		'		return 1;' \
		'	printk("\0016child\n");' \
		'	return 0;' \
		'}' >"$t/dmn.c"
	$CC -o "$t/dmn" "$t/dmn.c" -L"$lib" -lkcompat -Wl,-rpath,"$lib"
	for d in 0 1; do
		env LD_PRELOAD="$MODULE" PRINTK_SHIM_DEFER=$d "$t/dmn" "$t/pid" 2>"$t/err"
		[ ! -e "$CTL/$(cat "$t/pid").ctl" ]
		for _ in $(seq 200); do grep -q child "$t/err" && break; sleep 0.01; done
		[ "$(head -n 1 "$t/err")" = before ]
		[ "$(sort "$t/err" | tr '\n' ' ')" = "before child open " ]
	done
}

# Two processes of the same number in two pid namespaces: the second's
# start put its files over the first's, and the first's exit removed the
# second's control file (4 runs of 4).
@test "control: a process of another pid namespace with our number keeps its files" {
	unshare -p true 2>/dev/null || skip "no pid namespace here (unshare -p needs CAP_SYS_ADMIN)"
	mkdir -m 700 "$CTL"
	unshare -p -f --mount-proc env LD_PRELOAD="$MODULE" PRINTK_SHIM_RECORD=16K \
		"$FIX/emit" $'\0016a\n' @sleep 1500 $'\0016a done\n' 2>"$BATS_TEST_TMPDIR/a" &
	a=$!
	for _ in $(seq 200); do [ -f "$CTL/1.ctl" ] && [ -f "$CTL/1.rec" ] && break; sleep 0.01; done
	ino=$(stat -c %i "$CTL/1.ctl" "$CTL/1.rec")
	capture unshare -p -f --mount-proc env LD_PRELOAD="$MODULE" PRINTK_SHIM_RECORD=16K \
		"$FIX/emit" $'\0016b\n'
	[ "$status" -eq 0 ]
	err_is "printk-shim: warning: PRINTK_SHIM_CONTROL: $CTL: cannot make the control file: a process of another pid namespace has its name; runtime control is off
printk-shim: warning: PRINTK_SHIM_RECORD: $CTL: cannot make the record buffer: a process of another pid namespace has its name; recording nothing
b
"
	[ "$(stat -c %i "$CTL/1.ctl" "$CTL/1.rec")" = "$ino" ]
	wait "$a"
	file_is "$BATS_TEST_TMPDIR/a" $'a\na done\n'
	[ ! -e "$CTL/1.ctl" ]
	[ "$(stat -c %i "$CTL/1.rec")" = "${ino#*$'\n'}" ]	# its record, kept after it
}

@test "control: a process with no /proc keeps its file when another process starts" {
	unshare -m true 2>/dev/null || skip "no mount namespace here (unshare -m needs CAP_SYS_ADMIN)"
	! readelf -d "$MODULE" | grep -qE 'NEEDED.*lib(asan|tsan|ubsan)' ||
		skip "a sanitizer's runtime in the module cannot start without /proc"
	unshare -m sh -c "umount -l /proc && exec env LD_PRELOAD='$MODULE' '$FIX/ctl-run'" \
		<"$IN" >"$PO" 2>"$PE" &
	BG=$!
	exec 7>"$IN"
	tell pid
	for _ in $(seq 1 500); do [ -s "$PO" ] && break; sleep 0.01; done
	PID=$(head -n 1 "$PO")
	tell "info a"
	done_
	[ -f "$CTL/$PID.ctl" ]
	env LD_PRELOAD="$MODULE" /bin/true	# its start sweeps the files of processes gone
	[ -f "$CTL/$PID.ctl" ]
	ctl --pid="$PID" --level=debug
	[ "$status" -eq 0 ]
	tell "plain b"
	quit
	file_is "$PE" $'info a\nplain b\n'
}

@test "control: the listing takes nothing in the process's file on trust: names cut at their size, control bytes escaped" {
	start
	# site 0 (its file, after the 64 KiB head): every name filled to its end, no NUL
	python3 -c '
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(65536 + 16)
    f.write(b"\x1b]0;T\x07" + b"M" * 42 + b"F" * 64 + b"P" * 128 + b"\x1b[31m" + b"A" * 243)
' "$CTL/$PID.ctl"
	ctl --pid="$PID"
	[ "$status" -eq 0 ]
	run grep -c . "$OUT"
	[ "$output" = 12 ]
	[ "$(tail -n 1 "$OUT")" = "$(printf 'P%.0s' {1..128}):$BUILT [\\e]0;T\\a$(printf 'M%.0s' {1..42})]$(printf 'F%.0s' {1..64}) =_ \"\\e[31m$(printf 'A%.0s' {1..243})\"" ]
	quit
}

@test "control: --pid takes a list; each process that did not take the change is named" {
	start PRINTK_SHIM_LEVEL=info
	# a process named twice is listed once
	ctl --pid="$PID,$PID" --pid="$PID"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^pid: ' "$OUT")" = 1 ]
	ctl --pid="$PID,999999999" --level=debug
	[ "$status" -eq 1 ]
	err_is $'printk-shim: pid 999999999: no such process\n'
	tell "plain taken"
	quit
	file_is "$PE" $'plain taken\n'
}

@test "control: bad options and values are refused, and nothing is changed" {
	start PRINTK_SHIM_LEVEL=info
	ctl --pid="$PID" --level=loud
	[ "$status" -eq 125 ]
	err_is "printk-shim: --level=loud: expected 0..7 or emerg|alert|crit|err|warn|notice|info|debug; nothing is changed
"
	ctl --pid="$PID" --level=debug --dyndbg='fnuc x +p'
	[ "$status" -eq 125 ]
	grep -q '^printk-shim: --dyndbg: "fnuc x +p": .*; nothing is changed$' "$ERR"
	ctl --pid=12x
	[ "$status" -eq 125 ]
	err_is $'printk-shim: --pid=12x: expected PID[,PID...] (at most 1024); nothing is done\n'
	for bad in " $PID" "+$PID" "$PID, $PID"; do
		ctl --pid="$bad"
		[ "$status" -eq 125 ]
		err_is "printk-shim: --pid=$bad: expected PID[,PID...] (at most 1024); nothing is done
"
	done
	# too many: said by their count, not by a list cut short
	ctl --pid="$(seq -s, 100000 101024)"
	[ "$status" -eq 125 ]
	err_is $'printk-shim: --pid: more than 1024 processes: expected PID[,PID...] (at most 1024); nothing is done\n'
	ctl --pid="$(seq -s, 100000 101000),x"
	[ "$status" -eq 125 ]
	grep -q '^printk-shim: --pid=100000,100001,.*\.\.\.: expected PID\[,PID\.\.\.\] (at most 1024); nothing is done$' "$ERR"
	for opt in --pid "--pid=$PID --level"; do
		ctl $opt
		[ "$status" -eq 125 ]
		err_is "printk-shim: ${opt##* }: expected a value; nothing is done
"
	done
	ctl --pid="$PID" --dyndbg=' ; '
	[ "$status" -eq 125 ]
	err_is $'printk-shim: --dyndbg: expected one or more queries, got none; nothing is done (see --help)\n'
	# a value's control bytes are escaped: none reaches the terminal raw
	ctl --pid="$PID" --dyndbg=$'fnuc\033[2J +p'
	[ "$status" -eq 125 ]
	grep -q '^printk-shim: --dyndbg: "fnuc\\e\[2J +p": .*; nothing is changed$' "$ERR"
	ctl --pid="$PID" --output=syslog
	[ "$status" -eq 125 ]
	ctl --pid="$PID" ls
	[ "$status" -eq 125 ]
	err_is $'printk-shim: --pid, --all: expected no command, got \'ls\'; nothing is run\n'
	# so in every message of --pid's: an option, a value, a command
	ctl --pid="$PID" --level=$'a\nb\033[31m'
	[ "$status" -eq 125 ]
	err_is $'printk-shim: --level=a\\nb\\x1b[31m: expected 0..7 or emerg|alert|crit|err|warn|notice|info|debug; nothing is changed\n'
	ctl --pid="$PID" $'--bogus\033'
	[ "$status" -eq 125 ]
	err_is $'printk-shim: --bogus\\x1b: not an option for a running process (--pid, --all: --level, --dyndbg, --reopen, --flush, --dmesg, --format); nothing is done\n'
	ctl --pid="$PID" $'x\ny'
	[ "$status" -eq 125 ]
	err_is $'printk-shim: --pid, --all: expected no command, got \'x\\ny\'; nothing is run\n'
	tell "plain hidden"
	quit
	[ ! -s "$PE" ]
}

@test "control: logrotate with a postrotate of printk-shim --all --reopen loses nothing" {
	command -v logrotate >/dev/null || skip "logrotate is not installed (tests/setup.sh installs it)"
	start PRINTK_SHIM_OUTPUT=file:"$LOG"
	cat >"$BATS_TEST_TMPDIR/rotate.conf" <<-CONF
	$LOG {
		rotate 2
		nocompress
		postrotate
			XDG_RUNTIME_DIR='$XDG_RUNTIME_DIR' '$WRAPPER' --all --reopen
		endscript
	}
	CONF
	for i in 1 2 3; do tell "info before $i"; done
	done_
	logrotate -f -s "$BATS_TEST_TMPDIR/rotate.state" "$BATS_TEST_TMPDIR/rotate.conf"
	for i in 1 2 3; do tell "info after $i"; done
	done_
	logrotate -f -s "$BATS_TEST_TMPDIR/rotate.state" "$BATS_TEST_TMPDIR/rotate.conf"
	tell "info last"
	quit
	file_is "$LOG.2" $'info before 1\ninfo before 2\ninfo before 3\n'
	file_is "$LOG.1" $'info after 1\ninfo after 2\ninfo after 3\n'
	file_is "$LOG" $'info last\n'
}

# A library loaded again: its sites were listed once more at each load,
# though the kernel drops a module's sites when it is unloaded.
@test "control: a library dlclose()d and loaded again is listed once; an unloaded one leaves the listing" {
	local t=$BATS_TEST_TMPDIR
	printf '%s\n' '#include <linux/printk.h>' 'void plug_run(int i) { pr_debug("plug run %d\n", i); }' \
		>"$t/plug.c"
	printf '%s\n' '#include <linux/printk.h>' 'void other_run(void) { pr_debug("other run\n"); }' \
		>"$t/other.c"
	printf '%s\n' '#include <dlfcn.h>' '#include <stdio.h>' '#include <unistd.h>' \
		'int main(int argc, char **argv) {' \
		'	void *h = NULL;' \
		'	for (int r = 0; r < 3; r++) {' \
		'		if (h) dlclose(h);' \
		'		h = dlopen(argv[1], RTLD_NOW);' \
		'		((void (*)(int))dlsym(h, "plug_run"))(r);' \
		'	}' \
		'	puts("loaded"); fflush(stdout); sleep(5);' \
		'	dlclose(h);' \
		'	h = dlopen(argv[2], RTLD_NOW);' \
		'	((void (*)(void))dlsym(h, "other_run"))();' \
		'	puts("other"); fflush(stdout); sleep(5);' \
		'	return 0;' \
		'}' >"$t/reload.c"
	$CC -shared -fPIC -I"$abs_top_srcdir/include" -o "$t/libplug.so" "$t/plug.c"
	$CC -shared -fPIC -I"$abs_top_srcdir/include" -o "$t/libother.so" "$t/other.c"
	$CC -o "$t/reload" "$t/reload.c" -ldl
	mkfifo "$t/said"
	env LD_PRELOAD="$MODULE" "$t/reload" "$t/libplug.so" "$t/libother.so" >"$t/said" 2>/dev/null &
	local pid=$!
	exec 8<"$t/said"
	read -r -t 10 line <&8
	[ "$line" = loaded ]
	ctl --pid="$pid"
	grep -qx 'dynamic debug sites: 1' "$OUT"
	[ "$(grep -cxF "$t/plug.c:2 [libplug]plug_run =_ \"plug run %d\\n\"" "$OUT")" -eq 1 ]
	read -r -t 10 line <&8
	[ "$line" = other ]
	ctl --pid="$pid"
	kill "$pid"
	exec 8<&-
	wait "$pid" || :
	# unloaded before the next library with sites came: no longer listed
	grep -qx 'dynamic debug sites: 1' "$OUT"
	[ "$(grep -cF "$t/plug.c:2 [libplug]plug_run " "$OUT")" -eq 0 ]
	[ "$(grep -cF "$t/other.c:2 [libother]other_run " "$OUT")" -eq 1 ]
}
