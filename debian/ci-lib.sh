# SPDX-License-Identifier: MIT
# shellcheck shell=sh
#
# What the Debian CI scripts (debian/ci-test.sh, debian/ci-multiarch.sh)
# share; sourced, not run. Checks are counted in $passed and $failed and
# printed TAP-style; a check's output is shown only when it fails.

passed=0
failed=0
t0=$(date +%s)

# say WHAT: a step, with the seconds since the script started.
say() { printf '== %s (%d s)\n' "$*" "$(($(date +%s) - t0))"; }
ok() { passed=$((passed + 1)); printf 'ok %d - %s\n' "$((passed + failed))" "$1"; }
not_ok() { failed=$((failed + 1)); printf 'not ok %d - %s\n' "$((passed + failed))" "$1"; }
# check NAME COMMAND...: one test.
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

# apt_get ARG...: apt-get without questions, waiting for another apt's
# lock, trying a failed update again.
# shellcheck source=tests/apt.sh
. "$src/tests/apt.sh"

# remove PACKAGE...: apt-get remove, which waits for the lock like
# apt_get; dpkg -r where apt-get refuses (a half-installed package).
remove() {
	apt_get remove -y -qq "$@" >/dev/null 2>&1 || dpkg -r "$@" >/dev/null
}

# conclude NAME RC: the work directory removed (or kept, and said where),
# the counts printed, and the exit: 1 when a check failed, else RC.
conclude() {
	if [ "$2" -eq 0 ] && [ "$failed" -eq 0 ] && [ -z "${KEEP:-}" ]; then
		rm -rf "$work"
	else
		echo "left in $work"
	fi
	echo "$1: $passed passed, $failed failed ($(($(date +%s) - t0)) s)"
	[ "$failed" -eq 0 ] && exit "$2" || exit 1
}

# preflight SCRIPT: root and apt-get, and none of the packages installed
# yet (the scripts install and remove them); exits 1 with a reason if not.
preflight() {
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
		echo "$1: needs root and apt-get (it installs the packages)" >&2
		exit 1
	fi
	for p in printk-shim-dev printk-shim libprintk-shim; do
		if dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null | grep -q ' installed'; then
			echo "$1: $p is installed already; remove it first" >&2
			exit 1
		fi
	done
}

# copy_tree SRC DEST: the source tree without the output of an in-tree
# build: what git knows or would add, less what is deleted; or, without
# git, everything but .git, distcleaned.
copy_tree() {
	mkdir "$2"
	if [ -e "$1/.git" ] && command -v git >/dev/null; then
		# shellcheck disable=SC2016 # $f is the inner sh's
		git -C "$1" ls-files -z --cached --others --exclude-standard |
			(cd "$1" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
			(cd "$1" && xargs -0 cp --parents -t "$2")
	else
		(cd "$1" && tar --exclude=./.git -cf - .) | tar -C "$2" -xf -
		[ ! -f "$2/Makefile" ] || make -C "$2" distclean >/dev/null
	fi
}

# ships DEB FILE...: the package holds each FILE.
ships() {
	deb=$1
	shift
	list=$(dpkg-deb -c "$deb") || return 1
	for f; do
		printf '%s\n' "$list" | grep -q " \./$f\$" || { echo "${deb##*/} lacks $f"; return 1; }
	done
}

# field DEB NAME VALUE: the control field NAME of DEB is VALUE ("" for none).
field() {
	got=$(dpkg-deb -f "$1" "$2") || return 1
	[ "$got" = "$3" ] || { echo "${1##*/}: $2 is '$got', not '$3'"; return 1; }
}

# elf_class FILE: 32 or 64, from the ELF header's class byte.
elf_class() {
	case $(od -An -tx1 -j4 -N1 "$1" | tr -d ' ') in
	01) echo 32 ;;
	02) echo 64 ;;
	*) echo "not ELF: $1" >&2; return 1 ;;
	esac
}
