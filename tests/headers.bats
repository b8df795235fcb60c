#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# include/ as a port uses it: what the compiler makes of the printk
# prototypes, which symbols a port ends up calling, seq_buf.h without a
# printk library, and the installed copy found through printk-shim.pc
# (make install DESTDIR=..., then pkg-config --cflags and --variable=preload).

bats_require_minimum_version 1.7.0

load helper

setup() {
	unset ${!PRINTK_SHIM_@}
	: "${abs_top_builddir:?}" "${abs_top_srcdir:?}"
	CC=${CC:-cc}
	CXX=${CXX:-c++}
	INC=$abs_top_srcdir/include
	TMP=$(mktemp -d "${BATS_TMPDIR:-/tmp}/pks-headers.XXXXXX")
}

teardown() {
	rm -rf "$TMP"
}

# port NAME BODY: a file NAME.c including the printk headers, then BODY.
port() {
	printf '#include <linux/printk.h>\n#include <linux/seq_buf.h>\n%s\n' "$2" >"$TMP/$1.c"
}

@test "headers: printk's format attribute rejects a mismatched argument" {
	port bad 'int f(void); int f(void) { return printk(KERN_INFO "%d\n", "x"); }'
	run -1 $CC -Wall -Werror -I"$INC" -c "$TMP/bad.c" -o "$TMP/bad.o"
	[[ "$output" == *"expects argument of type"* ]]
}

@test "headers: pr_info's arguments are checked too" {
	port bad 'int f(void); int f(void) { return pr_info("%s\n", 42); }'
	run -1 $CC -Wall -Werror -I"$INC" -c "$TMP/bad.c" -o "$TMP/bad.o"
	[[ "$output" == *"expects argument of type"* ]]
}

@test "headers: a port calls the symbols printk and printk_deferred (weak), never _printk" {
	port calls 'void f(void); void f(void) { pr_err("e\n"); pr_cont("c\n"); printk_deferred("d\n"); pr_warn_ratelimited("r\n"); }'
	run $CC -Wall -Werror -I"$INC" -c "$TMP/calls.c" -o "$TMP/calls.o"
	[ "$status" -eq 0 ]
	run nm -u "$TMP/calls.o"
	[[ "$output" == *" U printk"* ]]
	[[ "$output" == *" w printk_deferred"* ]]
	[[ "$output" != *"_printk"* ]]
}

@test "headers: seq_buf.h alone links without any printk definition" {
	printf '%s\n' '#include <linux/seq_buf.h>' \
		'int main(void) { DECLARE_SEQ_BUF(s, 8); seq_buf_puts(&s, "ok"); return !seq_buf_used(&s); }' \
		>"$TMP/sb.c"
	run $CC -Wall -Werror -I"$INC" "$TMP/sb.c" -o "$TMP/sb"
	[ "$status" -eq 0 ]
	run "$TMP/sb"
	[ "$status" -eq 0 ]
}

# -Wconversion and -Wsign-conversion too: a port built with them got a
# warning from printk.h's hex dump (hunt U).
@test "headers: each compiles alone as C99, C11, C17, C2x and C++11 to C++20, -pedantic -Werror" {
	local h std src=$TMP/alone.c bad=0
	for h in "$INC"/linux/*.h "$INC"/net/*.h; do
		printf '#include <%s>\nint pks_alone;\n' "${h#"$INC"/}" >"$src"
		for std in c99 c11 c17 c2x; do
			$CC -std=$std -pedantic -Wall -Wextra -Werror -Wshadow -Wformat=2 \
				-Wconversion -Wsign-conversion \
				-Wmissing-prototypes -Wstrict-prototypes -I"$INC" -fsyntax-only "$src" ||
				{ echo "${h#"$INC"/} as $std"; bad=1; }
		done
		for std in c++11 c++14 c++17 c++20; do
			$CXX -x c++ -std=$std -pedantic -Wall -Wextra -Werror -Wshadow -Wformat=2 \
				-I"$INC" -fsyntax-only "$src" || { echo "${h#"$INC"/} as $std"; bad=1; }
		done
	done
	[ "$bad" -eq 0 ]
}

# The kernel's uapi byteorder headers define one of __LITTLE_ENDIAN and
# __BIG_ENDIAN; kernel code asks "#ifdef __BIG_ENDIAN".
ENDIAN_CHECK='
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#if !defined(__BIG_ENDIAN) || !defined(__BIG_ENDIAN_BITFIELD) || defined(__LITTLE_ENDIAN) || defined(__LITTLE_ENDIAN_BITFIELD)
#error big-endian host: want __BIG_ENDIAN and __BIG_ENDIAN_BITFIELD only
#endif
#else
#if !defined(__LITTLE_ENDIAN) || !defined(__LITTLE_ENDIAN_BITFIELD) || defined(__BIG_ENDIAN) || defined(__BIG_ENDIAN_BITFIELD)
#error little-endian host: want __LITTLE_ENDIAN and __LITTLE_ENDIAN_BITFIELD only
#endif
#endif
int pks_endian_checked;'

# endian_ok HEADER BEFORE AFTER: BEFORE, <HEADER> (linux/printk.h, say),
# AFTER, then the check, as C99, GNU C11 with _GNU_SOURCE (glibc's
# <endian.h> then has everything) and C++11; every failure is printed.
endian_ok() {
	local src=$TMP/endian.c bad=0 flags
	printf '%b#include <%s>\n%b%s\n' "$2" "$1" "$3" "$ENDIAN_CHECK" >"$src"
	for flags in "$CC -std=c99" "$CC -std=gnu11 -D_GNU_SOURCE" "$CXX -x c++ -std=c++11"; do
		$flags -Wall -Werror -I"$INC" -fsyntax-only "$src" || { echo "in: $flags, $1"; bad=1; }
	done
	return $bad
}

@test "headers: each leaves only the host's __*_ENDIAN, whatever libc headers come before or after" {
	local h bad=0
	for h in "$INC"/linux/*.h "$INC"/net/*.h; do
		h=${h#"$INC"/}
		endian_ok "$h" '' '' || bad=1
		endian_ok "$h" '#include <stdlib.h>\n#include <time.h>\n' '' || bad=1
		endian_ok "$h" '' '#include <sys/types.h>\n#include <endian.h>\n#include <stdlib.h>\n' || bad=1
	done
	[ "$bad" -eq 0 ]
}

# frame N PATTERN: line N of $ERR is " PATTERN+0x<offset>/0x<size>" at level 4.
frame() {
	local line
	line=$(sed -n "$(($1 + 1))p" "$ERR")
	[[ "$line" =~ ^"<4> $2+0x"[0-9a-f]+/0x[0-9a-f]+$ ]] ||
		{ printf 'line %d: %q\n' "$1" "$line" >&2; return 1; }
}

@test "headers: min and max take mixed types without a warning; in C++ they live beside the C++ library" {
	printf '%s\n' '#include <linux/kernel.h>' '#include <stddef.h>' \
		'size_t f(size_t n, int i) { return min(n, 2) + max(n, 3) + min(i, 2u) + clamp(n, 1, 9); }' \
		'int main(void) { return min(-1, 2u) == 2u && max(-1, 2) == 2 && min(3L, 7u) == 3 ? 0 : 1; }' \
		>"$TMP/mm.c"
	$CC -Wall -Wextra -Werror -I"$INC" -o "$TMP/mm" "$TMP/mm.c"
	"$TMP/mm"
	for order in 'kernel.h stdlib.h limits algorithm' 'limits algorithm kernel.h'; do
		{ for h in $order; do
			[ "$h" = kernel.h ] && echo '#include <linux/kernel.h>' || echo "#include <$h>"
		  done
		  echo 'int f(int a, long b) { return (int)min(a, b) + std::numeric_limits<int>::max() + std::min(1, 2) + max(a, 3); }'
		  echo 'int main() { return min(4, 9u) == 4u && max(-2, 5L) == 5 ? 0 : 1; }'
		} >"$TMP/mm.cc"
		for std in c++11 c++17 c++20; do
			$CXX -x c++ -std=$std -Wall -Wextra -Werror -I"$INC" -o "$TMP/mmx" "$TMP/mm.cc"
			"$TMP/mmx"
		done
	done
}

@test "headers: dump_stack() prints Call Trace: and the caller's frames outwards, at KERN_DEFAULT" {
	capture shim env PRINTK_SHIM_FORMAT=prefix "$FIX/headers-port" stack
	[ "$status" -eq 0 ]
	[ "$(head -n 1 "$ERR")" = "<4>Call Trace:" ]
	frame 1 stack_inner
	frame 2 stack_outer
	frame 3 main
	# every line whole, at the default level, one frame each
	run ! grep -qv '^<4>' "$ERR"
	[ "$(grep -c '^<4> ' "$ERR")" -ge 4 ]
}

@test "headers: ratelimit_state_exit() names the program, cut at 15 bytes as comm, without _GNU_SOURCE too" {
	printf '%s\n' '#include <linux/ratelimit.h>' 'int main(void) {' \
		'	static DEFINE_RATELIMIT_STATE(rs, 100000, 1);' \
		'	ratelimit_set_flags(&rs, RATELIMIT_MSG_ON_RELEASE);' \
		'	for (int i = 0; i < 4; i++) __ratelimit(&rs);' \
		'	ratelimit_state_exit(&rs); return 0; }' >"$TMP/rl.c"
	$CC -std=c11 -Wall -Werror -I"$INC" "$TMP/rl.c" -o "$TMP/a-long-program-name" \
		-L"$abs_top_builddir/examples/.libs" -lkcompat
	capture shim env PRINTK_SHIM_FORMAT=prefix LD_LIBRARY_PATH="$abs_top_builddir/examples/.libs" \
		"$TMP/a-long-program-name"
	[ "$status" -eq 0 ]
	err_is $'<4>a-long-program-: 3 output lines suppressed due to ratelimiting\n'
}

# only_lines MARK: what the only-printk port prints, MARK (a printf format
# taking the level digit) before each line.
only_lines() {
	local i
	printf "$1e0\n$1r0\n$1d0\n" 3 6 5
	for i in 1 2 3 4 5 6 7 8 9; do
		printf "$1e$i\n$1r$i\n" 3 6
	done
	printf "$1main: 1 callbacks suppressed\n$1e11\n" 4 3
	printf "$1main: 1 callbacks suppressed\n$1r11\n" 4 6
}

@test "headers: with a library that defines printk alone, the ratelimited and deferred forms link and print through it" {
	printf '%s\n' '#include <stdarg.h>' '#include <stdio.h>' \
		'int printk(const char *fmt, ...);' \
		'int printk(const char *fmt, ...) { va_list ap; int n; va_start(ap, fmt);' \
		'	n = vfprintf(stderr, fmt, ap); va_end(ap); return n; }' >"$TMP/only.c"
	# 12 calls a site: 10 pass, 1 is refused, the interval ends before the last
	printf '%s\n' 'static unsigned long ticks = 1;' '#define PKS_RATELIMIT_NOW() ticks' \
		'#include <linux/printk.h>' 'int main(void) {' \
		'	for (int i = 0; i < 12; i++) { ticks += i == 11 ? 6000 : 0;' \
		'		pr_err_ratelimited("e%d\n", i); printk_ratelimited(KERN_INFO "r%d\n", i);' \
		'		printk_deferred_once(KERN_NOTICE "d%d\n", i); } return 0; }' >"$TMP/port.c"
	$CC -shared -fPIC -o "$TMP/libonly.so" "$TMP/only.c"
	# -pie: elsewhere the linker resolves the weak reference to nothing
	$CC -Wall -Werror -fPIE -pie -I"$INC" "$TMP/port.c" -o "$TMP/port" -L"$TMP" -lonly -Wl,-rpath,"$TMP"
	capture "$TMP/port"
	[ "$status" -eq 0 ]
	err_is "$(only_lines '\001%d')"$'\n'
	capture shim env PRINTK_SHIM_FORMAT=prefix "$TMP/port"
	[ "$status" -eq 0 ]
	err_is "$(only_lines '<%d>')"$'\n'
	# The module's printk_deferred is the one called: with no definition
	# after it, it strips the markers, where the library's printk keeps them.
	capture shim env PRINTK_SHIM_DISABLE=1 "$TMP/port"
	[ "$status" -eq 0 ]
	err_is "$(only_lines '\001%d' | sed 's/^\x01[45]\(main\|d0\)/\1/')"$'\n'
}

# The kernel's ratelimit_types.h brings HZ (linux/param.h); ours named it
# only in linux/jiffies.h, and DEFINE_RATELIMIT_STATE(rs, HZ / 2, 3) failed.
@test "headers: ratelimit.h alone gives HZ, 1000 unless the port defined it first" {
	printf '%s\n' '#include <linux/printk.h>' '#include <linux/ratelimit.h>' \
		'static DEFINE_RATELIMIT_STATE(rs, HZ / 2, 3);' \
		'int main(void) { return !(HZ == 1000 && rs.interval == 500); }' >"$TMP/hz.c"
	$CC -Wall -Wextra -Werror -I"$INC" "$TMP/hz.c" -o "$TMP/hz"
	"$TMP/hz"
	printf '%s\n' '#define HZ 250' '#include <linux/ratelimit.h>' '#include <linux/jiffies.h>' \
		'static DEFINE_RATELIMIT_STATE(rs, HZ / 2, 3);' \
		'int main(void) { return !(rs.interval == 125); }' >"$TMP/hz250.c"
	$CC -Wall -Wextra -Werror -I"$INC" "$TMP/hz250.c" -o "$TMP/hz250"
	"$TMP/hz250"
}

@test "headers: dev_err_probe applies no dev_fmt, for -EPROBE_DEFER either, as the kernel's function" {
	printf '%s\n' '#define dev_fmt(fmt) "sub: " fmt' '#include <errno.h>' '#include <linux/device.h>' \
		'static const struct device_driver drv = { "drv" };' \
		'int main(void) { struct device d = { NULL, "dev0", &drv };' \
		'	dev_err_probe(&d, -EIO, "no chip %d\n", 1);' \
		'	dev_err_probe(&d, -EPROBE_DEFER, "deferred %d\n", 2); return 0; }' >"$TMP/probe.c"
	$CC -Wall -Werror -I"$INC" "$TMP/probe.c" -o "$TMP/probe" -L"$abs_top_builddir/examples/.libs" -lkcompat
	capture shim env PRINTK_SHIM_FORMAT=prefix PRINTK_SHIM_DYNDBG=+p \
		LD_LIBRARY_PATH="$abs_top_builddir/examples/.libs" "$TMP/probe"
	[ "$status" -eq 0 ]
	err_is $'<3>drv dev0: error -EIO: no chip 1\n<7>drv dev0: error -EPROBE_DEFER: deferred 2\n'
}

# port CASE: run headers-port CASE under the shim, levels shown as "<N>".
port_run() {
	capture shim env PRINTK_SHIM_FORMAT=prefix "$FIX/headers-port" "$1"
	[ "$status" -eq 0 ]
}

@test "dev_printk: each dev_<level> prints \"<driver> <device>: \" at its level; dev_dbg nothing without DEBUG" {
	port_run dev-levels
	err_is '<0>acme-temp acme0: emerg 0
<1>acme-temp acme0: alert 1
<2>acme-temp acme0: crit 2
<3>acme-temp acme0: err 3
<4>acme-temp acme0: warn 4
<5>acme-temp acme0: notice 5
<6>acme-temp acme0: info 6
<5>acme-temp acme0: dev_printk at KERN_NOTICE
'
}

@test "dev_printk: a NULL device prints \"(NULL device *): \", one with no driver an empty driver name" {
	port_run dev-odd
	err_is '<3>(NULL device *): no device
<6> spi0.1: no driver bound
'
}

@test "dev_dbg, netdev_dbg: decorated on a device only; a NULL one, or a net_device with no parent, plain, as the kernel's" {
	capture shim env PRINTK_SHIM_FORMAT=prefix PRINTK_SHIM_DYNDBG=+pf "$FIX/headers-port" dbg-odd
	[ "$status" -eq 0 ]
	err_is '<7>dbg_odd: acme-temp acme0: with device 1
<7>(NULL device *): no device 2
<7>dbg_odd: acme-temp acme0 eth0: with parent 3
<7>eth1: no parent 4
<7>(NULL net_device): no net_device 5
'
}

@test "dev_printk: dev_*_once prints once, dev_*_ratelimited 10 of 12 within 5 s" {
	local i want='<4>acme-temp acme0: once 0'$'\n'
	for i in 0 1 2 3 4 5 6 7 8 9; do
		want+="<3>acme-temp acme0: ratelimited $i"$'\n'
	done
	port_run dev-limits
	err_is "$want"
}

@test "dev_printk: dev_err_probe returns err; -EPROBE_DEFER is debug, -ENOMEM silent, %pe names the rest" {
	port_run dev-probe
	err_is '<3>acme-temp acme0: error -EIO: probe failed
<4>acme-temp acme0: error -ETIMEDOUT: timed out
'
	out_is $'-5\n-517\n-12\n-110\n'
}

@test "dev_printk: a port's own struct device, dev_name() and dev_driver_string() (PKS_PORT_DEVICE), and dev_fmt" {
	port_run dev-own
	err_is '<4>portdrv port0: own: unit 1
<6>portdrv port0: dev_printk has no dev_fmt
'
}

@test "netdev_printk: each netdev_<level> prints \"<driver> <parent> <interface>: \" at its level" {
	port_run netdev-levels
	err_is '<0>acme-temp acme0 eth0: emerg 0
<1>acme-temp acme0 eth0: alert 1
<2>acme-temp acme0 eth0: crit 2
<3>acme-temp acme0 eth0: err 3
<4>acme-temp acme0 eth0: warn 4
<5>acme-temp acme0 eth0: notice 5
<6>acme-temp acme0 eth0: info 6
<5>acme-temp acme0 eth0: netdev_printk at KERN_NOTICE
'
}

@test "netdev_printk: no parent prints \"<interface>: \"; NULL and unnamed interfaces as the kernel names them" {
	port_run netdev-odd
	err_is '<6>eth1: no parent
<6> spi0.1 eth2: parent with no driver
<3>(NULL net_device): no net_device
<4>(unnamed net_device): a name template
<4>(unnamed net_device): no name
'
}

@test "netdev_printk: netdev_*_once prints once" {
	port_run netdev-once
	err_is '<3>acme-temp acme0 eth0: once 0
'
}

@test "netdev_printk: a port's own struct net_device (PKS_PORT_NET_DEVICE) and its parent (PKS_NETDEV_PARENT)" {
	port_run netdev-own
	err_is '<6>portdrv port0 pt0: link up
<4>pt1: no parent
'
}

@test "headers: make install puts headers, .pc and module where printk-shim.pc says" {
	run env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS ${MAKE:-make} -s -C "$abs_top_builddir" \
		install DESTDIR="$TMP/root"
	[ "$status" -eq 0 ]
	pc=$(find "$TMP/root" -name printk-shim.pc)
	[ -n "$pc" ]
	export PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR=${pc%/*}
	run pkg-config --cflags --variable=preload printk-shim
	[ "$status" -eq 0 ]
	[[ "$output" == /*/printk-shim/libprintk-shim.so ]]
	[ -f "$TMP/root$output" ]
	includedir=$(pkg-config --variable=includedir printk-shim)
	cflags=$(pkg-config --cflags printk-shim)
	[ "${cflags%% }" = "-I$includedir/printk-shim" ]
	for h in "$INC"/linux/*.h "$INC"/net/*.h; do
		[ -f "$TMP/root$includedir/printk-shim/${h#"$INC"/}" ]
	done
	port installed 'int f(void); int f(void) { return pr_info("%d\n", 1); }'
	run $CC -Wall -Werror $(PKG_CONFIG_SYSROOT_DIR=$TMP/root pkg-config --cflags printk-shim) \
		-c "$TMP/installed.c" -o "$TMP/installed.o"
	[ "$status" -eq 0 ]
}
