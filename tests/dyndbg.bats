#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# printk-shim(7) DYNAMIC DEBUG: PRINTK_SHIM_DYNDBG's queries over the call
# sites of code built with our headers (dd-built, dd-built-debug, libddlib,
# libddlate) and the KERN_DEBUG calls of code built without them
# (dd-plain), with the kernel's decorations, byte for byte.

load helper

setup() {
	export LD_LIBRARY_PATH=$FIX/.libs
	# __FILE__ as the build spelled it (in-tree or VPATH).
	SRC=$(grep -ao '[^[:space:][:cntrl:]]*fixtures/dd-built\.c' "$FIX/dd-built" | head -n 1)
	LIBSRC=$(grep -ao '[^[:space:][:cntrl:]]*fixtures/ddlib\.c' "$FIX/.libs/libddlib.so" | head -n 1)
}

# dd ENV-QUERIES FIXTURE STEP...: run FIXTURE with PRINTK_SHIM_DYNDBG set to ENV-QUERIES.
dd() {
	local q=$1 fix=$2
	shift 2
	capture env PRINTK_SHIM_DYNDBG="$q" LD_PRELOAD="$MODULE" "$FIX/$fix" "$@"
}

ALL='alpha beta dev net hex info lib'
ALL_LINES='ddb: alpha 1
ddb: beta "b"	end
dddrv dd0: dev 3
eth7: link up
hx: 00000000: 41 42 43 44
ddb: info 2
hello 5
'

@test "dyndbg: unset, a site prints as DEBUG says, undecorated, as before" {
	capture shim "$FIX/dd-built" $ALL
	err_is 'ddb: info 2
'
	capture shim "$FIX/dd-built-debug" $ALL
	err_is "${ALL_LINES/hello 5
/}"
}

@test "dyndbg: +p enables every site; -p disables every one" {
	dd '+p' dd-built $ALL
	err_is "$ALL_LINES"
	dd '-p' dd-built-debug $ALL
	err_is 'ddb: info 2
'
}

@test "dyndbg: func, with globs" {
	dd 'func alpha +p' dd-built $ALL
	err_is 'ddb: alpha 1
ddb: info 2
'
	dd 'func b?t* +p' dd-built $ALL
	err_is 'ddb: beta "b"	end
ddb: info 2
'
	dd 'func *_hello +p' dd-built $ALL
	err_is 'ddb: info 2
hello 5
'
}

@test "dyndbg: file, by base name, path and glob, with :func and :line" {
	dd 'file ddlib.c +p' dd-built $ALL
	err_is 'ddb: info 2
hello 5
'
	dd "file $SRC +p; file dd-built.c -p" dd-built alpha info
	err_is 'ddb: info 2
'
	dd 'file *fixtures/dd-b*.c +p' dd-built alpha lib info
	err_is 'ddb: alpha 1
ddb: info 2
'
	dd 'file dd-built.c:beta +p; file dd-built.c:39 +p' dd-built $ALL
	err_is 'ddb: beta "b"	end
dddrv dd0: dev 3
ddb: info 2
'
}

@test "dyndbg: line N, N-M, N- and -M" {
	dd 'line 31 +p' dd-built $ALL
	err_is 'ddb: beta "b"	end
ddb: info 2
'
	dd 'line 31-46 +p' dd-built $ALL
	err_is 'ddb: beta "b"	end
dddrv dd0: dev 3
eth7: link up
ddb: info 2
'
	dd 'file dd-built.c line 46- +p' dd-built $ALL
	err_is 'eth7: link up
hx: 00000000: 41 42 43 44
ddb: info 2
'
	dd 'line -26 +p' dd-built $ALL
	err_is 'ddb: alpha 1
ddb: info 2
hello 5
'
}

@test "dyndbg: module: the object's name up to its first dot, with globs" {
	dd 'module dd-built +p' dd-built $ALL
	err_is 'ddb: alpha 1
ddb: beta "b"	end
dddrv dd0: dev 3
eth7: link up
hx: 00000000: 41 42 43 44
ddb: info 2
'
	dd 'module libdd* +p' dd-built $ALL dlopen
	err_is 'ddb: info 2
hello 5
hello 9
'
}

@test "dyndbg: format: a substring of the format as written, escapes, quotes, ^" {
	dd 'format alpha +p' dd-built $ALL
	err_is 'ddb: alpha 1
ddb: info 2
'
	dd "format '\"%s\"\\tend' +p" dd-built $ALL
	err_is 'ddb: beta "b"	end
ddb: info 2
'
	dd "format 'link %s' +p; format ^hx +p" dd-built $ALL
	err_is 'eth7: link up
hx: 00000000: 41 42 43 44
ddb: info 2
'
	dd 'format ^ddb +p; format \012 -p; format ^dev +p' dd-built $ALL
	err_is 'dddrv dd0: dev 3
ddb: info 2
'
}

@test "dyndbg: decorations m f s l t, each and all, as the kernel's prefix" {
	dd '+pm' dd-built alpha
	err_is 'dd-built: ddb: alpha 1
'
	dd '+pf' dd-built alpha
	err_is 'alpha: ddb: alpha 1
'
	dd '+ps' dd-built alpha
	err_is "$SRC: ddb: alpha 1
"
	dd '+pl' dd-built alpha
	err_is '26: ddb: alpha 1
'
	dd '+pt' dd-built pid alpha
	err_is "[$(cat "$OUT")] ddb: alpha 1
"
	dd '+pmfslt' dd-built pid alpha lib
	err_is "[$(cat "$OUT")] dd-built:alpha:$SRC:26: ddb: alpha 1
[$(cat "$OUT")] libddlib:ddlib_hello:$LIBSRC:19: hello 5
"
	# a net_device with no parent: plain, as the kernel's
	dd '+pfl' dd-built dev net
	err_is 'dev:39: dddrv dd0: dev 3
eth7: link up
'
}

@test "dyndbg: several queries apply in order; - and = change only what they name" {
	dd '+pmfl; -ml; func beta =p' dd-built alpha beta
	err_is 'alpha: ddb: alpha 1
ddb: beta "b"	end
'
	dd $'+pf\nfunc alpha =\n# a comment\n' dd-built alpha beta
	err_is 'beta: ddb: beta "b"	end
'
	dd 'func alpha +pf ; func alpha -_' dd-built alpha
	err_is 'alpha: ddb: alpha 1
'
}

@test "dyndbg: print_hex_dump_debug is a site, printed undecorated; ratelimited counts enabled calls" {
	dd 'format "hx: " +pfl' dd-built hex rate
	err_is 'hx: 00000000: 41 42 43 44
'
	dd 'func rate +p' dd-built rate
	err_is "$(for i in 0 1 2 3 4 5 6 7 8 9; do echo "ddb: rate $i"; done)
"
}

@test "dyndbg: a dlopen'ed object's sites follow the rules too" {
	dd 'func ddlate_hello +pm' dd-built dlopen
	err_is 'libddlate: hello 9
'
}

@test "dyndbg: an object dlclose'd and opened again at the same address gets the rules again" {
	dd 'func ddlate_hello +pm' dd-built reload
	out_is $'same address\n'
	err_is 'libddlate: hello 10
libddlate: hello 11
'
}

@test "dyndbg: an enabled site is a KERN_DEBUG line: PRINTK_SHIM_LEVEL still applies" {
	capture env PRINTK_SHIM_DYNDBG=+p PRINTK_SHIM_LEVEL=info LD_PRELOAD="$MODULE" \
		"$FIX/dd-built" alpha info
	err_is 'ddb: info 2
'
	capture env PRINTK_SHIM_DYNDBG=+pf PRINTK_SHIM_FORMAT=prefix LD_PRELOAD="$MODULE" \
		"$FIX/dd-built" alpha
	err_is '<7>alpha: ddb: alpha 1
'
}

@test "dyndbg: a bad query is named in one warning and ignored; the others apply" {
	dd 'modul x +p; func alpha +p; +x; line 9-3 +p; func beta; line a +p; func a func b +p' dd-built alpha beta
	err_is 'printk-shim: warning: PRINTK_SHIM_DYNDBG: "modul x +p": unknown keyword, expected file, func, line, module, format or class; ignoring this query
printk-shim: warning: PRINTK_SHIM_DYNDBG: "+x": unknown flag '"'x'"', expected p, m, f, s, l, t or _; ignoring this query
printk-shim: warning: PRINTK_SHIM_DYNDBG: "line 9-3 +p": the range'"'"'s last line is before its first; ignoring this query
printk-shim: warning: PRINTK_SHIM_DYNDBG: "func beta": expected keyword-value pairs, then the flags; ignoring this query
printk-shim: warning: PRINTK_SHIM_DYNDBG: "line a +p": expected a line N, a range N-M, N- or -M; ignoring this query
printk-shim: warning: PRINTK_SHIM_DYNDBG: "func a func b +p": func given twice; ignoring this query
ddb: alpha 1
'
	dd 'func alpha p' dd-built alpha
	err_is 'printk-shim: warning: PRINTK_SHIM_DYNDBG: "func alpha p": the flags must start with +, - or =; ignoring this query
'
}

@test "dyndbg: PRINTK_SHIM_DISABLE=1 hands an enabled site's text, undecorated, to the next printk" {
	capture env PRINTK_SHIM_DISABLE=1 PRINTK_SHIM_DYNDBG='func alpha +pf' LD_PRELOAD="$MODULE" \
		"$FIX/dd-built" alpha beta
	err_is $'\0017ddb: alpha 1\n'
}

@test "dyndbg: the wrapper's --dyndbg sets PRINTK_SHIM_DYNDBG" {
	capture env LD_LIBRARY_PATH="$FIX/.libs" "$WRAPPER" --dyndbg='func beta +pl' "$FIX/dd-built" alpha beta
	err_is '31: ddb: beta "b"	end
'
}

@test "dyndbg: repeated --dyndbg options add up, in order, each a write of its own" {
	capture "$WRAPPER" --dyndbg='func alpha +p' --dyndbg='func beta +pl' --dyndbg='func alpha -p' --print-env
	[ "$status" -eq 0 ]
	grep -qx "export PRINTK_SHIM_DYNDBG='func alpha +p;func beta +pl;func alpha -p'" "$OUT"
}

@test "dyndbg: repeated --dyndbg options that add up past 4095 bytes are refused, none dropped" {
	local a b
	a="func $(printf 'a%.0s' $(seq 2500)) +p" b="func $(printf 'b%.0s' $(seq 2500)) +p"
	capture "$WRAPPER" --dyndbg="$a" --dyndbg="$b" --print-env
	[ "$status" -eq 125 ]
	out_is ''
	err_is $'printk-shim: --dyndbg: the repeated options add up to more than 4095 bytes; nothing is run\n'
}

# --- code built without our headers -------------------------------------------

@test "dyndbg: plain KERN_DEBUG calls print as before until a query names them" {
	dd 'module nothing +f' dd-plain one two loop info
	err_is 'one 1
two x
loop 0
loop 1
loop 2
info
'
}

@test "dyndbg: plain calls: func is the caller's dynamic symbol, module its object" {
	dd 'func dd_one +pf; module dd-plain func dd_two +pm' dd-plain one two info
	err_is 'dd_one: one 1
dd-plain: two x
info
'
	dd '-p; func dd_t* +p' dd-plain one two info
	err_is 'two x
info
'
}

@test "dyndbg: a plain site turned off drops its KERN_CONT fragments with it, as the level filter does" {
	dd 'func main -p' dd-plain cont info
	err_is $'info\n'
	capture env PRINTK_SHIM_LEVEL=info LD_PRELOAD="$MODULE" "$FIX/dd-plain" cont info
	err_is $'info\n'
	dd 'func main +pf' dd-plain cont info
	err_is $'main: head tail\ninfo\n'
}

@test "dyndbg: plain calls: format, decided once per site" {
	dd 'format "loop %d" -p' dd-plain one loop
	err_is 'one 1
'
	dd '-p; format ^loop +pt' dd-plain pid loop
	err_is "[$(cat "$OUT")] loop 0
[$(cat "$OUT")] loop 1
[$(cat "$OUT")] loop 2
"
}

@test "dyndbg: plain calls: file and line from DWARF through libdw" {
	dd 'file dd-plain.c:dd_t* -p; line 30-33 +pl' dd-plain one two loop
	err_is 'one 1
33: loop 0
33: loop 1
33: loop 2
'
	dd '-p; file dd-plain.c line -27 +pfsl' dd-plain one two loop
	[[ "$(cat "$ERR")" == dd_one:*dd-plain.c:22:\ one\ 1$'\n'dd_two:*dd-plain.c:27:\ two\ x ]]
}

@test "dyndbg: plain calls without DWARF line information: said once, file and line match none" {
	strip -o "$BATS_TEST_TMPDIR/dd-plain" "$FIX/dd-plain"
	capture env PRINTK_SHIM_DYNDBG='file dd-plain.c -p; line 1- -p' LD_PRELOAD="$MODULE" \
		"$BATS_TEST_TMPDIR/dd-plain" one two
	err_is 'printk-shim: warning: PRINTK_SHIM_DYNDBG: a KERN_DEBUG call comes from code without DWARF line information; file and line match none of its calls
one 1
two x
'
}

@test "dyndbg: plain calls without DWARF, queries that name no file or line: nothing said" {
	strip -o "$BATS_TEST_TMPDIR/dd-plain" "$FIX/dd-plain"
	# runtime control on (the default) lists sites with their lines: looked up, quietly
	capture env PRINTK_SHIM_DYNDBG='func dd_two -p' LD_PRELOAD="$MODULE" \
		"$BATS_TEST_TMPDIR/dd-plain" one two
	err_is 'one 1
'
	# a flag that prints the line asks for it: told at that call
	capture env PRINTK_SHIM_DYNDBG='func dd_two -p; func dd_two +pl' LD_PRELOAD="$MODULE" \
		"$BATS_TEST_TMPDIR/dd-plain" one two
	err_is 'one 1
printk-shim: warning: PRINTK_SHIM_DYNDBG: a KERN_DEBUG call comes from code without DWARF line information; file and line match none of its calls
two x
'
}

@test "dyndbg: plain calls without /proc: said once, file and line match none" {
	unshare -m true 2>/dev/null || skip "no mount namespace here"
	! readelf -d "$MODULE" | grep -qE 'NEEDED.*lib(asan|tsan|ubsan)' ||
		skip "a sanitizer's runtime cannot start without /proc"
	capture unshare -m --propagation private sh -c 'umount -l /proc || exit 9
		exec env PRINTK_SHIM_DYNDBG="file dd-plain.c -p; line 1- -p" PRINTK_SHIM_CONTROL=0 \
			LD_PRELOAD="$1" "$2" one two' sh "$MODULE" "$FIX/dd-plain"
	[ "$status" -eq 0 ]
	err_is 'printk-shim: warning: PRINTK_SHIM_DYNDBG: file and line need the process'"'"'s mappings (/proc/self/maps): No such file or directory; they match none of its calls
one 1
two x
'
}

@test "dyndbg: plain calls: KERN_INFO lines are not debug sites" {
	dd '-p' dd-plain info one
	err_is 'info
'
}

# --- printk-shim --dyndbg-list ------------------------------------------------

# built_sites FLAGS: what --dyndbg-list prints for dd-built, its alpha site's
# flags FLAGS and the others' none, without the last newline
built_sites() {
	printf %s "# filename:lineno [module]function flags format
$SRC:26 [dd-built]alpha =$1 \"alpha %d\\n\"
$SRC:31 [dd-built]beta =_ \"beta \\\"%s\\\"\\tend\\n\"
$SRC:39 [dd-built]dev =_ \"dev %d\\n\"
$SRC:46 [dd-built]net =_ \"link %s\\n\"
$SRC:51 [dd-built]hex =_ \"hx: \"
$SRC:57 [dd-built]rate =_ \"ddb: rate %d\\n\""
}

@test "dyndbg: --dyndbg-list prints each site as the control file, sorted by file and line" {
	capture "$WRAPPER" --dyndbg-list "$FIX/dd-built" "$FIX/.libs/libddlib.so"
	[ "$status" -eq 0 ]
	out_is "$(built_sites _)
$LIBSRC:19 [libddlib]ddlib_hello =_ \"hello %d\\n\"
"
	err_is ''
}

@test "dyndbg: --dyndbg-list of a file cut short while it is read says so, and status 1" {
	cp "$FIX/.libs/libddlib.so" "$BATS_TEST_TMPDIR/lib.so"
	shrink --dyndbg-list "$BATS_TEST_TMPDIR/lib.so"
	[ "$status" = 1 ]
	err_is "printk-shim: warning: --dyndbg-list: $BATS_TEST_TMPDIR/lib.so: the file shrank while it was read; expected it to stay as it was; what was printed for it may be cut short or wrong
"
}

@test "dyndbg: --dyndbg-list of a file refused as cut short while it was read lists the next whole" {
	cp "$FIX/.libs/libddlib.so" "$BATS_TEST_TMPDIR/lib.so"
	shrink_mapped --dyndbg-list "$BATS_TEST_TMPDIR/lib.so" "$FIX/dd-built"
	[ "$status" = 1 ]
	err_is "printk-shim: warning: --dyndbg-list: $BATS_TEST_TMPDIR/lib.so: an ELF file cut short or corrupt (its headers do not fit it): expected an ELF program or shared object; skipping it
"
	out_is "$(built_sites _)
"
}

@test "dyndbg: --dyndbg-list shows the flags the queries give, DEBUG's default first" {
	capture env PRINTK_SHIM_DYNDBG='func beta +x' "$WRAPPER" --dyndbg='line 30-50 =fmslt; func dev +p' \
		--dyndbg-list "$FIX/dd-built-debug"
	[ "$status" -eq 0 ]
	out_is "# filename:lineno [module]function flags format
$SRC:26 [dd-built-debug]alpha =p \"alpha %d\\n\"
$SRC:31 [dd-built-debug]beta =mfslt \"beta \\\"%s\\\"\\tend\\n\"
$SRC:39 [dd-built-debug]dev =pmfslt \"dev %d\\n\"
$SRC:46 [dd-built-debug]net =mfslt \"link %s\\n\"
$SRC:51 [dd-built-debug]hex =p \"hx: \"
$SRC:57 [dd-built-debug]rate =p \"ddb: rate %d\\n\"
"
	capture env PRINTK_SHIM_DYNDBG='func beta +x; func alpha +f' "$WRAPPER" --dyndbg-list "$FIX/dd-built"
	out_is "$(built_sites f)
"
	err_is "printk-shim: warning: PRINTK_SHIM_DYNDBG: \"func beta +x\": unknown flag 'x', expected p, m, f, s, l, t or _; ignoring this query
"
}

@test "dyndbg: --dyndbg-list takes options after it, as its synopsis shows; -- ends them" {
	want="$(built_sites pf)
"
	capture "$WRAPPER" --dyndbg-list --dyndbg='func alpha +pf' "$FIX/dd-built"
	[ "$status" -eq 0 ]
	out_is "$want"
	err_is ''
	capture "$WRAPPER" --dyndbg-list --dyndbg 'func alpha +p' --dyndbg='func alpha +f' -- "$FIX/dd-built"
	[ "$status" -eq 0 ]
	out_is "$want"
	err_is ''
	capture "$WRAPPER" --dyndbg-list -- --dyndbg=x
	[ "$status" -eq 1 ]
	err_is "printk-shim: warning: --dyndbg-list: --dyndbg=x: No such file or directory: expected an ELF program or shared object; skipping it
"
	capture "$WRAPPER" --dyndbg-list --dyndbg='func alpha +p'
	[ "$status" -eq 125 ]
	err_is 'printk-shim: --dyndbg-list: expected one or more BINARY, got none; nothing is done (see --help)
'
}

@test "dyndbg: --dyndbg-list: a binary without sites gets one line; a bad file a warning and status 1" {
	capture "$WRAPPER" --dyndbg-list "$FIX/dd-plain" /etc/passwd
	[ "$status" -eq 1 ]
	out_is "# filename:lineno [module]function flags format
# $FIX/dd-plain: no dynamic debug call sites (no __dyndbg section)
"
	err_is 'printk-shim: warning: --dyndbg-list: /etc/passwd: not an ELF file: expected an ELF program or shared object; skipping it
'
	capture "$WRAPPER" --dyndbg-list
	[ "$status" -eq 125 ]
	err_is 'printk-shim: --dyndbg-list: expected one or more BINARY, got none; nothing is done (see --help)
'
}

@test "dyndbg: --dyndbg-list escapes every string from the file as --index does" {
	# One descriptor whose four strings hold a newline (a forged site line),
	# an OSC title sequence, a quote, a backslash and a byte above 0x7f.
	cat >"$BATS_TEST_TMPDIR/forge.c" <<'EOF'
struct dd { const char *mod, *func, *file, *fmt; unsigned int line, flags; } __attribute__((aligned(8)));
__attribute__((used, section("__dyndbg"))) static struct dd d = {
	"m\nx.c:1 [m]f =p \"forged", "f\033]0;owned\007", "a\"b\\c\377.c", "fmt\n\033[2J\"%s\"", 7, 0 };
int main(void) { return 0; }
EOF
	$CC -O2 -o "$BATS_TEST_TMPDIR/forge" "$BATS_TEST_TMPDIR/forge.c"
	capture "$WRAPPER" --dyndbg-list "$BATS_TEST_TMPDIR/forge"
	[ "$status" -eq 0 ]
	out_is '# filename:lineno [module]function flags format
a\"b\\c\377.c:7 [m\nx.c:1 [m]f =p \"forged]f\e]0;owned\a =_ "fmt\n\e[2J\"%s\""
'
	err_is ''
}

@test "dyndbg: --dyndbg-list reads a 32-bit object" {
	i686-linux-gnu-gcc -shared -fPIC -O2 -I"$abs_top_srcdir/include" \
		"$abs_top_srcdir/tests/fixtures/ddlib.c" -o "$BATS_TEST_TMPDIR/libdd32.so"
	capture "$WRAPPER" --dyndbg='+pl' --dyndbg-list "$BATS_TEST_TMPDIR/libdd32.so"
	out_is "# filename:lineno [module]function flags format
$abs_top_srcdir/tests/fixtures/ddlib.c:19 [libdd32]ddlib_hello =pl \"hello %d\\n\"
"
}

# --- class maps ----------------------------------------------------------------

@test "dyndbg: class NAME enables the sites of that class only; a query without class leaves them" {
	PRINTK_SHIM_DYNDBG='class D2_CORE +p' capture shim "$FIX/dd-class"
	err_is $'core 1\n'
	PRINTK_SHIM_DYNDBG='+p' capture shim "$FIX/dd-class"
	err_is $'plain 4\n'
	PRINTK_SHIM_DYNDBG='class D2_KMS +pf; class D2_DRIVER module ddcls +p' capture shim "$FIX/dd-class"
	err_is $'driver 2\nmain: ddcls-drv card0: kms 3\n'
	PRINTK_SHIM_DYNDBG='class D2_CORE module other +p; class NOPE +p' capture shim "$FIX/dd-class"
	err_is ''
}

@test "dyndbg: --dyndbg-list names each site's class as the control file does" {
	local src
	src=$(grep -ao '[^[:space:][:cntrl:]]*fixtures/dd-class\.c' "$FIX/dd-class" | head -n 1)
	capture "$WRAPPER" --dyndbg='class D2_KMS +p' --dyndbg-list "$FIX/dd-class"
	[ "$status" -eq 0 ]
	out_is "# filename:lineno [module]function flags format
$src:29 [ddcls]main =_ \"core %d\\n\" class:D2_CORE
$src:30 [ddcls]main =_ \"driver %d\\n\" class:D2_DRIVER
$src:31 [ddcls]main =p \"kms %d\\n\" class:D2_KMS
$src:32 [ddcls]main =_ \"plain %d\\n\"
"
}

# A class map whose names pointer, relocated, is 2^64 - 4 (the check of its
# section's bounds wrapped: a read before the heap copy of .comment), or
# whose base is INT_MIN (class_id - base overflowed an int): classes the
# file does not name, and nothing read outside it (ASan and UBSan builds).
@test "dyndbg: --dyndbg-list of a class map that points outside the file, or starts at INT_MIN" {
	local src
	src=$(grep -ao '[^[:space:][:cntrl:]]*fixtures/dd-class\.c' "$FIX/dd-class" | head -n 1)
	python3 - "$FIX/dd-class" "$BATS_TEST_TMPDIR" <<'PY'
import struct, sys
src, tmp = sys.argv[1], sys.argv[2]
b = bytearray(open(src, "rb").read())
shoff, = struct.unpack_from("<Q", b, 40)
shnum, shstrndx = struct.unpack_from("<HH", b, 60)
sec = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + 64 * i) for i in range(shnum)]
names = sec[shstrndx][4]
def name(s): return bytes(b[names + s[0]:b.index(0, names + s[0])]).decode()
maps = next(s for s in sec if name(s) == "__dyndbg_classes")
rela = next(s for s in sec if name(s) == ".rela.dyn")
out = bytearray(b)
for at in range(rela[4], rela[4] + rela[5], 24):
    if struct.unpack_from("<Q", out, at)[0] == maps[3] + 8:    # the map's names pointer
        struct.pack_into("<Q", out, at + 16, 0xfffffffffffffffc)
open(tmp + "/names", "wb").write(out)
struct.pack_into("<I", b, maps[4] + 20, 0x80000000)           # its base
open(tmp + "/base", "wb").write(b)
PY
	for f in names base; do
		capture "$WRAPPER" --dyndbg-list "$BATS_TEST_TMPDIR/$f"
		[ "$status" -eq 0 ]
		out_is "# filename:lineno [module]function flags format
$src:29 [ddcls]main =_ \"core %d\\n\" class unknown, _id:0
$src:30 [ddcls]main =_ \"driver %d\\n\" class unknown, _id:1
$src:31 [ddcls]main =_ \"kms %d\\n\" class unknown, _id:2
$src:32 [ddcls]main =_ \"plain %d\\n\"
"
		err_is ''
	done
}

@test "dyndbg: a site of a class in an object without maps is of an unknown class: no query without one reaches it" {
	local T=$BATS_TEST_TMPDIR
	printf '%s\n' '#include <linux/dynamic_debug.h>' '#include <linux/printk.h>' \
		'int main(void) { pr_debug_cls(3, "cls3 %d\n", 3); pr_debug("plain %d\n", 4); return 0; }' >"$T/cls.c"
	$CC -Wall -Werror -I"$abs_top_srcdir/include" "$T/cls.c" -o "$T/cls" \
		-L"$abs_top_builddir/examples/.libs" -lkcompat -Wl,-rpath,"$abs_top_builddir/examples/.libs"
	capture env PRINTK_SHIM_DYNDBG=+p LD_PRELOAD="$MODULE" "$T/cls"
	[ "$status" -eq 0 ]
	err_is $'plain 4\n'
	capture "$WRAPPER" --dyndbg-list "$T/cls"
	[ "$status" -eq 0 ]
	grep -q ' "cls3 %d\\n" class unknown, _id:3$' "$OUT"
	grep -q ' "plain %d\\n"$' "$OUT"
}

# Two class maps in one program that both hold id 0: the process named the
# site's class from the last map, --dyndbg-list from the first (the
# kernel's), so a query by one name printed what the listing said the
# other would.
@test "dyndbg: class names from the first map that holds the id, in the process and in --dyndbg-list alike" {
	local t=$BATS_TEST_TMPDIR
	printf '%s\n' '#define KBUILD_MODNAME "moda"' '#include <linux/printk.h>' \
		'DECLARE_DYNDBG_CLASSMAP(a_cls, DD_CLASS_TYPE_DISJOINT_BITS, 0, "A_CORE", "A_EXTRA");' \
		'void fa(void) { pr_debug_cls(0, "moda core\n"); }' >"$t/ma.c"
	printf '%s\n' '#define KBUILD_MODNAME "modb"' '#include <linux/printk.h>' \
		'DECLARE_DYNDBG_CLASSMAP(b_cls, DD_CLASS_TYPE_DISJOINT_BITS, 0, "B_CORE");' \
		'void fb(void) { pr_debug_cls(0, "modb core\n"); }' >"$t/mb.c"
	printf '%s\n' 'void fa(void); void fb(void);' 'int main(void) { fa(); fb(); return 0; }' >"$t/two.c"
	(cd "$t" && $CC -I"$abs_top_srcdir/include" -o two two.c ma.c mb.c \
		-L"$abs_top_builddir/lib/.libs" -lprintk-port -Wl,-rpath,"$abs_top_builddir/lib/.libs")
	capture "$WRAPPER" --dyndbg='class A_CORE +p' --dyndbg-list "$t/two"
	[ "$status" -eq 0 ]
	[ "$(grep -c '=p .*class:A_CORE$' "$OUT")" -eq 2 ]
	capture "$WRAPPER" --dyndbg='class A_CORE +p' -- "$t/two"
	[ "$status" -eq 0 ]
	err_is $'moda core\nmodb core\n'
	capture "$WRAPPER" --dyndbg='class B_CORE +p' --dyndbg-list "$t/two"
	[ "$(grep -c '=p' "$OUT")" -eq 0 ]
	capture "$WRAPPER" --dyndbg='class B_CORE +p' -- "$t/two"
	[ "$status" -eq 0 ]
	err_is ''
}

# The program's module name came from argv[0]: a link or exec -a changed
# which queries reached its sites, and --dyndbg-list named it otherwise.
@test "dyndbg: the program's module is its file's name, whatever it was run by" {
	local t=$BATS_TEST_TMPDIR
	printf '%s\n' '#include <linux/printk.h>' 'int main(void) { pr_debug("hello\n"); return 0; }' \
		>"$t/prog.c"
	(cd "$t" && $CC -I"$abs_top_srcdir/include" -o prog prog.c \
		-L"$abs_top_builddir/lib/.libs" -lprintk-port -Wl,-rpath,"$abs_top_builddir/lib/.libs")
	ln -s prog "$t/prog-link"
	capture shim env PRINTK_SHIM_DYNDBG='module prog +pm' "$t/prog-link"
	err_is $'prog: hello\n'
	capture shim env PRINTK_SHIM_DYNDBG='module prog +pm' bash -c 'exec -a my.daemon "$0"' "$t/prog"
	err_is $'prog: hello\n'
	capture "$WRAPPER" --dyndbg-list "$t/prog-link"
	[ "$(tail -n 1 "$OUT")" = 'prog.c:2 [prog]main =_ "hello\n"' ]
}

# Without the headers, a site's line is looked up as it prints, and a
# thread that found another thread's lookup under way printed without it
# (about 2 lines in 1000 with 4 threads).
@test "dyndbg: threads printing a plain site at once each get its line decoration" {
	local t=$BATS_TEST_TMPDIR
	printf '%s\n' '#include <pthread.h>' '#include <unistd.h>' 'int printk(const char *fmt, ...);' \
		'static void *worker(void *a) {' \
		'	for (int i = 0; i < 1000; i++) { printk("\0017" "site %d\n", i); usleep(200); }' \
		'	return a;' \
		'}' \
		'int main(void) {' \
		'	pthread_t t[4];' \
		'	for (int i = 0; i < 4; i++) pthread_create(&t[i], 0, worker, 0);' \
		'	for (int i = 0; i < 4; i++) pthread_join(t[i], 0);' \
		'	return 0;' \
		'}' >"$t/plain.c"
	(cd "$t" && $CC -g -O2 -o plain plain.c -pthread \
		-L"$abs_top_builddir/examples/.libs" -lkcompat -Wl,-rpath,"$abs_top_builddir/examples/.libs")
	capture shim env PRINTK_SHIM_DYNDBG='func worker +pl' "$t/plain"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^5: site [0-9]*$' "$ERR")" -eq 4000 ]
}

# Without the headers a site's file comes from DWARF, where libdw puts the
# compilation directory before a name given relative to it: the same file
# was "a.c" for a pr_debug site and "/path/to/a.c" for a plain one.
@test "dyndbg: a plain site's file is __FILE__, for a build given relative or absolute paths" {
	local t=$BATS_TEST_TMPDIR src
	mkdir "$t/sub"
	printf '%s\n' 'int printk(const char *fmt, ...);' \
		'void f(void) { printk("\0017" "from %s\n", __FILE__); }' \
		'int main(void) { f(); return 0; }' >"$t/sub/a.c"
	for src in a.c ./a.c "$t/sub/a.c" ../sub/a.c; do
		(cd "$t/sub" && $CC -g -O0 -o prog "$src" \
			-L"$abs_top_builddir/examples/.libs" -lkcompat -Wl,-rpath,"$abs_top_builddir/examples/.libs")
		capture shim env PRINTK_SHIM_DYNDBG='func f +ps' "$t/sub/prog"
		err_is "$src: from $src"$'\n'
	done
}
