#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# libprintk-port as a port links it (tests/fixtures/port-lib, no printk of
# its own): whole lines on stderr without the module and the module's lines
# with it; WARN and BUG as the kernel prints them; the installed library
# found with pkg-config after make install DESTDIR=... .

load helper

PL=$FIX/port-lib
# __FILE__ as the build wrote it (a VPATH build's differs), read from the binary
SRC=$(grep -ao '[^[:space:][:cntrl:]]*fixtures/port-lib\.c' "$PL" | head -n 1)

# The addresses, offsets and ids of a report, which change with each build
# and run, as placeholders, and the fixture's path as in-tree; the call trace
# below the WARN's function cut.
norm() {
	sed -E -e "s|$SRC|tests/fixtures/port-lib.c|g" \
		-e 's/PID: [0-9]+/PID: N/; s/CPU: [0-9]+/CPU: N/' \
		-e 's/\+0x[0-9a-f]+\/0x[0-9a-f]+/+X\/X/g' \
		-e '/^(<[0-9]>)? (main|0x|__libc|_start)/d' "$1"
}

@test "library: whole lines on stderr, markers gone, KERN_CONT joined per thread, the open line at exit" {
	capture "$PL" lines
	[ "$status" -eq 0 ]
	err_is $'thread line\nerr continued\ndebug\nno level\nopen at exit\n'
}

@test "library: a signal handler's printk inside printk gets a line of its own, the interrupted line whole" {
	capture "$PL" signals
	[ "$status" -eq 0 ]
	n=$(sed -n 's/^handled \([0-9]*\)$/\1/p' "$OUT")
	[ "${n:-0}" -gt 0 ]
	main="main $(printf '%0900d' 0 | tr 0 a)"
	[ "$(grep -c -x -e "$main" "$ERR")" -eq 20000 ]
	[ "$(grep -c -x -e handler "$ERR")" -eq "$n" ]
	[ "$(wc -l <"$ERR")" -eq $((20000 + n)) ]
}

@test "library: a handler left by siglongjmp inside printk: the line goes on, whole lines after" {
	capture "$PL" jump
	[ "$status" -eq 0 ]
	err_is $'before: one two\nafter: A B\nxy\n'
}

@test "library: threads mid-line while the process exits: no line twice, none torn into another, no stray byte" {
	for _ in 1 2 3 4 5; do
		capture timeout 30 "$PL" exit-race
		[ "$status" -eq 0 ]
		# exit may cut another thread's last write short (the kernel
		# stops a write when the process ends): the file then ends in
		# the start of a line, with no newline
		if [ -n "$(tail -c 1 "$ERR")" ]; then
			tail -n 1 "$ERR" | grep -q -a -x -E \
				'T[0-7]( L[0-9]*(:( f[0-7]?)*( e?n?d?)?)?)?|( f[0-7]?)*( e?n?d?)?'
			sed -i '$d' "$ERR"
		fi
		# each whole line once; after exit took a thread's line, its later
		# fragments come out one by one, as the man page says
		run grep -c -v -a -E '^(T[0-7] L[0-9]+:( f[0-7])*( end)?|( f[0-7])+( end)?| end)$' "$ERR"
		[ "$output" = 0 ]
		run sh -c "grep -a -E '^T[0-7] L[0-9]+:' '$ERR' | cut -d: -f1 | sort | uniq -d | wc -l"
		[ "$output" = 0 ]
	done
}

@test "library: pthread_exit from a handler inside printk: the thread's line is written as it ends" {
	capture "$PL" exit-handler
	[ "$status" -eq 0 ]
	err_is $'T partial \nmain after\n'
}

@test "library: a line from a key destructor run after the library's is written, not lost" {
	capture "$PL" key-dtor
	[ "$status" -eq 0 ]
	err_is $'main start\nworker 1 start\nworker 1 bye\nworker 2 start\nworker 2 bye\nworker 3 start\nworker 3 bye\n'
}

# drv LINE...: $BATS_TEST_TMPDIR/use, a program doing nothing, linked to
# libprintk-port and to a port's libdrv.so made of LINEs after the headers;
# its printk left undefined, as kernel code's is, and named after the library.
drv() {
	local t=$BATS_TEST_TMPDIR lib=$abs_top_builddir/lib/.libs
	printf '%s\n' '#include <linux/printk.h>' "$@" >"$t/drv.c"
	${CC:-cc} -fPIC -shared -I"$abs_top_srcdir/include" -o "$t/libdrv.so" "$t/drv.c"
	printf 'int main(void) { return 0; }\n' >"$t/use.c"
	${CC:-cc} -o "$t/use" "$t/use.c" -L"$lib" -L"$t" -Wl,--no-as-needed -lprintk-port -ldrv \
		-Wl,-rpath,"$lib:$t"
}

@test "library: a port's library that prints from its constructor before the library's own ran, and from its destructor after" {
	drv '__attribute__((constructor)) static void up(void) { printk("<3>drv: legacy marker\n"); pr_info("drv: up\n"); }' \
		'__attribute__((destructor)) static void down(void) { pr_info("drv: down"); }'
	capture "$BATS_TEST_TMPDIR/use"
	[ "$status" -eq 0 ]
	err_is $'drv: legacy marker\ndrv: up\ndrv: down\n'
}

@test "library: a format the engine gives up on keeps the text before it, as the kernel's" {
	local t=$BATS_TEST_TMPDIR lib=$abs_top_builddir/lib/.libs
	cat >"$t/fail.c" <<-'EOF'
	#include <linux/printk.h>
	#include <linux/sprintf.h>
	#include <stdlib.h>

	int main(void)
	{
		char b[32];
		/* a format ending in '%', out of a variable: no compiler sees it */
		const char *bad = getenv("BAD");
		int n = printk(KERN_INFO "%s", "abc"), m, k;
		char *a;

		n = printk(bad);
		m = scnprintf(b, sizeof(b), bad + 2);
		k = snprintf(b + 16, 16, bad + 2);
		a = kasprintf(GFP_KERNEL, bad + 2);
		pr_info("n=%d m=%d k=%d b=%s kasprintf=%s\n", n, m, k, b, a ? a : "NULL");
		free(a);
		return 0;
	}
	EOF
	${CC:-cc} -w -I"$abs_top_srcdir/include" -o "$t/fail" "$t/fail.c" -L"$lib" -lprintk-port \
		-Wl,-rpath,"$lib"
	BAD=$'\0016def%' capture "$t/fail"
	[ "$status" -eq 0 ]
	err_is $'abc\ndef\nn=3 m=3 k=3 b=def kasprintf=def\n'
}

@test "library: the kernel's string functions keep errno, also for a format they give up on" {
	local t=$BATS_TEST_TMPDIR lib=$abs_top_builddir/lib/.libs
	cat >"$t/keep.c" <<-'EOF'
	#include <linux/printk.h>
	#include <linux/sprintf.h>
	#include <errno.h>
	#include <stdio.h>
	#include <stdlib.h>

	int main(void)
	{
		const char *bad = getenv("BAD");	/* no compiler sees it */
		char b[16], *a;
		int e[4];

		errno = 0;
		snprintf(b, sizeof(b), bad);
		e[0] = errno;
		scnprintf(b, sizeof(b), "x%lsy", L"\u263a");	/* not in the C locale */
		e[1] = errno;
		a = kasprintf(GFP_KERNEL, "x%lsy", L"\u263a");
		e[2] = errno;
		errno = 7;
		sprintf(b, bad);
		e[3] = errno;
		printf("%d %d %d %d %s\n", e[0], e[1], e[2], e[3], a);
		free(a);
		return 0;
	}
	EOF
	${CC:-cc} -w -I"$abs_top_srcdir/include" -o "$t/keep" "$t/keep.c" -L"$lib" -lprintk-port \
		-Wl,-rpath,"$lib"
	BAD='abc%' capture "$t/keep"
	[ "$status" -eq 0 ]
	out_is $'0 0 0 7 x\n'
}

@test "library: a descriptor 2 that is no place to write makes printk return, not wait" {
	local t=$BATS_TEST_TMPDIR lib=$abs_top_builddir/lib/.libs
	cat >"$t/nowhere.c" <<-'EOF'
	#include <linux/printk.h>
	#include <stdio.h>
	#include <unistd.h>

	int main(void)
	{
		int p[2];

		close(2);
		if (pipe(p) || p[0] != 2)	/* descriptor 2 is a pipe's read end */
			return 2;
		printf("printk returned %d\n", printk(KERN_INFO "hello\n"));
		return 0;
	}
	EOF
	${CC:-cc} -I"$abs_top_srcdir/include" -o "$t/nowhere" "$t/nowhere.c" -L"$lib" -lprintk-port \
		-Wl,-rpath,"$lib"
	capture timeout 10 "$t/nowhere"
	[ "$status" -eq 0 ]
	out_is $'printk returned 5\n'
}

@test "library: a handler's siglongjmp out of a thread's first printk leaves the library whole" {
	local t=$BATS_TEST_TMPDIR lib=$abs_top_builddir/lib/.libs
	# The signal comes inside the first call's set-up (its pthread_key_create,
	# inside pthread_once): left by the jump there, the once stayed in
	# progress and the next thread's first printk waited for ever.
	cat >"$t/first.c" <<-'EOF'
	#include <linux/printk.h>
	#include <pthread.h>
	#include <setjmp.h>
	#include <signal.h>
	#include <stdlib.h>

	static sigjmp_buf jb;
	static volatile sig_atomic_t armed;	/* a sanitizer's runtime makes keys of its own first */

	int __pthread_key_create(pthread_key_t *k, void (*d)(void *));

	int pthread_key_create(pthread_key_t *k, void (*d)(void *))
	{
		if (armed) {
			armed = 0;
			raise(SIGUSR1);
		}
		return __pthread_key_create(k, d);
	}

	static void jump(int s) { (void)s; siglongjmp(jb, 1); }
	static void *other(void *a) { (void)a; pr_info("the other thread\n"); return NULL; }

	int main(void)
	{
		pthread_t th;

		signal(SIGUSR1, jump);
		armed = 1;
		if (!sigsetjmp(jb, 1))
			pr_info("the first call\n");
		pr_info("after the jump\n");
		pthread_create(&th, NULL, other, NULL);
		pthread_join(th, NULL);
		exit(0);
	}
	EOF
	${CC:-cc} -I"$abs_top_srcdir/include" -o "$t/first" "$t/first.c" -L"$lib" -lprintk-port \
		-Wl,-rpath,"$lib" -pthread
	capture timeout 10 "$t/first"
	[ "$status" -eq 0 ]
	err_is $'after the jump\nthe other thread\n'
}

@test "library: in C++ snprintf stays the kernel's after <string> and <iostream>, std::to_string the C library's" {
	local t=$BATS_TEST_TMPDIR lib=$abs_top_builddir/lib/.libs std
	cat >"$t/after.cc" <<-'EOF'
	#include <linux/kernel.h>
	#include <string>
	#include <iostream>
	#include <cstdio>

	int main()
	{
		unsigned char mac[6] = { 0x00, 0x11, 0x22, 0xaa, 0xbb, 0xcc };
		char b[64], c[64];
		int r = snprintf(b, sizeof(b), "%pM", mac);
		int q = std::snprintf(c, sizeof(c), "%pI4", mac);

		std::cout << r << ' ' << b << ' ' << q << ' ' << c << ' ' << std::to_string(3.5) << '\n';
		return 0;
	}
	EOF
	for std in c++11 c++17 c++20; do
		${CXX:-c++} -std=$std -Wall -Wextra -Werror -I"$abs_top_srcdir/include" -o "$t/after" \
			"$t/after.cc" -L"$lib" -lprintk-port -Wl,-rpath,"$lib"
		run "$t/after"
		[ "$status" -eq 0 ]
		[ "$output" = "17 00:11:22:aa:bb:cc 11 0.17.34.170 3.500000" ]
	done
}

@test "library: a port's library whose only printk is in its destructor, after the library's" {
	drv '__attribute__((destructor)) static void down(void) { pr_info("drv: down"); }'
	capture "$BATS_TEST_TMPDIR/use"
	[ "$status" -eq 0 ]
	err_is $'drv: down\n'
}

@test "library: a line whose call a handler left by siglongjmp is written at exit" {
	local t=$BATS_TEST_TMPDIR lib=$abs_top_builddir/lib/.libs
	cat >"$t/jump.c" <<-'EOF'
	#include <linux/printk.h>
	#include <setjmp.h>
	#include <signal.h>
	#include <stdlib.h>
	#include <sys/mman.h>

	static sigjmp_buf back;

	static void segv(int sig)
	{
		(void)sig;
		siglongjmp(back, 1);
	}

	int main(int argc, char **argv)
	{
		char *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		(void)argv;
		signal(SIGSEGV, segv);
		pr_info("before:");
		pr_cont(" one");
		if (!sigsetjmp(back, 1))
			pr_cont(" %s", none);	/* faults inside printk */
		if (argc > 1)
			quick_exit(0);
		return 0;
	}
	EOF
	# the sanitizers' runtime first, when the library has it: its siglongjmp then
	# clears the stack's shadow that the fault's frames left
	${CC:-cc} ${SAN_CFLAGS:-} ${SAN_LDFLAGS:-} -w -I"$abs_top_srcdir/include" -o "$t/jump" \
		"$t/jump.c" -L"$lib" -lprintk-port -Wl,-rpath,"$lib"
	capture "$t/jump"
	[ "$status" -eq 0 ]
	err_is $'before: one\n'
	capture "$t/jump" quick
	[ "$status" -eq 0 ]
	err_is $'before: one\n'
}

@test "library: %pS of a static function, asked by 16 threads at once, names it in each" {
	local t=$BATS_TEST_TMPDIR lib=$abs_top_builddir/lib/.libs
	cat >"$t/sym.c" <<-'EOF'
	#include <linux/printk.h>
	#include <pthread.h>

	static pthread_barrier_t go;

	__attribute__((noinline)) static int hidden_fn(int x)
	{
		return x * 3 + 1;
	}

	static void *run(void *unused)
	{
		(void)unused;
		pthread_barrier_wait(&go);
		pr_info("%pS\n", (void *)hidden_fn);
		return NULL;
	}

	int main(void)
	{
		pthread_t t[16];

		pthread_barrier_init(&go, NULL, 16);
		for (int i = 0; i < 16; i++)
			pthread_create(&t[i], NULL, run, NULL);
		for (int i = 0; i < 16; i++)
			pthread_join(t[i], NULL);
		return hidden_fn(0) != 1;
	}
	EOF
	${CC:-cc} -O1 -pthread -I"$abs_top_srcdir/include" -o "$t/sym" "$t/sym.c" -L"$lib" \
		-lprintk-port -Wl,-rpath,"$lib"
	for _ in 1 2 3 4 5 6; do
		capture "$t/sym"
		[ "$status" -eq 0 ]
		[ "$(sort -u "$ERR")" = "$(sed -n 's/^\(hidden_fn+0x0\/0x[0-9a-f]*\)$/\1/p' "$ERR" | sort -u)" ]
		[ "$(grep -c '^hidden_fn+0x0/0x' "$ERR")" -eq 16 ]
	done
}

@test "library: a printing thread cancelled at any moment: its last line once, none torn" {
	local t=$BATS_TEST_TMPDIR lib=$abs_top_builddir/lib/.libs
	cat >"$t/cancel.c" <<-'EOF'
	#include <linux/printk.h>
	#include <pthread.h>
	#include <unistd.h>

	static void *run(void *unused)
	{
		(void)unused;
		for (long i = 0;; i++)
			pr_info("line %ld\n", i);
		return NULL;
	}

	int main(void)
	{
		pthread_t t;

		pthread_create(&t, NULL, run, NULL);
		usleep(1000);
		pthread_cancel(t);
		pthread_join(t, NULL);
		return 0;
	}
	EOF
	${CC:-cc} -pthread -I"$abs_top_srcdir/include" -o "$t/cancel" "$t/cancel.c" -L"$lib" \
		-lprintk-port -Wl,-rpath,"$lib"
	for _ in $(seq 1 12); do
		"$t/cancel" 2>"$t/err"
		[ "$(sort "$t/err" | uniq -d | wc -l)" -eq 0 ]
		[ "$(cat "$t/err")" = "$(seq 0 $(($(wc -l <"$t/err") - 1)) | sed 's/^/line /')" ]
	done
}

@test "library: a conversion spec past 64 bytes, its flags repeated, still leaves %p extensions to the engine" {
	local t=$BATS_TEST_TMPDIR lib=$abs_top_builddir/lib/.libs
	cat >"$t/long.c" <<-'EOF'
	#include <linux/printk.h>
	#include <linux/sprintf.h>
	#include <stdint.h>
	#include <stdio.h>

	int main(void)
	{
		char b[128];
		uint8_t ip[4] = { 10, 0, 0, 1 };
		int n;

		n = snprintf(b, sizeof(b), "%0000000000000000000000000000000000000000000000000000000000000000000005d %pI4", 1, ip);
		pr_info("%d %s\n", n, b);
		n = snprintf(b, sizeof(b), "%-------------------------------------------------------------------8.000000000000000000000000000000000000000000000000000000000000003s| %pI4", "abcdef", ip);
		pr_info("%d %s\n", n, b);
		return 0;
	}
	EOF
	${CC:-cc} -w -I"$abs_top_srcdir/include" -o "$t/long" "$t/long.c" -L"$lib" -lprintk-port \
		-Wl,-rpath,"$lib"
	capture "$t/long"
	[ "$status" -eq 0 ]
	err_is $'14 00001 10.0.0.1\n18 abc     | 10.0.0.1\n'
}

@test "library: a fork child writes its own lines, not the open lines it was born with" {
	capture "$PL" fork
	[ "$status" -eq 0 ]
	err_is $'child line\nmain open and closed\nthread open\n'
}

@test "library: every thread's open line at exit, past 4096 threads too" {
	for n in 300 4200; do
		capture "$PL" threads $n
		[ "$status" -eq 0 ]
		[ "$(sort "$ERR")" = "$(seq 0 $((n - 1)) | sed 's/^/open /' | sort)" ]
	done
}

@test "library: a full non-blocking stderr is waited for, no line dropped" {
	"$PL" nonblock 2>&1 >/dev/null | { sleep 1; cat; } >"$BATS_TEST_TMPDIR/got"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/got")" -eq 2000 ]
	[ "$(sed -n '2000p' "$BATS_TEST_TMPDIR/got")" = 'line 1999 of a stderr that does not wait for its reader' ]
}

@test "library: a thread cancelled while its write blocks on a full stderr ends at once; its line comes at exit" {
	local k pad
	capture timeout 30 "$PL" cancel-full
	[ "$status" -eq 0 ]
	[[ $(cat "$OUT") =~ ^joined\ after\ ([0-9]+)\ calls$ ]]
	k=${BASH_REMATCH[1]}
	pad=$(printf '%0200d' 0)
	err_is "$(seq 0 "$k" | sed "s/.*/T & $pad/")"$'\n'
}

@test "library: quick_exit writes the open line as exit does" {
	capture "$PL" quick
	[ "$status" -eq 0 ]
	err_is $'open at quick_exit\n'
}

@test "library: preloaded, the module takes over the library's printk" {
	PRINTK_SHIM_FORMAT=prefix capture shim "$PL" lines
	[ "$status" -eq 0 ]
	err_is $'<6>thread line\n<3>err continued\n<7>debug\n<4>no level\n<6>open at exit\n'
	PRINTK_SHIM_LEVEL=warn capture shim "$PL" lines
	err_is $'err continued\nno level\n'
}

@test "library: \"<N>\" before each line when stderr is the JOURNAL_STREAM, as the module by default" {
	local f=$BATS_TEST_TMPDIR/journal js
	: >"$f"
	js=$(stat -c '%d:%i' "$f")
	JOURNAL_STREAM=$js "$PL" lines 2>>"$f"
	file_is "$f" $'<6>thread line\n<3>err continued\n<7>debug\n<4>no level\n<6>open at exit\n'
	JOURNAL_STREAM=1:2 capture "$PL" lines
	err_is $'thread line\nerr continued\ndebug\nno level\nopen at exit\n'
}

@test "library: printk and scnprintf format %p extensions with the same engine" {
	capture "$PL" format
	err_is $'10.0.0.1 8\n[10.0.0.1]\n'
	capture shim "$PL" format
	err_is $'10.0.0.1 8\n[10.0.0.1]\n'
}

WARN_WANT='returned 0
------------[ cut here ]------------
WARNING: CPU: N PID: N at tests/fixtures/port-lib.c:68 port_warn_site+X/X
Call Trace:
 port_warn_site+X/X
---[ end trace 0000000000000000 ]---
------------[ cut here ]------------
WARNING: CPU: N PID: N at tests/fixtures/port-lib.c:69 port_warn_site+X/X
Call Trace:
 port_warn_site+X/X
---[ end trace 0000000000000000 ]---
------------[ cut here ]------------
once 1
WARNING: CPU: N PID: N at tests/fixtures/port-lib.c:71 port_warn_site+X/X
Call Trace:
 port_warn_site+X/X
---[ end trace 0000000000000000 ]---
returned 3
------------[ cut here ]------------
x is 2
WARNING: CPU: N PID: N at tests/fixtures/port-lib.c:70 port_warn_site+X/X
Call Trace:
 port_warn_site+X/X
---[ end trace 0000000000000000 ]---
returned 3'

@test "library: WARN_ON, WARN_ON_ONCE, WARN, WARN_ONCE print the kernel's report and return the condition" {
	capture "$PL" warn
	[ "$status" -eq 0 ]
	assert_bytes "$(norm "$ERR")" "$WARN_WANT"
	# the PID is the thread's, and the trace walks out to main
	grep -q "PID: $(sed -n 's/.*PID: \([0-9]*\).*/\1/p' "$ERR" | head -n 1) at" "$ERR"
	grep -qx ' main+0x[0-9a-f]*/0x[0-9a-f]*' "$ERR"
}

@test "library: a WARN and a stack dump start lines of their own, the open line ended, with and without the module" {
	capture "$PL" warn-open
	[ "$status" -eq 0 ]
	[ "$(norm "$ERR" | sed -n '1,2p')" = $'probing...\n------------[ cut here ]------------' ]
	norm "$ERR" | grep -qx 'scan'
	norm "$ERR" | grep -qx 'Call Trace:'
	capture shim env PRINTK_SHIM_FORMAT=prefix "$PL" warn-open
	[ "$status" -eq 0 ]
	[ "$(norm "$ERR" | sed -n '1,2p')" = $'<6>probing...\n<4>------------[ cut here ]------------' ]
	norm "$ERR" | grep -qx '<6>scan'
	norm "$ERR" | grep -qx '<4>Call Trace:'
}

@test "library: a WARN's lines at the kernel's levels under the module" {
	PRINTK_SHIM_FORMAT=prefix capture shim "$PL" warn
	norm "$ERR" | sed -n '1,6p;12,13p' >"$BATS_TEST_TMPDIR/lv"
	file_is "$BATS_TEST_TMPDIR/lv" '<4>returned 0
<4>------------[ cut here ]------------
<4>WARNING: CPU: N PID: N at tests/fixtures/port-lib.c:68 port_warn_site+X/X
<4>Call Trace:
<4> port_warn_site+X/X
<4>---[ end trace 0000000000000000 ]---
<4>------------[ cut here ]------------
<3>once 1
'
}

@test "library: BUG_ON reports \"kernel BUG at\" at KERN_CRIT and ends the process as abort does" {
	capture "$PL" bug
	[ "$status" -eq 134 ]
	assert_bytes "$(norm "$ERR")" '------------[ cut here ]------------
kernel BUG at tests/fixtures/port-lib.c:79!
Call Trace:
 port_bug_site+X/X
---[ end trace 0000000000000000 ]---'
	PRINTK_SHIM_FORMAT=prefix capture shim "$PL" bug
	[ "$status" -eq 134 ]
	[ "$(norm "$ERR" | sed -n 2p)" = '<2>kernel BUG at tests/fixtures/port-lib.c:79!' ]
	[ "$(tail -n 1 "$ERR")" = '<4>---[ end trace 0000000000000000 ]---' ]
}

@test "library: dev_WARN and dev_WARN_ONCE put \"<driver> <device>: \" before the message" {
	capture "$PL" dev-warn
	[ "$status" -eq 0 ]
	norm "$ERR" | grep -v '^---\[\|^Call\|^ port\|^WARN' >"$BATS_TEST_TMPDIR/dev"
	file_is "$BATS_TEST_TMPDIR/dev" '------------[ cut here ]------------
port-drv port0: dev 1
------------[ cut here ]------------
port-drv port0: dev once
returned 1
------------[ cut here ]------------
port-drv port0: dev 2
returned 1
'
	norm "$ERR" | grep -q '^WARNING: CPU: N PID: N at tests/fixtures/port-lib.c:88 port_dev_warn_site+X/X$'
}

@test "library: installed, a port links it with pkg-config --cflags --libs and runs with and without the module" {
	local root=$BATS_TEST_TMPDIR/root pc lib
	run env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS ${MAKE:-make} -s -C "$abs_top_builddir" \
		install DESTDIR="$root"
	[ "$status" -eq 0 ]
	pc=$(find "$root" -name printk-shim.pc)
	export PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR=${pc%/*} PKG_CONFIG_SYSROOT_DIR=$root
	lib=$(pkg-config --variable=libdir printk-shim)	# the sysroot before it
	[ "$(echo $(pkg-config --libs printk-shim))" = "-L$lib -lprintk-port" ]
	printf '%s\n' '#include <linux/kernel.h>' \
		'int main(void) { char b[16]; scnprintf(b, sizeof(b), "%pI4", "\x7f\0\0\1");' \
		'  pr_info("port: ");  pr_cont("%s\n", b); return 0; }' >"$BATS_TEST_TMPDIR/p.c"
	# (a sanitizer build's library needs the sanitizer in the program too)
	run $CC $SAN_CFLAGS $SAN_LDFLAGS -Wall -Werror $(pkg-config --cflags printk-shim) \
		"$BATS_TEST_TMPDIR/p.c" -o "$BATS_TEST_TMPDIR/p" $(pkg-config --libs printk-shim)
	[ "$status" -eq 0 ]
	readelf -d "$BATS_TEST_TMPDIR/p" | grep -q 'NEEDED.*\[libprintk-port.so.0\]'
	[ -L "$lib/libprintk-port.so" ]
	[ -f "$lib/libprintk-port.so.0" ]
	[ ! -e "$lib/libprintk-port.la" ]
	LD_LIBRARY_PATH=$lib capture "$BATS_TEST_TMPDIR/p"
	err_is $'port: 127.0.0.1\n'
	LD_LIBRARY_PATH=$lib PRINTK_SHIM_FORMAT=prefix \
		capture env LD_PRELOAD="$(pkg-config --variable=preload printk-shim)" "$BATS_TEST_TMPDIR/p"
	err_is $'<6>port: 127.0.0.1\n'
}

@test "library: exports the printk family and the string functions only, under version PRINTK_PORT_0" {
	local so=$abs_top_builddir/lib/.libs/libprintk-port.so
	run sh -c "objdump -T '$so' | awk '\$2 == \"g\" && \$4 == \".text\" { print \$6, \$7 }' | sort"
	assert_bytes "$output" 'PRINTK_PORT_0 _printk
PRINTK_PORT_0 _printk_deferred
PRINTK_PORT_0 kasprintf
PRINTK_PORT_0 kvasprintf
PRINTK_PORT_0 kvasprintf_const
PRINTK_PORT_0 pks_kernel_snprintf
PRINTK_PORT_0 pks_kernel_sprintf
PRINTK_PORT_0 pks_kernel_vsnprintf
PRINTK_PORT_0 pks_kernel_vsprintf
PRINTK_PORT_0 printk
PRINTK_PORT_0 printk_deferred
PRINTK_PORT_0 scnprintf
PRINTK_PORT_0 vprintk
PRINTK_PORT_0 vscnprintf'
	[ "$(readelf -d "$so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')" = libprintk-port.so.0 ]
}

@test "library: HZ defined by the port before the headers sets jiffies' rate and the ratelimit interval" {
	local inc=$abs_top_srcdir/include
	printf '%s\n' '#include <linux/jiffies.h>' '#include <linux/ratelimit.h>' '#include <stdio.h>' \
		'int main(void) { unsigned long a = jiffies; struct timespec ts = { 0, 20000000 };' \
		'  nanosleep(&ts, NULL);' \
		'  printf("%d %lu %u %d %d\n", HZ, msecs_to_jiffies(1000), jiffies_to_msecs(25),' \
		'         DEFAULT_RATELIMIT_INTERVAL, time_after(jiffies, a + 1));' \
		'  return 0; }' >"$BATS_TEST_TMPDIR/hz.c"
	$CC -std=gnu11 -Wall -Werror -DHZ=250 -I"$inc" "$BATS_TEST_TMPDIR/hz.c" -o "$BATS_TEST_TMPDIR/hz"
	run "$BATS_TEST_TMPDIR/hz"
	[ "$output" = "250 250 100 1250 1" ]
}

@test "library: BUILD_BUG_ON of a true constant stops the build; of a false one it compiles" {
	local inc=$abs_top_srcdir/include
	printf '#include <linux/kernel.h>\nint f(void);\nint f(void) { BUILD_BUG_ON(sizeof(int) > %s); return 0; }\n' 64 \
		>"$BATS_TEST_TMPDIR/ok.c"
	$CC -Wall -Werror -I"$inc" -c "$BATS_TEST_TMPDIR/ok.c" -o /dev/null
	sed 's/> 64/< 64/' "$BATS_TEST_TMPDIR/ok.c" >"$BATS_TEST_TMPDIR/bad.c"
	run $CC -Wall -Werror -I"$inc" -c "$BATS_TEST_TMPDIR/bad.c" -o /dev/null
	[ "$status" -ne 0 ]
}

# pr_fmt in the kernel's "%s: " fmt, __func__ idiom: its __func__ took the
# place of the level's argument in pr_debug without the module, and
# "\001" "7" came out inside the line.
@test "library: pr_debug under a pr_fmt with arguments of its own prints them in place, with and without the module" {
	local t=$BATS_TEST_TMPDIR lib=$abs_top_builddir/lib/.libs
	cat >"$t/fmt.c" <<-'EOF'
	#define DEBUG
	#define pr_fmt(fmt) "%s: " fmt, __func__
	#include <linux/printk.h>
	static void probe(void)
	{
		pr_debug("dbg %d\n", 3);
		pr_debug("bare\n");
		pr_info("info %d\n", 4);
	}
	int main(void)
	{
		probe();
		return 0;
	}
	EOF
	${CC:-cc} -Wall -Wextra -Werror -I"$abs_top_srcdir/include" -o "$t/fmt" "$t/fmt.c" -L"$lib" \
		-lprintk-port -Wl,-rpath,"$lib"
	capture "$t/fmt"
	[ "$status" -eq 0 ]
	err_is $'probe: dbg 3\nprobe: bare\nprobe: info 4\n'
	capture shim env PRINTK_SHIM_FORMAT=prefix "$t/fmt"
	[ "$status" -eq 0 ]
	err_is $'<7>probe: dbg 3\n<7>probe: bare\n<6>probe: info 4\n'
}
