#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The libFuzzer targets of tests/fuzz/, built with clang straight from the
# sources they test (not from the build's objects: they need
# -fsanitize=fuzzer). Called by make:
#
#   make fuzz-build                  build them into tests/fuzz/bin
#   make fuzz [FUZZ_SECONDS=60]      build, then run each for FUZZ_SECONDS
#
# Each run starts from the seed corpus in the source tree
# (tests/fuzz/corpus/TARGET) and keeps what it finds in tests/fuzz/work.
# Targets run side by side, as many at a time as there are CPUs.
# Without a clang that links libFuzzer, it says so and does nothing.
# shellcheck disable=SC2317 # compile and run are called through side()
set -eu

b=${abs_top_builddir:?}
s=${abs_top_srcdir:?}
CLANG=${CLANG:-clang}
what=${1:-run}
bin=$b/tests/fuzz/bin
work=$b/tests/fuzz/work
logs=$b/tests/fuzz/logs
TARGETS="assembly format confparse elf"

mkdir -p "$bin" "$work" "$logs"
probe='int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }'
if ! echo "$probe" | "$CLANG" -fsanitize=fuzzer,address,undefined -x c - -o "$bin/probe" 2>/dev/null; then
	echo "fuzz: $CLANG cannot build libFuzzer targets (Debian: clang, libclang-rt-14-dev); skipped"
	exit 0
fi
rm -f "$bin/probe"

sources() {
	case $1 in
	assembly) echo "$s/shim/core/level.c $s/shim/core/cont.c $s/shim/core/linebuf.c" ;;
	format) echo "$s"/shim/format/*.c "$s/shim/elf/name.c $s/shim/elf/elf.c $s/shim/elf/loaded.c $s/shim/base/fdturn.c" ;;
	confparse) echo "$s/shim/config/vars.c $s/shim/core/level.c $s/shim/core/cont.c $s/shim/core/ddquery.c" ;;
	elf) echo "$s/shim/elf/elf.c $s/shim/elf/calls.c $s/shim/core/level.c $s/shim/base/fdturn.c" ;;
	esac
}

# The longest input: an ELF file's seeds are small programs.
max_len() {
	case $1 in
	elf) echo 65536 ;;
	*) echo 2048 ;;
	esac
}

cpus=$(nproc 2>/dev/null || echo 1)

# side CMD...: run CMD in the background, at most $cpus at a time; settle
# waits for the rest. A failure of any sets $failed.
failed=0
pids=
side() {
	"$@" &
	pids="$pids $!"
	# shellcheck disable=SC2086
	[ "$(echo $pids | wc -w)" -lt "$cpus" ] || settle
}
settle() {
	for p in $pids; do wait "$p" || failed=1; done
	pids=
}

compile() {
	# shellcheck disable=SC2046
	"$CLANG" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-fno-omit-frame-pointer -D_GNU_SOURCE -DPACKAGE_VERSION='"fuzz"' \
		-I"$s/include" -I"$s/shim" -I"$b" \
		"$s/tests/fuzz/fuzz-$1.c" $(sources "$1") -o "$bin/fuzz-$1"
}

# The targets build side by side too.
for t in $TARGETS; do side compile "$t"; done
settle
[ $failed -eq 0 ] || { echo "fuzz: a target did not build" >&2; exit 1; }
[ "$what" = build ] && exit 0

# run TARGET: fuzz it for FUZZ_SECONDS, then print one line of its figures
# (and where it failed). Targets run side by side, as many as there are CPUs,
# each single-threaded: every target gets its seconds of a whole CPU.
run() {
	t=$1
	mkdir -p "$work/$t"
	dict=
	[ -f "$s/tests/fuzz/$t.dict" ] && dict="-dict=$s/tests/fuzz/$t.dict"
	st=0
	# shellcheck disable=SC2086
	"$bin/fuzz-$t" -max_total_time="${FUZZ_SECONDS:-60}" -timeout=10 -rss_limit_mb=2048 \
		-max_len="$(max_len $t)" -print_final_stats=1 -artifact_prefix="$logs/$t-" $dict \
		"$work/$t" "$s/tests/fuzz/corpus/$t" >"$logs/$t.log" 2>&1 || st=$?
	awk -v t="$t" -v st="$st" -v corpus="$(ls "$work/$t" | wc -l)" '
		/^stat::number_of_executed_units/ { runs = $2 }
		/^stat::average_exec_per_sec/ { eps = $2 }
		END { printf "fuzz-%s: %d runs, %d exec/s, %d new inputs kept, %s\n", t, runs, eps, corpus,
			st ? "FAILED (status " st ")" : "no crash" }' "$logs/$t.log" >"$logs/$t.sum"
	if [ $st -ne 0 ]; then
		grep -m1 -A30 'ERROR\|==ERROR\|fuzz-' "$logs/$t.log" | head -40 >>"$logs/$t.sum"
		ls "$logs/$t-"* >>"$logs/$t.sum" 2>/dev/null || true
	fi
	return $st
}

for t in $TARGETS; do side run "$t"; done
settle
for t in $TARGETS; do cat "$logs/$t.sum"; done
exit $failed
