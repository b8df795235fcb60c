#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Build the Debian packages in a copy of the tree, check them with lintian,
# install them with dpkg -i on this machine, run a fixture through the
# installed wrapper, then remove them again.
#
#   sh debian/ci-test.sh
#
# Needs root and apt-get (it installs the build dependencies and lintian).
# The package is built with the nocheck profile: make check runs on its own
# in CI. The copy is left behind, with its path printed, when a step fails
# or KEEP=1 is set.
# Ends with one line "debian-ci: N passed, N failed".
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
passed=0
failed=0
installed=

say() { printf '== %s\n' "$*"; }
ok() { passed=$((passed + 1)); printf 'ok %d - %s\n' "$((passed + failed))" "$1"; }
not_ok() { failed=$((failed + 1)); printf 'not ok %d - %s\n' "$((passed + failed))" "$1"; }
# check NAME COMMAND...: one test; its output is shown only when it fails.
check() {
	name=$1
	shift
	if out=$("$@" 2>&1); then
		ok "$name"
	else
		not_ok "$name"
		printf '%s\n' "$out" | sed 's/^/#   /'
	fi
}
finish() {
	rc=$?
	if [ -n "$installed" ]; then
		say "removing the packages"
		dpkg -r printk-shim-dev printk-shim >/dev/null || rc=1
	fi
	if [ "$rc" -eq 0 ] && [ "$failed" -eq 0 ] && [ -z "${KEEP:-}" ]; then
		rm -rf "$work"
	else
		echo "left in $work"
	fi
	echo "debian-ci: $passed passed, $failed failed"
	[ "$failed" -eq 0 ] && exit "$rc" || exit 1
}

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
	echo "debian/ci-test.sh: needs root and apt-get (it runs dpkg -i)" >&2
	exit 1
fi
if dpkg-query -W -f '${Status}' printk-shim 2>/dev/null | grep -q ' installed'; then
	echo "debian/ci-test.sh: printk-shim is installed already; remove it first" >&2
	exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/printk-shim-deb.XXXXXX")
trap finish EXIT
copy=$work/printk-shim

say "copying the tree to $copy"
mkdir "$copy"
if [ -d "$src/.git" ] && command -v git >/dev/null; then
	# What git knows or would add (no output of an in-tree build), less
	# what is deleted.
	# shellcheck disable=SC2016 # $f is the inner sh's
	git -C "$src" ls-files -z --cached --others --exclude-standard |
		(cd "$src" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
		(cd "$src" && xargs -0 cp --parents -t "$copy")
else
	(cd "$src" && tar --exclude=./.git -cf - .) | tar -C "$copy" -xf -
	[ ! -f "$copy/Makefile" ] || make -C "$copy" distclean >/dev/null
fi

say "installing the build dependencies"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends build-essential lintian man-db >/dev/null
(cd "$copy" && apt-get build-dep -y -qq -P nocheck ./ >/dev/null)

say "dpkg-buildpackage -us -uc -b (nocheck)"
(cd "$copy" &&
	DEB_BUILD_OPTIONS="nocheck parallel=$(nproc) ${DEB_BUILD_OPTIONS:-}" \
	dpkg-buildpackage -us -uc -b --build-profiles=nocheck >"$work/build.log" 2>&1) || {
	tail -n 40 "$work/build.log"
	not_ok "dpkg-buildpackage builds printk-shim and printk-shim-dev"
	exit 1
}
ok "dpkg-buildpackage builds printk-shim and printk-shim-dev"

arch=$(dpkg-architecture -qDEB_HOST_ARCH)
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
version=$(cd "$copy" && dpkg-parsechangelog -S Version)
bin=$work/printk-shim_${version}_$arch.deb
dev=$work/printk-shim-dev_${version}_$arch.deb

say "lintian"
lintian --fail-on error --display-info "$work/printk-shim_${version}_$arch.changes" \
	>"$work/lintian.log" 2>&1 && lint=0 || lint=1
grep -v 'running with root privileges' "$work/lintian.log" | sed 's/^/  /' || true
if [ "$lint" -eq 0 ]; then ok "lintian finds no error"; else not_ok "lintian finds no error"; fi

# ships DEB FILE...: the package holds each FILE.
ships() {
	deb=$1
	shift
	list=$(dpkg-deb -c "$deb") || return 1
	for f; do
		printf '%s\n' "$list" | grep -q " \./$f\$" || { echo "${deb##*/} lacks $f"; return 1; }
	done
}
check "printk-shim ships the wrapper, the module in the multiarch libdir and the man pages" \
	ships "$bin" usr/bin/printk-shim usr/lib/"$triplet"/printk-shim/libprintk-shim.so \
	usr/share/man/man1/printk-shim.1.gz usr/share/man/man7/printk-shim.7.gz
check "printk-shim-dev ships the headers and the .pc in the multiarch pkgconfig dir" \
	ships "$dev" usr/include/printk-shim/linux/printk.h usr/include/printk-shim/linux/seq_buf.h \
	usr/lib/"$triplet"/pkgconfig/printk-shim.pc

say "dpkg -i"
installed=yes
dpkg -i "$bin" "$dev" >/dev/null

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
lib_is_multiarch() {
	got=$(/usr/bin/printk-shim --lib) || return 1
	# shellcheck disable=SC2016 # a literal $LIB, for the dynamic linker
	[ "$got" = '/usr/$LIB/printk-shim/libprintk-shim.so' ] || { echo "--lib: $got"; return 1; }
}
check "--lib names the module with a literal \$LIB" lib_is_multiarch
check "the installed module is where \$LIB points for this architecture" \
	test -r "/usr/lib/$triplet/printk-shim/libprintk-shim.so"

pc_works() {
	got=$(pkg-config --variable=preload printk-shim) || return 1
	[ "$got" = "/usr/lib/$triplet/printk-shim/libprintk-shim.so" ] || { echo "preload=$got"; return 1; }
	# shellcheck disable=SC2046 # pkg-config prints several words
	printf '#include <linux/printk.h>\nint f(void);\nint f(void) { return pr_info("x%%d\\n", 1); }\n' |
		cc $(pkg-config --cflags printk-shim) -Wall -Werror -x c -c -o /dev/null -
}
check "pkg-config finds the headers and the module" pc_works

man_works() {
	for s in 1 7; do
		man -w "$s" printk-shim || return 1
		warn=$(MANWIDTH=80 man --warnings "$s" printk-shim 2>&1 >/dev/null)
		[ -z "$warn" ] || { echo "$warn"; return 1; }
	done
}
check "man finds and renders both pages without warnings" man_works

say "dpkg -r"
installed=
dpkg -r printk-shim-dev printk-shim >/dev/null
check "dpkg -r removes the wrapper and the module" \
	sh -c "! test -e /usr/bin/printk-shim && ! test -e /usr/lib/$triplet/printk-shim"
