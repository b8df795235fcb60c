#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Build the Debian packages in a copy of the tree, check them with lintian,
# install them with apt-get on this machine as an upgrade from 0.1.0-1 (when
# printk-shim still held the module), run a fixture through the installed
# wrapper, then remove them again.
#
#   sh debian/ci-test.sh
#
# Needs root and apt-get (it installs the build dependencies and lintian).
# The package is built with the nocheck profile: make check runs on its own
# in CI. The copy is left behind, with its path printed, when a step fails
# or KEEP=1 is set. debian/ci-multiarch.sh installs the module for amd64
# and i386 side by side.
# Ends with one line "debian-ci: N passed, N failed".
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=debian/ci-lib.sh
. "$src/debian/ci-lib.sh"
installed=
arch=$(dpkg --print-architecture)

finish() {
	rc=$?
	if [ -n "$installed" ]; then
		say "removing the packages"
		remove printk-shim-dev printk-shim "libprintk-port0:$arch" "libprintk-shim:$arch" || rc=1
	fi
	conclude debian-ci "$rc"
}

preflight debian/ci-test.sh

work=$(mktemp -d "${TMPDIR:-/tmp}/printk-shim-deb.XXXXXX")
trap finish EXIT
copy=$work/printk-shim

say "copying the tree to $copy"
copy_tree "$src" "$copy"

say "installing the build dependencies"
apt_get update -qq
apt_get install -y -qq --no-install-recommends build-essential lintian man-db >/dev/null
(cd "$copy" && apt_get build-dep -y -qq -P nocheck ./ >/dev/null)

say "dpkg-buildpackage -us -uc -b (nocheck)"
built="dpkg-buildpackage builds libprintk-shim, libprintk-port0, printk-shim and printk-shim-dev"
(cd "$copy" &&
	DEB_BUILD_OPTIONS="nocheck parallel=$(nproc) ${DEB_BUILD_OPTIONS:-}" \
	dpkg-buildpackage -us -uc -b --build-profiles=nocheck >"$work/build.log" 2>&1) || {
	tail -n 40 "$work/build.log"
	not_ok "$built"
	exit 1
}
ok "$built"

triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
version=$(cd "$copy" && dpkg-parsechangelog -S Version)
lib=$work/libprintk-shim_${version}_$arch.deb
bin=$work/printk-shim_${version}_$arch.deb
dev=$work/printk-shim-dev_${version}_$arch.deb
port=$work/libprintk-port0_${version}_$arch.deb
module=usr/lib/$triplet/printk-shim/libprintk-shim.so

# PKS_DEBS=DIR: the packages are left there too, for debian/ci-multiarch.sh.
if [ -n "${PKS_DEBS:-}" ]; then
	mkdir -p "$PKS_DEBS"
	cp "$work"/*_"${version}"_"$arch".deb "$work"/*_"${version}"_"$arch".changes \
		"$work"/*_"${version}"_"$arch".buildinfo "$PKS_DEBS"/
fi

say "lintian"
lintian --fail-on error,warning --display-info "$work/printk-shim_${version}_$arch.changes" \
	>"$work/lintian.log" 2>&1 && lint=0 || lint=1
grep -v 'running with root privileges' "$work/lintian.log" | sed 's/^/  /' || true
if [ "$lint" -eq 0 ]; then ok "lintian finds no error or warning"; else not_ok "lintian finds no error or warning"; fi

check "libprintk-shim ships the module in the multiarch libdir" ships "$lib" "$module"
check "libprintk-port0 ships the library a port links in the multiarch libdir, -dev its link" \
	sh -c "dpkg-deb -c '$port' | grep -q ' ./usr/lib/$triplet/libprintk-port.so.0 ->' &&
		dpkg-deb -c '$dev' | grep -q ' ./usr/lib/$triplet/libprintk-port.so ->'"
check "printk-shim ships the wrapper and the man pages" \
	ships "$bin" usr/bin/printk-shim usr/share/man/man1/printk-shim.1.gz usr/share/man/man7/printk-shim.7.gz
check "printk-shim-dev ships the headers and the .pc in the multiarch pkgconfig dir" \
	ships "$dev" usr/include/printk-shim/linux/printk.h usr/include/printk-shim/linux/seq_buf.h \
	usr/lib/"$triplet"/pkgconfig/printk-shim.pc
only_lib_ships_module() {
	for deb in "$bin" "$dev"; do
		! dpkg-deb -c "$deb" | grep 'libprintk-shim\.so' || return 1
	done
}
check "the wrapper and -dev packages ship no module" only_lib_ships_module
multiarch_fields() {
	field "$lib" Multi-Arch same &&
		field "$lib" Breaks 'printk-shim (<< 0.1.0-2~)' &&
		field "$lib" Replaces 'printk-shim (<< 0.1.0-2~)' &&
		field "$bin" Multi-Arch foreign &&
		field "$bin" Recommends '' &&
		dpkg-deb -f "$bin" Depends | grep -q "^libprintk-shim (= $version)" &&
		field "$dev" Multi-Arch same &&
		field "$dev" Depends "libprintk-shim (= $version), libprintk-port0 (= $version)" &&
		field "$port" Multi-Arch same
}
check "Multi-Arch: same for the module, the library and -dev, foreign for the wrapper" multiarch_fields

# old_debs DIR: printk-shim and printk-shim-dev 0.1.0-1 in DIR, made from
# the new packages as they were laid out then: the module in printk-shim.
old=0.1.0-1
old_debs() {
	d=$1
	mkdir -p "$d/bin" "$d/dev"
	dpkg-deb -R "$bin" "$d/bin"
	dpkg-deb -x "$lib" "$d/bin"
	rm -rf "$d/bin/usr/share/doc/libprintk-shim"
	dpkg-deb -R "$dev" "$d/dev"
	sed -i -e "s/^Version: .*/Version: $old/" -e '/^Multi-Arch:/d' \
		-e 's/^Depends: libprintk-shim ([^)]*), /Depends: /' "$d/bin/DEBIAN/control"
	sed -i -e "s/^Version: .*/Version: $old/" -e '/^Multi-Arch:/d' \
		-e "s/^Depends: .*/Depends: printk-shim (= $old)/" "$d/dev/DEBIAN/control"
	rm -f "$d/dev/usr/lib/$triplet/libprintk-port.so"	# no libprintk-port then
	for p in bin dev; do
		(cd "$d/$p" && find usr -type f | LC_ALL=C sort | xargs md5sum >DEBIAN/md5sums)
		dpkg-deb --root-owner-group -b "$d/$p" "$d/$p.deb" >/dev/null
	done
}

say "apt-get install printk-shim $old, then the new packages over it"
old_debs "$work/old"
installed=yes
apt_get install -y -qq --no-install-recommends "$work/old/bin.deb" "$work/old/dev.deb" >/dev/null
old_holds_module() {
	owner=$(dpkg -S "/$module") || return 1
	[ "$owner" = "printk-shim: /$module" ] || { echo "$owner"; return 1; }
}
check "printk-shim $old holds the module" old_holds_module
apt_get install -y -qq --no-install-recommends "$lib" "$bin" "$port" "$dev" >"$work/upgrade.log" 2>&1 || {
	sed 's/^/#   /' "$work/upgrade.log"
	not_ok "apt-get upgrades printk-shim $old to libprintk-shim and printk-shim $version"
	exit 1
}
upgraded() {
	for p in "libprintk-shim:$arch" printk-shim "libprintk-port0:$arch" "printk-shim-dev:$arch"; do
		v=$(dpkg-query -W -f '${db:Status-Abbrev}${Version}' "$p") || return 1
		[ "$v" = "ii $version" ] || { echo "$p: $v"; return 1; }
	done
	owner=$(dpkg -S "/$module") || return 1
	[ "$owner" = "libprintk-shim:$arch: /$module" ] || { echo "$owner"; return 1; }
	test -r "/$module"
}
check "apt-get upgrades printk-shim $old to libprintk-shim and printk-shim $version" upgraded

# The fixture, built in the package's own (configured) tree: its printk comes
# from libkcompat.so, the naive compat library.
rm -f "$copy/tests/fixtures/emit"
make -C "$copy" -s tests/fixtures/emit >/dev/null
emit=$copy/tests/fixtures/emit
soh=$(printf '\001')	# KERN_SOH
nl='
'

# run_installed EXPECTED_STDERR ARG...: the installed wrapper, in a clean
# environment, writes exactly EXPECTED_STDERR.
run_installed() {
	want=$1
	shift
	got=$(env -u LD_PRELOAD -u PRINTK_SHIM_LIB /usr/bin/printk-shim "$@" 2>&1 >/dev/null) || return 1
	[ "$got" = "$want" ] || { printf 'got:  %s\nwant: %s\n' "$got" "$want"; return 1; }
}
check "the installed wrapper preloads the installed module: emit prints hello" \
	run_installed hello -- "$emit" "${soh}6hello$nl"
check "a fragmented line comes out whole, with its level" \
	run_installed '<6>foobar' --format=prefix -- "$emit" "${soh}6foo" "bar$nl"
preload_is_multiarch() {
	# shellcheck disable=SC2016 # a literal $LIB, for the dynamic linker
	got=$(env -u LD_PRELOAD /usr/bin/printk-shim -- /bin/sh -c 'printf %s "$LD_PRELOAD"') || return 1
	# shellcheck disable=SC2016
	[ "$got" = '/usr/$LIB/printk-shim/libprintk-shim.so' ] || { echo "LD_PRELOAD=$got"; return 1; }
}
check "the wrapper preloads the module with a literal \$LIB" preload_is_multiarch
lib_is_installed() {
	got=$(/usr/bin/printk-shim --lib) || return 1
	if [ "$got" != "/$module" ] || [ ! -r "$got" ]; then echo "--lib: $got"; return 1; fi
}
check "--lib prints the installed module of this architecture" lib_is_installed

pc_works() {
	got=$(pkg-config --variable=preload printk-shim) || return 1
	if [ "$got" != "/$module" ] || [ ! -r "$got" ]; then echo "preload=$got"; return 1; fi
	# shellcheck disable=SC2046 # pkg-config prints several words
	printf '#include <linux/printk.h>\nint f(void);\nint f(void) { return pr_info("x%%d\\n", 1); }\n' |
		cc $(pkg-config --cflags printk-shim) -Wall -Werror -x c -c -o /dev/null -
}
check "pkg-config finds the headers and the module" pc_works

# A port with no printk of its own, linked as printk-shim(7) THE LIBRARY says.
port_links() {
	d=$(mktemp -d) || return 1
	printf '%s\n' '#include <linux/kernel.h>' \
		'int main(void) { char b[16]; scnprintf(b, sizeof(b), "%pI4", "\177\0\0\1");' \
		'  pr_info("port: "); pr_cont("%s\n", b); return 0; }' >"$d/p.c"
	# shellcheck disable=SC2046 # pkg-config prints several words
	cc $(pkg-config --cflags printk-shim) -Wall -Werror "$d/p.c" -o "$d/p" \
		$(pkg-config --libs printk-shim) || { rm -rf "$d"; return 1; }
	plain=$(env -u LD_PRELOAD "$d/p" 2>&1) &&
		shimmed=$(env -u LD_PRELOAD /usr/bin/printk-shim --format=prefix -- "$d/p" 2>&1)
	rc=$?
	rm -rf "$d"
	if [ "$rc" -ne 0 ] || [ "$plain" != "port: 127.0.0.1" ] ||
		[ "$shimmed" != "<6>port: 127.0.0.1" ]; then
		printf 'plain: %s\nshimmed: %s\n' "$plain" "$shimmed"
		return 1
	fi
}
check "a port links libprintk-port with pkg-config, and runs with and without the module" port_links

man_works() {
	for s in 1 7; do
		man -w "$s" printk-shim || return 1
		warn=$(MANWIDTH=80 man --warnings "$s" printk-shim 2>&1 >/dev/null)
		[ -z "$warn" ] || { echo "$warn"; return 1; }
	done
}
check "man finds and renders both pages without warnings" man_works

say "apt-get remove"
installed=
remove printk-shim-dev printk-shim "libprintk-port0:$arch" "libprintk-shim:$arch"
check "apt-get remove removes the wrapper, the module and the library" \
	sh -c "! test -e /usr/bin/printk-shim && ! test -e /usr/lib/$triplet/printk-shim &&
		! test -e /usr/lib/$triplet/libprintk-port.so.0"
