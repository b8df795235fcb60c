#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The configuration is never read before the C library is ready. A
# sanitizer's runtime installs its signal handlers from the executable's
# preinit code, before the C library has set environ; the module's
# sigaction() must not read the PRINTK_SHIM_* variables then and settle for
# an empty environment. tests/fixtures/early.c does the same by hand, and is
# built here with ASan and TSan by gcc and by clang.

load helper

# What early prints under the shim with PRINTK_SHIM_FORMAT=prefix.
LINES=$'<6>in the handler\n<6>early line\n'
CONFIG_LINE='printk-shim: debug: PRINTK_SHIM_FORMAT=prefix (resolved: prefix) TIME=0 CALLER=0 COLOR=auto CRASH_FLUSH=1 LINT=0'

setup_file() {
	local kc=$abs_top_builddir/examples/.libs
	B=$BATS_FILE_TMPDIR
	export B
	# build NAME COMPILER FLAGS...: early.c with libkcompat, or nothing if
	# that compiler is missing (the test then skips).
	build() {
		command -v "$2" >/dev/null || return 0
		"$2" "${@:3}" -g -o "$B/$1" "$abs_top_srcdir/tests/fixtures/early.c" \
			-L"$kc" -lkcompat -Wl,-rpath,"$kc"
	}
	build gcc-asan gcc -fsanitize=address
	build gcc-tsan gcc -fsanitize=thread
	build clang-asan clang -fsanitize=address -shared-libasan
	build clang-tsan clang -fsanitize=thread
}

# sanitized NAME RUNTIME [VAR=VALUE...]: run $B/NAME with RUNTIME (a shared
# sanitizer runtime, preloaded first as it must be; empty for a static
# one) and the module preloaded.
sanitized() {
	local name=$1 rt=$2
	shift 2
	[ -x "$B/$name" ] || skip "no ${name%%-*} here to build $name"
	# tests/sanitize.sh's module needs its own runtime, which another
	# sanitizer's program cannot have.
	! readelf -d "$MODULE" | grep -qE 'NEEDED.*lib(asan|tsan|ubsan)' ||
		skip "the module itself is built with a sanitizer"
	capture env LD_PRELOAD="${rt:+$rt:}$MODULE" "$@" "$B/$name"
}

# The variables took effect: the report came, with FORMAT as set, and lines
# have their prefix.
configured() {
	[ "$status" -eq 0 ]
	grep -qE '^printk-shim: debug: printk-shim [0-9.]+ in pid [0-9]+; configuration:$' "$ERR"
	assert_bytes "$(sed -n 3p "$ERR")" "$CONFIG_LINE"
	assert_bytes "$(grep -v '^printk-shim: debug: ' "$ERR"; echo .)" "$LINES."
}

@test "early: after sigaction() from preinit code the variables are read, the handler wrapped" {
	capture shim env PRINTK_SHIM_FORMAT=prefix "$FIX/early"
	[ "$status" -eq 0 ]
	err_is "$LINES"
}

@test "early: gcc -fsanitize=address: the variables are read" {
	sanitized gcc-asan "$(gcc -print-file-name=libasan.so)" \
		PRINTK_SHIM_FORMAT=prefix PRINTK_SHIM_DEBUG=1
	configured
}

@test "early: gcc -fsanitize=thread: the variables are read" {
	sanitized gcc-tsan "$(gcc -print-file-name=libtsan.so)" \
		PRINTK_SHIM_FORMAT=prefix PRINTK_SHIM_DEBUG=1
	configured
}

@test "early: clang -fsanitize=address -shared-libasan: the variables are read" {
	sanitized clang-asan "$(clang -print-file-name=libclang_rt.asan-x86_64.so)" \
		PRINTK_SHIM_FORMAT=prefix PRINTK_SHIM_DEBUG=1
	configured
}

@test "early: clang -fsanitize=thread (its runtime linked in): the variables are read" {
	sanitized clang-tsan "" PRINTK_SHIM_FORMAT=prefix PRINTK_SHIM_DEBUG=1
	configured
}
