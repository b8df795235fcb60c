#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# A printk from a signal handler is a context of its own (printk-shim(7) WHEN A LINE IS WRITTEN):
# its lines never join, close or tear the line the interrupted code had
# open, whether the signal arrived between two fragments or inside printk.
# The shim knows it runs in a handler because it wraps the handlers the
# program installs; the program must not be able to tell. A handler
# installed behind the shim's back (the raw rt_sigaction system call) still
# cannot corrupt or deadlock a printk it interrupts.

load helper
load fault-helper

setup() {
	T=$BATS_TEST_TMPDIR
}

# check_storm FILE [raw]: every line of fault-sig's storm whole and in
# order; prints the counts as the fixture does.
check_storm() {
	awk -v raw="${2:-}" '
	function pay(i, len) { return substr(base, i % 26 + 1, len) }
	BEGIN { m = a = p = r = bad = 0
		for (k = 0; k < 40; k++) base = base "abcdefghijklmnopqrstuvwxyz" }
	/^M/ { w = raw ? sprintf("M%06d %s", m, pay(m, 800)) : sprintf("M%06d %s end", m, pay(m, m % 40))
	       if ($0 != w) bad++; m++; next }
	/^A/ { w = raw ? "A" a " whole" : "A" a " " pay(a, a % 20); if ($0 != w) bad++; a++; next }
	/^P/ { if ($0 != "P" p " p") bad++; p++; next }
	/^R/ { if ($0 != "R" r " raw") bad++; r++; next }
	{ bad++ }
	END { if (raw) printf "lines=%d alrm=%d raw=%d", m, a, r
	      else printf "lines=%d alrm=%d prof=%d", m, a, p
	      if (bad) printf " and %d torn or joined lines", bad
	      printf "\n" }' "$1"
}

@test "signals: a handler between two fragments, unmarked first fragment: its own line" {
	capture shim "$FIX/fault-sig" between none
	[ "$status" -eq 0 ]
	err_is "H1 H2
C D
"
}

@test "signals: a handler between two fragments, a level marker: does not close the open line" {
	capture shim "$FIX/fault-sig" between level
	[ "$status" -eq 0 ]
	err_is "H1 H2
C D
"
}

@test "signals: a handler between two fragments, KERN_CONT: does not continue the open line" {
	capture shim "$FIX/fault-sig" between cont
	[ "$status" -eq 0 ]
	err_is "H1 H2
C D
"
}

@test "signals: without the shim the same handler tears the line (the case the shim fixes)" {
	capture "$FIX/fault-sig" between none
	[ "$status" -eq 0 ]
	err_is $'\001'"4C H1 H2
"$'\001'"cD
"
}

@test "signals: one jump out of handlers nested 20 deep, past the frames kept: later lines stay whole" {
	for defer in 0 1; do
		capture env PRINTK_SHIM_DEFER=$defer LD_PRELOAD="$MODULE" "$FIX/fault-sig" deep-jump
		[ "$status" -eq 0 ]
		err_is $'worker 1: processed 10 items in alpha\nworker 2: processed 20 items in alpha\nworker 3: processed 30 items in alpha\n'
	done
}

@test "signals: a handler's line whose write another handler's jump cut off: written, and later lines whole" {
	capture env FAULT_WRITE=raise:10:1 LD_PRELOAD="$MODULE:$FIXLIB/libfault-write.so" \
		"$FIX/fault-sig" cut-flush
	[ "$status" -eq 0 ]
	err_is $'J\nO open\nM 1 2\nH a b\n'
	# the handler that cut the write off ends the process instead
	capture env FAULT_WRITE=raise:10:1 LD_PRELOAD="$MODULE:$FIXLIB/libfault-write.so" \
		"$FIX/fault-sig" cut-exit
	[ "$status" -eq 0 ]
	err_is $'J\nO open\n'
}

@test "signals: a thread cancelled in the write of its handler's line: the line kept, the next thread's whole" {
	capture env LD_PRELOAD="$MODULE" "$FIX/fault-sig" cut-cancel
	[ "$status" -eq 0 ]
	err_is $'H0 open\nH1 open more\nH1 open more\nH1 open more\n'
}

@test "signals: a handler that arrives inside printk (in its write): its line first, the interrupted one intact" {
	capture env FAULT_WRITE=raise:10:1 FAULT_WRITE_REPORT="$T/faults" \
		LD_PRELOAD="$MODULE:$FIXLIB/libfault-write.so" "$FIX/fault-sig" inside
	[ "$status" -eq 0 ]
	err_is "H1 H2
A B
"
	[ "$(cat "$T/faults")" -eq 1 ]
}

# dladdr1() holds the dynamic linker's lock while the module names a
# line's caller: a handler's jump out of it left the lock held, and the
# next dladdr() of any thread, the jumping one's too, waited for good.
@test "signals: a signal that comes while a caller is named waits until the look-up is over, in both modes" {
	local defer
	for defer in 0 1; do
		capture env FAULT_DLADDR=10:1 FAULT_DLADDR_REPORT="$T/held" PRINTK_SHIM_FORMAT=json \
			PRINTK_SHIM_DEFER=$defer LD_PRELOAD="$MODULE:$FIXLIB/libfault-dladdr.so" \
			"$FIX/fault-sig" inside
		[ "$status" -eq 0 ]
		[ "$(cat "$T/held")" -eq 1 ]
		[ "$(grep -c '"msg":"H1 H2"}$' "$ERR")" -eq 1 ]
		[ "$(grep -c '"caller":"main","msg":"A B"}$' "$ERR")" -eq 1 ]
	done
}

@test "signals: a raw rt_sigaction handler inside printk: the busy context is left alone" {
	capture env FAULT_WRITE=raise:12:1 FAULT_WRITE_REPORT="$T/faults" \
		LD_PRELOAD="$MODULE:$FIXLIB/libfault-write.so" "$FIX/fault-sig" inside-raw
	[ "$status" -eq 0 ]
	err_is "R
A B
"
	[ "$(cat "$T/faults")" -eq 1 ]
}

@test "signals: a handler interrupted by another: three contexts, three whole lines" {
	capture shim "$FIX/fault-sig" nested
	[ "$status" -eq 0 ]
	err_is "U2 end2
U1 end1
M done
"
}

@test "signals: a handler's open line ends when the handler returns" {
	capture shim "$FIX/fault-sig" open-handler
	[ "$status" -eq 0 ]
	err_is "handler open
M done
"
}

@test "signals: a handler left by siglongjmp: its open line ends there, the next run starts its own" {
	capture shim "$FIX/fault-sig" longjmp
	[ "$status" -eq 0 ]
	err_is "J 
M
K
N
"
}

@test "signals: sigaction and signal report what the program installed, exactly as without the shim" {
	capture "$FIX/fault-sig" api
	[ "$status" -eq 0 ]
	cp "$OUT" "$T/bare"
	capture shim "$FIX/fault-sig" api
	[ "$status" -eq 0 ]
	cmp "$T/bare" "$OUT"
	err_is ""
	grep -qx 'usr1 now: ret=0 handler=h1 flags=0x54000000 mask=12,15,' "$OUT"
	grep -qx 'segv at start: ret=0 handler=SIG_DFL flags=0 mask=' "$OUT"
	grep -qx 'usr1 signal SIG_ERR: returned SIG_ERR errno=EINVAL' "$OUT"
}

# The C library builds its other calls that set a handler on its own
# sigaction, which the module never sees: they are made from the
# interposed one, as the C library makes them.
# Code that runs before the module's constructor (the program's
# .preinit_array, a library's constructor) sets SIGTERM to SIG_DFL with
# SA_RESTART and a mask: the constructor stood in for the default with a
# bare one of its own, and the program read back neither (hunt T; a
# library's constructor since the configuration is no longer read there).
@test "signals: a SIG_DFL set before the module's constructor reads back as it was set; the stand-in still writes" {
	local t=$BATS_TEST_TMPDIR
	# the program's .preinit_array runs before any library's constructor,
	# the sanitizer runtime's too: an instrumented module faults there
	! readelf -d "$MODULE" | grep -qE 'NEEDED.*lib(asan|tsan|ubsan)' ||
		skip "a module built with a sanitizer runs before its runtime is ready"
	cat >"$t/pre.c" <<'EOF'
#include <signal.h>
#include <stdio.h>
#include <string.h>
int printk(const char *fmt, ...);

static void pre(int c, char **v, char **e)
{
	struct sigaction b = { .sa_handler = SIG_DFL, .sa_flags = SA_RESTART };

	(void)c, (void)v, (void)e;
	sigaddset(&b.sa_mask, SIGHUP);
	sigaction(SIGTERM, &b, NULL);
}
__attribute__((section(".preinit_array"), used)) static void (*hook)(int, char **, char **) = pre;

/* What SIGTERM reads back; with "raise", an open line and SIGTERM. */
int main(int argc, char **argv)
{
	struct sigaction o;

	sigaction(SIGTERM, NULL, &o);
	printf("flags=%#x hup=%d dfl=%d\n", o.sa_flags, sigismember(&o.sa_mask, SIGHUP),
	       o.sa_handler == SIG_DFL);
	fflush(stdout);
	if (argc > 1 && !strcmp(argv[1], "raise")) {
		printk("\0016open");
		raise(SIGTERM);
	}
	return 0;
}
EOF
	"${CC:-cc}" -o "$t/pre" "$t/pre.c" -L"$abs_top_builddir/examples/.libs" -lkcompat \
		-Wl,-rpath,"$abs_top_builddir/examples/.libs"
	run "$t/pre"
	want=$output
	[ "$want" = "flags=0x14000000 hup=1 dfl=1" ]
	capture shim "$t/pre"
	[ "$status" -eq 0 ]
	out_is "$want"$'\n'
	capture shim "$t/pre" raise
	[ "$status" -eq 143 ]
	err_is $'open\n'
}

@test "signals: signal's other names, sysv_signal, sigset and siginterrupt report what the program set, as without the shim" {
	capture "$FIX/fault-sig" api-calls
	[ "$status" -eq 0 ]
	cp "$OUT" "$T/bare"
	capture shim "$FIX/fault-sig" api-calls
	[ "$status" -eq 0 ]
	cmp "$T/bare" "$OUT"
	err_is ""
	grep -qx 'usr1 sysv_signal h1: ret=0 handler=h1 flags=0xffffffffc4000000 mask=' "$OUT"
	grep -qx 'winch sigset h1: returned SIG_HOLD errno=0' "$OUT"
	grep -qx 'usr2 signal h1 after siginterrupt 1: ret=0 handler=h1 flags=0x4000000 mask=12,' "$OUT"
	grep -qx '32 sigset h1: returned SIG_ERR errno=EINVAL' "$OUT"
	[ "$(wc -l <"$OUT")" -eq 100 ]
}

@test "signals: the kernel holds the trampoline for a handler set each of those ways" {
	capture shim "$FIX/fault-sig" kernel-calls
	[ "$status" -eq 0 ]
	out_is "signal=other bsd_signal=other ssignal=other sysv_signal=other __sysv_signal=other sigset=other 
"
}

# A program built for strict ISO C or POSIX (-std=c11) calls __sysv_signal
# for signal(). A jump out of such a handler that cut printk's write once
# left the thread's context taken: every later line came out in pieces.
@test "signals: a jump out of a write from a handler that each of those set: the cut line once, later lines whole" {
	local how
	for how in signal bsd_signal ssignal sysv_signal __sysv_signal strict sigset; do
		capture env FAULT_WRITE=raise:10:1 LD_PRELOAD="$MODULE:$FIXLIB/libfault-write.so" \
			"$FIX/fault-sig" jump-via $how
		[ "$status" -eq 0 ]
		err_is "cut
L0 a b
L1 a b
L2 a b
"
	done
}

@test "signals: the same with PRINTK_SHIM_CRASH_FLUSH=0 and with PRINTK_SHIM_DISABLE=1" {
	capture "$FIX/fault-sig" api
	cp "$OUT" "$T/bare"
	capture env PRINTK_SHIM_CRASH_FLUSH=0 LD_PRELOAD="$MODULE" "$FIX/fault-sig" api
	[ "$status" -eq 0 ]
	cmp "$T/bare" "$OUT"
	capture env PRINTK_SHIM_DISABLE=1 LD_PRELOAD="$MODULE" "$FIX/fault-sig" api
	[ "$status" -eq 0 ]
	cmp "$T/bare" "$OUT"
}

@test "signals: the kernel holds the trampoline for a handler, a stand-in for SIG_DFL, SIG_IGN untouched" {
	capture shim "$FIX/fault-sig" kernel
	[ "$status" -eq 0 ]
	out_is "usr1=other hup=SIG_IGN term=other segv=other
"
}

@test "signals: PRINTK_SHIM_DISABLE=1 wraps nothing, not even the fatal signals" {
	capture env PRINTK_SHIM_DISABLE=1 LD_PRELOAD="$MODULE" "$FIX/fault-sig" kernel
	[ "$status" -eq 0 ]
	out_is "usr1=h1 hup=SIG_IGN term=SIG_DFL segv=SIG_DFL
"
	capture "$FIX/fault-sig" kernel
	out_is "usr1=h1 hup=SIG_IGN term=SIG_DFL segv=SIG_DFL
"
}

@test "signals: PRINTK_SHIM_CRASH_FLUSH=0 leaves the fatal signals alone" {
	capture env PRINTK_SHIM_CRASH_FLUSH=0 LD_PRELOAD="$MODULE" "$FIX/fault-sig" kernel
	[ "$status" -eq 0 ]
	out_is "usr1=other hup=SIG_IGN term=SIG_DFL segv=SIG_DFL
"
}

@test "signals: SA_RESTART still restarts a read the handler interrupted" {
	capture shim "$FIX/fault-sig" restart restart
	[ "$status" -eq 0 ]
	out_is "read=1 errno=0
"
}

@test "signals: without SA_RESTART the read still fails with EINTR" {
	capture shim "$FIX/fault-sig" restart none
	[ "$status" -eq 0 ]
	out_is "read=-1 errno=EINTR
"
}

@test "signals: SA_SIGINFO handlers get the siginfo and context, plain handlers the number" {
	capture shim "$FIX/fault-sig" siginfo
	[ "$status" -eq 0 ]
	out_is "siginfo: signo=10 queued=yes value=1234 pid=self uc=yes plain=12
"
}

@test "signals: a timer storm on sigaction and signal handlers: every line whole, in order" {
	capture shim "$FIX/fault-sig" storm 20000 50
	[ "$status" -eq 0 ]
	[ "$(check_storm "$ERR")" = "$(cat "$OUT")" ]
	grep -q '^lines=20000 alrm=[1-9]' "$OUT"
}

@test "signals: a timer storm with a raw rt_sigaction handler too: whole lines, some inside printk" {
	capture shim "$FIX/fault-sig" storm-raw 5000 50
	[ "$status" -eq 0 ]
	[ "$(check_storm "$ERR" raw) raw_inside=some" = "$(cat "$OUT")" ]
	grep -q '^lines=5000 alrm=[1-9][0-9]* raw=[1-9]' "$OUT"
}

@test "signals: SIGTERM ends a program whose stderr is a pipe nobody reads, with its status, in both modes" {
	local fifo=$BATS_TEST_TMPDIR/fifo
	mkfifo "$fifo"
	# holds the read end and never reads: every write blocks once it is full
	sleep 60 <"$fifo" 3>&- &
	reader=$!
	for mode in 0 1; do
		status=0
		timeout --preserve-status -k 10 1 env LD_PRELOAD="$MODULE" PRINTK_SHIM_DEFER=$mode \
			"$FIX/syslog-flood" 1 100000000 0 2>"$fifo" || status=$?
		# 143: killed by the SIGTERM, its lines' writing cut short by the
		# deadline; 137 would be timeout's SIGKILL 10 s later
		[ "$status" -eq 143 ]
	done
	kill "$reader"
}

# A watchdog's handler left its line open by siglongjmp; the next printk
# writes it while a timer's handler returns every 500 us. Each handler's
# end flushed its depth's line again, waiting 2000 yields for the claim of
# the very flush it interrupted: the program never ran again.
@test "signals: a handler's end never waits for the flush it interrupted: a timer storm does not freeze it" {
	for defer in 0 1; do
		{ timeout 20 env LD_PRELOAD="$MODULE" PRINTK_SHIM_DEFER=$defer "$FIX/sig-watchdog" 500 \
			2>&1 >/dev/null; echo "status $?"; } | { sleep 0.3; cat; } >"$T/out"
		run grep -v '^\.*$' "$T/out"
		if [ $defer = 0 ]; then
			[ "$output" = $'watchdog: stuck\nafter jump\ndone\nstatus 0' ]
		else	# a deferred line may come after the program's own write
			[ "$(sort <<<"$output")" = $'after jump\ndone\nstatus 0\nwatchdog: stuck' ]
		fi
	done
}

# Deferred, a jump that landed after the ring took a line formatted in
# place, before the call cleared it, left the line to be handed out again:
# the same line twice (1 to 33 a run of 50000 lines, 4 runs of 5). A line
# in the ring is out for good.
@test "signals: deferred, a handler's jump out of printk never puts a line in twice" {
	for run in 1 2 3; do
		capture shim env PRINTK_SHIM_DEFER=1 "$FIX/sig-jump" 50000 100
		[ "$status" -eq 0 ]
		grep -qx done "$ERR"	# the program's own write: before the ring's last lines, maybe
		run sh -c "grep -v '^done\$' '$ERR' | sort | uniq -d | head -n 3"
		[ "$output" = '' ]
		# every line whole, in order (the one a jump cut off may be missing)
		run awk 'BEGIN { last = -1 } $0 == "done" { next } { split($1, a, ":"); n = substr(a[1], 2) + 0
			if ($0 != "L" n ": a b" || n <= last) { print "bad: " $0; exit } last = n }' "$ERR"
		[ "$output" = '' ]
	done
}

# The crash flush raised the signal again from its handler, so a core (and
# gdb, systemd-coredump) showed pthread_kill and SI_TKILL where the program
# faulted, and the fault's address was lost.
@test "signals: after the crash flush a fault comes again from its own instruction, with its own siginfo" {
	local t=$BATS_TEST_TMPDIR
	printf '%s\n' 'int printk(const char *fmt, ...);' \
		'int main(void) { printk("\0016open line"); *(volatile int *)0 = 1; return 0; }' >"$t/fault.c"
	$CC -g -O0 -o "$t/fault" "$t/fault.c" -L"$abs_top_builddir/examples/.libs" -lkcompat \
		-Wl,-rpath,"$abs_top_builddir/examples/.libs"
	capture shim "$t/fault"
	[ "$status" -eq 139 ]
	err_is $'open line\n'
	# the second stop is the default action's: the program's own fault
	run gdb -q -batch -ex 'set startup-with-shell off' -ex "set environment LD_PRELOAD=$MODULE" \
		-ex run -ex continue -ex 'p $_siginfo.si_code' -ex 'p $_siginfo._sifields._sigfault.si_addr' \
		-ex 'bt 1' "$t/fault"
	[ "$(grep -c 'received signal SIGSEGV' <<<"$output")" -eq 2 ]
	grep -qx '\$1 = 1' <<<"$output"				# SEGV_MAPERR
	grep -qx '\$2 = (void \*) 0x0' <<<"$output"
	grep -q '^#0  main ' <<<"$output"
}

@test "signals: a handler on a small alternate stack finds about as much of it as without the module" {
	local t=$BATS_TEST_TMPDIR plain with
	! readelf -d "$MODULE" | grep -qE 'NEEDED.*lib(asan|tsan|ubsan)' ||
		skip "a sanitizer's instrumentation makes every frame larger"
	cat >"$t/alt.c" <<'EOF'
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>

static char *top;
static volatile long used;

static void handler(int sig)
{
	char here;

	(void)sig;
	used = top - &here;
}

/* How many bytes of its alternate stack the handler finds taken as it begins. */
int main(void)
{
	size_t size = 65536;
	char *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	stack_t ss = { .ss_sp = base, .ss_size = size };
	struct sigaction sa = { .sa_handler = handler, .sa_flags = SA_ONSTACK };

	top = base + size;
	sigaltstack(&ss, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	printf("%ld\n", used);
	return 0;
}
EOF
	$CC -O1 -o "$t/alt" "$t/alt.c"
	plain=$("$t/alt")
	with=$(env LD_PRELOAD="$MODULE" "$t/alt")
	# the trampoline's own frame, and no copy of the program's action in it
	echo "plain $plain, with the module $with"
	[ $((with - plain)) -le 128 ]
}
