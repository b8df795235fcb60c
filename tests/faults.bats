#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Faults around the shim: outputs that fail or block, writes interrupted,
# no descriptors, a full filesystem, printk at the edges of the process's
# life, interposers that call printk from inside the shim's own calls, and
# thousands of threads. Each case: no crash, no hang, the host's own exit
# status (fault-host exits 42), and every line either written or reported,
# once, as lost with the reason.

load helper
load fault-helper

setup() {
	T=$BATS_TEST_TMPDIR
}

teardown() {
	if [[ -n ${MOUNTED-} ]]; then
		umount "$MOUNTED" || umount -l "$MOUNTED"
	fi
}

@test "faults: stderr closed: no crash, the host's status, nothing written anywhere else" {
	status=0
	( exec 2>&-; exec env LD_PRELOAD="$MODULE" "$FIX/fault-host" lines 50 20 >"$T/out" ) || status=$?
	[ "$status" -eq 42 ]
	file_is "$T/out" ""
}

@test "faults: stderr closed: a second output still gets every line" {
	status=0
	( exec 2>&-; exec env PRINTK_SHIM_OUTPUT=stderr,fd:3 LD_PRELOAD="$MODULE" \
		"$FIX/fault-host" lines 50 20 3>"$T/fd3" >"$T/out" ) || status=$?
	[ "$status" -eq 42 ]
	same_lines "$T/fd3" 50 20
}

@test "faults: stderr is /dev/full: no crash, the host's status" {
	status=0
	env LD_PRELOAD="$MODULE" "$FIX/fault-host" lines 50 20 2>/dev/full >"$T/out" || status=$?
	[ "$status" -eq 42 ]
	file_is "$T/out" ""
}

@test "faults: an output that is /dev/full: its lines reported lost once, with the reason, and counted at exit" {
	capture env PRINTK_SHIM_OUTPUT=fd:3 LD_PRELOAD="$MODULE" "$FIX/fault-host" lines 50 20 3>/dev/full
	[ "$status" -eq 42 ]
	err_is "printk-shim: warning: output 1 (fd:3): No space left on device; its lines are being lost
printk-shim: warning: output 1 (fd:3): 50 lines lost (No space left on device)
"
}

@test "faults: stderr is /dev/full: the other output gets every line" {
	status=0
	env PRINTK_SHIM_OUTPUT=stderr,fd:3 LD_PRELOAD="$MODULE" "$FIX/fault-host" lines 50 20 \
		2>/dev/full 3>"$T/fd3" >"$T/out" || status=$?
	[ "$status" -eq 42 ]
	same_lines "$T/fd3" 50 20
}

@test "faults: stderr a non-blocking pipe that fills up: the shim waits, every line arrives" {
	# 3000 lines of 200 bytes: the 64 KiB pipe is full long before the
	# reader, asleep for a second, starts to read.
	( st=0; env LD_PRELOAD="$MODULE" "$FIX/fault-host" nonblock lines 3000 200 2>&1 >"$T/out" || st=$?
	  echo $st >"$T/status" ) | { sleep 1; cat >"$T/got"; }
	[ "$(cat "$T/status")" -eq 42 ]
	same_lines "$T/got" 3000 200
}

@test "faults: EINTR on every other write: every line once, whole" {
	capture env FAULT_WRITE=eintr FAULT_WRITE_REPORT="$T/faults" \
		LD_PRELOAD="$MODULE:$FIXLIB/libfault-write.so" "$FIX/fault-host" lines 500 30
	[ "$status" -eq 42 ]
	same_lines "$ERR" 500 30
	[ "$(cat "$T/faults")" -ge 499 ]
}

@test "faults: short writes on every other write: every line once, whole" {
	capture env FAULT_WRITE=short FAULT_WRITE_REPORT="$T/faults" \
		LD_PRELOAD="$MODULE:$FIXLIB/libfault-write.so" "$FIX/fault-host" lines 500 30
	[ "$status" -eq 42 ]
	same_lines "$ERR" 500 30
	[ "$(cat "$T/faults")" -ge 250 ]
}

@test "faults: EINTR, 1-byte writes and full writes in turn: lines and the shim's own warning whole" {
	capture env FAULT_WRITE=mixed FAULT_WRITE_REPORT="$T/faults" PRINTK_SHIM_LEVEL=loud \
		LD_PRELOAD="$MODULE:$FIXLIB/libfault-write.so" "$FIX/fault-host" lines 300 30
	[ "$status" -eq 42 ]
	{ echo 'printk-shim: warning: PRINTK_SHIM_LEVEL="loud": expected 0..7 or emerg|alert|crit|err|warn|notice|info|debug; using debug'
	  fault_lines 300 30; } >"$T/want"
	cmp "$T/want" "$ERR"
	[ "$(cat "$T/faults")" -ge 200 ]
}

@test "faults: a SIGALRM storm without SA_RESTART while stderr blocks: every line once, whole" {
	# Every 200 us a signal interrupts the blocked write(2): EINTR, or a
	# short write when part of the line got through first.
	( st=0; env LD_PRELOAD="$MODULE" "$FIX/fault-host" alarm 200 lines 3000 100 2>&1 >"$T/out" || st=$?
	  echo $st >"$T/status" ) | { sleep 1; cat >"$T/got"; }
	[ "$(cat "$T/status")" -eq 42 ]
	same_lines "$T/got" 3000 100
	grep -q '^alarms [1-9]' "$T/out"
}

@test "faults: out of descriptors before the shim starts: file: is skipped, said once, lines go to stderr" {
	mkdir -m 700 "$T/run"	# the control file cannot be made either (printk-shim(7) RUNTIME CONTROL)
	capture env FAULT_HOG=32 PRINTK_SHIM_OUTPUT="file:$T/log" LD_PRELOAD="$MODULE" \
		XDG_RUNTIME_DIR="$T/run" "$FIX/fault-host" lines 3 10
	[ "$status" -eq 42 ]
	{ echo "printk-shim: warning: PRINTK_SHIM_OUTPUT: file:$T/log: Too many open files; skipping it"
	  echo "printk-shim: warning: PRINTK_SHIM_OUTPUT: no usable output left; using stderr"
	  echo "printk-shim: warning: PRINTK_SHIM_CONTROL: $T/run/printk-shim: cannot make the control file: Too many open files; runtime control is off"
	  fault_lines 3 10; } >"$T/want"
	cmp "$T/want" "$ERR"
	[ ! -e "$T/log" ]
}

@test "faults: out of descriptors after the shim started: file: output needs none, every line arrives" {
	capture env PRINTK_SHIM_OUTPUT="file:$T/log" LD_PRELOAD="$MODULE" \
		"$FIX/fault-host" nofile lines 100 10
	[ "$status" -eq 42 ]
	grep -q '^nofile EMFILE' "$OUT"
	err_is ""
	same_lines "$T/log" 100 10
}

@test "faults: file: output on a full filesystem: lines until it is full, the rest lost, said once and counted" {
	local mnt=$T/mnt target n written tail
	mkdir "$mnt"
	if mount -t tmpfs -o size=64k,mode=0755 tmpfs "$mnt" 2>/dev/null; then
		MOUNTED=$mnt
		target=$mnt/log
	else
		target=/dev/full	# a place that is always full, where mount is not allowed
	fi
	capture env PRINTK_SHIM_OUTPUT="file:$target" LD_PRELOAD="$MODULE" "$FIX/fault-host" lines 2000 100
	[ "$status" -eq 42 ]
	written=0
	[[ $target == /dev/full ]] || written=$(tr -cd '\n' <"$target" | wc -c)
	n=$((2000 - written))
	[ "$n" -gt 0 ]
	err_is "printk-shim: warning: output 1 ($target): No space left on device; its lines are being lost
printk-shim: warning: output 1 ($target): $n lines lost (No space left on device)
"
	if [[ $target != /dev/full ]]; then
		[ "$written" -gt 500 ]
		# Whole lines up to the point where it filled up, then at most the
		# start of the first lost line (counted among the lost).
		cmp <(head -n "$written" "$target") <(fault_lines "$written" 100)
		tail=$(tail -c +"$(( $(head -n "$written" "$target" | wc -c) + 1 ))" "$target")
		[[ $(fault_lines 1 100 "$written") == "$tail"* ]]
	fi
}

@test "faults: printk from a library's constructor before the shim started, from its destructor and atexit handler after the shim ended" {
	capture env FAULT_EARLY=1 PRINTK_SHIM_FORMAT=prefix LD_PRELOAD="$MODULE" "$FIX/fault-host" lines 2 5
	[ "$status" -eq 42 ]
	# The configuration is read for the constructor's line already (prefix).
	err_is "<6>early ctor line
<6>early ctor open
<6>L000000 abcde
<6>L000001 bcdef
<6>late dtor line
<6>late dtor open
<6>early atexit open
"
}

@test "faults: printk from pthread_atfork handlers: the child drops the line it inherits, the parent ends it" {
	capture shim "$FIX/fault-host" atfork
	[ "$status" -eq 42 ]
	out_is "child status 7
"
	err_is "atfork child handler
atfork child main
pre [prepare][parent] end
"
}

@test "faults: printk from an atexit handler: its open line is written at exit" {
	capture shim "$FIX/fault-host" atexit lines 1 4
	[ "$status" -eq 42 ]
	err_is "L000000 abcd
atexit whole
atexit open
"
}

@test "faults: printk from an atexit handler keeps an exit(5)'s status" {
	capture shim "$FIX/fault-host" atexit exit 5
	[ "$status" -eq 5 ]
	err_is "atexit whole
atexit open
"
}

@test "faults: a dlsym that calls printk, while the shim looks up sigaction" {
	capture env FAULT_DLSYM=1 LD_PRELOAD="$MODULE:$FIXLIB/libfault-alloc.so" "$FIX/fault-host" lines 1 4
	[ "$status" -eq 42 ]
	# The stdio calls and _Fork the module passes on are looked up at start
	# (ctx/fds.c, ctx/spawn.c).
	err_is "dlsym(fclose)
dlsym(freopen)
dlsym(freopen64)
dlsym(_Fork)
dlsym(sigaction)
L000000 abcd
"
}

@test "faults: a dlsym that calls printk, while PRINTK_SHIM_DISABLE=1 looks up the next printk: no recursion" {
	capture env FAULT_DLSYM=1 PRINTK_SHIM_DISABLE=1 LD_PRELOAD="$MODULE:$FIXLIB/libfault-alloc.so" \
		"$FIX/fault-host" lines 1 4
	[ "$status" -eq 42 ]
	# The printk made during the lookup has no next definition yet: it is
	# written as a plain line. Then libkcompat gets every call, markers and all.
	err_is "dlsym(fclose)
dlsym(freopen)
dlsym(freopen64)
dlsym(_Fork)
dlsym(printk)
"$'\001'"6L000000 "$'\001'"cab"$'\001'"ccd
"
}

@test "faults: a malloc that calls printk from inside printk's own formatting" {
	local n=100000
	capture env FAULT_MALLOC=1 LD_PRELOAD="$MODULE:$FIXLIB/libfault-alloc.so" "$FIX/fault-host" bigprec $n
	[ "$status" -eq 42 ]
	# glibc mallocs work buffers for "%.100000f" (twice per formatting with
	# glibc's allocator, and the shim formats twice: its buffer, then a
	# mapping that fits): each nested printk a whole line of its own, all
	# before the long line, which comes in pieces of LINE_MAX.
	[ "$(grep -c '^malloc(big)$' "$ERR")" -ge 1 ]
	{ printf '7.%s|' "$(printf '%*s' $n '' | tr ' ' 0)" | fold -w 1024; echo; } >"$T/want"
	grep -v '^malloc(big)$' "$ERR" | cmp "$T/want" -
	awk '/^malloc\(big\)$/ { if (seen) exit 1; next } { seen = 1 }' "$ERR"
}

@test "faults: 3000 threads created and ended, 50 at a time: every line once, the open ones at thread exit" {
	capture shim "$FIX/fault-host" threads 3000 50
	[ "$status" -eq 42 ]
	out_is "threads 3000
"
	awk 'BEGIN { for (i = 0; i < 3000; i++) { print "T" i " a b"; print "T" i " open" } }' |
		sort >"$T/want"
	sort "$ERR" | cmp "$T/want" -
}

@test "faults: 2000 threads alive at once: every line once" {
	capture shim "$FIX/fault-host" threads 2000 2000
	[ "$status" -eq 42 ]
	awk 'BEGIN { for (i = 0; i < 2000; i++) { print "T" i " a b"; print "T" i " open" } }' |
		sort >"$T/want"
	sort "$ERR" | cmp "$T/want" -
}

# The module's socket sits at the lowest free number from the moment it
# is made until the module moves it up: a daemon's closefrom(3) in another
# thread closed it there, the program's own file took the number, and the
# module took that file for its socket and closed it (the program's write
# failed with EBADF, and the output said "Socket operation on non-socket").
@test "faults: a thread closing every descriptor while the module makes its socket: its own file is left alone, both modes" {
	local defer
	for defer in 0 1; do
		capture env FAULT_SOCKET_SLOW=60 PRINTK_SHIM_DEFER=$defer PRINTK_SHIM_OUTPUT=syslog \
			PRINTK_SHIM_SYSLOG_SOCKET="$BATS_TEST_TMPDIR/none.sock" \
			LD_PRELOAD="$MODULE:$FIXLIB/libfault-socket.so" "$FIX/closer" "$BATS_TEST_TMPDIR/prog"
		[ "$status" -eq 0 ]
		out_is $'wrote 5\n'
		[ "$(cat "$BATS_TEST_TMPDIR/prog")" = PROG ]
		err_is "printk-shim: warning: syslog: $BATS_TEST_TMPDIR/none.sock: No such file or directory; writing its lines to stderr until it is back
one line
"
	done
}
