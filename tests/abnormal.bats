#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# printk-shim(7) WHEN A LINE IS WRITTEN: a printk call that never returns
# (its signal handler left by siglongjmp, the thread cancelled or ended by
# pthread_exit in a handler) leaves nothing behind: the thread, and any
# thread that later takes its place, assemble whole lines again, and the
# interrupted line is written, not dropped. A vfork child's exec leaves the
# parent's open line alone, as posix_spawn and system do; a forked child's
# exec writes the child's own.

load helper

setup() {
	export PRINTK_SHIM_FORMAT=prefix
}

# The two lines every mode of the fixture ends with.
TAIL=$'<5>U one two\n<5>M one two\n'

@test "abnormal: siglongjmp out of a SIGSEGV inside printk: the line goes on, whole lines after" {
	capture shim "$FIX/abnormal" segv
	[ "$status" -eq 0 ]
	out_is $'jumped\n'
	err_is $'<5>A one two\n'"$TAIL"
}

@test "abnormal: siglongjmp out of a SIGSEGV inside printk, then exit: the line is written" {
	capture shim "$FIX/abnormal" segv-exit
	[ "$status" -eq 0 ]
	out_is $'jumped\n'
	err_is $'<5>A one \n'
}

# A fault while printk formats the first fragment of a line (a bad pointer
# for %s or %pa) ends the process: the fatal signal's flush wrote an empty
# line at that call's level, a record no call made (10 runs of 10, both
# modes for %pa, the synchronous one for %s: the deferred one keeps such a
# line as its arguments, and never began it). The cut call's fragment is
# lost, and a line it began with it.
@test "abnormal: a fault inside the first fragment's formatting: no empty line, every mode and format" {
	local t=$BATS_TEST_TMPDIR mode fmt how
	cat >"$t/crash.c" <<'EOF'
#include <string.h>
int printk(const char *fmt, ...);

/* HOW: %s of a bad pointer, %pa of one, the same after an open line, or a KERN_CONT of it. */
int main(int argc, char **argv)
{
	(void)argc;
	printk("\0016first line\n");
	if (!strcmp(argv[1], "s"))
		printk("\0013crash %s|\n", (char *)0x1234);
	if (strcmp(argv[1], "s") && strcmp(argv[1], "pa"))
		printk("\0016open part");
	if (!strcmp(argv[1], "cont"))
		printk("\001c more %pa|\n", (void *)0x1234);
	else
		printk("\0016crash %pa|\n", (void *)0x1234);
	return 0;
}
EOF
	"${CC:-cc}" -O1 -o "$t/crash" "$t/crash.c" -L"$abs_top_builddir/examples/.libs" -lkcompat \
		-Wl,-rpath,"$abs_top_builddir/examples/.libs"
	for mode in 0 1; do
		for how in s pa open cont; do
			capture shim env PRINTK_SHIM_DEFER=$mode "$t/crash" "$how"
			[ "$status" -eq 139 ]
			case $how in
			s|pa) err_is $'<6>first line\n' ;;
			*) err_is $'<6>first line\n<6>open part\n' ;;
			esac
		done
		capture shim env PRINTK_SHIM_DEFER=$mode PRINTK_SHIM_FORMAT=kmsg "$t/crash" open
		[ "$status" -eq 139 ]
		run cut -d, -f2 "$ERR"
		[ "$output" = $'0\n1' ]
	done
}

@test "abnormal: siglongjmp out of SIGALRM inside printk, 20 times: no line lost or torn" {
	capture shim "$FIX/abnormal" alarm
	[ "$status" -eq 0 ]
	out_is $'cuts=20\n'
	# Each heavy line whole or cut where the signal came, none mixed up;
	# one cut in the write may show it twice (printk-shim(7)).
	run awk '/^<6>H/ && !/^<6>H[0-9]+( a( b( c)?)?)?$/' "$ERR"
	[ -z "$output" ]
	grep -v '^<6>H' "$ERR" >"$BATS_TEST_TMPDIR/rest"
	file_is "$BATS_TEST_TMPDIR/rest" $'<5>AFTER one two\n'"$TAIL"
}

@test "abnormal: a thread cancelled in a blocked write dies at once; its line comes later" {
	capture shim "$FIX/abnormal" cancel
	[ "$status" -eq 0 ]
	out_is $'joined, 0 other bytes in the pipe\n'
	err_is $'<5>M start\n<5>T partial line\n'"$TAIL"
}

@test "abnormal: the same with asynchronous cancellation" {
	capture shim "$FIX/abnormal" cancel-async
	[ "$status" -eq 0 ]
	out_is $'joined, 0 other bytes in the pipe\n'
	err_is $'<5>M start\n<5>T partial line\n'"$TAIL"
}

# Asynchronous cancellation landed anywhere inside printk: deferred, a
# record reserved and never filled stopped the printer for good, every
# caller then waiting for room (2 runs in 5 hung). Each call now runs with
# it deferred, and the request lands as the call returns. And a request
# that came while the kernel wrote a line to a file ended the thread once
# the line was written, which its exit then wrote again (some 150 lines in
# 200 cancellations, synchronous, deferred cancellation too): such a write
# is now made with cancellation off, the request taken before it.
cancel_rounds() {
	local mode run most
	for mode in 0 1; do
		for run in 1 2 3; do
			capture timeout 60 env LD_PRELOAD="$MODULE" PRINTK_SHIM_DEFER=$mode \
				"$FIX/abnormal" cancel-rounds 50 "$@"
			[ "$status" -eq 0 ]
			grep -v '^<6>T' "$ERR" >"$BATS_TEST_TMPDIR/rest"
			file_is "$BATS_TEST_TMPDIR/rest" "$(seq 0 49 | sed 's/.*/<5>round & done/')"$'\n'"$TAIL"
			# a line the request ended after its first fragment is written alone
			run awk '!/^<6>T[0-9]+-[0-9]+ a( b)?$/' <(grep '^<6>T' "$ERR")
			[ -z "$output" ]
			# glibc 2.36 acts on a request sent between two calls of an
			# asynchronous thread inside the next call's write, even with
			# cancellation off there: that line may come twice (printk-shim(7))
			most=1
			[ "$mode" = 1 ] || [ "$*" = deferred ] || most=2
			[ -z "$(grep '^<6>T' "$ERR" | cut -d' ' -f1 | sort | uniq -c | awk -v m=$most '$1 > m')" ]
		done
	done
}

@test "abnormal: threads with asynchronous cancellation cancelled in 50 rounds, both modes: no hang, every line whole" {
	cancel_rounds
}

@test "abnormal: printing threads cancelled in 50 rounds, both modes: the last line of each once" {
	cancel_rounds deferred
}

# Under a file-size limit each write goes through pks_fd_write_held(),
# whose plain write(2) stayed a cancellation point: 413 to 448 lines twice
# in 800 cancellations, and some lost.
@test "abnormal: the same under a file-size limit (RLIMIT_FSIZE): the last line of each once" {
	( ulimit -f 4000000; cancel_rounds deferred )
}

# A thread cancelled in its write, or in its wait for room in the ring,
# left its context taken until it exited; the cleanup handlers run before
# that, and each of their calls was written at once, as a line of its own:
# "<3>cleanup 4 open" and "<4> closed" (70 to 95 in 100, every mode).
@test "abnormal: a cleanup handler's line of two calls after a cancellation inside printk: whole, every mode" {
	local mode out
	for mode in 0 1; do
		for out in file pipe; do
			if [ "$out" = file ]; then
				capture timeout 60 env LD_PRELOAD="$MODULE" PRINTK_SHIM_DEFER=$mode \
					"$FIX/abnormal" cancel-cleanup 25
			else
				capture timeout 60 sh -c 'env LD_PRELOAD="$1" PRINTK_SHIM_DEFER=$2 \
					"$3" cancel-cleanup 25 2>&1 >/dev/null | cat >&2' sh "$MODULE" $mode "$FIX/abnormal"
			fi
			[ "$status" -eq 0 ]
			run sh -c "grep -v '^<6>T' '$ERR' | sort"
			[ "$output" = "$( (seq 0 99 | sed 's/.*/<3>cleanup & open closed/'
				seq 0 24 | sed 's/.*/<5>round & done/'; printf '%s' "$TAIL") | sort)" ]
			# a line the request ended after its first fragment is written alone
			run awk '!/^<6>T[0-9]+-[0-9]+ a( b)?$/' <(grep '^<6>T' "$ERR")
			[ -z "$output" ]
		done
	done
}

@test "abnormal: a thread cancelled while it waits (its write, or room in a full deferred ring): joined, every line once" {
	local mode k pad
	pad=$(printf 'y%.0s' {1..200})
	for mode in 0 1; do
		capture timeout 30 env LD_PRELOAD="$MODULE" PRINTK_SHIM_DEFER=$mode PRINTK_SHIM_DEFER_SIZE=64K \
			PRINTK_SHIM_DEFER_FULL=block "$FIX/abnormal" cancel-full
		[ "$status" -eq 0 ]
		[[ $(cat "$OUT") =~ ^joined\ after\ ([0-9]+)\ calls$ ]]
		k=${BASH_REMATCH[1]}
		# deferred, the ring held lines before its caller had to wait
		[ "$mode" = 0 ] || [ "$k" -gt 100 ]
		# the cancelled call's line comes last, once the next thread starts
		err_is $'<5>M start\n'"$(seq 0 "$k" | sed "s/.*/<5>T & $pad/")"$'\n'"$TAIL"
	done
}

@test "abnormal: lines printed while stderr is closed never land in the file the program opens there" {
	local mode
	for mode in 0 1; do
		capture env LD_PRELOAD="$MODULE" PRINTK_SHIM_DEFER=$mode "$FIX/abnormal" reuse "$BATS_TEST_TMPDIR/data"
		[ "$status" -eq 0 ]
		out_is ''
		err_is $'<3>early\n'
		# lost, as without the module: stderr was closed when they were printed
		file_is "$BATS_TEST_TMPDIR/data" $'own data\n'
	done
}

@test "abnormal: stderr closed, then a file the program keeps open on 2: no word of the shim lands in it" {
	local mode out
	for mode in 0 1; do
		# the report of the lines lost at exit
		capture env LD_PRELOAD="$MODULE" PRINTK_SHIM_DEFER=$mode "$FIX/abnormal" reuse-open "$BATS_TEST_TMPDIR/data"
		[ "$status" -eq 0 ]
		err_is $'<3>early\n'
		file_is "$BATS_TEST_TMPDIR/data" $'own data\n'
		# a line the syslog output refuses, and its warning, would fall back to stderr
		for out in syslog journal; do
			capture env LD_PRELOAD="$MODULE" PRINTK_SHIM_DEFER=$mode PRINTK_SHIM_OUTPUT=$out \
				PRINTK_SHIM_SYSLOG_SOCKET=/nonexistent PRINTK_SHIM_JOURNAL_SOCKET=/nonexistent \
				"$FIX/abnormal" reuse-open "$BATS_TEST_TMPDIR/data"
			[ "$status" -eq 0 ]
			file_is "$BATS_TEST_TMPDIR/data" $'own data\n'
		done
	done
	# closed before the program began is the same: its file takes 2;
	# and so for the warnings a wrapped command's child holds until it prints
	for mode in 0 1; do
		capture env LD_PRELOAD="$MODULE" PRINTK_SHIM_DEFER=$mode \
			sh -c 'exec "$0" reuse-closed "$1" <&- 2>&-' "$FIX/abnormal" "$BATS_TEST_TMPDIR/data"
		[ "$status" -eq 0 ]
		out_is ''
		file_is "$BATS_TEST_TMPDIR/data" $'own data\n'
		capture env PRINTK_SHIM_DEFER=$mode PRINTK_SHIM_SYSLOG_IDENT="bad ident" "$WRAPPER" -- \
			sh -c 'exec "$0" reuse-closed "$1" <&- 2>&-' "$FIX/abnormal" "$BATS_TEST_TMPDIR/data"
		[ "$status" -eq 0 ]
		file_is "$BATS_TEST_TMPDIR/data" $'own data\n'
	done
	# a new stderr given by dup2 is stderr again: the report goes there
	capture env LD_PRELOAD="$MODULE" "$FIX/abnormal" reuse-dup "$BATS_TEST_TMPDIR/data"
	[ "$status" -eq 0 ]
	file_is "$BATS_TEST_TMPDIR/data" $'own data\nprintk-shim: warning: output 1 (stderr): 3 lines lost (Bad file descriptor)\n'
	# so is a copy that dup() puts on 2 (close(2), then dup(fd))
	capture env LD_PRELOAD="$MODULE" "$FIX/abnormal" redup "$BATS_TEST_TMPDIR/data"
	[ "$status" -eq 0 ]
	out_is ''
	file_is "$BATS_TEST_TMPDIR/data" $'own data\nprintk-shim: warning: output 1 (stderr): 3 lines lost (Bad file descriptor)\n'
}

@test "abnormal: pthread_exit from a handler inside printk: the line is written at thread exit" {
	capture shim "$FIX/abnormal" exit-handler
	[ "$status" -eq 0 ]
	out_is $'joined\n'
	err_is $'<5>T partial \n'"$TAIL"
}

@test "abnormal: vfork and execve: the parent's open line stays whole" {
	capture shim "$FIX/abnormal" vfork-execve
	[ "$status" -eq 0 ]
	out_is $'child status 0\n'
	err_is $'<5>MAIN partial rest\n'"$TAIL"
}

@test "abnormal: vfork and execl: the parent's open line stays whole" {
	capture shim "$FIX/abnormal" vfork-execl
	[ "$status" -eq 0 ]
	err_is $'<5>MAIN partial rest\n'"$TAIL"
}

@test "abnormal: vfork and execvp: the parent's open line stays whole" {
	capture shim "$FIX/abnormal" vfork-execvp
	[ "$status" -eq 0 ]
	err_is $'<5>MAIN partial rest\n'"$TAIL"
}

@test "abnormal: a vfork child's own lines, one left open: written at once, the parent's open line stays whole" {
	for mode in 0 1; do
		capture shim PRINTK_SHIM_DEFER=$mode "$FIX/abnormal" vfork-print
		[ "$status" -eq 0 ]
		out_is $'child status 32512\n'
		err_is $'<3>CHILD hello\n<3>CHILD open\n<5>MAIN partial rest\n'"$TAIL"
	done
}

@test "abnormal: posix_spawn and system: the parent's open line stays whole" {
	capture shim "$FIX/abnormal" spawn
	[ "$status" -eq 0 ]
	err_is $'<5>MAIN partial rest\n'"$TAIL"
	capture shim "$FIX/abnormal" system
	[ "$status" -eq 0 ]
	err_is $'<5>MAIN partial rest\n'"$TAIL"
}

@test "abnormal: fork and execl: the child writes its own line, not the parent's" {
	capture shim "$FIX/abnormal" fork-exec
	[ "$status" -eq 0 ]
	err_is $'<5>CHILD partial\n<5>MAIN partial rest\n'"$TAIL"
}

# A jump out of printk after the outputs took its line left the line's
# marks of which output was done with it, and the next line skipped those
# outputs: lost from both, uncounted (about 1 in 4000 lines after a jump).
@test "abnormal: siglongjmp out of printk every 20 us, two outputs: each line after a jump comes out on both" {
	# synchronous lines take the signals' cost in the call: 40000 of them
	# give 9000 jumps, and stay inside the fixture's alarm in a loaded
	# sanitizer build (100000 passed it once in CI's, after 92000 lines)
	local T=$BATS_TEST_TMPDIR mode lines=(40000 100000)
	for mode in 0 1; do
		rm -f "$T/log" "$T/must"
		capture env LD_PRELOAD="$MODULE" PRINTK_SHIM_DEFER=$mode PRINTK_SHIM_OUTPUT=stderr,file:"$T/log" \
			"$FIX/abnormal" cut-next ${lines[mode]} "$T/must"
		[ "$status" -eq 0 ]
		[ "$(head -n 1 "$OUT")" = jumps=many ]
		sed 's/^/<3>/' "$T/must" >"$T/want"	# as the prefix format writes them
		[ "$(grep -Fvxf "$ERR" "$T/want" | wc -l)" -eq 0 ]
		[ "$(grep -Fvxf "$T/log" "$T/want" | wc -l)" -eq 0 ]
	done
}

# A kmsg line's number taken by a call that was jumped out of was never
# given up: the thread's next line waited 50 ms for it, every time.
@test "abnormal: kmsg, siglongjmp out of printk every 20 us: no line waits for the number a jump left" {
	capture timeout 60 env LD_PRELOAD="$MODULE" PRINTK_SHIM_FORMAT=kmsg \
		"$FIX/abnormal" cut-next 20000 "$BATS_TEST_TMPDIR/must"
	[ "$status" -eq 0 ]
	[ "$(grep -o ';B[0-9]*$' "$ERR" | cut -c2-)" = "$(cat "$BATS_TEST_TMPDIR/must")" ]
}

# tests/stress/jumps.sh runs the fixture and checks the log: each line, and
# each piece of a long one, at most twice and whole; VmSize grown by less
# than 4 MB; the lines after the storm exactly as printed.
@test "abnormal: a timeout handler leaves printk by siglongjmp, re-armed after each jump: each line at most twice" {
	run sh "$abs_top_srcdir/tests/stress/jumps.sh" 1000 6000 15 "$BATS_TEST_TMPDIR/log"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == "jumps: "*" pieces, at most "[12]" copies, 0 torn, VmSize grew "*" kB" ]]
	[ "$(tail -n 3 "$BATS_TEST_TMPDIR/log")" = $'<5>AFTER one two\n<5>U one two\n<5>M one two' ]
}

# The fixture's mmap, which comes before the C library's, raises the
# signal whose handler siglongjmps out just as the module maps memory: a
# thread's node and context are made once, whatever cuts them (before, each
# call made another and never got to write its line).
@test "abnormal: siglongjmp out of printk at each mapping it makes: made once, every line after written" {
	want=$(seq 2 299 | sed 's/^/<6>L/; s/$/ x/')$'\n<5>AFTER one two\n'"$TAIL"
	for defer in 0 1; do
		capture shim env PRINTK_SHIM_DEFER=$defer "$FIX/abnormal" map-cut 300
		[ "$status" -eq 0 ]
		err_is "$want"
		grew=$(sed -n 's/^jumps=[23] VmSize grew \(-*[0-9]*\) kB$/\1/p' "$OUT")
		[ -n "$grew" ]
		[ "$grew" -lt 4096 ]
	done
}

@test "abnormal: the same with 60 KB lines: the mapping of a long fragment is not left behind" {
	run sh "$abs_top_srcdir/tests/stress/jumps.sh" 60000 400 20 "$BATS_TEST_TMPDIR/log"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == "jumps: "*" pieces, at most "[12]" copies, 0 torn, VmSize grew "*" kB" ]]
	grew=${output##*grew }
	[ "${grew% kB}" -lt 4096 ]
}
