#!/bin/sh
# SPDX-License-Identifier: MIT
#
# One system, 32- and 64-bit programs. On an amd64 Debian 12, as root:
# add the i386 architecture, build the packages natively and cross for
# i386 (dpkg-buildpackage -a i386, crossbuild-essential-i386), lint both,
# install libprintk-shim and printk-shim-dev for amd64 and i386 side by
# side with the amd64 printk-shim, and run a 64-bit and a 32-bit fixture
# (each taking printk from the naive libkcompat.so of its own class) under
# the same printk-shim command line: both must write the same bytes. Then
# a 32-bit program started by a 64-bit one, which finds its module through
# the literal $LIB in LD_PRELOAD; and pkg-config for each class. The
# packages are removed at the end.
#
#   sh debian/ci-multiarch.sh
#
# Installs what it needs with apt-get. Where the kernel runs no IA-32 code
# (some 64-bit-only virtual machines), the 32-bit programs run under
# qemu-i386-static, registered with binfmt_misc for the job's length so that
# an exec from a 64-bit process reaches it too; the log says which.
# The copy is left behind when a step fails or KEEP=1 is set.
# Ends with one line "debian-multiarch: N passed, N failed".
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=debian/ci-lib.sh
. "$src/debian/ci-lib.sh"
installed=
binfmt=/proc/sys/fs/binfmt_misc
qemu_entry=printk-shim-ci-i386
registered=

finish() {
	rc=$?
	if [ -n "$installed" ]; then
		say "removing the packages"
		remove printk-shim-dev:amd64 printk-shim-dev:i386 printk-shim \
			libprintk-port0:amd64 libprintk-port0:i386 \
			libprintk-shim:amd64 libprintk-shim:i386 || rc=1
	fi
	[ -z "$registered" ] || echo -1 >"$binfmt/$qemu_entry" || rc=1
	conclude debian-multiarch "$rc"
}

preflight debian/ci-multiarch.sh
if [ "$(dpkg --print-architecture)" != amd64 ]; then
	echo "debian/ci-multiarch.sh: needs an amd64 system (it adds i386)" >&2
	exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/printk-shim-multiarch.XXXXXX")
trap finish EXIT
copy=$work/printk-shim

say "copying the tree to $copy"
copy_tree "$src" "$copy"

say "dpkg --add-architecture i386; the build dependencies for amd64 and i386"
dpkg --add-architecture i386
apt_get update -qq
# libc6:i386 runs the i386 programs, and shows dpkg-shlibdeps the i386 C
# library, so that the i386 packages depend on libc6 and not on the
# biarch libc6-i386 an amd64 system may have.
apt_get install -y -qq --no-install-recommends build-essential lintian \
	crossbuild-essential-i386 libc6:i386 >/dev/null
(cd "$copy" &&
	apt_get build-dep -y -qq -P nocheck ./ &&
	apt_get build-dep -y -qq -a i386 -P nocheck,cross ./) >/dev/null

version=$(cd "$copy" && dpkg-parsechangelog -S Version)
# deb PACKAGE ARCH: the path of a built package.
deb() { echo "$work/$1_${version}_$2.deb"; }

# PKS_DEBS=DIR: the amd64 packages debian/ci-test.sh built and linted from
# this same tree are taken from DIR (CI's Debian step leaves them there)
# rather than built and linted a second time.
arches="amd64 i386"
if [ -n "${PKS_DEBS:-}" ] && [ -e "$PKS_DEBS/printk-shim_${version}_amd64.changes" ]; then
	say "the amd64 packages from $PKS_DEBS (debian/ci-test.sh built and linted them)"
	cp "$PKS_DEBS"/*_"${version}"_amd64.* "$work"/
	arches=i386
fi

for a in $arches; do
	if [ "$a" = amd64 ]; then profiles=nocheck; else profiles=nocheck,cross; fi
	say "dpkg-buildpackage -us -uc -b -a $a ($profiles)"
	built="dpkg-buildpackage -a $a builds the three packages"
	(cd "$copy" &&
		DEB_BUILD_OPTIONS="nocheck parallel=$(nproc) ${DEB_BUILD_OPTIONS:-}" \
		dpkg-buildpackage -us -uc -b -a "$a" --build-profiles="$profiles" \
		>"$work/build-$a.log" 2>&1) || {
		tail -n 40 "$work/build-$a.log"
		not_ok "$built"
		exit 1
	}
	ok "$built"
done

say "lintian"
for a in $arches; do
	lintian --fail-on error,warning --display-info "$work/printk-shim_${version}_$a.changes" \
		>"$work/lintian-$a.log" 2>&1 && lint=0 || lint=1
	grep -v 'running with root privileges' "$work/lintian-$a.log" | sed 's/^/  /' || true
	name="lintian finds no error or warning in the $a packages"
	if [ "$lint" -eq 0 ]; then ok "$name"; else not_ok "$name"; fi
done

check "the i386 libprintk-shim ships its module in /usr/lib/i386-linux-gnu" \
	ships "$(deb libprintk-shim i386)" usr/lib/i386-linux-gnu/printk-shim/libprintk-shim.so
check "the i386 printk-shim-dev ships its .pc in /usr/lib/i386-linux-gnu/pkgconfig" \
	ships "$(deb printk-shim-dev i386)" usr/lib/i386-linux-gnu/pkgconfig/printk-shim.pc

say "apt-get install libprintk-shim and printk-shim-dev for amd64 and i386, printk-shim for amd64"
installed=yes
apt_get install -y -qq --no-install-recommends "$(deb libprintk-shim amd64)" \
	"$(deb libprintk-shim i386)" "$(deb printk-shim amd64)" \
	"$(deb libprintk-port0 amd64)" "$(deb libprintk-port0 i386)" \
	"$(deb printk-shim-dev amd64)" "$(deb printk-shim-dev i386)" >"$work/install.log" 2>&1 || {
	sed 's/^/#   /' "$work/install.log"
	not_ok "apt-get installs both modules and one wrapper"
	exit 1
}
all_installed() {
	for p in libprintk-shim:amd64 libprintk-shim:i386 printk-shim:amd64 \
		printk-shim-dev:amd64 printk-shim-dev:i386; do
		v=$(dpkg-query -W -f '${db:Status-Abbrev}${Version}' "$p") || return 1
		[ "$v" = "ii $version" ] || { echo "$p: $v"; return 1; }
	done
}
check "apt-get installs both modules and one wrapper" all_installed
dpkg -l 'libprintk-shim*' 'printk-shim*' | grep '^ii' | sed 's/^/  /'

mod64=/usr/lib/x86_64-linux-gnu/printk-shim/libprintk-shim.so
mod32=/usr/lib/i386-linux-gnu/printk-shim/libprintk-shim.so
classes() {
	[ "$(elf_class "$mod64")" = 64 ] && [ "$(elf_class "$mod32")" = 32 ]
}
check "the amd64 module is 64-bit, the i386 module 32-bit" classes

# The fixtures: tests/fixtures/emit, its printk from examples/kcompat.c
# built as libkcompat.so beside it, once for each class.
fx64=$work/fx64
fx32=$work/fx32
# fixture DIR CC...: build libkcompat.so and emit in DIR with CC.
# shellcheck disable=SC2016 # $ORIGIN is the dynamic linker's
fixture() {
	dir=$1
	shift
	mkdir -p "$dir" &&
		"$@" -O2 -fPIC -shared -o "$dir/libkcompat.so" "$copy/examples/kcompat.c" &&
		"$@" -O2 -pthread -o "$dir/emit" "$copy/tests/fixtures/emit.c" \
			-L"$dir" -lkcompat -Wl,-rpath,'$ORIGIN'
}
check "gcc builds the 64-bit fixture" fixture "$fx64" gcc
check "i686-linux-gnu-gcc builds the 32-bit fixture" fixture "$fx32" i686-linux-gnu-gcc
fixture_classes() {
	[ "$(elf_class "$fx64/emit")" = 64 ] && [ "$(elf_class "$fx32/emit")" = 32 ]
}
check "the fixtures are 64- and 32-bit" fixture_classes

# i386_runs: the 32-bit fixture runs; if this kernel refuses IA-32 programs,
# binfmt_misc starts them with qemu-i386-static (static, so that LD_PRELOAD
# reaches the guest's dynamic linker and not qemu's). Sets $how.
how=
i386_runs() {
	if "$fx32/emit" 2>/dev/null; then
		how=natively
		return
	fi
	apt_get install -y -qq --no-install-recommends qemu-user-static >/dev/null || return 1
	[ -e "$binfmt/register" ] || mount -t binfmt_misc binfmt_misc "$binfmt" || return 1
	[ ! -e "$binfmt/$qemu_entry" ] || echo -1 >"$binfmt/$qemu_entry" || return 1
	# An i386 ELF executable or PIE: class 1, little-endian, machine 3.
	printf '%s' ":$qemu_entry:M::\\x7fELF\\x01\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\\x00\\x03\\x00:\\xff\\xff\\xff\\xff\\xff\\xfe\\xfe\\x00\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xfe\\xff\\xff\\xff:/usr/bin/qemu-i386-static:F" \
		>"$binfmt/register" || return 1
	registered=yes
	"$fx32/emit" || return 1
	how="under qemu-i386-static, as this kernel runs no IA-32 code"
}
say "running i386 programs"
if i386_runs; then
	ok "this machine runs the 32-bit fixture ($how)"
else
	not_ok "this machine runs the 32-bit fixture"
	exit 1
fi

soh=$(printf '\001')	# KERN_SOH
nl='
'
# shim_run OUT PROGRAM ARG...: the installed wrapper, in a clean environment,
# with the prefix format; the program's stdout and stderr go to OUT.
shim_run() {
	out=$1
	shift
	env -u LD_PRELOAD -u PRINTK_SHIM_LIB /usr/bin/printk-shim --format=prefix -- "$@" >"$out" 2>&1
}
# same WANT GOT: the two files hold the same bytes.
same() {
	cmp "$1" "$2" >/dev/null && return
	echo "want:"; od -c "$1"; echo "got:"; od -c "$2"
	return 1
}

preload_is_multiarch() {
	# shellcheck disable=SC2016 # a literal $LIB, for the dynamic linker
	got=$(env -u LD_PRELOAD /usr/bin/printk-shim -- /bin/sh -c 'printf %s "$LD_PRELOAD"') || return 1
	# shellcheck disable=SC2016
	[ "$got" = '/usr/$LIB/printk-shim/libprintk-shim.so' ] || { echo "LD_PRELOAD=$got"; return 1; }
}
check "the wrapper hands its children LD_PRELOAD with a literal \$LIB" preload_is_multiarch

# both_checked: --check finds each class's fixture interposed, each by the
# module of its own class, which the installed wrapper's $LIB names.
both_checked() {
	for c in 64 32; do
		env -u LD_PRELOAD -u PRINTK_SHIM_LIB /usr/bin/printk-shim --check "$work/fx$c/emit" \
			>"$work/check$c" || { cat "$work/check$c"; return 1; }
		grep -q ': interposed: ' "$work/check$c" || { cat "$work/check$c"; return 1; }
	done
}
check "--check finds both fixtures interposed" both_checked

# One command line for both classes: fragments joined, a marker alone, a
# line without a level, a number, a line from a thread, one left open at
# exit.
set -- "${soh}6hello " "from " @d "%d" 42 " fragments$nl" "${soh}3" "an error$nl" \
	"no level$nl" @d "%ld$nl" -1 @thread "${soh}5from a thread$nl" "${soh}6open at exit"
printf '<6>hello from 42 fragments\n<3>an error\n<4>no level\n<4>-1\n<5>from a thread\n<6>open at exit\n' \
	>"$work/want"
# class_run CLASS ARG...: that class's fixture under the wrapper writes want.
class_run() {
	c=$1
	shift
	shim_run "$work/out$c" "$work/fx$c/emit" "$@" && same "$work/want" "$work/out$c"
}
check "the 64-bit fixture writes whole, levelled lines" class_run 64 "$@"
check "the 32-bit fixture, under the same command line, writes the same bytes" class_run 32 "$@"
check "the two outputs are equal byte for byte" same "$work/out64" "$work/out32"
say "the output of both, through cat -v:"
cat -v "$work/out32" | sed 's/^/  /'
raw32() {
	"$fx32/emit" "$@" >"$work/raw32" 2>&1
	grep -q "$soh" "$work/raw32" || { od -c "$work/raw32"; return 1; }
}
check "without the wrapper the 32-bit fixture writes the raw markers" raw32 "$@"

# exec_chain: a 64-bit program that execs a 32-bit one, which execs a
# 64-bit one; each loads the module of its class from the same LD_PRELOAD.
exec_chain() {
	printf '<6>from 64 bits\n<4>open at exec\n<3>from 32 bits\n<4>open again\n<6>64 bits again\n' \
		>"$work/want-exec" &&
		shim_run "$work/out-exec" "$fx64/emit" "${soh}6from 64 bits$nl" "${soh}4open at exec" \
			@exec "$fx32/emit" "${soh}3from 32 bits$nl" "open again" \
			@exec "$fx64/emit" "${soh}6""64 bits again$nl" &&
		same "$work/want-exec" "$work/out-exec"
}
check "a 32-bit program exec'd by a 64-bit one loads the i386 module, and back" exec_chain
# shell_children: a 64-bit shell, which calls no printk, starts a 32-bit and
# a 64-bit child.
# shellcheck disable=SC2016 # the inner shell's arguments
shell_children() {
	printf '<6>a child\n<6>a child\n' >"$work/want-sh" &&
		shim_run "$work/out-sh" /bin/sh -c '"$1" "$3" && "$2" "$3"' sh \
			"$fx32/emit" "$fx64/emit" "${soh}6a child$nl" &&
		same "$work/want-sh" "$work/out-sh"
}
check "a 64-bit shell starts a 32-bit and a 64-bit child, each with its module" shell_children

# pc_class PKG_CONFIG CC MODULE CLASS: PKG_CONFIG's preload is MODULE, of
# CLASS, and CC compiles a port against its Cflags.
pc_class() {
	got=$("$1" --variable=preload printk-shim) || return 1
	[ "$got" = "$3" ] || { echo "$1: preload=$got"; return 1; }
	[ "$(elf_class "$got")" = "$4" ] || return 1
	# shellcheck disable=SC2046 # pkg-config prints several words
	printf '#include <linux/printk.h>\nint f(void);\nint f(void) { return pr_info("x%%d\\n", 1); }\n' |
		"$2" $("$1" --cflags printk-shim) -Wall -Werror -x c -c -o /dev/null -
}
check "pkg-config --variable=preload names the amd64 module" \
	pc_class pkg-config gcc "$mod64" 64
check "i686-linux-gnu-pkg-config --variable=preload names the i386 module" \
	pc_class i686-linux-gnu-pkg-config i686-linux-gnu-gcc "$mod32" 32

say "apt-get remove"
installed=
remove printk-shim-dev:amd64 printk-shim-dev:i386 printk-shim \
	libprintk-port0:amd64 libprintk-port0:i386 libprintk-shim:amd64 libprintk-shim:i386
check "apt-get remove removes the wrapper and both modules" \
	sh -c "! test -e /usr/bin/printk-shim && ! test -e $mod64 && ! test -e $mod32"
