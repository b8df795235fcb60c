# SPDX-License-Identifier: MIT
# Loaded by every Bats suite: paths, a clean environment, and `shim`, which
# runs a command with the module preloaded. Fixtures get printk from
# libkcompat.so, the naive compat library, as a port would.

bats_require_minimum_version 1.5.0

: "${abs_top_builddir:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
: "${abs_top_srcdir:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
FIX=$abs_top_builddir/tests/fixtures
MODULE=$abs_top_builddir/shim/.libs/libprintk-shim.so
WRAPPER=$abs_top_builddir/printk-shim
export FIX MODULE WRAPPER

# Every test starts with no PRINTK_SHIM_* variable and no colour from outside.
for v in ${!PRINTK_SHIM_@}; do unset "$v"; done
unset JOURNAL_STREAM NO_COLOR LD_PRELOAD

shim() {
	env LD_PRELOAD="$MODULE" "$@"
}

# emit with the shim: `pemit ARG...` (see tests/fixtures/emit.c)
pemit() {
	shim "$FIX/emit" "$@"
}

# Fail with both byte strings shown, escaped, when they differ.
assert_bytes() {
	local got=$1 want=$2
	if [[ "$got" != "$want" ]]; then
		printf 'got:  %q\nwant: %q\n' "$got" "$want" >&2
		return 1
	fi
}

# capture CMD...: run it; stdout to $OUT, stderr to $ERR (files, every byte
# kept, the last newline too), exit status to $status. Never fails itself.
capture() {
	OUT=$BATS_TEST_TMPDIR/out
	ERR=$BATS_TEST_TMPDIR/err
	status=0
	# A simple command, not a function, so that the shell's own "Segmentation
	# fault" report goes to the outer stderr, not into $ERR.
	case $1 in
	shim) shift; set -- env LD_PRELOAD="$MODULE" "$@" ;;
	pemit) shift; set -- env LD_PRELOAD="$MODULE" "$FIX/emit" "$@" ;;
	esac
	{ "$@" >"$OUT" 2>"$ERR" </dev/null; } 2>/dev/null || status=$?
}

# file_is FILE BYTES: the file holds exactly BYTES.
file_is() {
	if ! cmp -s "$1" <(printf '%s' "$2"); then
		printf 'in %s\ngot:  %q\nwant: %q\n' "$1" "$(cat "$1"; printf .)" "$2." >&2
		return 1
	fi
}

err_is() { file_is "$ERR" "$1"; }
out_is() { file_is "$OUT" "$1"; }

# shrink OPTION FILE: printk-shim OPTION FILE run under gdb, which stops it as
# soon as the file is open (pks_elf_open) and cuts the file to 4096 bytes;
# the SIGBUS of its reads past the new end passed on to it. Its output in
# $OUT and $ERR, its exit status in $status (none: it died of a signal),
# gdb's own words in $BATS_TEST_TMPDIR/gdb.
shrink() {
	cut_at "$1 $2" "$2" -ex finish
}

# shrink_mapped OPTION FILE NEXT: shrink(), but FILE is cut as soon as it is
# mapped, so that pks_elf_open() reads its headers past the new end and
# refuses it; NEXT, another file, is then read whole.
shrink_mapped() {
	cut_at "$1 $2 $3" "$2" -ex 'break mmap' -ex continue -ex finish
}

# cut_at ARGS FILE GDB-ARG...: the wrapper run under gdb with ARGS, stopped
# at pks_elf_open() and then where GDB-ARG... say, FILE cut to 4096 bytes
# there; shrink()'s results.
cut_at() {
	local log=$BATS_TEST_TMPDIR/gdb code args=$1 file=$2

	shift 2
	OUT=$BATS_TEST_TMPDIR/out ERR=$BATS_TEST_TMPDIR/err
	timeout 60 gdb -q -batch -ex 'handle SIGBUS nostop noprint pass' \
		-ex "set args $args >$OUT 2>$ERR" -ex 'break pks_elf_open' -ex run "$@" \
		-ex "shell truncate -s 4096 $file" -ex delete -ex continue "$WRAPPER" >"$log" 2>&1
	code=$(sed -n 's/.*exited with code \([0-7]*\)\]$/\1/p; s/.*exited normally\]$/0/p' "$log")
	status=${code:+$((8#$code))}
}

# no_sections FILE OUT: a copy of 64-bit FILE at OUT without section headers,
# as sstrip leaves one (e_shoff, e_shnum and e_shstrndx zero).
no_sections() {
	cp "$1" "$2"
	printf '\0\0\0\0\0\0\0\0' | dd of="$2" bs=1 seek=40 conv=notrunc status=none
	printf '\0\0\0\0' | dd of="$2" bs=1 seek=60 conv=notrunc status=none
}
