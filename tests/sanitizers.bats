#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Programs built with a sanitizer, under the module: the wrapper starts an
# ASan program although its runtime must come first (printk-shim(1)
# SANITIZERS), a report that ends the process, which the runtime ends with
# the exit system call, loses no line (printk-shim(7) WHEN A LINE IS
# WRITTEN), and ThreadSanitizer, which cannot see the module's own ordering,
# reports no race of the module's (printk-shim(7) SANITIZERS).
# tests/fixtures/sanitized.c is built here by gcc and clang.

load helper

# The lines sanitized prints with N=300, as printk-shim writes them.
want_lines() {
	seq -f 'n %g' 0 299
	echo open
}

setup_file() {
	local kc=$abs_top_builddir/examples/.libs
	B=$BATS_FILE_TMPDIR
	export B
	# build NAME COMPILER FLAGS...: sanitized.c with libkcompat.
	build() {
		"$2" "${@:3}" -g -o "$B/$1" "$abs_top_srcdir/tests/fixtures/sanitized.c" \
			-L"$kc" -lkcompat -Wl,-rpath,"$kc"
	}
	build gcc-asan gcc -fsanitize=address
	build gcc-ubsan gcc -fsanitize=undefined -fno-sanitize-recover=undefined
	build gcc-tsan gcc -fsanitize=thread
	build clang-asan clang -fsanitize=address -shared-libasan
	build clang-tsan clang -fsanitize=thread
	build clang-msan clang -fsanitize=memory
	build gcc-asan-static gcc -fsanitize=address -static-libasan
	build gcc-tsan-static gcc -fsanitize=thread -static-libtsan
}

setup() {
	# tests/sanitize.sh's module needs its own runtime, which another
	# sanitizer's program cannot have.
	! readelf -d "$MODULE" | grep -qE 'NEEDED.*lib(asan|tsan|ubsan)' ||
		skip "the module itself is built with a sanitizer"
}

# The printk lines of $ERR, in order, without the sanitizer's report.
printed() {
	grep -E '^(n [0-9]+|open)$' "$ERR"
}

@test "sanitizers: the wrapper starts a gcc -fsanitize=address program behind the module" {
	capture "$WRAPPER" --format=prefix -- "$B/gcc-asan" ok 2
	[ "$status" -eq 0 ]
	err_is $'<6>n 0\n<6>n 1\n<6>open\n'
	# Without the wrapper, the runtime refuses to start behind the module.
	capture env LD_PRELOAD="$MODULE" "$B/gcc-asan" ok 2
	[ "$status" -ne 0 ]
	grep -q 'ASan runtime does not come first' "$ERR"
}

@test "sanitizers: ASAN_OPTIONS gets verify_asan_link_order=0, for an ASan program only" {
	# sh is no ASan program: nothing is added.
	run "$WRAPPER" -- sh -c 'printf %s "${ASAN_OPTIONS-unset}"'
	[ "$output" = unset ]
	run env ASAN_OPTIONS=detect_leaks=0 "$WRAPPER" -- sh -c 'printf %s "$ASAN_OPTIONS"'
	[ "$output" = detect_leaks=0 ]
	# The user's options are kept beside it: no leak check, so no report.
	capture env ASAN_OPTIONS=detect_leaks=0 "$WRAPPER" --format=prefix -- "$B/gcc-asan" leak 1
	[ "$status" -eq 0 ]
	err_is $'<6>n 0\n<6>open\n'
	# A choice of the user's is kept: the runtime then refuses, as it says.
	capture env ASAN_OPTIONS=verify_asan_link_order=1 "$WRAPPER" -- "$B/gcc-asan" ok 0
	[ "$status" -ne 0 ]
	grep -q 'ASan runtime does not come first' "$ERR"
}

@test "sanitizers: an ASan runtime at the start of LD_PRELOAD stays in front of the module" {
	local rt
	rt=$(gcc -print-file-name=libasan.so)
	run env LD_PRELOAD="$rt /lib/x86_64-linux-gnu/libm.so.6" "$WRAPPER" --print-env
	grep -qx "export LD_PRELOAD='$rt:$MODULE /lib/x86_64-linux-gnu/libm.so.6'" <<< "$output"
	capture env LD_PRELOAD="$rt" "$WRAPPER" --format=prefix -- "$B/gcc-asan" ok 1
	[ "$status" -eq 0 ]
	err_is $'<6>n 0\n<6>open\n'
}

@test "sanitizers: the wrapper starts a clang -shared-libasan program behind the module" {
	local rt
	rt=$(clang -print-file-name=libclang_rt.asan-x86_64.so)
	capture env LD_LIBRARY_PATH="${rt%/*}" "$WRAPPER" --format=prefix -- "$B/clang-asan" ok 1
	[ "$status" -eq 0 ]
	err_is $'<6>n 0\n<6>open\n'
}

@test "sanitizers: an ASan fault report ends the process: every line written, deferred too" {
	for defer in 0 1; do
		capture "$WRAPPER" --defer="$defer" -- "$B/gcc-asan" fault 300
		[ "$status" -eq 1 ]
		grep -q 'ERROR: AddressSanitizer: heap-buffer-overflow' "$ERR"
		cmp <(printed) <(want_lines)
	done
	# PRINTK_SHIM_CRASH_FLUSH=0: no death callback, and the open line is lost.
	capture "$WRAPPER" --no-crash-flush -- "$B/gcc-asan" fault 300
	[ "$status" -eq 1 ]
	cmp <(printed) <(seq -f 'n %g' 0 299)
}

@test "sanitizers: a leak found at exit ends the process: every line written, deferred too" {
	local rt
	rt=$(gcc -print-file-name=libasan.so)
	# The runtime in front: its leak check at exit comes before the
	# module's destructor; behind it, after.
	for pre in "$rt" ""; do
		for defer in 0 1; do
			capture env LD_PRELOAD="$pre" "$WRAPPER" --defer="$defer" -- "$B/gcc-asan" leak 300
			[ "$status" -eq 1 ]
			grep -q 'ERROR: LeakSanitizer: detected memory leaks' "$ERR"
			cmp <(printed) <(want_lines)
		done
	done
}

@test "sanitizers: a UBSan report that does not recover: every line written, deferred too" {
	for defer in 0 1; do
		capture env LD_PRELOAD="$MODULE" PRINTK_SHIM_DEFER="$defer" "$B/gcc-ubsan" ub 300
		[ "$status" -eq 1 ]
		grep -q 'runtime error: signed integer overflow' "$ERR"
		cmp <(printed) <(want_lines)
	done
}

# MemorySanitizer's runtime starts from its interceptor of the module
# constructor's first call into the C library, and installs its handlers
# from there: the module read its configuration then, whose fstat(2) the
# runtime, not ready yet, ended the process for, before main (3 runs of 3).
@test "sanitizers: a clang -fsanitize=memory program starts behind the module and prints, deferred too" {
	for defer in 0 1; do
		capture env LD_PRELOAD="$MODULE" PRINTK_SHIM_DEFER="$defer" "$B/clang-msan" ok 300
		[ "$status" -eq 0 ]
		cmp <(printed) <(want_lines)
	done
	capture "$WRAPPER" --format=prefix -- "$B/clang-msan" ok 2
	[ "$status" -eq 0 ]
	err_is $'<6>n 0\n<6>n 1\n<6>open\n'
}

# tsan_runs CHECK END N: sanitized END N built by gcc and by clang with
# ThreadSanitizer, synchronous and deferred, the module preloaded alone;
# CHECK after each run.
tsan_runs() {
	local check=$1 prog defer
	shift
	for prog in gcc-tsan clang-tsan; do
		for defer in 0 1; do
			capture env LD_PRELOAD="$MODULE" PRINTK_SHIM_DEFER="$defer" "$B/$prog" "$@"
			"$check"
		done
	done
}

# No report, and every line as the program printed it.
no_report() {
	[ "$status" -eq 0 ]
	run grep -c ThreadSanitizer "$ERR"
	[ "$output" = 0 ]
	run grep -cE '^t[345] [0-9]+ x$' "$ERR"
	[ "$output" = 1800 ]
	run grep -cE '^thread [012] open$' "$ERR"
	[ "$output" = 9 ]
	run grep -cx child "$ERR"
	[ "$output" = 1 ]
	[ "$(grep -cx handler "$ERR")" -ge 36 ]
	cmp <(grep -E '^(n [0-9]+|open)$' "$ERR") <(printf 'n 0\nn 1\nn 2\nopen\n')
}

# The program's race reported, once, and no line torn by a jump.
one_race() {
	[ "$status" -eq 66 ]
	run grep -c '^WARNING: ThreadSanitizer' "$ERR"
	[ "$output" = 1 ]
	grep -q '^WARNING: ThreadSanitizer: data race' "$ERR"
	grep -qE '#0 race .*sanitized.c' "$ERR"
	[ "$(grep -c '^jump' "$ERR")" -gt 300 ]
	[ "$(grep -c '^jump' "$ERR")" = "$(grep -cE '^jump [0-9]+ a line long enough to be cut off inside$' "$ERR")" ]
}

@test "sanitizers: ThreadSanitizer sees no race of the module's: threads, handlers, fork, exit" {
	tsan_runs no_report threads 3
}

@test "sanitizers: ThreadSanitizer still sees the program's race after handlers left printk by siglongjmp" {
	tsan_runs one_race jump 300
}

# gcc's static runtimes export nothing: the module's weak references to
# their death callback and annotations stay unresolved, and nothing said so.
@test "sanitizers: the wrapper warns of gcc's static runtime, which the module cannot reach" {
	local b w
	for b in gcc-asan-static gcc-tsan-static; do
		capture "$WRAPPER" -- "$B/$b" ok 2
		w="printk-shim: warning: $B/$b links a sanitizer runtime statically (gcc's -static-libasan, -static-libtsan or -static-libubsan) and exports none of it: the lines open at a fatal report are lost, and ThreadSanitizer reports the module's own work; build it with the shared runtime"
		[ "$(head -n 1 "$ERR")" = "$w" ]
	done
	# the shared runtimes and clang's, which exports its interface: no word
	for b in gcc-asan gcc-tsan clang-asan clang-tsan; do
		capture "$WRAPPER" -- "$B/$b" ok 2
		run ! grep -q 'links a sanitizer runtime statically' "$ERR"
	done
}
