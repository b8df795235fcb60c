#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# printk-shim --index and --check: a binary's file read before it runs.
# The index of tests/fixtures/index-sites.c, compiled here from the source
# tree (64- and 32-bit, and without the index for the partial list), byte
# for byte; one binary per --check verdict; bad arguments.

load helper

setup() {
	: "${abs_top_builddir:?}" "${abs_top_srcdir:?}"
	CC=${CC:-cc}
	TMP=$BATS_TEST_TMPDIR
	KCOMPAT=$abs_top_builddir/examples/.libs
}

# sites OUT [FLAG...]: index-sites.c as a shared object, compiled from the
# source tree so that __FILE__ is tests/fixtures/index-sites.c.
sites() {
	local out=$1 cc=$CC
	shift
	[[ $1 == -m32 ]] && { cc=i686-linux-gnu-gcc; shift; }
	(cd "$abs_top_srcdir" && $cc -O2 -Wall -Werror -I include -fPIC -shared "$@" \
		-o "$out" tests/fixtures/index-sites.c)
}

# program OUT BODY [FLAG...]: a program from BODY alone.
program() {
	local out=$1 body=$2
	shift 2
	printf '%s\n' "$body" >"$out.c"
	$CC -O2 -fcf-protection=none -o "$out" "$out.c" "$@"
}

INDEX='# <level/flags> filename:line function "format"
<0> tests/fixtures/index-sites.c:20 sites "idx: emerg\n"
<1> tests/fixtures/index-sites.c:21 sites "idx: alert %d\n"
<2> tests/fixtures/index-sites.c:22 sites "idx: crit\n"
<3> tests/fixtures/index-sites.c:23 sites "idx: err: %s\n"
<4> tests/fixtures/index-sites.c:24 sites "idx: warn\n"
<5> tests/fixtures/index-sites.c:25 sites "idx: notice\n"
<6> tests/fixtures/index-sites.c:26 sites "idx: info \"quoted\" back\\slash\ttab \e esc \303\251\n"
<c> tests/fixtures/index-sites.c:27 sites "cont\n"
<6,c> tests/fixtures/index-sites.c:28 sites "cont at info\n"
<-1> tests/fixtures/index-sites.c:29 sites "no level\n"
<6> tests/fixtures/index-sites.c:32 sites "idx: once\n"
<3> tests/fixtures/index-sites.c:33 sites "%s %s: dev err %d\n"
<6> tests/fixtures/index-sites.c:34 sites "%s %s: dev info\n"
<4> tests/fixtures/index-sites.c:35 sites "%s %s %s: link down\n"
<5> tests/fixtures/index-sites.c:36 sites "deferred\n"
'

@test "index: every call site with a literal format, as the kernel's debugfs file lists it" {
	sites "$TMP/sites.so"
	capture "$WRAPPER" --index "$TMP/sites.so"
	[ "$status" -eq 0 ]
	file_is "$OUT" "$INDEX"
	err_is ''
}

@test "index: the same from a 32-bit object" {
	sites "$TMP/sites32.so" -m32
	capture "$WRAPPER" --index "$TMP/sites32.so"
	[ "$status" -eq 0 ]
	file_is "$OUT" "$INDEX"
}

@test "index: the same when only the RELA relocations hold the records' pointers" {
	sites "$TMP/sites.so"
	size=$(objdump -h "$TMP/sites.so" | awk '$2 == ".printk_index" { print $3 }')
	head -c $((16#$size)) /dev/zero >"$TMP/zero"
	objcopy --update-section .printk_index="$TMP/zero" "$TMP/sites.so"
	capture "$WRAPPER" --index "$TMP/sites.so"
	[ "$status" -eq 0 ]
	# The lines went with the bytes: all 0, the records keep the section's order (the compiler's, reversed).
	file_is "$OUT" "$(printf '%s' "$INDEX" | sed -n 1p)
$(printf '%s' "$INDEX" | sed 1d | tac | sed 's/:[0-9]* /:0 /')
"
}

@test "index: a file name from the records is escaped as the format is" {
	printf '%s\n' '#include <linux/printk.h>' '#line 7 "evil\n<0> forged\033[2J.c"' \
		'void f(void) { pr_info("x %d\n", 1); }' >"$TMP/evil.c"
	$CC -O2 -I "$abs_top_srcdir/include" -fPIC -shared -o "$TMP/evil.so" "$TMP/evil.c"
	capture "$WRAPPER" --index "$TMP/evil.so"
	[ "$status" -eq 0 ]
	file_is "$OUT" '# <level/flags> filename:line function "format"
<6> evil\n<0> forged\e[2J.c:7 f "x %d\n"
'
}

@test "index: KERN_DEFAULT's marker and the legacy ones are markers, as printk reads them" {
	printf '%s\n' '#include <linux/printk.h>' '#include <linux/bug.h>' \
		'void f(int c) {' 'printk("\001d" "old default\n");' 'printk("\001d\0013" "d then 3\n");' \
		'printk("\001c\001d" "cont\n");' 'printk("<3>legacy\n");' 'printk("<c><4>both\n");' \
		'BUG_ON(c); }' >"$TMP/marks.c"
	(cd "$TMP" && $CC -O2 -I "$abs_top_srcdir/include" -fPIC -shared -o marks.so marks.c)
	capture "$WRAPPER" --index "$TMP/marks.so"
	[ "$status" -eq 0 ]
	# the headers' own BUG(): its cut line is KERN_DEFAULT's
	[ "$(grep -F -c ' pks_bug_report "------------[ cut here ]------------\n"' "$OUT")" = 1 ]
	grep -F ' pks_bug_report "------------[ cut here ]' "$OUT" | grep -q '^<-1> '
	grep ' marks.c:' "$OUT" >"$TMP/got"
	file_is "$TMP/got" '<-1> marks.c:4 f "old default\n"
<3> marks.c:5 f "d then 3\n"
<c> marks.c:6 f "cont\n"
<3> marks.c:7 f "legacy\n"
<4,c> marks.c:8 f "both\n"
'
	err_is ''
	# PRINTK_SHIM_LEGACY_MARKERS=0 reads "<N>" as text, as printk then does;
	# a value printk would refuse is said, and the default kept
	PRINTK_SHIM_LEGACY_MARKERS=0 capture "$WRAPPER" --index "$TMP/marks.so"
	grep ' marks.c:[678]' "$OUT" >"$TMP/got"
	file_is "$TMP/got" '<c> marks.c:6 f "cont\n"
<-1> marks.c:7 f "<3>legacy\n"
<-1> marks.c:8 f "<c><4>both\n"
'
	PRINTK_SHIM_LEGACY_MARKERS=maybe capture "$WRAPPER" --index "$TMP/marks.so"
	[ "$status" -eq 0 ]
	grep -q '^<3> marks.c:7 f "legacy\\n"$' "$OUT"
	err_is 'printk-shim: PRINTK_SHIM_LEGACY_MARKERS=maybe: expected 0|1|no|yes|off|on|false|true; using 1
'
	# empty is unset, as for the module and --print-env: no word of it
	PRINTK_SHIM_LEGACY_MARKERS= capture "$WRAPPER" --index "$TMP/marks.so"
	[ "$status" -eq 0 ]
	grep -q '^<3> marks.c:7 f "legacy\\n"$' "$OUT"
	err_is ''
}

@test "index: PKS_NO_PRINTK_INDEX: the strings with a level marker, said to be partial" {
	sites "$TMP/plain.so" -DPKS_NO_PRINTK_INDEX
	capture "$WRAPPER" --index "$TMP/plain.so"
	[ "$status" -eq 0 ]
	file_is "$OUT" '# <level/flags> filename:line function "format"
# partial: no .printk_index; the read-only strings that start with a level marker
<0> ?:? ? "idx: emerg\n"
<1> ?:? ? "idx: alert %d\n"
<2> ?:? ? "idx: crit\n"
<3> ?:? ? "idx: err: %s\n"
<4> ?:? ? "idx: warn\n"
<5> ?:? ? "idx: notice\n"
<c> ?:? ? "cont\n"
<6,c> ?:? ? "cont at info\n"
<6> ?:? ? "idx: once\n"
<5> ?:? ? "deferred\n"
'
	# The format with an escape byte is no printable text: not in the partial list.
}

@test "index: an unmodified fixture (its own KERN_ macros): its marked strings, partial" {
	capture "$WRAPPER" --index "$FIX/patch-nopie"
	[ "$status" -eq 0 ]
	# patch-cases.c's KERN_INFO "foo", KERN_INFO "a" and KERN_CONT "\n" are
	# fragments without a space, a conversion or a final newline: as short
	# as the bytes of tables and code that follow a \001 and a digit, left out.
	file_is "$OUT" '# <level/flags> filename:line function "format"
# partial: no .printk_index; the read-only strings that start with a level marker
<7> ?:? ? "x %d"
<3> ?:? ? "bar\n"
<6> ?:? ? "a\n"
<c> ?:? ? "b\n"
<6> ?:? ? " b\n"
<c> ?:? ? "bar\n"
'
	err_is ''
}

@test "index: several binaries, each under its name; an unreadable one is said and skipped" {
	sites "$TMP/sites.so"
	program "$TMP/none" 'int main(void) { return 0; }'
	capture "$WRAPPER" --index "$TMP/none" "$TMP/missing" "$TMP/sites.so"
	[ "$status" -eq 125 ]
	file_is "$OUT" "# file: $TMP/none
# <level/flags> filename:line function \"format\"
# partial: no .printk_index; the read-only strings that start with a level marker
# file: $TMP/sites.so
$INDEX"
	err_is "printk-shim: --index: '$TMP/missing': No such file or directory: expected an ELF program or shared object; skipped
"
}

# check_is BINARY STATUS LINE: --check BINARY says LINE (after "BINARY: ") and exits STATUS,
# within 10 s.
check_is() {
	capture timeout 10 "$WRAPPER" --check "$1"
	[ "$status" -eq "$2" ] || { echo "status $status" >&2; return 1; }
	file_is "$OUT" "$1: $3
"
	err_is ''
}

@test "check: a program that imports printk is interposed" {
	check_is "$FIX/emit" 0 'interposed: it imports printk through the PLT'
}

@test "check: a library that exports printk is interposed: the shim comes first" {
	check_is "$KCOMPAT/libkcompat.so" 0 \
		"interposed: it exports printk, and the shim's comes first in the lookup order"
}

@test "check: a program that defines printk, with symbols, is patched" {
	check_is "$FIX/patch-nopie" 0 \
		'patched: it defines printk itself (.symtab); the shim writes a jump at its entry'
}

@test "check: a program whose library binds its own printk calls is patched through it" {
	check_is "$FIX/patch-symbolic" 0 \
		'patched: its library libpatch-symbolic.so defines printk itself (.symtab); the shim writes a jump at its entry'
}

@test "check: a library whose code calls its own printk, bound at link time, is patched through it" {
	check_is "$FIX/patch-bsf" 0 \
		'patched: its library libpatch-bsf.so defines printk itself (.symtab); the shim writes a jump at its entry'
}

@test "index, check: a first -- ends the options; the binaries follow it" {
	capture "$WRAPPER" --check -- "$FIX/emit"
	[ "$status" -eq 0 ]
	out_is "$FIX/emit: interposed: it imports printk through the PLT
"
	err_is ''
	sites "$TMP/sites.so"
	capture "$WRAPPER" --index -- "$TMP/sites.so"
	[ "$status" -eq 0 ]
	file_is "$OUT" "$INDEX"
	err_is ''
}

@test "check: a file cut short while it is read gets no verdict, and status 125" {
	cp "$FIX/.libs/libpatch-bsf.so" "$TMP/lib.so"
	shrink --check "$TMP/lib.so"
	[ "$status" = 125 ]
	err_is "printk-shim: --check: '$TMP/lib.so': a file shrank while it was read; expected it to stay as it was; no verdict
"
	out_is ''
}

@test "check: a file refused as cut short while it was read leaves the next file's verdict alone" {
	cp "$FIX/.libs/libpatch-bsf.so" "$TMP/lib.so"
	shrink_mapped --check "$TMP/lib.so" "$FIX/emit"
	[ "$status" = 125 ]
	err_is "printk-shim: --check: '$TMP/lib.so': an ELF file cut short or corrupt (its headers do not fit it): expected an ELF program or shared object; skipped
"
	out_is "$FIX/emit: interposed: it imports printk through the PLT
"
}

@test "index: a file cut short while it is read is said to be, after what was printed" {
	cp "$FIX/.libs/libpatch-bsf.so" "$TMP/lib.so"
	shrink --index "$TMP/lib.so"
	[ "$status" = 125 ]
	err_is "printk-shim: --index: '$TMP/lib.so': a file shrank while it was read; expected it to stay as it was; what was printed for it may be cut short or wrong
"
}

@test "check: without section headers, the loader's .dynsym still tells imports and exports" {
	no_sections "$FIX/emit" "$TMP/emit"
	check_is "$TMP/emit" 0 'interposed: it imports printk through the PLT'
	strip -o "$TMP/stripped" "$FIX/patch-export"
	no_sections "$TMP/stripped" "$TMP/export"
	check_is "$TMP/export" 0 \
		'patched: it defines printk itself (.dynsym); the shim writes a jump at its entry'
}

@test "check: a library is found through LD_LIBRARY_PATH; the worst verdict is the line's" {
	mkdir "$TMP/lib"
	printf '%s\n' 'int printk(const char *f, ...) { return f[0]; }' \
		'int lib(void) { return printk("\0016x\n"); }' >"$TMP/lib/short.c"
	$CC -O2 -fcf-protection=none -fPIC -shared -Wl,-Bsymbolic -o "$TMP/lib/libshort.so" "$TMP/lib/short.c"
	program "$TMP/uses" 'int lib(void); int main(void) { return lib(); }' -L"$TMP/lib" -lshort
	capture "$WRAPPER" --check "$TMP/uses"
	[ "$status" -eq 1 ]
	file_is "$OUT" "$TMP/uses: no printk: it neither imports nor defines printk, _printk, printk_deferred, _printk_deferred or vprintk; nor do the libraries it names
"
	LD_LIBRARY_PATH=$TMP/lib check_is "$TMP/uses" 1 \
		'not reachable: its library libshort.so defines printk itself, and cannot be patched: 4 bytes, the jump needs 13'
}

@test "check: \$ORIGIN is the folder of the program's own file, its links followed" {
	mkdir -p "$TMP/real/bin" "$TMP/real/lib" "$TMP/link"
	printf '%s\n' 'int printk(const char *f, ...) { return f[0]; }' \
		'int lib(void) { return printk("\0016x\n"); }' >"$TMP/real/lib/short.c"
	$CC -O2 -fcf-protection=none -fPIC -shared -Wl,-Bsymbolic -o "$TMP/real/lib/libshort.so" "$TMP/real/lib/short.c"
	program "$TMP/real/bin/uses" 'int lib(void); int main(void) { return lib(); }' \
		-L"$TMP/real/lib" -lshort -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../lib'
	ln -s ../real/bin/uses "$TMP/link/uses"
	run "$TMP/link/uses"	# the dynamic linker finds the library so: its printk returns 1
	[ "$status" -eq 1 ]
	check_is "$TMP/link/uses" 1 \
		'not reachable: its library libshort.so defines printk itself, and cannot be patched: 4 bytes, the jump needs 13'
}

@test "check: a library it names that is an object file: the program does not start, and is not reachable" {
	mkdir "$TMP/lib"
	printf '%s\n' 'int printk(const char *f, ...) { return f[0]; }' >"$TMP/lib/k.c"
	$CC -O2 -fPIC -shared -o "$TMP/lib/libk.so" "$TMP/lib/k.c"
	program "$TMP/uses" 'int printk(const char *f, ...); int main(void) { return printk("\0016x\n"); }' \
		-L"$TMP/lib" -lk
	$CC -O2 -fPIC -c -o "$TMP/lib/libk.so" "$TMP/lib/k.c"
	capture env LD_LIBRARY_PATH="$TMP/lib" "$TMP/uses"
	[ "$status" -eq 127 ]	# the dynamic linker's "only ET_DYN and ET_EXEC can be loaded"
	LD_LIBRARY_PATH=$TMP/lib check_is "$TMP/uses" 1 \
		'not reachable: its library libk.so is a relocatable object (an object file or a kernel module), which the dynamic linker refuses to load: the program does not start'
}

@test "check: a library's name from the file is escaped as --index escapes" {
	local name=$'libn\nforged: patched.so'
	mkdir "$TMP/lib"
	printf '%s\n' 'int printk(const char *f, ...) { return f[0]; }' \
		'int lib(void) { return printk("\0016x\n"); }' >"$TMP/lib/n.c"
	$CC -O2 -fPIC -shared -Wl,-soname,"$name" -o "$TMP/lib/$name" "$TMP/lib/n.c"
	program "$TMP/uses" 'int lib(void); int main(void) { return lib(); }' "$TMP/lib/$name"
	LD_LIBRARY_PATH=$TMP/lib check_is "$TMP/uses" 0 \
		"interposed: its library libn\\nforged: patched.so exports printk, and the shim's comes first in the lookup order"
}

@test "check: a library that binds its own calls (hidden) is patched" {
	check_is "$FIX/.libs/libpatch-hidden.so" 0 \
		'patched: it defines printk itself (.symtab); the shim writes a jump at its entry'
}

@test "check: stripped, but exporting printk: patched through .dynsym" {
	strip -o "$TMP/export" "$FIX/patch-export"
	check_is "$TMP/export" 0 \
		'patched: it defines printk itself (.dynsym); the shim writes a jump at its entry'
}

@test "check: stripped, its printk neither imported nor exported: not reachable" {
	strip -o "$TMP/stripped" "$FIX/patch-pie"
	check_is "$TMP/stripped" 1 \
		'not reachable: it is stripped, imports no printk, and has strings with level markers: a printk of its own cannot be found'
}

@test "check: a printk too short for the jump is not reachable" {
	program "$TMP/short" '__attribute__((noinline)) int printk(const char *f, ...) { (void)f; return 0; }
int main(void) { return printk("\0016x\n"); }'
	check_is "$TMP/short" 1 \
		'not reachable: it defines printk itself, and cannot be patched: 3 bytes, the jump needs 13'
}

# An exported printk, interposed, beside the hidden vprintk its own
# dev_printk calls, which only a jump reaches: the worse is the verdict.
@test "check: a library's names are each judged, and the worst said: its hidden vprintk" {
	local body='#include <stdarg.h>
#include <stdio.h>
__attribute__((visibility("hidden"), noinline)) int vprintk(const char *f, va_list ap) { VBODY }
int printk(const char *f, ...) { va_list ap; va_start(ap, f); int r = vfprintf(stderr, f, ap); va_end(ap); return r; }
int dev_printk(const char *f, ...) { va_list ap; va_start(ap, f); int r = vprintk(f, ap); va_end(ap); return r; }'
	printf '%s\n' "${body/VBODY/return vfprintf(stderr, f, ap);}" >"$TMP/long.c"
	$CC -O2 -fcf-protection=none -fPIC -shared -o "$TMP/liblong.so" "$TMP/long.c"
	check_is "$TMP/liblong.so" 0 \
		'patched: it defines vprintk itself (.symtab); the shim writes a jump at its entry'
	printf '%s\n' "${body/VBODY/(void)f; (void)ap; return 0;}" >"$TMP/short.c"
	$CC -O2 -fcf-protection=none -fPIC -shared -o "$TMP/libshort.so" "$TMP/short.c"
	check_is "$TMP/libshort.so" 1 \
		'not reachable: it defines vprintk itself, and cannot be patched: 3 bytes, the jump needs 13'
}

@test "check: a statically linked program is not reachable" {
	program "$TMP/static" '#include <stdio.h>
int printk(const char *f, ...) { return puts(f); }
int main(void) { return printk("\0016x\n"); }' -static
	check_is "$TMP/static" 1 'not reachable: statically linked, so LD_PRELOAD does not apply'
}

@test "check: a set-user-ID program is not reachable" {
	cp "$FIX/emit" "$TMP/setuid"
	chmod u+s "$TMP/setuid"
	check_is "$TMP/setuid" 1 \
		'not reachable: set-user-ID, so the dynamic linker ignores LD_PRELOAD for any user it changes IDs for'
}

@test "check: a program with file capabilities is not reachable" {
	cp "$FIX/emit" "$TMP/capped"
	setcap cap_net_raw+ep "$TMP/capped" || skip "$TMP holds no security.capability attribute"
	check_is "$TMP/capped" 1 \
		'not reachable: it has file capabilities, so the dynamic linker ignores LD_PRELOAD for any user but root'
}

@test "check, index: without section headers, the read-only segments' strings still count" {
	program "$TMP/one" 'const char *fmt = "\0013%s: lost %d frames\n";
int main(int argc, char **argv) { (void)argv; return fmt[argc]; }'
	strip "$TMP/one"
	no_sections "$TMP/one" "$TMP/one-ns"
	check_is "$TMP/one-ns" 1 \
		'not reachable: it is stripped, imports no printk, and has strings with level markers: a printk of its own cannot be found'
	capture "$WRAPPER" --index "$TMP/one-ns"
	[ "$status" -eq 0 ]
	file_is "$OUT" '# <level/flags> filename:line function "format"
# partial: no .printk_index; the read-only strings that start with a level marker
<3> ?:? ? "%s: lost %d frames\n"
'
	program "$TMP/static" '#include <stdio.h>
int printk(const char *f, ...) { return puts(f); }
int main(void) { return printk("\0016x %d\n"); }' -static -s
	no_sections "$TMP/static" "$TMP/static-ns"
	check_is "$TMP/static-ns" 1 'not reachable: statically linked, so LD_PRELOAD does not apply'
}

@test "check: a program without printk says so" {
	program "$TMP/none" 'int main(void) { return 0; }'
	check_is "$TMP/none" 1 \
		'no printk: it neither imports nor defines printk, _printk, printk_deferred, _printk_deferred or vprintk; nor do the libraries it names'
}

# NOISE: read-only strings that start with \001 and a level digit in system
# binaries (tail, libc, wget, libunbound), none of them a format.
NOISE='const char *const noise[] = { "\0016\377\377t\r", "\0010\004", "\0010123456789ABCDEF",
	"\00110.in-addr.arpa.", "\0014\033[0m", "\0012ar" };'

@test "check: stripped, with marker bytes before no format: no printk; index: none listed" {
	program "$TMP/noise" "$NOISE"'
int main(int argc, char **argv) { (void)argv; return noise[argc][0]; }'
	strip "$TMP/noise"
	check_is "$TMP/noise" 1 \
		'no printk: it neither imports nor defines printk, _printk, printk_deferred, _printk_deferred or vprintk (stripped: its strings say the same); nor do the libraries it names'
	capture "$WRAPPER" --index "$TMP/noise"
	[ "$status" -eq 0 ]
	file_is "$OUT" '# <level/flags> filename:line function "format"
# partial: no .printk_index; the read-only strings that start with a level marker
'
}

# opaque BINARY ENTRY: stripped BINARY is not reachable, and --index's
# partial list is ENTRY alone.
opaque() {
	check_is "$1" 1 \
		'not reachable: it is stripped, imports no printk, and has strings with level markers: a printk of its own cannot be found'
	capture "$WRAPPER" --index "$1"
	file_is "$OUT" '# <level/flags> filename:line function "format"
# partial: no .printk_index; the read-only strings that start with a level marker
'"$2"'
'
}

@test "check: stripped, with one format among the noise: not reachable; index: that one" {
	program "$TMP/one" "$NOISE"'
const char *fmt = "\0013%s: lost %d frames\n";
int main(int argc, char **argv) { (void)argv; return noise[argc][0] + fmt[0]; }'
	strip "$TMP/one"
	opaque "$TMP/one" '<3> ?:? ? "%s: lost %d frames\n"'
}

# Legacy "<N>" markers are markers unless PRINTK_SHIM_LEGACY_MARKERS=0, in
# a stripped file's strings as in a call's format; the module's warning
# at exit, in the process the command runs, looks for them too.
@test "check, index: stripped, its own printk with a legacy <N> format: not reachable; that one listed" {
	program "$TMP/legacy" '#include <stdarg.h>
#include <stdio.h>
int printk(const char *f, ...) { va_list ap; va_start(ap, f); int r = vfprintf(stderr, f, ap); va_end(ap); return r; }
int main(void) { return printk("<6>hello %d\n", 1) < 0; }'
	strip "$TMP/legacy"
	opaque "$TMP/legacy" '<6> ?:? ? "hello %d\n"'
	capture env PRINTK_SHIM_LEGACY_MARKERS=0 timeout 10 "$WRAPPER" --check "$TMP/legacy"
	[ "$status" -eq 1 ]
	file_is "$OUT" "$TMP/legacy: no printk: it neither imports nor defines printk, _printk, printk_deferred, _printk_deferred or vprintk (stripped: its strings say the same); nor do the libraries it names
"
	capture "$WRAPPER" -- "$TMP/legacy"
	err_is "<6>hello 1
printk-shim: warning: no printk call reached the shim: $TMP/legacy is stripped and imports no printk function, so a printk of its own, if it has one, cannot be seen (see PRINTK_SHIM_DEBUG=1)
"
}

@test "check: a 32-bit program that defines printk is not reachable: no patching there" {
	printf '%s\n' 'int printk(const char *f, ...) { return f[0]; }' \
		'int main(void) { return printk("\0016x\n"); }' >"$TMP/p32.c"
	i686-linux-gnu-gcc -O2 -o "$TMP/p32" "$TMP/p32.c"
	check_is "$TMP/p32" 1 \
		'not reachable: it defines printk itself, and patching is not supported for i386 code'
}

# A 32-bit program that imports printk, beside this build's 64-bit module:
# --check said "interposed" (status 0), and the wrapper then refused to run
# it (status 125), its printk never reaching a module.
@test "check: a 32-bit program that imports printk, with a 64-bit module: not reachable" {
	printf '%s\n' 'int printk(const char *f, ...) { return f[0]; }' >"$TMP/k32.c"
	printf '%s\n' 'int printk(const char *f, ...);' 'int main(void) { return printk("\0016x\n"); }' \
		>"$TMP/imp32.c"
	i686-linux-gnu-gcc -shared -fPIC -o "$TMP/libk32.so" "$TMP/k32.c"
	i686-linux-gnu-gcc -o "$TMP/imp32" "$TMP/imp32.c" -L"$TMP" -lk32 -Wl,-rpath,"$TMP"
	check_is "$TMP/imp32" 1 \
		'not reachable: the module is a 64-bit x86-64 shared object, which the dynamic linker does not preload for it'
	capture "$WRAPPER" -- "$TMP/imp32"
	[ "$status" -eq 125 ]
	# a library is loaded by programs of its class: the same (hunt T)
	check_is "$TMP/libk32.so" 1 \
		'not reachable: the module is a 64-bit x86-64 shared object, which the dynamic linker does not preload for it'
}

# A module the wrapper refuses (PRINTK_SHIM_LIB missing, or no ELF file):
# --check said "interposed", status 0 (hunt T).
@test "check: a module that cannot be read reaches nothing" {
	PRINTK_SHIM_LIB=/nonexistent.so check_is "$FIX/emit" 1 \
		"not reachable: the module is '/nonexistent.so' (No such file or directory), which the dynamic linker does not preload for it"
	PRINTK_SHIM_LIB=/etc/passwd check_is "$FIX/emit" 1 \
		"not reachable: the module is '/etc/passwd' (not an ELF file), which the dynamic linker does not preload for it"
}

# The calls of a printk that gcc copied at -O3 (printk.constprop.N) go to
# the copies, which no jump at printk's entry reaches: --check said
# "patched", status 0 (hunt U).
@test "check: a printk the compiler copied (printk.constprop.N) is not reachable" {
	gcc -O3 -o "$TMP/copied" "$abs_top_srcdir/tests/fixtures/copied-printk.c"
	nm "$TMP/copied" | grep -q ' printk\.constprop\.0$'
	check_is "$TMP/copied" 1 \
		'not reachable: it defines printk itself, and the compiler made a copy of it (printk.constprop.0) that calls go to instead, past the jump the shim writes at its entry'
}

@test "check: one line each, status 0 only when every binary is reached" {
	capture "$WRAPPER" --check "$FIX/emit" "$FIX/patch-nopie"
	[ "$status" -eq 0 ]
	strip -o "$TMP/stripped" "$FIX/patch-pie"
	capture "$WRAPPER" --check "$FIX/emit" "$TMP/stripped" "$FIX/patch-nopie"
	[ "$status" -eq 1 ]
	[ "$(wc -l <"$OUT")" -eq 3 ]
}

@test "check: missing, a directory, not ELF, cut short: one error line each, status 125" {
	printf '#!/bin/sh\n' >"$TMP/script"
	head -c 100 "$FIX/emit" >"$TMP/cut"
	capture "$WRAPPER" --check "$TMP/missing" "$TMP" "$TMP/script" "$TMP/cut" "$FIX/emit"
	[ "$status" -eq 125 ]
	file_is "$OUT" "$FIX/emit: interposed: it imports printk through the PLT
"
	err_is "printk-shim: --check: '$TMP/missing': No such file or directory: expected an ELF program or shared object; skipped
printk-shim: --check: '$TMP': Is a directory: expected an ELF program or shared object; skipped
printk-shim: --check: '$TMP/script': not an ELF file: expected an ELF program or shared object; skipped
printk-shim: --check: '$TMP/cut': an ELF file cut short or corrupt (its headers do not fit it): expected an ELF program or shared object; skipped
"
}

@test "check, index, dyndbg-list: program headers or a symbol table out of the file: refused, never judged" {
	# e_phoff past the end (once read as "statically linked"); the symbol
	# tables' sh_offset past it (once "stripped")
	python3 - "$FIX/patch-nopie" "$TMP" <<'PY'
import struct, sys
src, tmp = sys.argv[1], sys.argv[2]
b = bytearray(open(src, "rb").read())
open(tmp + "/phoff", "wb").write(b[:32] + struct.pack("<Q", 0xfffffffffffffff0) + b[40:])
shoff, = struct.unpack_from("<Q", b, 40)
shnum, = struct.unpack_from("<H", b, 60)
for i in range(shnum):
    at = shoff + 64 * i
    if struct.unpack_from("<I", b, at + 4)[0] in (2, 11):    # SHT_SYMTAB, SHT_DYNSYM
        struct.pack_into("<Q", b, at + 24, len(b) + 4096)
open(tmp + "/symoff", "wb").write(b)
PY
	for f in phoff symoff; do
		for opt in --check --index; do
			capture timeout 10 "$WRAPPER" $opt "$TMP/$f"
			[ "$status" -eq 125 ]
			file_is "$OUT" ''
			err_is "printk-shim: $opt: '$TMP/$f': an ELF file cut short or corrupt (its headers do not fit it): expected an ELF program or shared object; skipped
"
		done
		capture timeout 10 "$WRAPPER" --dyndbg-list "$TMP/$f"
		[ "$status" -eq 1 ]
		err_is "printk-shim: warning: --dyndbg-list: $TMP/$f: an ELF file cut short or corrupt (its headers do not fit it): expected an ELF program or shared object; skipping it
"
	done
}

# e_shstrndx SHN_UNDEF: its sections have no names (elf(5)), and the
# program runs; it was refused as "cut short or corrupt".
@test "check, dyndbg-list: a program whose sections have no names is read by their types" {
	python3 - "$FIX/emit" "$TMP" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<H", b, 62, 0)    # e_shstrndx = SHN_UNDEF
open(sys.argv[2] + "/noname", "wb").write(b)
PY
	capture "$WRAPPER" --check "$TMP/noname"
	[ "$status" -eq 0 ]
	out_is "$TMP/noname: interposed: it imports printk through the PLT
"
	err_is ''
	capture "$WRAPPER" --dyndbg-list "$TMP/noname"
	[ "$status" -eq 0 ]
	out_is "# filename:lineno [module]function flags format
# $TMP/noname: no dynamic debug call sites (no __dyndbg section)
"
}

@test "index, check, dyndbg-list: a file name in a message is quoted as DIAGNOSTICS says" {
	local f=$TMP/$'n\033[31m\001\\z'
	printf x >"$f"
	for opt in --index --check; do
		capture "$WRAPPER" $opt "$f"
		[ "$status" -eq 125 ]
		err_is "printk-shim: $opt: '$TMP/n\\x1b[31m\\x01\\\\z': not an ELF file: expected an ELF program or shared object; skipped
"
	done
	capture "$WRAPPER" --dyndbg-list "$f"
	[ "$status" -eq 1 ]
	err_is "printk-shim: warning: --dyndbg-list: $TMP/n\\x1b[31m\\x01\\\\z: not an ELF file: expected an ELF program or shared object; skipping it
"
}

@test "index, check, dyndbg-list: a FIFO is refused at once, one line on stderr, the others listed" {
	mkfifo "$TMP/fifo"
	for opt in --index --check; do
		capture timeout 10 "$WRAPPER" $opt "$TMP/fifo" "$FIX/emit"
		[ "$status" -eq 125 ]
		err_is "printk-shim: $opt: '$TMP/fifo': not a regular file: expected an ELF program or shared object; skipped
"
	done
	file_is "$OUT" "$FIX/emit: interposed: it imports printk through the PLT
"
	capture timeout 10 "$WRAPPER" --dyndbg-list "$TMP/fifo" "$FIX/emit"
	[ "$status" -eq 1 ]
	out_is "# filename:lineno [module]function flags format
# $FIX/emit: no dynamic debug call sites (no __dyndbg section)
"
	err_is "printk-shim: warning: --dyndbg-list: $TMP/fifo: not a regular file: expected an ELF program or shared object; skipping it
"
}

# sysfs gives /sys/kernel/notes a size, and mmap(2) says ENODEV for it: it
# was called "not a regular file", which it is.
@test "index, check, dyndbg-list: a regular file its file system cannot map is called so" {
	local f=/sys/kernel/notes
	[ -f "$f" ]
	for opt in --index --check; do
		capture "$WRAPPER" $opt "$f"
		[ "$status" -eq 125 ]
		err_is "printk-shim: $opt: '$f': a file its file system cannot map (as in /proc or /sys): expected an ELF program or shared object; skipped
"
	done
	capture "$WRAPPER" --dyndbg-list "$f"
	[ "$status" -eq 1 ]
	err_is "printk-shim: warning: --dyndbg-list: $f: a file its file system cannot map (as in /proc or /sys): expected an ELF program or shared object; skipping it
"
}

@test "index, check, dyndbg-list: an object file and a core dump are refused, one line each" {
	# an object file calls printk and holds both sections, none of it linked
	"${CC:-cc}" -c -fPIC -O2 -I"$abs_top_srcdir/include" "$abs_top_srcdir/tests/fixtures/ddlib.c" \
		-o "$TMP/ddlib.o"
	cp "$FIX/emit" "$TMP/core"
	printf '\004\000' | dd of="$TMP/core" bs=1 seek=16 conv=notrunc 2>/dev/null	# e_type ET_CORE
	rel="a relocatable object (an object file or a kernel module)"
	for opt in --index --check; do
		capture "$WRAPPER" $opt "$TMP/ddlib.o" "$TMP/core" "$FIX/emit"
		[ "$status" -eq 125 ]
		err_is "printk-shim: $opt: '$TMP/ddlib.o': $rel: expected an ELF program or shared object; skipped
printk-shim: $opt: '$TMP/core': a core dump: expected an ELF program or shared object; skipped
"
	done
	file_is "$OUT" "$FIX/emit: interposed: it imports printk through the PLT
"
	capture "$WRAPPER" --dyndbg-list "$TMP/ddlib.o" "$TMP/core" "$FIX/emit"
	[ "$status" -eq 1 ]
	out_is "# filename:lineno [module]function flags format
# $FIX/emit: no dynamic debug call sites (no __dyndbg section)
"
	err_is "printk-shim: warning: --dyndbg-list: $TMP/ddlib.o: $rel: expected an ELF program or shared object; skipping it
printk-shim: warning: --dyndbg-list: $TMP/core: a core dump: expected an ELF program or shared object; skipping it
"
}

@test "check: a library it names replaced by a FIFO is passed over without blocking" {
	mkdir "$TMP/lib"
	mkfifo "$TMP/lib/libkcompat.so"
	LD_LIBRARY_PATH=$TMP/lib capture timeout 10 "$WRAPPER" --check "$FIX/emit"
	[ "$status" -eq 0 ]
	file_is "$OUT" "$FIX/emit: interposed: it imports printk through the PLT
"
	err_is ''
}

# crafted SO OUT NREL NHDR [rodata]: SO with a block of NREL relative
# relocations appended, and NHDR more SHT_RELA section headers, every one
# covering it; with rodata, the block is as many bytes of read-only data,
# one marked format and zeros, under NHDR SHT_PROGBITS headers.
crafted() {
	cat >"$TMP/craft.c" <<'EOF'
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	static unsigned char in[1 << 24];
	FILE *f = fopen(argv[1], "rb"), *o = fopen(argv[2], "wb");
	size_t n = fread(in, 1, sizeof(in), f), nrel = strtoul(argv[3], 0, 0), nhdr = strtoul(argv[4], 0, 0);
	Elf64_Ehdr eh = *(Elf64_Ehdr *)in;
	size_t rel = (n + 7) & ~(size_t)7;
	Elf64_Shdr sh = { .sh_type = SHT_RELA, .sh_offset = rel, .sh_size = nrel * sizeof(Elf64_Rela),
			  .sh_entsize = sizeof(Elf64_Rela) };
	int rodata = argc > 5 && !strcmp(argv[5], "rodata");

	fwrite(in, 1, n, o);
	for (size_t i = n; i < rel; i++)
		fputc(0, o);
	for (size_t i = 0; i < nrel; i++) {	/* each lands outside every section */
		Elf64_Rela r = { 0x40000000 + 8 * i, ELF64_R_INFO(0, R_X86_64_RELATIVE), 1 };
		static const char fmt[sizeof(r)] = "\0013crafted %d\n";

		fwrite(rodata ? (const void *)(i ? (const char[sizeof(r)]){ 0 } : fmt) : (const void *)&r,
		       sizeof(r), 1, o);
	}
	if (rodata)
		sh = (Elf64_Shdr){ .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC, .sh_addr = 0x40000000,
				   .sh_offset = rel, .sh_size = nrel * sizeof(Elf64_Rela) };
	fwrite(in + eh.e_shoff, sizeof(Elf64_Shdr), eh.e_shnum, o);
	for (size_t i = 0; i < nhdr; i++)
		fwrite(&sh, sizeof(sh), 1, o);
	eh.e_shoff = rel + nrel * sizeof(Elf64_Rela);
	eh.e_shnum += nhdr;
	fseek(o, 0, SEEK_SET);
	fwrite(&eh, sizeof(eh), 1, o);
	return fclose(o) != 0;
}
EOF
	$CC -O2 -o "$TMP/craft" "$TMP/craft.c" && "$TMP/craft" "$@"
}

@test "index, check, dyndbg-list: 8 MB of relocation headers over one block, each byte read once" {
	[[ $(uname -m) == x86_64 ]] || skip "the crafted file is x86-64"
	sites "$TMP/sites.so"
	crafted "$TMP/sites.so" "$TMP/big.so" 170000 60000
	[ "$(stat -c %s "$TMP/big.so")" -gt 7900000 ]
	# Read as before, every section header applied to every section read,
	# this took hours; linear, it takes milliseconds (make bench has no case).
	capture timeout 10 "$WRAPPER" --index "$TMP/big.so"
	[ "$status" -eq 0 ]
	file_is "$OUT" "$INDEX"
	check_is "$TMP/big.so" 0 'interposed: it imports printk through the PLT'
	capture timeout 10 "$WRAPPER" --dyndbg-list "$TMP/big.so"
	[ "$status" -eq 0 ]
	out_is '# filename:lineno [module]function flags format
tests/fixtures/index-sites.c:31 [big]sites =_ "not built: %d\n"
'

}

@test "index: 8 MB of read-only section headers over one block, each byte read once" {
	[[ $(uname -m) == x86_64 ]] || skip "the crafted file is x86-64"
	sites "$TMP/plain.so" -DPKS_NO_PRINTK_INDEX
	crafted "$TMP/plain.so" "$TMP/big.so" 170000 60000 rodata
	[ "$(stat -c %s "$TMP/big.so")" -gt 7900000 ]
	capture timeout 10 "$WRAPPER" --index "$TMP/big.so"
	[ "$status" -eq 0 ]
	[ "$(grep -c '' "$OUT")" -eq 13 ]
	[ "$(grep -c '^<3> ?:? ? "crafted %d\\n"$' "$OUT")" -eq 1 ]
}

@test "index, check: without a BINARY, the usage error" {
	for opt in --index --check; do
		capture "$WRAPPER" $opt
		[ "$status" -eq 125 ]
		file_is "$OUT" ''
		err_is "printk-shim: $opt: expected one or more BINARY, got none; nothing is done (see --help)
"
	done
}
