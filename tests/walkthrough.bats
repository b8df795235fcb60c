#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# PORTING.md, run: its files are written out (```c NAME blocks), and each
# "$ command" of its ```console blocks is run, in order, against the copy
# make install DESTDIR=... puts in place, its output (stdout and stderr)
# compared with the lines under it. What changes from run to run (CPU,
# PID, the offsets of %pB) and the C library's frames below main are
# evened out first.

load helper

DOC=$abs_top_srcdir/PORTING.md

# even FILE: FILE with what differs between runs and systems evened out.
even() {
	sed -E -e 's/CPU: [0-9]+ PID: [0-9]+/CPU: N PID: N/' \
		-e 's/\+0x[0-9a-f]+\/0x[0-9a-f]+/+X/g' \
		-e '/^(<[0-9]>)? (0x[0-9a-f]+|__libc_start_main\+.*|_start\+.*)$/d' "$1"
}

setup() {
	T=$BATS_TEST_TMPDIR
	local root=$T/root pc
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS ${MAKE:-make} -s -C "$abs_top_builddir" \
		install DESTDIR="$root" >/dev/null
	pc=$(find "$root" -name printk-shim.pc)
	export PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR=${pc%/*} PKG_CONFIG_SYSROOT_DIR=$root
	export PATH=$root$(pkg-config --variable=prefix printk-shim | sed "s|^$root||")/bin:$PATH
	export LD_LIBRARY_PATH=$(pkg-config --variable=libdir printk-shim)
	export PRINTK_SHIM_LIB=$root$(pkg-config --variable=preload printk-shim | sed "s|^$root||")
	# The page's "cc" is $CC, with the sanitizers of a sanitizer build, which
	# its library needs in the program too.
	mkdir "$T/work" "$T/bin"
	printf '#!/bin/sh\nexec %s %s %s "$@"\n' "${CC:-cc}" "${SAN_CFLAGS:-}" "${SAN_LDFLAGS:-}" >"$T/bin/cc"
	chmod +x "$T/bin/cc"
	export PATH=$T/bin:$PATH
	awk -v dir="$T/work" -v out="$T/steps" '
		/^```c / { file = dir "/" $2; inc = 1; printf "" >file; next }
		/^```console$/ { incons = 1; next }
		/^```$/ { if (inc) close(file); inc = incons = 0; next }
		inc { print >file; next }
		incons && /^\$ / { n++; print substr($0, 3) >(out "." n ".cmd"); printf "" >(out "." n ".want"); next }
		incons { print >>(out "." n ".want") }
		END { print n >(out ".n") }' "$DOC"
}

@test "walkthrough: PORTING.md's commands print what it shows, through pkg-config and the installed copy" {
	local n i bad=0
	n=$(cat "$T/steps.n")
	[ "$n" -ge 7 ]
	[ -s "$T/work/acme.c" ]
	cd "$T/work"
	for ((i = 1; i <= n; i++)); do
		bash -c "$(cat "$T/steps.$i.cmd")" >"$T/got.$i" 2>&1 || true
		if ! cmp -s <(even "$T/steps.$i.want") <(even "$T/got.$i"); then
			echo "step $i: \$ $(cat "$T/steps.$i.cmd")"
			diff <(even "$T/steps.$i.want") <(even "$T/got.$i") || true
			bad=1
		fi
	done
	[ "$bad" -eq 0 ]
}
