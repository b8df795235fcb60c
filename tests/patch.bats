#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# printk functions the dynamic linker cannot interpose (defined in
# the executable, in a library that binds its own calls, hidden; renamed ones) are patched
# to jump to the shim at start-up. Each fixture runs the legacy cases of
# printk-shim(7) CONTINUATION (tests/fixtures/patch-cases.c); under the shim they must come out
# as whole lines at their levels, byte for byte.

load helper

# The cases under the shim with PRINTK_SHIM_FORMAT=prefix, and without it.
LEGACY=$'<6>foobar\n<7>x 1, y\n<6>foo\n<3>bar\n<6>a\n<4>b\n<6>a\n<6> b\n<6>a\n<4>\n<4>foobar\n<6>a\n'
RAW=$'\0016foobar\n\0017x 1, y\n\0016foo\0013bar\n\0016a\n\001cb\n\0016a\0016 b\n\0016a\n\nfoo\001cbar\n\0016a\n\001c\n'
ADDR='0x[0-9a-f]+, [0-9]+ bytes'

# legacy FIXTURE [VAR=VALUE...]: the cases under the shim come out right.
legacy() {
	local fix=$1
	shift
	capture shim env PRINTK_SHIM_FORMAT=prefix "$@" "$fix"
	[ "$status" -eq 0 ]
	err_is "$LEGACY"
}

# report FIXTURE [VAR=VALUE...]: the PRINTK_SHIM_DEBUG report of a run without printk calls.
report() {
	local fix=$1
	shift
	capture shim env PRINTK_SHIM_DEBUG=1 "$@" "$fix" none
	[ "$status" -eq 0 ]
}

has_line() {
	grep -qxE -- "$1" "$ERR" || { printf 'no line matching: %s\nin:\n' "$1" >&2; cat "$ERR" >&2; return 1; }
}

# A copy of FIXTURE with `strip ARGS`, in the test's directory.
stripped() {
	cp "$FIX/$1" "$BATS_TEST_TMPDIR/$1"
	strip "${@:2}" "$BATS_TEST_TMPDIR/$1"
	echo "$BATS_TEST_TMPDIR/$1"
}

@test "patch: without the shim the linked-in compat printk writes raw markers and torn lines" {
	capture "$FIX/patch-pie"
	err_is "$RAW"
}

# own_printk OUT CFLAGS...: tests/fixtures/copied-printk.c, built with CFLAGS.
own_printk() {
	"${CC:-cc}" "${@:2}" -o "$1" "$abs_top_srcdir/tests/fixtures/copied-printk.c"
}

# The module patched printk's entry and said nothing, while the calls went
# to the copies and came out raw (hunt U, 8000 lines of 8000).
@test "patch: a printk the compiler copied (printk.constprop.N) is said, not patched in silence" {
	local t=$BATS_TEST_TMPDIR
	own_printk "$t/own" -O3
	nm "$t/own" | grep -q ' printk\.constprop\.' # gcc 12 at -O3 makes the copies
	capture shim env PRINTK_SHIM_FORMAT=prefix "$t/own"
	[ "$status" -eq 0 ]
	grep -qxF "printk-shim: warning: $t/own: printk is patched, but the compiler made a copy of it (printk.constprop.0) that calls go to instead: their lines are not the shim's (build it with -fno-ipa-cp-clone -fno-ipa-sra -fno-partial-inlining)" "$ERR"
	# built as it says: no copy, and whole lines
	own_printk "$t/own" -O3 -fno-ipa-cp-clone -fno-ipa-sra -fno-partial-inlining
	capture shim env PRINTK_SHIM_FORMAT=prefix "$t/own"
	[ "$status" -eq 0 ]
	err_is $'<6>line 0: 0 1\n<6>line 1: 0 1\n<6>line 2: 0 1\n'
}

@test "patch: a printk linked into a PIE is patched and writes whole lines" {
	legacy "$FIX/patch-pie"
}

@test "patch: a PIE printk that starts with endbr64 is patched after it" {
	legacy "$FIX/patch-pie-cet"
	report "$FIX/patch-pie-cet"
	has_line "printk-shim: debug: printk: at $ADDR \(\.symtab\): patched: a 13-byte jump to the shim's printk after the landing pad"
}

@test "patch: a printk linked into a non-PIE executable is patched" {
	legacy "$FIX/patch-nopie"
}

@test "patch: a non-PIE printk that starts with endbr64 is patched" {
	legacy "$FIX/patch-nopie-cet"
}

@test "patch: DEBUG says where printk is defined and that it was patched" {
	report "$FIX/patch-pie"
	has_line "printk-shim: debug: PRINTK_SHIM_PATCH=auto SYMBOLS=none"
	has_line "printk-shim: debug: printk: defined inside the executable $(readlink -f "$FIX/patch-pie"): its own calls bind there and cannot be interposed"
	# printk and _printk are one function here; which name the symbol table
	# lists first (and so which is patched, the other being its alias) is the
	# linker's choice: it differs in the sanitizer build.
	has_line "printk-shim: debug: (_?printk): at $ADDR \(\.symtab\): patched: a 13-byte jump to the shim's _?printk"
}

@test "patch: an alias of a patched function is not patched twice" {
	report "$FIX/patch-pie"
	has_line "printk-shim: debug: _?printk: at $ADDR \(\.symtab\): patched: the same function as another name"
	[ "$(grep -cE "^printk-shim: debug: _?printk: at .*: patched: a 13-byte jump" "$ERR")" -eq 1 ]
}

@test "patch: an exported printk of an executable is patched, and DEBUG says so" {
	legacy "$FIX/patch-export"
	report "$FIX/patch-export"
	has_line "printk-shim: debug: printk: at $ADDR \(\.symtab\): patched: a 13-byte jump to the shim's printk"
}

@test "patch: a stripped executable that exports printk is patched from .dynsym" {
	local exe
	exe=$(stripped patch-export)
	[ -z "$(nm "$exe" 2>&1 | grep -v 'no symbols')" ]
	legacy "$exe"
	report "$exe"
	has_line "printk-shim: debug: printk: at $ADDR \(\.dynsym\): patched: a 13-byte jump to the shim's printk"
}

@test "patch: an executable without section headers that exports printk is patched" {
	local exe
	exe=$(stripped patch-export)
	no_sections "$exe" "$exe.sstrip"
	legacy "$exe.sstrip"
	report "$exe.sstrip"
	has_line "printk-shim: debug: printk: at $ADDR \(\.dynsym\): patched: a 13-byte jump to the shim's printk"
}

@test "patch: a fully stripped executable's printk is reported as not seen" {
	local exe
	exe=$(stripped patch-pie)
	capture shim env PRINTK_SHIM_DEBUG=1 "$exe"
	has_line "printk-shim: debug: $exe is stripped \(no \.symtab\) and imports no printk function: a printk of its own, if it has one, cannot be seen, and its calls do not reach the shim"
	[ "$(grep -v '^printk-shim: ' "$ERR")" = "$(printf '%s' "$RAW")" ]
}

@test "patch: strip --strip-unneeded leaves nothing to find either" {
	local exe
	exe=$(stripped patch-nopie --strip-unneeded)
	capture shim "$exe"
	err_is "$RAW"
}

@test "patch: printk in a -Bsymbolic library is patched" {
	legacy "$FIX/patch-symbolic"
	report "$FIX/patch-symbolic"
	has_line "printk-shim: debug: printk: defined in .*/libpatch-symbolic\.so, which binds its own calls \(-Bsymbolic\): they cannot be interposed"
	has_line "printk-shim: debug: printk: at $ADDR \(\.symtab\): patched: a (5|13)-byte jump to the shim's printk"
}

@test "patch: printk in a -Bsymbolic-functions library, no DT_SYMBOLIC to tell, is patched" {
	run readelf -d "$FIX/.libs/libpatch-bsf.so"
	[ "$status" -eq 0 ]
	[[ $output != *SYMBOLIC* ]]
	legacy "$FIX/patch-bsf"
	report "$FIX/patch-bsf"
	has_line "printk-shim: debug: printk: defined in .*/libpatch-bsf\.so, whose own code calls it directly, bound at link time \(-Bsymbolic-functions\): those calls cannot be interposed"
	has_line "printk-shim: debug: printk: at $ADDR \(\.symtab\): patched: a (5|13)-byte jump to the shim's printk"
}

@test "patch: printk called from its own file in a -fno-semantic-interposition library is patched" {
	local f=$abs_top_srcdir/tests/fixtures d=$BATS_TEST_TMPDIR

	printf '#include "%s"\n' "$f/patch-cases.c" "$f/patch-compat.c" >"$d/one.c"
	${CC:-cc} -O2 -fPIC -shared -fno-semantic-interposition -I"$abs_top_srcdir/include" -I"$f" \
		-o "$d/libone.so" "$d/one.c"
	${CC:-cc} -I"$abs_top_srcdir/include" -I"$f" "$f/patch-main.c" -L"$d" -lone -Wl,-rpath,"$d" \
		-o "$d/one"
	legacy "$d/one"
}

@test "patch: a hidden printk of a library, in .symtab only, is patched" {
	[ -z "$(nm -D "$FIX/.libs/libpatch-hidden.so" | grep -w printk)" ]
	legacy "$FIX/patch-hidden"
	report "$FIX/patch-hidden"
	has_line "printk-shim: debug: printk: defined in .*/libpatch-hidden\.so as a local \(static or hidden\) symbol: its calls cannot be interposed"
}

@test "patch: a renamed printk is left alone unless PRINTK_SHIM_SYMBOLS names it" {
	capture shim "$FIX/patch-rename"
	err_is "$RAW"
	legacy "$FIX/patch-rename" PRINTK_SHIM_SYMBOLS=os_printk
}

@test "patch: a vprintk-style function is taken over with NAME:v" {
	legacy "$FIX/patch-va" PRINTK_SHIM_SYMBOLS=kvprintf:v
	report "$FIX/patch-va" PRINTK_SHIM_SYMBOLS=kvprintf:v
	has_line "printk-shim: debug: kvprintf: at $ADDR \(\.symtab\): patched: a 13-byte jump to the shim's vprintk"
}

@test "patch: calls through a function pointer set before main reach the shim" {
	legacy "$FIX/patch-pointer"
}

@test "patch: a function too short for the jump is reported and left alone" {
	legacy "$FIX/patch-pie" PRINTK_SHIM_SYMBOLS=tiny_printk
	report "$FIX/patch-pie-cet" PRINTK_SHIM_SYMBOLS=tiny_printk
	has_line "printk-shim: debug: tiny_printk: at 0x[0-9a-f]+, 7 bytes \(\.symtab\): not reachable: too short \(3 bytes, the jump needs 13\)"
}

@test "patch: a PRINTK_SHIM_SYMBOLS name defined nowhere is reported" {
	report "$FIX/patch-pie" PRINTK_SHIM_SYMBOLS=no_such_printk
	has_line "printk-shim: debug: no_such_printk: not defined in any loaded object's symbol tables"
}

@test "patch: the patched page gets its protection back" {
	capture shim "$FIX/patch-pie" prot
	out_is $'r-xp\n'
	capture shim "$FIX/patch-hidden" prot
	out_is $'r-xp\n'
}

@test "patch: no warning at exit for a patched printk that was never called" {
	capture shim "$FIX/patch-pie" none
	[ "$status" -eq 0 ]
	err_is ''
}

@test "patch: PRINTK_SHIM_PATCH=never patches nothing and the exit warning stays" {
	capture shim env PRINTK_SHIM_PATCH=never "$FIX/patch-pie"
	err_is "$RAW""printk-shim: warning: printk is defined inside the executable $(readlink -f "$FIX/patch-pie"); its calls cannot be interposed and none reached the shim (see PRINTK_SHIM_DEBUG=1)"$'\n'
}

@test "patch: PRINTK_SHIM_DISABLE=1 leaves the program untouched" {
	capture shim env PRINTK_SHIM_DISABLE=1 "$FIX/patch-pie"
	err_is "$RAW"
	report "$FIX/patch-pie" PRINTK_SHIM_DISABLE=1
	has_line "printk-shim: debug: printk: at $ADDR \(\.symtab\): left alone: PRINTK_SHIM_DISABLE=1"
}

@test "patch: PRINTK_SHIM_DISABLE=1 passes calls through to a library's printk without looping" {
	capture timeout 10 env LD_PRELOAD="$MODULE" PRINTK_SHIM_DISABLE=1 "$FIX/patch-symbolic"
	[ "$status" -eq 0 ]
	err_is "$RAW"
}

@test "patch: auto leaves an interposable library printk alone" {
	capture shim env PRINTK_SHIM_DEBUG=1 "$FIX/emit" x
	has_line "printk-shim: debug: printk: defined in .*/libkcompat\.so, exported: the dynamic linker can interpose it"
	has_line "printk-shim: debug: printk: at $ADDR \(\.(symtab|dynsym)\): interposed: the dynamic linker routes its calls to the shim; not patched"
}

@test "patch: always patches an interposable library printk too, harmlessly" {
	capture shim env PRINTK_SHIM_PATCH=always PRINTK_SHIM_DEBUG=1 "$FIX/emit" $'\0016a' $'\001cb\n'
	has_line "printk-shim: debug: printk: at $ADDR \(\.(symtab|dynsym)\): patched: a (5|13)-byte jump to the shim's printk"
	[ "$(grep -v '^printk-shim: ' "$ERR")" = ab ]
}

@test "patch: a shim loaded late patches the library printk that calls are bound to" {
	capture env PRINTK_SHIM_FORMAT=prefix "$FIX/patch-late" late "$MODULE"
	[ "$status" -eq 0 ]
	err_is "$LEGACY"
	capture env PRINTK_SHIM_DEBUG=1 "$FIX/patch-late" late "$MODULE"
	has_line "printk-shim: debug: printk: defined in .*/libkcompat\.so, exported, but ahead of the shim in the lookup order: nothing interposes it"
}

@test "patch: nothing is patched while other threads run" {
	capture env PRINTK_SHIM_DEBUG=1 "$FIX/patch-pie" thread "$MODULE"
	[ "$status" -eq 0 ]
	has_line "printk-shim: debug: printk: at $ADDR \(\.symtab\): not reachable: other threads were running when the shim loaded"
	[ "$(grep -v '^printk-shim: ' "$ERR")" = "$(printf '%s' "$RAW")" ]
}

@test "patch: an invalid PRINTK_SHIM_PATCH gets one warning and auto" {
	capture shim env PRINTK_SHIM_PATCH=sometimes PRINTK_SHIM_FORMAT=prefix "$FIX/patch-pie"
	err_is 'printk-shim: warning: PRINTK_SHIM_PATCH="sometimes": expected auto|always|never; using auto'$'\n'"$LEGACY"
}

@test "patch: an invalid PRINTK_SHIM_SYMBOLS gets one warning and none" {
	capture shim env 'PRINTK_SHIM_SYMBOLS=os_printk,2x' "$FIX/patch-rename"
	err_is 'printk-shim: warning: PRINTK_SHIM_SYMBOLS="os_printk,2x": expected NAME[:v][,NAME[:v]...] (at most 16, each NAME a C identifier under 64 bytes); using none'$'\n'"$RAW"
}

@test "patch: the wrapper's --symbol adds one function per option" {
	capture "$WRAPPER" --symbol=os_printk --symbol kvprintf:v --print-env
	[ "$status" -eq 0 ]
	grep -qx "export PRINTK_SHIM_SYMBOLS='os_printk,kvprintf:v'" "$OUT"
	capture "$WRAPPER" --format=prefix --symbol=os_printk -- "$FIX/patch-rename"
	err_is "$LEGACY"
	capture "$WRAPPER" --symbol=2x -- "$FIX/patch-rename"
	[ "$status" -eq 125 ]
}

# aarch64, under qemu-user, when Debian's cross compiler and qemu-user-static
# are installed (apt-get install gcc-aarch64-linux-gnu qemu-user-static):
# the module and the fixtures are cross-built once per run of this file.
a64() {
	# tests/setup.sh installs both; a missing one is a failure, not a skip.
	command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64-static >/dev/null
	A64=$BATS_FILE_TMPDIR/a64
	[ -e "$A64/built" ] || a64_build
}

a64_build() {
	local f=$abs_top_srcdir/tests/fixtures
	local cc="aarch64-linux-gnu-gcc -O2 -D_GNU_SOURCE -I$abs_top_srcdir/include -I$abs_top_srcdir/shim -I$f"
	local exe="$f/patch-main.c $f/patch-cases.c $f/patch-compat.c"

	mkdir -p "$A64"
	# shellcheck disable=SC2046
	$cc -fPIC -shared -fvisibility=hidden -pthread -DPACKAGE_VERSION='"aarch64"' \
		$(find "$abs_top_srcdir/shim" -name "*.c") \
		-Wl,--version-script="$abs_top_srcdir/shim/printk-shim.map" -Wl,-z,now \
		-o "$A64/libprintk-shim.so"
	$cc -fPIE -pie -DPK_ALIAS $exe -o "$A64/patch-pie"
	$cc -fno-pie -no-pie $exe -o "$A64/patch-nopie"
	$cc -fPIE -pie -mbranch-protection=bti $exe -o "$A64/patch-bti"
	$cc -fPIE -pie -mbranch-protection=standard $exe -o "$A64/patch-pac"
	$cc -fPIE -pie -DPK_VA $exe -o "$A64/patch-va"
	$cc -fPIC -shared -Wl,-Bsymbolic "$f/patch-cases.c" "$f/patch-compat.c" -o "$A64/libpatch-symbolic.so"
	$cc "$f/patch-main.c" -L"$A64" -lpatch-symbolic -Wl,-rpath,"$A64" -o "$A64/patch-symbolic"
	$cc -fPIC -shared -Wl,-Bsymbolic-functions "$f/patch-cases.c" "$f/patch-compat.c" -o "$A64/libpatch-bsf.so"
	$cc "$f/patch-main.c" -L"$A64" -lpatch-bsf -Wl,-rpath,"$A64" -o "$A64/patch-bsf"
	touch "$A64/built"
}

# qemu FIXTURE [VAR=VALUE...]: run an aarch64 fixture with the aarch64 module.
qemu() {
	local fix=$1
	shift
	capture env LD_PRELOAD="$A64/libprintk-shim.so" "$@" \
		qemu-aarch64-static -L /usr/aarch64-linux-gnu "$A64/$fix"
}

@test "patch: aarch64: a PIE printk is patched with a branch" {
	a64
	qemu patch-pie PRINTK_SHIM_FORMAT=prefix
	err_is "$LEGACY"
}

@test "patch: aarch64: a far printk (non-PIE) is patched with ldr x16 and br x16" {
	a64
	qemu patch-nopie PRINTK_SHIM_FORMAT=prefix
	err_is "$LEGACY"
	qemu patch-nopie PRINTK_SHIM_DEBUG=1
	has_line "printk-shim: debug: printk: at $ADDR \(\.symtab\): patched: a 16-byte jump to the shim's printk"
}

@test "patch: aarch64: a leading bti c stays; paciasp is overwritten" {
	a64
	qemu patch-bti PRINTK_SHIM_FORMAT=prefix
	err_is "$LEGACY"
	qemu patch-bti PRINTK_SHIM_DEBUG=1
	has_line "printk-shim: debug: printk: at $ADDR \(\.symtab\): patched: a [0-9]+-byte jump to the shim's printk after the landing pad"
	qemu patch-pac PRINTK_SHIM_FORMAT=prefix
	err_is "$LEGACY"
}

@test "patch: aarch64: a -Bsymbolic library and a vprintk-style function are patched" {
	a64
	qemu patch-symbolic PRINTK_SHIM_FORMAT=prefix
	err_is "$LEGACY"
	qemu patch-va PRINTK_SHIM_FORMAT=prefix PRINTK_SHIM_SYMBOLS=kvprintf:v
	err_is "$LEGACY"
}

@test "patch: aarch64: a -Bsymbolic-functions library, its calls bound by bl, is patched" {
	a64
	qemu patch-bsf PRINTK_SHIM_FORMAT=prefix
	err_is "$LEGACY"
	qemu patch-bsf PRINTK_SHIM_DEBUG=1
	has_line "printk-shim: debug: printk: defined in .*/libpatch-bsf\.so, whose own code calls it directly, bound at link time \(-Bsymbolic-functions\): those calls cannot be interposed"
}
