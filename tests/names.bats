#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Names without -rdynamic, as kallsyms gives them to the kernel: %pS, %ps,
# %pB, the lint location and dynamic debug's func name a static function
# of a program linked without -rdynamic from its .symtab, read once and
# never for the first time in a signal handler (tests/fixtures/names.c).
# Their sizes, as kallsyms counts them, for functions and data objects,
# with -rdynamic or without (tests/fixtures/sizes.c, built here).

load helper

# size_of PROG NAME: NAME's size as kallsyms counts it, in hex: up to where
# the next symbol nm lists starts or, when NAME is the last in its section,
# to the section's end.
size_of() {
	local start next addr size flg end=0

	read -r start next < <(nm -n "$1" | awk -v want="$2" '
		NF != 3 || $2 ~ /^[aAN]$/ { next }
		found && $1 != start { after = $1; exit }
		$3 == want { found = 1; start = $1 }
		END { print start, after }')
	while read -r _ _ addr _ size _ flg _; do
		if [[ $flg == *A* ]] && ((0x$addr <= 0x$start && 0x$start < 0x$addr + 0x$size)); then
			end=$((0x$addr + 0x$size))
		fi
	done < <(readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] //p')
	if [[ -n $next ]] && ((0x$next < end)); then
		end=$((0x$next))
	fi
	printf '0x%x' $((end - 0x$start))
}

# st_size PROG NAME: NAME's size in its symbol table, as a number.
st_size() {
	echo $((0x$(nm -S "$1" | awk -v want="$2" 'NF == 4 && $4 == want { print $2; exit }')))
}

# The size of port_probe, as %pS prints it.
probe_size() {
	size_of "$FIX/names" port_probe
}

# tests/fixtures/sizes.c, -O2 and its symbols in source order whatever the
# build's flags, as sizes and, with -rdynamic, as sizes-rdynamic
setup_file() {
	local kc=$abs_top_builddir/examples/.libs flag

	for flag in "" -rdynamic; do
		"${CC:-cc}" ${SAN_CFLAGS:-} ${SAN_LDFLAGS:-} -O2 -fno-toplevel-reorder $flag \
			-o "$BATS_FILE_TMPDIR/sizes$flag" "$abs_top_srcdir/tests/fixtures/sizes.c" \
			-L"$kc" -lkcompat -Wl,-rpath,"$kc"
	done
}

# symbol PROG NAME OFFSET: "NAME+0xOFFSET/SIZE" as %pS prints an address
# OFFSET bytes into NAME.
symbol() {
	printf '%s+0x%x/%s' "$2" "$3" "$(size_of "$1" "$2")"
}

@test "names: the program has no dynamic symbol for its static function" {
	run ! grep -q port_probe < <(readelf -W --dyn-syms "$FIX/names")
	readelf -Ws "$FIX/names" | grep -q ' LOCAL .* port_probe$'
}

@test "names: %pS, %ps and %pB of a static function, from .symtab" {
	capture shim "$FIX/names" pS
	[ "$status" -eq 0 ]
	err_is "port_probe+0x0/$(probe_size) port_probe port_probe+0x1/$(probe_size)
"
}

@test "names: stripped, the same function is a bare address, as the kernel's without kallsyms" {
	strip -o "$BATS_TEST_TMPDIR/names" "$FIX/names"
	capture shim "$BATS_TEST_TMPDIR/names" pS
	[ "$status" -eq 0 ]
	grep -qxE '0x[0-9a-f]+ 0x[0-9a-f]+ 0x[0-9a-f]+' "$ERR"
}

@test "names: never read for the first time in a signal handler; named there once read" {
	capture shim "$FIX/names" signal
	[ "$status" -eq 0 ]
	[ "$(grep -c '' "$ERR")" -eq 3 ]
	sed -n 1p "$ERR" | grep -qxE 'in the handler: 0x[0-9a-f]+'
	[ "$(sed -n 2p "$ERR")" = "port_probe+0x0/$(probe_size) port_probe port_probe+0x1/$(probe_size)" ]
	[ "$(sed -n 3p "$ERR")" = "in the handler: port_probe+0x0/$(probe_size)" ]
}

@test "names: the lint location names the static function" {
	capture shim env PRINTK_SHIM_LINT=1 "$FIX/names" lint
	[ "$status" -eq 0 ]
	grep -qE "^printk-shim: lint: port_probe\\+0x[0-9a-f]+ \\(.*names\\): fragment \"b\\\\n\" continues a line without KERN_CONT; a 4\\.9\\+ kernel starts a new line here\$" "$ERR"
}

@test "names: dynamic debug's func matches the static function" {
	capture shim env PRINTK_SHIM_DYNDBG='func port_probe +f' "$FIX/names" debug
	[ "$status" -eq 0 ]
	err_is 'port_probe: debug from the probe
'
	capture shim env PRINTK_SHIM_DYNDBG='func port_probe -p' "$FIX/names" debug
	err_is ''
	capture shim env PRINTK_SHIM_DYNDBG='func main -p' "$FIX/names" debug
	err_is 'debug from the probe
'
}

@test "names: the lint location adds file:line once a dynamic debug query has loaded DWARF" {
	local line
	line=$(grep -n 'printk("b\\n")' "$abs_top_srcdir/tests/fixtures/names.c" | cut -d: -f1)
	capture shim env PRINTK_SHIM_LINT=1 PRINTK_SHIM_DYNDBG='file names.c +p' "$FIX/names" debug lint
	[ "$status" -eq 0 ]
	grep -qE "^printk-shim: lint: port_probe\\+0x[0-9a-f]+ \\(.*names\\) at (.*/)?tests/fixtures/names\\.c:$line: fragment \"b\\\\n\" continues" "$ERR"
	# without a query, lint never loads libdw itself: no file and line
	capture shim env PRINTK_SHIM_LINT=1 "$FIX/names" lint
	grep -qE "^printk-shim: lint: port_probe\\+0x[0-9a-f]+ \\(.*names\\): fragment" "$ERR"
}

@test "names: a program that ld.so runs is read by its own name, not ld.so's" {
	local ldso
	ldso=$(readelf -l "$FIX/names" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
	[ -x "$ldso" ] || skip "no $ldso"
	capture shim "$ldso" "$FIX/names" pS
	[ "$status" -eq 0 ]
	err_is "port_probe+0x0/$(probe_size) port_probe port_probe+0x1/$(probe_size)
"
}

@test "names: a data object, from .symtab as from its dynamic symbol with -rdynamic" {
	local prog mode

	for prog in sizes sizes-rdynamic; do
		for mode in 0 1; do
			capture shim env PRINTK_SHIM_DEFER=$mode "$BATS_FILE_TMPDIR/$prog" data
			[ "$status" -eq 0 ]
			err_is "$(symbol "$BATS_FILE_TMPDIR/$prog" table 8)
"
		done
	done
}

@test "names: a library's hidden function, where a closed library's was, is named from its own .symtab" {
	local who mode

	# WHO local: only dl_fn is exported
	echo '{ global: dl_fn; local: *; };' >"$BATS_TEST_TMPDIR/dl.map"
	for who in alpha omega; do
		"${CC:-cc}" ${SAN_CFLAGS:-} -O2 -fPIC -shared -DWHO=$who \
			-Wl,--version-script="$BATS_TEST_TMPDIR/dl.map" \
			-o "$BATS_TEST_TMPDIR/libdl$who.so" "$abs_top_srcdir/tests/fixtures/dl-fn.c"
	done
	for mode in 0 1; do
		capture shim env PRINTK_SHIM_DEFER=$mode PRINTK_SHIM_FORMAT=json "$FIX/ends" \
			@dl "$BATS_TEST_TMPDIR/libdlalpha.so" "$BATS_TEST_TMPDIR/libdlomega.so"
		[ "$status" -eq 0 ]
		[ "$(cat "$OUT")" = same ] || skip "the second library did not come where the first was"
		[ "$(grep -o '"caller":"[a-z]*"' "$ERR" | tr '\n' ' ')" = '"caller":"alpha" "caller":"omega" ' ]
	done
}

# A library's file mapped for its .symtab, then cut short on disk past its
# loaded segments (installed again over itself, say): the next look-up
# there faulted, and the module ended the program with SIGBUS (3 runs of
# 3). The mapping becomes zeroes at the fault, and the object is named by
# its dynamic symbols from then on.
@test "names: a library's file cut short on disk after it was read: no SIGBUS, both modes" {
	local t=$BATS_TEST_TMPDIR mode cut i
	for i in $(seq 0 1999); do
		echo "static int __attribute__((noinline, used)) st_$i(int x) { return x * $i + 1; }"
	done >"$t/big.c"
	echo 'void *first(void) { return (void *)st_0; } void *last(void) { return (void *)st_1999; }' >>"$t/big.c"
	cat >"$t/use.c" <<'EOF'
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>
int printk(const char *fmt, ...);

/* LIB's first() named, LIB cut to CUT bytes, last() named. */
int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW);
	void *(*first)(void) = (void *(*)(void))dlsym(h, "first");
	void *(*last)(void) = (void *(*)(void))dlsym(h, "last");

	(void)argc;
	printk("\0016first: %pS\n", first());
	if (truncate(argv[1], atol(argv[2])))
		return 2;
	printk("\0016last: %pS\n", last());
	printk("\0016done\n");
	return 0;
}
EOF
	"${CC:-cc}" -o "$t/use" "$t/use.c" -ldl -L"$abs_top_builddir/examples/.libs" -lkcompat \
		-Wl,-rpath,"$abs_top_builddir/examples/.libs"
	for mode in 0 1; do
		"${CC:-cc}" -O1 -fPIC -shared -o "$t/libbig.so" "$t/big.c"
		# past the last loaded byte, page-aligned; .symtab and .strtab lie beyond
		cut=0
		while read -r off size; do
			((off + size <= cut)) || cut=$((off + size))
		done < <(readelf -lW "$t/libbig.so" | awk '$1 == "LOAD" { print $2, $5 }')
		cut=$(((cut + 4095) / 4096 * 4096))
		[ "$cut" -lt "$(stat -c %s "$t/libbig.so")" ]
		capture shim env PRINTK_SHIM_DEFER=$mode "$t/use" "$t/libbig.so" "$cut"
		[ "$status" -eq 0 ]
		[ ! -s "$OUT" ]
		run cat "$ERR"
		[[ ${lines[0]} == "first: st_0+0x0/0x"*" [libbig]" ]]
		[[ ${lines[1]} =~ ^last:\ 0x[0-9a-f]+$ ]]
		[ "${lines[2]}" = done ]
		[ "${#lines[@]}" -eq 3 ]
	done
}

# Aliases at one address: kallsyms puts the one that is not weak first,
# then the one with fewer leading underscores; where it keeps nm's order,
# the global name before a local alias. %pS printed the module's printk as
# its local alias printk_here, and the C library's printf (no .symtab) as
# _IO_printf, dladdr()'s choice. puts is weak in the C library: _IO_puts.
@test "names: of aliases at one address, the one kallsyms sorts first, from .symtab and .dynsym" {
	local t=$BATS_TEST_TMPDIR mode
	cat >"$t/alias.c" <<'EOF'
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
	int (*pk)(const char *, ...) = (int (*)(const char *, ...))dlsym(RTLD_DEFAULT, "printk");
	void *under = dlsym(RTLD_DEFAULT, "_printk");

	pk("\0016%ps %ps %ps %ps\n", (void *)pk, under, (void *)printf, (void *)puts);
	return 0;
}
EOF
	"${CC:-cc}" -o "$t/alias" "$t/alias.c" -ldl
	for mode in 0 1; do
		capture env LD_PRELOAD="$MODULE" PRINTK_SHIM_DEFER=$mode "$t/alias"
		[ "$status" -eq 0 ]
		err_is $'printk [libprintk-shim] _printk [libprintk-shim] printf [libc] _IO_puts [libc]\n'
	done
}

@test "names: a function's size reaches the next symbol, as kallsyms counts it" {
	local prog mode want

	for prog in sizes sizes-rdynamic; do
		want=$(size_of "$BATS_FILE_TMPDIR/$prog" short_fn)
		# the alignment of the function after it leaves room
		(($(st_size "$BATS_FILE_TMPDIR/$prog" short_fn) < want))
		for mode in 0 1; do
			capture shim env PRINTK_SHIM_DEFER=$mode "$BATS_FILE_TMPDIR/$prog" next
			[ "$status" -eq 0 ]
			err_is "short_fn+0x0/$want short_fn short_fn+0x1/$want
"
		done
	done
}

@test "names: a return address in the padding after a function's last call is the function's" {
	local prog mode off want

	for prog in sizes sizes-rdynamic; do
		# the call to fail() ends end_call(): its return address is where it
		# ends, and padding, not the next function, lies there
		off=$(st_size "$BATS_FILE_TMPDIR/$prog" end_call)
		((off < $(size_of "$BATS_FILE_TMPDIR/$prog" end_call)))
		want=$(symbol "$BATS_FILE_TMPDIR/$prog" end_call "$off")
		for mode in 0 1; do
			capture shim env PRINTK_SHIM_DEFER=$mode "$BATS_FILE_TMPDIR/$prog" end
			[ "$status" -eq 0 ]
			err_is "$want $want
"
		done
	done
}
